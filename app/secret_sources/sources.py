"""How a value the person gave becomes a ``SecretSource`` (app/core/safety/secrets.py): an ``otpauth://totp/`` link or
(where the person said so) a setup key is a one-time code; ``op://``, ``bw://`` and ``keepassxc://`` are password
managers' entries; anything else is the value itself."""

from __future__ import annotations

from app.core.safety.one_time_codes import OTPAUTH, Clock, OneTimeCode, parse_totp
from app.core.safety.secrets import SecretSource
from app.secret_sources.password_managers import ManagerEntry, parse_reference
from app.settings.secrets import get_database_password


def check_source(value: str, *, one_time_code: bool = False) -> None:
    """ValueError, in plain words that never quote ``value``, for a setup key or a reference that cannot be used."""
    if one_time_code or value.strip().lower().startswith(OTPAUTH):
        parse_totp(value)
    else:
        parse_reference(value)


class AppSecretSources:
    """The app's ``SecretSources``; ``clock`` makes the codes (the system's unless a test hands one in)."""

    def __init__(self, clock: Clock | None = None) -> None:
        self._clock = clock

    def source(self, name: str, value: str, *, one_time_code: bool = False) -> SecretSource | None:
        if one_time_code or value.strip().lower().startswith(OTPAUTH):
            return OneTimeCode(name, parse_totp(value), self._clock)
        reference = parse_reference(value)
        if reference is None:
            return None
        return ManagerEntry(name, reference, get_database_password)
