"""Settings → Secrets beyond a plain value: a one-time code (its setup key kept as an otpauth:// link in the keyring,
read back as a code generator), a password manager's reference (with a KeePassXC database's password), each checked
in plain words; and the "Tell me elsewhere" address, checked, kept in the keyring, forgotten."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from PySide6.QtWidgets import QDialog

from app.core.safety.one_time_codes import OneTimeCode
from app.runtime import RuntimeOptions
from app.safety_from_settings import load_secrets
from app.secret_sources.password_managers import ManagerEntry
from app.settings import secrets
from app.settings.model import SecretEntry, Settings
from app.ui.settings.dialog import SettingsDialog
from app.ui.settings.secrets_page import ONE_TIME_CODE, REFERENCE, SecretDialog
from tests.fakes.memory_keyring import MemoryKeyring
from tests.ui_dialogs.conftest import screenshot
from tests.ui_dialogs.test_settings_safety import open_dialog, paths, save, saved_file  # noqa: F401  (fixtures)
from tests.waiting import until

KEY = base64.b32encode(b"acme-billing-2fa-key").decode()


def asking(dialog: SettingsDialog) -> SecretDialog:
    dialog.tabs.setCurrentWidget(dialog.secrets_page)
    dialog.secrets_page.add_button.click()
    asker = dialog.secrets_page.add_dialog
    assert asker is not None and asker.isVisible()
    return asker


def fill(asker: SecretDialog, name: str, kind: str, value: str) -> str:
    """What the dialog says when Add is pressed ("" once it closed)."""
    asker.name_edit.setText(name)
    asker.kind_box.setCurrentIndex(asker.kind_box.findData(kind))
    asker.value_edit.setText(value)
    asker.add_button.click()
    return asker.problem.text() if asker.isVisible() else ""


async def test_a_one_time_code_is_kept_as_its_link_and_read_back_as_a_code(
    open_dialog, memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    dialog = open_dialog()
    asker = asking(dialog)
    assert "not a setup key" in fill(asker, "acme_code", ONE_TIME_CODE, "not a key!")
    assert asker.hint.isVisible() and "Can't scan the QR code?" in asker.hint.text()
    screenshot(asker, "settings_add_one_time_code")
    spaced = " ".join(KEY[i : i + 4] for i in range(0, len(KEY), 4)).lower()
    assert fill(asker, "acme_code", ONE_TIME_CODE, spaced) == ""
    settings = await save(dialog)
    assert memory_keyring.passwords[(secrets.SERVICE, "secret:acme_code")] == f"otpauth://totp/acme_code?secret={KEY}"
    assert KEY.encode() not in saved_file(tmp_path, settings)
    [secret] = load_secrets(settings, RuntimeOptions())
    assert isinstance(secret.source, OneTimeCode) and secret.source.key.key == b"acme-billing-2fa-key"


async def test_a_password_manager_reference_and_a_keepassxc_databases_password_go_to_the_keyring(
    open_dialog, memory_keyring: MemoryKeyring
) -> None:  # type: ignore[no-untyped-def]
    dialog = open_dialog(Settings(secrets=[SecretEntry(name="crm")]))
    asker = asking(dialog)
    assert "Write a reference" in fill(asker, "acme", REFERENCE, "op://just-a-vault")
    asker.value_edit.setText("op://Work/Acme/password")
    assert not asker.database_edit.isVisible()  # only a KeePassXC database has a password of its own
    reference = "keepassxc:///home/ana/Passwords.kdbx#Sites/Acme"
    asker.value_edit.setText(reference)
    assert asker.database_edit.isVisible()
    asker.database_edit.setText("kdbx-Pass-1")
    screenshot(asker, "settings_add_password_manager")
    assert fill(asker, "acme", REFERENCE, reference) == ""
    settings = await save(dialog)
    assert memory_keyring.passwords[(secrets.SERVICE, "secret:acme")] == reference
    assert memory_keyring.passwords[(secrets.SERVICE, "keepassxc:/home/ana/Passwords.kdbx")] == "kdbx-Pass-1"
    assert secrets.get_database_password("/home/ana/Passwords.kdbx") == "kdbx-Pass-1"
    loaded = {secret.name: secret for secret in load_secrets(settings, RuntimeOptions())}
    assert isinstance(loaded["acme"].source, ManagerEntry)


async def test_the_notification_address_is_checked_kept_in_the_keyring_and_forgotten(
    open_dialog, memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv(secrets.NOTIFY_ENV, raising=False)
    dialog = open_dialog()
    notify = dialog.secrets_page.notify
    notify.address_edit.setText("nonsense://nowhere")
    await dialog.save()
    assert dialog.isVisible() and dialog.result() != QDialog.DialogCode.Accepted
    assert "not one Page Agent can send to" in dialog.error_area.text()
    assert notify.problem_label.isVisible() and dialog.tabs.currentWidget().isAncestorOf(notify.address_edit)
    screenshot(dialog, "settings_notify_address")
    notify.address_edit.setText("ntfy://ntfy.sh/acme-rows-42")
    await save(dialog)
    assert memory_keyring.passwords[(secrets.SERVICE, "notify-url")] == "ntfy://ntfy.sh/acme-rows-42"

    again = open_dialog()
    kept = again.secrets_page.notify
    await until(lambda: kept.forget_button.isEnabled())  # read from the keyring off the loop
    assert kept.address_edit.text() == "" and "kept" in kept.address_edit.placeholderText()
    kept.forget_button.click()
    await save(again)
    assert (secrets.SERVICE, "notify-url") not in memory_keyring.passwords
