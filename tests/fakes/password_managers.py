"""Stand-ins for the password managers' command-line tools, for tests: ``op read``, ``bw get`` and ``keepassxc-cli
show`` that answer from a vault kept in a JSON file (no real vault here), and say what the real tools say when the
vault is locked or the entry is not there, on stderr, with exit status 1.

``stand_in_managers(folder, vault)`` writes the three programs into ``folder`` (put it first on PATH); each is a
small script that runs ``main`` below with this Python. The vault file (``Vault``) is read at each call, so a test
unlocks it by writing it again.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

VAULT_ENV = "FAKE_PASSWORD_VAULT"
PROGRAMS = ("op", "bw", "keepassxc-cli")
_REPO = Path(__file__).resolve().parents[2]


@dataclass
class Vault:
    entries: dict[str, str] = field(default_factory=dict)  # the reference (op://…, bw item, db#entry) -> value
    locked: bool = False  # 1Password signed out
    session: str = "bw-session-1"  # the BW_SESSION that unlocks Bitwarden
    database_password: str = "kdbx-pass-1"  # KeePassXC's

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(asdict(self)), encoding="utf-8")


def stand_in_managers(folder: Path, vault: Vault, vault_file: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    vault.save(vault_file)
    for program in PROGRAMS:
        script = folder / program
        script.write_text(
            f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(_REPO)!r})\n"
            f"from tests.fakes.password_managers import main\nsys.exit(main({program!r}, sys.argv[1:]))\n",
            encoding="utf-8",
        )
        script.chmod(0o700)


def _fail(words: str) -> int:
    print(words, file=sys.stderr)
    return 1


def main(program: str, args: list[str]) -> int:
    vault = Vault(**json.loads(Path(os.environ[VAULT_ENV]).read_text(encoding="utf-8")))
    if program == "op":
        if args[:1] != ["read"]:
            return _fail(f'[ERROR] unknown command "{" ".join(args[:1])}" for "op"')
        reference = args[-1]
        if vault.locked:
            return _fail(
                "[ERROR] 2026/01/01 00:00:00 You are not currently signed in. Please run `op signin --help` for "
                "instructions"
            )
        if reference not in vault.entries:
            return _fail(f"[ERROR] could not read secret '{reference}': \"item\" isn't an item in the vault")
        print(vault.entries[reference], end="" if "--no-newline" in args else "\n")
        return 0
    if program == "bw":
        if args[:1] != ["get"] or "--nointeraction" not in args:
            return _fail("Invalid command.")
        field_name, item = args[1], args[2]
        if os.environ.get("BW_SESSION") != vault.session:
            return _fail("Vault is locked.")
        key = f"bw:{item}/{field_name}"
        if key not in vault.entries:
            return _fail("Not found.")
        print(vault.entries[key], end="")
        return 0
    # keepassxc-cli show --quiet --show-protected --attributes ATTRIBUTE DATABASE ENTRY, the password on stdin
    attribute, database, entry = args[-3], args[-2], args[-1]
    if sys.stdin.readline().rstrip("\n") != vault.database_password:
        return _fail("Error while reading the database: Invalid credentials were provided, please try again.")
    key = f"{database}#{entry}/{attribute}"
    if key not in vault.entries:
        return _fail(f"Could not find entry with path {entry}.")
    print(vault.entries[key])
    return 0
