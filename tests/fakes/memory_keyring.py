"""An in-memory keyring backend (and a broken one), so tests never touch the machine's real keyring."""

from __future__ import annotations

from collections.abc import Iterator

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.errors import KeyringLocked, NoKeyringError, PasswordDeleteError

from app.settings import secrets


class MemoryKeyring(KeyringBackend):
    priority = 1

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.passwords: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.passwords.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.passwords[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.passwords.pop((service, username), None) is None:
            raise PasswordDeleteError(username)


class LockedKeyring(MemoryKeyring):
    """A keyring that refuses every write, as a locked or absent Secret Service does."""

    def set_password(self, service: str, username: str, password: str) -> None:
        raise KeyringLocked("the keyring is locked")


class NoKeyring(KeyringBackend):
    """No keyring at all, as on a desktop without a Secret Service (and on this project's CI): every call fails."""

    priority = 0

    def get_password(self, service: str, username: str) -> str | None:
        raise NoKeyringError("No recommended backend was available.")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise NoKeyringError("No recommended backend was available.")

    def delete_password(self, service: str, username: str) -> None:
        raise NoKeyringError("No recommended backend was available.")


@pytest.fixture
def memory_keyring(monkeypatch: pytest.MonkeyPatch) -> Iterator[MemoryKeyring]:
    for name in secrets.ENV_KEYS:
        monkeypatch.delenv(name, raising=False)
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)
