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
    return Guardrails(
        navigation=navigation_policy(settings, options),
        confirm=confirm,
        ask_before_irreversible=settings.ask_before_irreversible,
    )


def navigation_policy(settings: Settings, options: RuntimeOptions) -> NavigationPolicy:
    """The allowed sites: the command line's, else the saved ones. ValueError names a bad one and where it is.

    The bundled demo replays a recording on its own local site, so the allowed sites do not apply to it.
    """
    if options.demo:
        return NavigationPolicy()
    from_cli = options.allowed_domains is not None
    domains = options.allowed_domains if options.allowed_domains is not None else settings.allowed_domains
    try:
        return NavigationPolicy(allowed_domains=tuple(domains))
    except ValueError as exc:
        where = "--allowed-domains" if from_cli else "Settings, Only these sites"
        raise ValueError(f"{where}: {exc}") from exc


def check_navigation(settings: Settings, options: RuntimeOptions, url: str | None) -> None:
    """Before Chromium starts: the allowed sites are valid, and the page the user asked to open first is one of
    them. The user's own start page is held to the user's own list too: opening it anyway would hand the agent a
    site the user said it may not use, and blocking it silently would leave the user wondering."""
    policy = navigation_policy(settings, options)
    if url:
        check_start_page(policy, url, "--url")


def check_start_page(policy: NavigationPolicy, url: str, what: str) -> None:
    """ValueError, in plain words, when ``url`` (the user's start page, named ``what``) may not be opened."""
    from app.browser.actions import normalize_url  # Playwright: only once a page is about to open

    target = normalize_url(url)
    reason = policy.check(target)
    if reason is not None:
        raise ValueError(f"{what} {target} cannot be opened: {reason}")
