"""Builds one agent's Guardrails from the saved settings and the command line (the composition root's part)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.safety.guardrails import Guardrails
from app.core.safety.navigation import NavigationPolicy
from app.core.safety.risky import ConfirmHandler
from app.settings.model import Settings
from app.settings.paths import AppPaths

if TYPE_CHECKING:
    from app.runtime import RuntimeOptions


def build_guardrails(settings: Settings, paths: AppPaths, options: RuntimeOptions,
                     confirm: ConfirmHandler | None) -> Guardrails:
    """Command-line options beat the saved settings."""
    domains = options.allowed_domains if options.allowed_domains is not None else settings.allowed_domains
    return Guardrails(
        navigation=NavigationPolicy(allowed_domains=tuple(domains)),
        confirm=confirm,
        ask_before_irreversible=settings.ask_before_irreversible,
    )
