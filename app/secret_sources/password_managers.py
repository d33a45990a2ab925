"""Secrets kept in a password manager the person already uses, read through its command-line tool at the moment of
typing and never kept: 1Password (``op://vault/item/field``, ``op read``), Bitwarden (``bw://item`` or
``bw://item/field``, ``bw get``), KeePassXC (``keepassxc:///path/to/db.kdbx#group/entry``, ``keepassxc-cli show``,
the database's password on its standard input).

The tool runs off the event loop, with a deadline, and is killed on Stop. What it says on failure is the only place
its English is read: each answer becomes a typed ``Answer`` here, and the model and the person get the app's words. A
manager that needs the person (locked, signed out, an approval not given in time) is a hand-off, not a failure.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import PurePath
from urllib.parse import unquote, urlsplit

from app.core.abort import AbortSignal
from app.core.errors import HandOffNeeded, ToolError
from app.core.safety.secrets import Attempts
from app.settings.secrets import KEEPASSXC_PASSWORD_ENV

# How long a manager may take: 1Password's app may ask the person to approve first.
DEADLINE_S = 45.0
# Variables a manager's tool never gets: the app's own secrets and keys.
_KEPT_BACK = ("PAGE_AGENT_SECRET_", "PAGE_AGENT_TOTP_", "PAGE_AGENT_API_KEY", "OPENAI_API_KEY", "PAGE_AGENT_NOTIFY")
BITWARDEN_FIELDS = ("password", "username", "totp", "notes")


class Manager(StrEnum):
    ONE_PASSWORD = "1Password"
    BITWARDEN = "Bitwarden"
    KEEPASSXC = "KeePassXC"


class Answer(StrEnum):
    """What the tool's run came to."""

    VALUE = "value"
    LOCKED = "locked"  # signed out, locked, a wrong or missing database password, an approval not given
    NOT_FOUND = "not-found"
    MISSING = "missing"  # the tool is not installed
    FAILED = "failed"


PROGRAMS = {Manager.ONE_PASSWORD: "op", Manager.BITWARDEN: "bw", Manager.KEEPASSXC: "keepassxc-cli"}
SCHEMES = {"op": Manager.ONE_PASSWORD, "bw": Manager.BITWARDEN, "keepassxc": Manager.KEEPASSXC}

# What each tool prints when it needs the person, and when the entry is not there (lower case).
_LOCKED_WORDS = {
    Manager.ONE_PASSWORD: ("sign in", "signed in", "locked", "authoriz", "desktop app", "session expired"),
    Manager.BITWARDEN: ("vault is locked", "not logged in", "session key is invalid"),
    Manager.KEEPASSXC: ("invalid credentials", "wrong key", "error while reading the database"),
}
_NOT_FOUND_WORDS = {
    Manager.ONE_PASSWORD: ("isn't an item", "isn't a vault", "isn't a field", "could not find", "no item"),
    Manager.BITWARDEN: ("not found",),
    Manager.KEEPASSXC: ("could not find entry", "no attribute", "unknown attribute"),
}


@dataclass(frozen=True)
class Reference:
    """Where in which manager a secret is: ``given`` as the person wrote it."""

    manager: Manager
    given: str
    arguments: tuple[str, ...]  # after the program's name
    database: str = ""  # KeePassXC: the database file


def parse_reference(text: str) -> Reference | None:
    """The reference ``text`` is, or None when it names no manager. ValueError in plain words for a malformed one."""
    scheme, _, rest = text.strip().partition("://")
    manager = SCHEMES.get(scheme.lower()) if rest else None
    if manager is None:
        return None
    given = text.strip()
    if manager is Manager.ONE_PASSWORD:
        if len([part for part in rest.split("/") if part]) < 3:
            raise ValueError("A 1Password reference reads op://vault/item/field (1Password's “Copy Secret Reference”).")
        return Reference(manager, given, ("read", "--no-newline", given))
    if manager is Manager.BITWARDEN:
        item, _, field = rest.rpartition("/")
        if field not in BITWARDEN_FIELDS:
            item, field = rest, "password"
        if not item:
            raise ValueError("A Bitwarden reference reads bw://item or bw://item/username (the item's name or id).")
        return Reference(manager, given, ("get", field, unquote(item), "--nointeraction"))
    parts = urlsplit(given)
    database, entry = _local_path(unquote(parts.path)), unquote(parts.fragment)
    attribute = dict(pair.partition("=")[::2] for pair in parts.query.split("&") if pair).get("attribute", "Password")
    if parts.netloc or not database or not entry:
        raise ValueError(
            "A KeePassXC reference reads keepassxc:///path/to/database.kdbx#group/entry, with the database's full path."
        )
    return Reference(
        manager,
        given,
        ("show", "--quiet", "--show-protected", "--attributes", unquote(attribute), database, entry),
        database,
    )


def _local_path(path: str) -> str:
    """A file URL's path as the system writes it: /C:/Users/… is C:/Users/… on Windows."""
    if len(path) > 2 and path[0] == "/" and path[2] == ":":
        return path[1:]
    return path


@dataclass(frozen=True)
class Ran:
    answer: Answer
    value: str = ""


class ManagerEntry:
    """A ``SecretSource``: the entry ``reference`` names, read when it is typed. ``database_password`` gives a
    KeePassXC database's password (from the environment or the keyring; "" when none is kept): read only when
    needed."""

    def __init__(
        self,
        name: str,
        reference: Reference,
        database_password: Callable[[str], str],
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.name = name
        self.reference = reference
        self._database_password = database_password
        self._environ = environ

    def hidden(self) -> tuple[str, ...]:
        return ()  # a reference names a vault, an item and a field: nothing secret, and ordinary words

    async def value(self, signal: AbortSignal, attempts: Attempts) -> str:
        del attempts  # a manager gives the same value each time
        reference = self.reference
        stdin = ""
        if reference.manager is Manager.KEEPASSXC:
            stdin = await signal.race(asyncio.to_thread(_reader(self._database_password, reference.database)))
        ran = await run_manager(reference, stdin, self._environ, signal)
        if ran.answer is Answer.VALUE and ran.value:
            return ran.value
        raise self._trouble(ran.answer, bool(stdin))

    def _trouble(self, answer: Answer, had_password: bool) -> ToolError:
        manager, name = self.reference.manager, self.name
        program = PROGRAMS[manager]
        where = f'The secret "{name}" is kept in {manager}'
        if answer is Answer.MISSING:
            return ToolError(
                f"{where}, but its command-line tool ({program}) is not installed on this computer, so nothing was "
                "typed. Finish with done and tell the user to install it (see Page Agent's README)."
            )
        if answer is Answer.NOT_FOUND:
            return ToolError(
                f"{where}, but {manager} has no such entry, so nothing was typed. Finish with done and tell the "
                "user to check the secret's reference in Settings → Secrets."
            )
        if answer is Answer.LOCKED:
            return HandOffNeeded(
                f"{where}, which needs the person first (it is locked, or waits for their approval), so nothing was "
                "typed; the browser was handed to the person. Once they continue, type it again.",
                _unlock_words(manager, name, self.reference.database, had_password),
            )
        return ToolError(f"{where}, but {program} could not read it, so nothing was typed. Tell the user.")


def _unlock_words(manager: Manager, name: str, database: str, had_password: bool) -> str:
    if manager is Manager.ONE_PASSWORD:
        return "Unlock 1Password (or approve Page Agent's request in it), then continue."
    if manager is Manager.BITWARDEN:
        return (
            f"Bitwarden is locked, so the agent cannot type “{name}”. Sign in yourself in this window, then continue. "
            "To let the agent do it, unlock Bitwarden with “bw unlock” and start Page Agent with the BW_SESSION it "
            "prints."
        )
    why = "its password is wrong" if had_password else "its password is not kept"
    return (
        f"KeePassXC could not open {PurePath(database).name} ({why}), so the agent cannot type “{name}”. Sign in "
        f"yourself in this window, then continue. To let the agent do it, give the database's password as "
        f"{KEEPASSXC_PASSWORD_ENV}."
    )


def _reader(read: Callable[[str], str], database: str) -> Callable[[], str]:
    # A closure: a worker's arguments and result may be logged at DEBUG level (qasync), and this is a password.
    def reading() -> str:
        return read(database)

    return reading


async def run_manager(reference: Reference, stdin: str, environ: Mapping[str, str] | None, signal: AbortSignal) -> Ran:
    """Run the manager's tool off the loop, within ``DEADLINE_S`` (an approval not given by then: LOCKED); killed on
    Stop. Its answer as data."""
    program = PROGRAMS[reference.manager]
    env = {
        name: value
        for name, value in (os.environ if environ is None else environ).items()
        if not name.startswith(_KEPT_BACK)
    }
    try:
        process = await asyncio.to_thread(_start([program, *reference.arguments], env))
    except FileNotFoundError:
        return Ran(Answer.MISSING)
    try:
        out, err, code = await signal.race(asyncio.to_thread(_talk(process, stdin)))
    except subprocess.TimeoutExpired:
        return Ran(Answer.LOCKED)
    finally:
        if process.poll() is None:
            process.kill()
            await asyncio.to_thread(process.wait)
    if code == 0:
        return Ran(Answer.VALUE, out.removesuffix("\n").removesuffix("\r"))
    said = err.lower()
    if any(words in said for words in _NOT_FOUND_WORDS[reference.manager]):
        return Ran(Answer.NOT_FOUND)
    if any(words in said for words in _LOCKED_WORDS[reference.manager]):
        return Ran(Answer.LOCKED)
    return Ran(Answer.FAILED)


def _start(argv: list[str], env: dict[str, str]) -> Callable[[], subprocess.Popen[str]]:
    def start() -> subprocess.Popen[str]:
        return subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
            encoding="utf-8",
            errors="replace",
        )

    return start


def _talk(process: subprocess.Popen[str], stdin: str) -> Callable[[], tuple[str, str, int]]:
    def talk() -> tuple[str, str, int]:
        out, err = process.communicate(stdin + "\n" if stdin else "", timeout=DEADLINE_S)
        return out, err, process.returncode

    return talk
