"""Builds one agent's Guardrails from the saved settings and the command line (the composition root's part)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from pydantic import SecretStr

from app.core.abort import AbortSignal
from app.core.safety.guardrails import Guardrails
from app.core.safety.navigation import NavigationPolicy
from app.core.safety.risky import ConfirmHandler, ConfirmRequest
from app.core.safety.secrets import Secret, SecretVault, check_secret
from app.demo.site import DEMO_HOST, DEMO_PASSWORD, DEMO_SECRET
from app.settings.model import Settings
from app.settings.paths import AppPaths
from app.settings.secrets import SecretsSourceError, env_secrets, get_secret, read_secrets_file

if TYPE_CHECKING:
    from app.runtime import RuntimeOptions

log = logging.getLogger(__name__)


def build_guardrails(settings: Settings, paths: AppPaths, options: RuntimeOptions,
                     confirm: ConfirmHandler | None) -> Guardrails:
    """Command-line options beat the saved settings. Reads files and the keyring: call it off the event loop."""
    domains = options.allowed_domains if options.allowed_domains is not None else settings.allowed_domains
    secrets = load_secrets(settings, options)
    if options.demo:
        secrets = [s for s in secrets if s.name != DEMO_SECRET]
        secrets.append(Secret(DEMO_SECRET, SecretStr(DEMO_PASSWORD), (DEMO_HOST,)))
    vault = SecretVault(secrets)
    return Guardrails(
        navigation=NavigationPolicy(allowed_domains=tuple(domains)),
        secrets=vault,
        confirm=_masking(confirm, vault),
        ask_before_irreversible=settings.ask_before_irreversible,
    )


def _masking(confirm: ConfirmHandler | None, vault: SecretVault) -> ConfirmHandler | None:
    """The person is asked without a secret in the question (a page's dialog may quote a typed value)."""
    if confirm is None:
        return None

    async def ask(request: ConfirmRequest, signal: AbortSignal) -> bool:
        return await confirm(vault.mask_model(request), signal)

    return ask


def load_secrets(settings: Settings, options: RuntimeOptions) -> list[Secret]:
    """Every named secret the agent may type. SecretsSourceError (plain words, no value) for a bad source.

    A value comes from the --secrets-file, else PAGE_AGENT_SECRET_<NAME>, else the keyring (Settings → Secrets). Its
    sites come from the file's entry when it names some, else from the Settings entry of that name, else any site:
    a value from the file or the environment that names no sites keeps the limit set in Settings.
    """
    from_file = read_secrets_file(options.secrets_file) if options.secrets_file is not None else {}
    from_env = env_secrets()
    saved: dict[str, tuple[str, ...]] = {}
    for entry in settings.secrets:
        try:
            check_secret(entry.name, "")
        except ValueError as exc:
            log.warning("a saved secret was skipped: %s", exc)
            continue
        saved[entry.name] = tuple(entry.domains)
    secrets: list[Secret] = []
    for name in sorted(set(from_file) | set(from_env) | set(saved)):
        given = from_file.get(name)
        if given is not None:
            value = given.value.get_secret_value()
        elif name in from_env:
            value = from_env[name]
        else:
            # None: not in the keyring (or no keyring); typing it then says so in plain words.
            value = get_secret(name) or ""
            try:
                check_secret(name, value)
            except ValueError as exc:
                raise SecretsSourceError(f"Settings → Secrets: {exc}") from None
        domains = tuple(given.domains) if given is not None and given.domains else saved.get(name, ())
        secrets.append(Secret(name, SecretStr(value), domains))
    return secrets
