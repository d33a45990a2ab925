"""Secrets kept in a password manager: a reference (op://, bw://, keepassxc://) read at the moment of typing through
the manager's command-line tool, never kept. The tools are stand-ins (tests/fakes/password_managers.py) first on
PATH, that answer as the real ones do, locked included. A locked vault is the person's turn, in plain words; once
they unlock it and continue, the agent types the value. Real headless Chromium for the sign-in."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from app.browser.controller import PlaywrightPageController
from app.core.abort import AbortSignal
from app.core.errors import HandOffNeeded, ToolError
from app.core.safety.secrets import Attempts
from app.core.types import HandOffActivity
from app.runtime import RuntimeOptions
from app.safety_from_settings import load_secrets
from app.secret_sources.sources import AppSecretSources
from app.settings.model import Settings
from app.settings.secrets import KEEPASSXC_PASSWORD_ENV
from tests.fakes.memory_keyring import MemoryKeyring, memory_keyring  # noqa: F401  (fixture)
from tests.fakes.password_managers import VAULT_ENV, Vault, stand_in_managers
from tests.security.conftest import HostileSite
from tests.security.test_secrets import (  # noqa: F401  (rig_for, log_dir, value: fixtures)
    Rig,
    assert_nowhere,
    click,
    done,
    log_dir,
    obeying_model,
    open_page,
    posted,
    rig_for,
    type_into,
    value,
)


@dataclass
class Managers:
    vault: Vault
    file: Path
    database: Path

    def change(self, **fields: object) -> None:
        for name, new in fields.items():
            setattr(self.vault, name, new)
        self.vault.save(self.file)


@pytest.fixture
def managers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory_keyring: MemoryKeyring) -> Managers:
    bin_dir, vault_file = tmp_path / "bin", tmp_path / "vault.json"
    vault = Vault()
    stand_in_managers(bin_dir, vault, vault_file)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv(VAULT_ENV, str(vault_file))
    monkeypatch.delenv("BW_SESSION", raising=False)
    monkeypatch.delenv(KEEPASSXC_PASSWORD_ENV, raising=False)
    return Managers(vault, vault_file, tmp_path / "Passwords.kdbx")


def reference_for(manager: str, managers: Managers, secret: str) -> str:
    """A reference in ``manager`` to an entry holding ``secret``, that manager unlocked."""
    if manager == "1Password":
        managers.change(entries={"op://Work/Acme billing/password": secret})
        return "op://Work/Acme billing/password"
    if manager == "Bitwarden":
        managers.change(entries={"bw:Acme billing/password": secret})
        os.environ["BW_SESSION"] = managers.vault.session
        return "bw://Acme billing"
    managers.change(entries={f"{managers.database}#Sites/Acme/Password": secret})
    os.environ[KEEPASSXC_PASSWORD_ENV] = managers.vault.database_password
    return f"keepassxc://{managers.database}#Sites/Acme"


def lock(manager: str, managers: Managers) -> None:
    if manager == "1Password":
        managers.change(locked=True)
    elif manager == "Bitwarden":
        del os.environ["BW_SESSION"]
    else:
        os.environ[KEEPASSXC_PASSWORD_ENV] = "not-the-password"


async def read(reference: str) -> str:
    source = AppSecretSources().source("pw", reference)
    assert source is not None
    return await source.value(AbortSignal(), Attempts())


MANAGERS = ["1Password", "Bitwarden", "KeePassXC"]


@pytest.mark.parametrize("manager", MANAGERS)
async def test_a_reference_is_read_through_the_managers_tool(managers: Managers, manager: str, value: str) -> None:
    reference = reference_for(manager, managers, value)
    assert await read(reference) == value


async def test_a_bitwarden_reference_may_name_another_field(managers: Managers) -> None:
    managers.change(entries={"bw:Acme/username": "ana@acme.example"})
    os.environ["BW_SESSION"] = managers.vault.session
    assert await read("bw://Acme/username") == "ana@acme.example"


@pytest.mark.parametrize(
    ("manager", "words"),
    [
        ("1Password", "Unlock 1Password (or approve Page Agent's request in it), then continue."),
        ("Bitwarden", "Bitwarden is locked, so the agent cannot type “pw”. Sign in yourself in this window"),
        ("KeePassXC", "KeePassXC could not open Passwords.kdbx (its password is wrong)"),
    ],
)
async def test_a_locked_manager_is_the_persons_turn_in_plain_words(
    managers: Managers, manager: str, words: str, value: str
) -> None:
    reference = reference_for(manager, managers, value)
    lock(manager, managers)
    with pytest.raises(HandOffNeeded) as caught:
        await read(reference)
    assert caught.value.words.startswith(words)
    assert "handed to the person" in str(caught.value)
    assert value not in str(caught.value) + caught.value.words


async def test_a_keepassxc_database_without_a_kept_password_says_so(managers: Managers, value: str) -> None:
    reference = reference_for("KeePassXC", managers, value)
    del os.environ[KEEPASSXC_PASSWORD_ENV]
    with pytest.raises(HandOffNeeded) as caught:
        await read(reference)
    assert "(its password is not kept)" in caught.value.words and KEEPASSXC_PASSWORD_ENV in caught.value.words


@pytest.mark.parametrize("manager", MANAGERS)
async def test_an_entry_the_manager_does_not_have_is_a_failure_the_model_reads(
    managers: Managers, manager: str, value: str
) -> None:
    reference = reference_for(manager, managers, value)
    managers.change(entries={})
    with pytest.raises(ToolError, match="has no such entry") as caught:
        await read(reference)
    assert not isinstance(caught.value, HandOffNeeded)


async def test_a_manager_that_is_not_installed_is_named(
    managers: Managers, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(ToolError, match=r"its command-line tool \(op\) is not installed"):
        await read("op://Work/Acme/password")


@pytest.mark.parametrize(
    ("reference", "words"),
    [
        ("op://Work/password", "op://vault/item/field"),
        ("bw:///password", "bw://item"),
        ("keepassxc://Passwords.kdbx#Acme", "full path"),
        ("keepassxc:///home/ana/Passwords.kdbx", "database.kdbx#group/entry"),
    ],
)
def test_a_malformed_reference_is_refused_when_the_secrets_are_read(tmp_path: Path, reference: str, words: str) -> None:
    path = tmp_path / "secrets.json"
    path.write_text(json.dumps({"pw": reference}), encoding="utf-8")
    path.chmod(0o600)
    with pytest.raises(ValueError, match=words):
        load_secrets(Settings(), RuntimeOptions(secrets_file=path))


async def test_a_locked_1password_hands_off_and_once_unlocked_the_agent_signs_in(
    rig_for: Callable[..., Rig],
    controller: PlaywrightPageController,
    hostile: HostileSite,
    managers: Managers,
    tmp_path: Path,
    value: str,
) -> None:
    reference = reference_for("1Password", managers, value)
    managers.change(locked=True)
    secrets_file = tmp_path / "secrets.json"
    secrets_file.write_text(
        json.dumps({"pw": {"value": reference, "domains": [hostile.page.removeprefix("http://")]}}), encoding="utf-8"
    )
    secrets_file.chmod(0o600)
    rig = rig_for(*load_secrets(Settings(), RuntimeOptions(secrets_file=secrets_file)))
    handed: list[str] = []

    def person(activity: object) -> None:
        if isinstance(activity, HandOffActivity):
            handed.append(activity.reason)
            managers.change(locked=False)  # the person unlocks 1Password
            rig.agent.resume()

    rig.agent.on("activity", person)
    await open_page(controller, f"{hostile.page}/secrets-signin.html")
    typing = type_into("type=password", "<secret>pw</secret>")
    obeying_model(rig.llm_server, typing, typing, click("Sign in"), done("Signed in."))

    result = await rig.run("Sign in with <secret>pw</secret>")

    assert result.success, result.data
    assert handed == ["Unlock 1Password (or approve Page Agent's request in it), then continue."]
    assert posted(hostile, hostile.page, "/signin") == [f"email=&password={value}".encode()]
    assert_nowhere(value, rig.outputs())
    assert_nowhere(reference, rig.outputs())
