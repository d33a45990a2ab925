"""The bundled demo: the "Acme CRM" site and its tiny local server, the bundle the entry points hand the runtime
(bundle.py), and the demo routine. Only the entry points import it (tests/test_layers.py)."""

from app.demo.site import DemoSite

__all__ = ["DemoSite"]
