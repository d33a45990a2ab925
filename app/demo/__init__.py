"""The bundled "Acme CRM" demo site and the tiny local server that hosts it."""

from app.demo.site import DemoSite

__all__ = ["DemoSite"]
