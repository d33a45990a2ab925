"""The API key: environment variables first, then the OS keyring. Never written to a file or a log."""

from __future__ import annotations

import logging
import os

log = logging.getLogger(__name__)

SERVICE = "page-agent-desktop"
ENV_KEYS = ("PAGE_AGENT_API_KEY", "OPENAI_API_KEY")


class KeyringUnavailable(Exception):
    """No usable OS keyring: the key cannot be stored safely."""


def _account(provider: str) -> str:
    return f"api-key:{provider}"


def env_api_key(env_var: str | None = None) -> str | None:
    names = (env_var,) if env_var else ENV_KEYS
    return next((os.environ[name] for name in names if os.environ.get(name)), None)


def get_api_key(provider: str) -> str | None:
    """The key for ``provider``: an environment variable overrides the keyring."""
    from_env = env_api_key()
    if from_env:
        return from_env
    import keyring
    from keyring.errors import KeyringError

    try:
        return keyring.get_password(SERVICE, _account(provider))
    except (KeyringError, RuntimeError) as exc:
        log.warning("could not read the keyring: %s", type(exc).__name__)
        return None


def set_api_key(provider: str, key: str) -> None:
    _store(_account(provider), key, "the API key",
           "or set OPENAI_API_KEY in the environment instead")


def _secret_account(name: str) -> str:
    return f"secret:{name}"


def get_secret(name: str) -> str | None:
    """A named secret's value from the keyring (None when it is not there or the keyring cannot be read)."""
    import keyring
    from keyring.errors import KeyringError

    try:
        return keyring.get_password(SERVICE, _secret_account(name))
    except (KeyringError, RuntimeError) as exc:
        log.warning("could not read the keyring: %s", type(exc).__name__)
        return None


def set_secret(name: str, value: str) -> None:
    """Store (or, with an empty value, delete) a named secret; KeyringUnavailable when there is no keyring."""
    _store(_secret_account(name), value, f'the secret "{name}"',
           "or give it as PAGE_AGENT_SECRET_<NAME> in the environment instead")


def _store(account: str, value: str, what: str, alternative: str) -> None:
    import keyring
    from keyring.errors import KeyringError, PasswordDeleteError

    try:
        if value:
            keyring.set_password(SERVICE, account, value)
        else:
            try:
                keyring.delete_password(SERVICE, account)
            except PasswordDeleteError:
                pass
    except (KeyringError, RuntimeError) as exc:
        raise KeyringUnavailable(
            f"No system keyring is available to store {what} safely. Install and unlock one "
            f"(e.g. GNOME Keyring or KWallet), {alternative}."
        ) from exc
