"""The API key and named secrets: environment variables (and, for secrets, a private file) first, then the OS keyring.
Never written to a file or a log."""

from __future__ import annotations

import json
import logging
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, SecretStr

from app.core.safety.navigation import parse_domains
from app.core.safety.secrets import check_secret

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
    return env_api_key() or _read(_account(provider))


def missing_key_problem(base_url: str, key_env: str | None = None) -> str:
    """What a command line says when no key was found for an endpoint that needs one, in plain words: where a key
    goes (``key_env`` is the variable --api-key-env named)."""
    if key_env:
        return f"No API key for the model at {base_url}: the environment variable {key_env} (--api-key-env) is empty."
    return (
        f"No API key for the model at {base_url}. Set OPENAI_API_KEY (or PAGE_AGENT_API_KEY) in the environment, name "
        "another variable with --api-key-env VAR, or save the key in the app's Settings. A model on this computer "
        "(Ollama, LM Studio) needs none."
    )


def set_api_key(provider: str, key: str) -> None:
    _store(_account(provider), key, "the API key", "or set OPENAI_API_KEY in the environment instead")


def _secret_account(name: str) -> str:
    return f"secret:{name}"


# Values that no keyring could keep, for as long as the app runs: never written anywhere, never put in the environment
# (every process the app starts would inherit it).
_SESSION: dict[str, str] = {}


def get_secret(name: str) -> str | None:
    """A named secret's value from the keyring, else as kept for this session (None when neither has it)."""
    return _read(_secret_account(name)) or _SESSION.get(name)


def kept_for_session(name: str) -> bool:
    return name in _SESSION


def keep_for_session(name: str, value: str) -> None:
    """Keep a secret's value in memory until the app quits (no keyring could store it); empty forgets it."""
    if value:
        _SESSION[name] = value
    else:
        _SESSION.pop(name, None)


def keyring_available() -> bool:
    """Whether a system keyring is there to keep keys and secrets: one that answers a read (slow to answer the first
    time: off the loop)."""
    import keyring
    from keyring.backends import fail
    from keyring.errors import KeyringError

    if isinstance(keyring.get_keyring(), fail.Keyring):
        return False
    try:
        keyring.get_password(SERVICE, _account("-"))
    except (KeyringError, RuntimeError):
        return False
    return True


def _read(account: str) -> str | None:
    import keyring
    from keyring.errors import KeyringError

    try:
        return keyring.get_password(SERVICE, account)
    except (KeyringError, RuntimeError) as exc:
        log.warning("could not read the keyring: %s", type(exc).__name__)
        return None


def set_secret(name: str, value: str) -> None:
    """Store (or, with an empty value, delete) a named secret; KeyringUnavailable when there is no keyring."""
    _store(
        _secret_account(name),
        value,
        f'the secret "{name}"',
        "or give it as PAGE_AGENT_SECRET_<NAME> in the environment instead",
    )


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


NOTIFY_ENV = "PAGE_AGENT_NOTIFY_URL"
_NOTIFY_ACCOUNT = "notify-url"


def get_notify_url() -> str:
    """Where a routine's "your turn" goes besides this desktop (an apprise address): PAGE_AGENT_NOTIFY_URL, else
    the keyring's ("" when neither has one). It often holds a token: never in the settings file."""
    return os.environ.get(NOTIFY_ENV) or _read(_NOTIFY_ACCOUNT) or _SESSION.get(_NOTIFY_ACCOUNT, "")


def set_notify_url(url: str) -> None:
    """Keep (or, empty, forget) the address in the keyring; without one, until the app quits."""
    try:
        _store(_NOTIFY_ACCOUNT, url, "the notification address", f"or give it as {NOTIFY_ENV} instead")
    except KeyringUnavailable:
        if url:
            _SESSION[_NOTIFY_ACCOUNT] = url
    if not url:
        _SESSION.pop(_NOTIFY_ACCOUNT, None)


def get_database_password(database: str) -> str:
    """A KeePassXC database's password: PAGE_AGENT_KEEPASSXC_PASSWORD, else the keyring's for that file ("" when
    neither has one). Read at the moment of typing, off the loop."""
    return os.environ.get(KEEPASSXC_PASSWORD_ENV) or _read(_database_account(database)) or ""


def set_database_password(database: str, password: str) -> None:
    """Keep a KeePassXC database's password in the keyring (Settings → Secrets, with a keepassxc:// reference)."""
    _store(
        _database_account(database),
        password,
        "the KeePassXC database's password",
        f"or give it as {KEEPASSXC_PASSWORD_ENV} in the environment instead",
    )


def _database_account(database: str) -> str:
    return f"keepassxc:{database}"


# --- named secrets from outside the keyring: the CLI's --secrets-file, PAGE_AGENT_SECRET_<NAME> and
# PAGE_AGENT_TOTP_<NAME> ----------------------------------------------------------------------------------------

SECRET_ENV_PREFIX = "PAGE_AGENT_SECRET_"
TOTP_ENV_PREFIX = "PAGE_AGENT_TOTP_"
KEEPASSXC_PASSWORD_ENV = "PAGE_AGENT_KEEPASSXC_PASSWORD"


class SecretsSourceError(ValueError):
    """A secrets file or variable that cannot be used; the message says what to fix, and never holds a value."""


class GivenSecret(BaseModel):
    """A secret's value from a file or the environment; ``domains`` None: the file named none. ``one_time_code``: the
    value is a setup key (or an otpauth:// link) whose codes are typed, never the value itself."""

    value: SecretStr
    domains: list[str] | None = None
    one_time_code: bool = False


def read_secrets_file(path: Path) -> dict[str, GivenSecret]:
    """The secrets in ``path``: a JSON object of name -> value, or name -> {"value": ..., "domains": [...]}, or
    name -> {"totp": setup key or otpauth:// link, "domains": [...]}.

    Refused (SecretsSourceError) when other users could read it, or it is missing or malformed.
    """
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise SecretsSourceError(f"The secrets file {path} does not exist.") from None
    except OSError as exc:
        raise SecretsSourceError(f"The secrets file {path} cannot be read: {exc.strerror}.") from None
    if not stat.S_ISREG(mode):
        raise SecretsSourceError(f"The secrets file {path} is not a file.")
    if os.name == "posix" and mode & 0o077:
        raise SecretsSourceError(
            f"The secrets file {path} can be read by other users (its mode is {stat.S_IMODE(mode):04o}), so it was "
            f"not used. Make it private with: chmod 600 {path}"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SecretsSourceError(f"The secrets file {path} cannot be read: {exc.strerror}.") from None
    except ValueError as exc:
        # The decoder's position only, never its excerpt of the text: that could be a value.
        where = f" (line {exc.lineno}, column {exc.colno})" if isinstance(exc, json.JSONDecodeError) else ""
        raise SecretsSourceError(f"The secrets file {path} is not valid JSON{where}.") from None
    if not isinstance(data, dict):
        raise SecretsSourceError(
            f'The secrets file {path} must hold one JSON object of name → value, like {{"crm_password": "…"}}.'
        )
    return {name: _given(path, name, entry) for name, entry in data.items()}


def _given(path: Path, name: str, entry: Any) -> GivenSecret:
    shape = (
        f'In the secrets file {path}, "{name[:40]}" must be a text value, or an object like '
        '{"value": "…", "domains": ["example.com"]} or {"totp": "setup key", "domains": ["example.com"]}.'
    )
    kind = next((key for key in ("value", "totp") if isinstance(entry, dict) and key in entry), "value")
    if isinstance(entry, str):
        value, domains = entry, None
    elif isinstance(entry, dict) and isinstance(entry.get(kind), str) and set(entry) <= {kind, "domains"}:
        value, domains = entry[kind], entry.get("domains")
        if domains is not None and not (isinstance(domains, list) and all(isinstance(d, str) for d in domains)):
            raise SecretsSourceError(shape)
    else:
        raise SecretsSourceError(shape)
    _check(name, value, f"In the secrets file {path}: ")
    if not value:
        raise SecretsSourceError(f'In the secrets file {path}, the secret "{name}" is empty.')
    if domains is not None:
        try:
            domains = parse_domains(",".join(domains))
        except ValueError as exc:
            raise SecretsSourceError(f'In the secrets file {path}, the sites of "{name}": {exc}') from None
    return GivenSecret(value=SecretStr(value), domains=domains or None, one_time_code=kind == "totp")


def env_secrets(environ: Mapping[str, str] | None = None) -> dict[str, GivenSecret]:
    """PAGE_AGENT_SECRET_<NAME>=value and PAGE_AGENT_TOTP_<NAME>=setup key as {name (lower case): given}; empty
    variables are ignored."""
    environ = os.environ if environ is None else environ
    found: dict[str, GivenSecret] = {}
    for variable, value in environ.items():
        prefix = next((p for p in (SECRET_ENV_PREFIX, TOTP_ENV_PREFIX) if variable.startswith(p)), None)
        if prefix is not None and value:
            name = variable[len(prefix) :].lower()
            _check(name, value, f"The environment variable {variable}: ")
            found[name] = GivenSecret(value=SecretStr(value), one_time_code=prefix == TOTP_ENV_PREFIX)
    return found


def _check(name: str, value: str, where: str) -> None:
    try:
        check_secret(name, value)
    except ValueError as exc:
        raise SecretsSourceError(where + str(exc)) from None
