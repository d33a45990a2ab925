"""The Settings dialog's Safety and Secrets tabs: allowed sites are checked and kept, secrets' values reach the
keyring and never the settings file, upload folders come from a folder chooser and never include the app's own
folders, the confirmation switch round-trips, and the dialog fits a small laptop screen."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import keyring
import pytest
from PySide6.QtCore import QRect
from PySide6.QtWidgets import QApplication, QDialog, QFileDialog, QWidget

from app.settings import secrets
from app.settings.model import SecretEntry, Settings, load_settings, save_settings
from app.settings.paths import AppPaths
from app.ui.placement.screen_geometry import move_frame, outer_geometry
from app.ui.settings.dialog import SettingsDialog
from tests.fakes.llm_server import FakeLLMServer, error_reply
from tests.fakes.memory_keyring import LockedKeyring, MemoryKeyring
from tests.ui_dialogs.conftest import screenshot
from tests.ui_dialogs.test_translations import ROOT, literal_tr_strings, zh_table
from tests.ui_waiting import laid_out, tasks_ended
from tests.waiting import until

VALUE = "hunter2-Sécret!"


@pytest.fixture
def paths(tmp_path: Path) -> AppPaths:
    home = tmp_path / "home"
    found = AppPaths(home / "config", home / "data", home / "logs")
    for folder in (found.config_dir, found.profile_dir, found.log_dir):
        folder.mkdir(parents=True)
    return found


@pytest.fixture
async def open_dialog(qapp: QApplication, memory_keyring: MemoryKeyring, paths: AppPaths):  # type: ignore[no-untyped-def]
    opened: list[SettingsDialog] = []
    before = asyncio.all_tasks()

    def make(settings: Settings | None = None, *, first_run: bool = False) -> SettingsDialog:
        dialog = SettingsDialog(settings or Settings(), first_run=first_run, paths=paths)
        dialog.show()
        opened.append(dialog)
        return dialog

    yield make
    for dialog in opened:
        dialog.close()
        dialog.deleteLater()
    await tasks_ended(before)  # the dialogs' cancelled tasks end on this loop


async def save(dialog: SettingsDialog) -> Settings:
    dialog.save_button.click()
    await until(lambda: dialog.result() == QDialog.DialogCode.Accepted)
    return dialog.result_settings()


async def add_secret(dialog: SettingsDialog, name: str, value: str, sites: str = "") -> None:
    page = dialog.secrets_page
    page.add_button.click()
    asker = page.add_dialog
    assert asker is not None and asker.isVisible()
    asker.name_edit.setText(name)
    asker.value_edit.setText(value)
    asker.sites_edit.setText(sites)
    asker.add_button.click()
    await until(lambda: not asker.isVisible())


def saved_file(tmp_path: Path, settings: Settings) -> bytes:
    path = tmp_path / "settings.json"
    save_settings(path, settings)  # what the caller does with result_settings()
    return path.read_bytes()


# --- only these sites -------------------------------------------------------------------------------------------


async def test_sites_are_saved_and_shown_again(open_dialog, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    dialog = open_dialog()
    dialog.safety_page.sites_edit.setPlainText("crm.example.com, *.Acme.io\nlocalhost:8080")
    settings = await save(dialog)
    assert settings.allowed_domains == ["crm.example.com", "*.acme.io", "localhost:8080"]
    saved_file(tmp_path, settings)
    again = open_dialog(load_settings(tmp_path / "settings.json"))
    assert again.safety_page.sites_edit.toPlainText().splitlines() == ["crm.example.com", "*.acme.io", "localhost:8080"]
    assert (await save(again)).allowed_domains == settings.allowed_domains


async def test_a_bad_site_keeps_the_dialog_open_with_its_reason_and_the_text(open_dialog) -> None:  # type: ignore[no-untyped-def]
    dialog = open_dialog()
    dialog.model_page.model_edit.setText("my-model")  # another tab's field, which must not be lost
    typed = "crm.example.com\nhttps://crm.example.com/login"
    dialog.safety_page.sites_edit.setPlainText(typed)
    assert dialog.tabs.currentIndex() == 0
    await dialog.save()
    assert dialog.isVisible() and dialog.result() != QDialog.DialogCode.Accepted
    error = dialog.safety_page.sites_error
    assert error.isVisible()
    assert error.text().startswith('"https://crm.example.com/login" is not a site name.')
    assert dialog.tabs.currentWidget().isAncestorOf(dialog.safety_page.sites_edit)  # the user is shown where
    assert dialog.safety_page.sites_edit.toPlainText() == typed and dialog.model_page.model_edit.text() == "my-model"
    screenshot(dialog, "settings_safety_bad_site")
    dialog.safety_page.sites_edit.setPlainText("crm.example.com")
    assert not error.isVisible()  # the reason goes once the text changes
    settings = await save(dialog)
    assert settings.allowed_domains == ["crm.example.com"] and settings.model == "my-model"


@pytest.mark.parametrize(
    ("start", "sites", "reason"),
    [
        ("file:///etc/passwd", "", "The start page must be a web address"),
        ("chrome://settings", "", "The start page must be a web address"),
        ("https://elsewhere.example/", "crm.example.com", "The start page is not one of the sites"),
    ],
)
async def test_a_start_page_the_agent_may_not_open_is_refused_here(  # type: ignore[no-untyped-def]
    open_dialog, start: str, sites: str, reason: str
) -> None:
    dialog = open_dialog()
    dialog.agent_page.start_url_edit.setText(start)
    dialog.safety_page.sites_edit.setPlainText(sites)
    await dialog.save()
    assert dialog.isVisible() and dialog.result() != QDialog.DialogCode.Accepted
    assert reason in dialog.error_area.text()
    dialog.agent_page.start_url_edit.setText("https://crm.example.com/start")
    assert (await save(dialog)).start_url == "https://crm.example.com/start"


# --- secrets ----------------------------------------------------------------------------------------------------


async def test_a_secret_value_reaches_the_keyring_and_never_the_settings_file(
    open_dialog,
    memory_keyring: MemoryKeyring,
    tmp_path: Path,  # type: ignore[no-untyped-def]
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    dialog = open_dialog()
    dialog.tabs.setCurrentIndex(3)
    await add_secret(dialog, "crm_password", VALUE, "crm.example.com")
    row = dialog.secrets_page.secret_list.topLevelItem(0)
    shown = [row.text(column) for column in range(3)]
    assert shown == ["crm_password", "crm.example.com", "Not saved yet"]
    assert (secrets.SERVICE, "secret:crm_password") not in memory_keyring.passwords  # only on Save
    screenshot(dialog, "settings_secrets")
    settings = await save(dialog)
    assert memory_keyring.passwords[(secrets.SERVICE, "secret:crm_password")] == VALUE
    assert settings.secrets == [SecretEntry(name="crm_password", domains=["crm.example.com"])]
    data = saved_file(tmp_path, settings)
    assert b"crm_password" in data
    assert VALUE.encode() not in data and b"hunter2" not in data
    assert "hunter2" not in caplog.text


async def test_secret_names_values_and_sites_are_checked(open_dialog) -> None:  # type: ignore[no-untyped-def]
    dialog = open_dialog(Settings(secrets=[SecretEntry(name="crm_password")]))
    dialog.secrets_page.add_button.click()
    asker = dialog.secrets_page.add_dialog
    assert asker is not None
    screenshot(asker, "settings_add_secret")

    def attempt(name: str, value: str, sites: str = "") -> str:
        asker.name_edit.setText(name)
        asker.value_edit.setText(value)
        asker.sites_edit.setText(sites)
        asker.add_button.click()
        assert asker.isVisible()
        return asker.problem.text()

    assert "lowercase letters" in attempt("CRM Password", VALUE)
    assert "lowercase letters" in attempt("crm.password", VALUE)
    assert attempt("crm_password", VALUE) == 'There is already a secret called "crm_password".'
    assert attempt("", VALUE) == "Give the secret a name."
    assert attempt("bank_pin", "") == "Enter the secret's value."
    assert "is not a site name" in attempt("bank_pin", VALUE, "https://bank.example/")
    asker.add_button.click()
    asker.sites_edit.setText("bank.example, *.bank.example")
    asker.add_button.click()
    await until(lambda: not asker.isVisible())
    assert [entry.name for entry in dialog.secrets_page.entries()] == ["crm_password", "bank_pin"]
    assert dialog.secrets_page.entries()[1].domains == ["bank.example", "*.bank.example"]


async def test_removing_a_secret_deletes_it_from_the_keyring(open_dialog, memory_keyring: MemoryKeyring) -> None:  # type: ignore[no-untyped-def]
    memory_keyring.set_password(secrets.SERVICE, "secret:old_pin", "1234")
    memory_keyring.set_password(secrets.SERVICE, "secret:kept", "5678")
    dialog = open_dialog(
        Settings(secrets=[SecretEntry(name="old_pin"), SecretEntry(name="kept"), SecretEntry(name="lost")])
    )
    page = dialog.secrets_page
    states = lambda: [page.secret_list.topLevelItem(i).text(2) for i in range(3)]  # noqa: E731
    await until(lambda: states() == ["Saved", "Saved", "Missing"])  # read from the keyring off the loop
    page.secret_list.setCurrentItem(page.secret_list.topLevelItem(0))
    page.remove_button.click()
    settings = await save(dialog)
    assert [entry.name for entry in settings.secrets] == ["kept", "lost"]
    assert (secrets.SERVICE, "secret:old_pin") not in memory_keyring.passwords
    assert memory_keyring.passwords[(secrets.SERVICE, "secret:kept")] == "5678"


async def test_without_a_keyring_everything_else_is_saved_and_the_secret_kept_until_quitting(
    open_dialog, memory_keyring: MemoryKeyring
) -> None:  # type: ignore[no-untyped-def]
    dialog = open_dialog()
    laid_out(dialog)
    dialog.fit_to_screen(QRect(0, 0, 1366, 768))
    dialog.agent_page.max_steps_spin.setValue(12)
    dialog.safety_page.sites_edit.setPlainText("crm.example.com")
    await add_secret(dialog, "crm_password", VALUE)
    keyring.set_keyring(LockedKeyring())
    try:
        settings = await save(dialog)  # nothing else waits for a keyring
        assert settings.max_steps == 12 and settings.allowed_domains == ["crm.example.com"]
        assert [entry.name for entry in settings.secrets] == ["crm_password"]
        assert dialog.secrets_kept_in_memory == ["crm_password"]  # the panel says so, in plain words
        assert secrets.get_secret("crm_password") == VALUE  # typed by the agent until the app quits
        assert (secrets.SERVICE, "secret:crm_password") not in memory_keyring.passwords
        assert dialog.secrets_page.secret_list.topLevelItem(0).text(2) == "Until you quit"
    finally:
        secrets.keep_for_session("crm_password", "")
        keyring.set_keyring(memory_keyring)


# --- upload folders ---------------------------------------------------------------------------------------------


async def test_an_upload_folder_is_chosen_and_saved(open_dialog, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "invoices"
    folder.mkdir()
    dialog = open_dialog()
    page = dialog.safety_page
    assert not page.remove_folder_button.isEnabled()
    page.add_folder_button.click()
    chooser = page.findChild(QFileDialog)
    assert chooser is not None and chooser.isVisible()
    chooser.setDirectory(str(folder))
    chooser.accept()
    await until(lambda: page.folders() == [str(folder)])
    await until(lambda: page.findChild(QFileDialog) is None, message="the closed chooser is deleted")
    linked = tmp_path / "link-to-invoices"
    linked.symlink_to(folder)
    await page.add_folder(str(linked / ".." / "invoices"))  # resolved: the same folder, listed once
    assert page.folders() == [str(folder)]
    settings = await save(dialog)
    assert settings.upload_dirs == [str(folder)]
    again = open_dialog(settings)
    again.safety_page.folder_list.setCurrentRow(0)
    again.safety_page.remove_folder_button.click()
    assert (await save(again)).upload_dirs == []


async def test_the_apps_own_folders_are_refused(open_dialog, paths: AppPaths, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    dialog = open_dialog()
    dialog.tabs.setCurrentIndex(2)
    page = dialog.safety_page
    linked = tmp_path / "innocent-looking"
    linked.symlink_to(paths.profile_dir)
    for folder in (paths.data_dir, paths.profile_dir, paths.config_dir.parent, tmp_path, linked, paths.log_dir):
        await page.add_folder(str(folder))
        assert page.folder_message.isVisible(), folder
        assert "holds Page Agent's own files" in page.folder_message.text()
        assert page.folders() == []
    screenshot(dialog, "settings_safety_own_folder")
    beside = tmp_path / "home-documents"
    beside.mkdir()
    await page.add_folder(str(beside))
    assert page.folders() == [str(beside)] and not page.folder_message.isVisible()


# --- confirmations ----------------------------------------------------------------------------------------------


async def test_ask_before_irreversible_actions_round_trips(open_dialog, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    dialog = open_dialog()
    assert dialog.safety_page.ask_check.isChecked()  # on by default
    dialog.safety_page.ask_check.setChecked(False)
    settings = await save(dialog)
    assert settings.ask_before_irreversible is False
    saved_file(tmp_path, settings)
    again = open_dialog(load_settings(tmp_path / "settings.json"))
    assert not again.safety_page.ask_check.isChecked()
    again.safety_page.ask_check.setChecked(True)
    assert (await save(again)).ask_before_irreversible is True


# --- fitting the screen -----------------------------------------------------------------------------------------


def frame(dialog: SettingsDialog) -> QRect:
    """The dialog with the window manager's frame it makes room for (offscreen, there is none: a title bar's)."""
    return outer_geometry(dialog)


SCREENS = [QRect(0, 0, 1280, 720), QRect(0, 0, 1366, 768), QRect(0, 0, 1600, 900), QRect(1920, 40, 1280, 680)]


@pytest.mark.parametrize("available", SCREENS, ids=lambda r: f"{r.width()}x{r.height()}+{r.x()}+{r.y()}")
@pytest.mark.parametrize("first_run", [False, True])
async def test_the_dialog_fits_a_small_screen(open_dialog, available: QRect, first_run: bool) -> None:  # type: ignore[no-untyped-def]
    dialog = open_dialog(
        Settings(
            secrets=[SecretEntry(name=f"secret_{i}") for i in range(8)],
            upload_dirs=[f"/srv/share/{i}" for i in range(6)],
        ),
        first_run=first_run,
    )
    laid_out(dialog)
    dialog.fit_to_screen(available)
    laid_out(dialog)
    assert available.contains(frame(dialog)), (frame(dialog), available)  # title bar and buttons on the screen
    for index in range(dialog.tabs.count()):
        dialog.tabs.setCurrentIndex(index)
        laid_out(dialog)
        page = dialog.tabs.currentWidget()
        bar = page.verticalScrollBar()
        if not first_run and available.height() >= 768:
            assert bar.maximum() == 0, f"tab {index} scrolls on a {available.width()}x{available.height()} screen"
        # Whatever scrolls, every part of the page can be reached.
        assert page.widget().height() <= page.viewport().height() + bar.maximum()
    assert dialog.save_button.isVisible() and dialog.save_button.geometry().bottom() <= dialog.height()


async def test_an_open_dialog_comes_to_rest(open_dialog) -> None:  # type: ignore[no-untyped-def]
    # It once measured itself again on every turn of the loop while open, some 850 times a second: a core kept busy.
    dialog = open_dialog(first_run=True)
    laid_out(dialog)  # AssertionError while a refit sets off the next
    for index in range(dialog.tabs.count()):
        dialog.tabs.setCurrentIndex(index)
        laid_out(dialog)


async def test_messages_that_appear_later_do_not_grow_the_dialog_off_the_screen(
    open_dialog, llm_server: FakeLLMServer
) -> None:  # type: ignore[no-untyped-def]
    available = QRect(0, 0, 1280, 720)
    dialog = open_dialog(first_run=True)
    laid_out(dialog)
    dialog.fit_to_screen(available)
    move_frame(dialog, dialog.x(), available.bottom() + 1 - frame(dialog).height())  # as low as it can sit
    llm_server.add(error_reply(405, "Method Not Allowed"))
    dialog.model_page.base_url_edit.setText(llm_server.base_url)
    await dialog.model_page.test_connection()
    dialog.model_page.base_url_edit.setText("not a url")
    await dialog.save()  # "Not saved": a second message, below the tabs
    laid_out(dialog)  # grown, if it may
    assert dialog.model_page.message.isVisible() and dialog.error_area.isVisible()
    assert available.contains(frame(dialog)), (frame(dialog), available)
    screenshot(dialog, "settings_two_messages_1280x720")


async def test_opened_from_the_panel_it_sits_over_the_browser_side(
    open_dialog, qapp: QApplication, paths: AppPaths
) -> None:  # type: ignore[no-untyped-def]
    panel = QWidget()
    panel.setGeometry(0, 0, 420, 720)
    panel.show()
    try:
        dialog = SettingsDialog(Settings(), first_run=True, paths=paths, parent=panel)
        dialog.show()
        laid_out(dialog)
        available = QRect(0, 0, 1280, 720)
        dialog.fit_to_screen(available)
        assert available.contains(frame(dialog))
        assert frame(dialog).left() >= panel.frameGeometry().right()  # the panel stays in sight
        dialog.close()
    finally:
        panel.close()


def test_every_new_string_has_a_translation() -> None:
    for module in ("app/ui/settings/safety_page.py", "app/ui/settings/secrets_page.py"):
        assert not literal_tr_strings(ROOT / module) - zh_table().keys(), module


async def test_the_height_stays_between_tabs_and_comes_back_after_a_message(open_dialog) -> None:  # type: ignore[no-untyped-def]
    dialog = open_dialog(Settings(secrets=[SecretEntry(name="crm_password")]))
    laid_out(dialog)
    dialog.fit_to_screen(QRect(0, 0, 1366, 768))
    laid_out(dialog)
    height = dialog.height()
    for index in [*range(dialog.tabs.count()), 0]:
        dialog.tabs.setCurrentIndex(index)
        laid_out(dialog)
        assert dialog.height() == height, f"tab {index}"
    dialog.model_page.base_url_edit.setText("not a url")
    await dialog.save()  # "Not saved", below the tabs
    await until(lambda: dialog.height() > height, message="room for the message")
    dialog.model_page.base_url_edit.setText("https://api.openai.com/v1")
    dialog.error_area.hide()  # the next Save starts by clearing it
    await until(lambda: dialog.height() == height, message="the dialog back to its height")


@pytest.mark.parametrize("language", ["en", "zh"])
async def test_every_tab_is_measured_at_the_width_it_is_shown_at_so_the_height_never_depends_on_the_tabs_seen(
    open_dialog, language: str
) -> None:  # type: ignore[no-untyped-def]
    from app.text import i18n

    i18n.set_language(language)
    try:
        dialog = open_dialog(Settings(language=language))
        laid_out(dialog)
        dialog.fit_to_screen(QRect(0, 0, 1280, 720))
        laid_out(dialog)
        unseen = [page.sizeHint().height() for page in dialog._pages]
        height = dialog.height()
        for index in range(dialog.tabs.count()):
            dialog.tabs.setCurrentIndex(index)
            laid_out(dialog)
        assert [page.sizeHint().height() for page in dialog._pages] == unseen
        dialog.tabs.setCurrentIndex(0)
        laid_out(dialog)
        assert dialog.height() == height
    finally:
        i18n.set_language("en")


@pytest.mark.parametrize("language", ["en", "zh"])
async def test_test_connection_is_whole_in_sight_on_a_1280x720_first_run(open_dialog, language: str) -> None:  # type: ignore[no-untyped-def]
    from app.text import i18n

    i18n.set_language(language)
    try:
        dialog = open_dialog(Settings(language=language), first_run=True)
        laid_out(dialog)
        dialog.fit_to_screen(QRect(0, 0, 1280, 720))
        laid_out(dialog)
        button = dialog.model_page.test_button
        assert button.visibleRegion().boundingRect() == button.rect()  # not cut by the page's scrolling
        screenshot(dialog, f"settings_first_run_1280x720_{language}")
    finally:
        i18n.set_language("en")


async def test_without_a_keyring_the_secrets_tab_says_where_the_values_are_kept(
    open_dialog, memory_keyring: MemoryKeyring
) -> None:  # type: ignore[no-untyped-def]
    from tests.fakes.memory_keyring import NoKeyring

    keyring.set_keyring(NoKeyring())
    try:
        dialog = open_dialog()
        page = dialog.secrets_page
        await until(lambda: "No system keyring" in page.keeping.text(), message="the keyring looked for")
        assert page.keeping.text() == (
            "No system keyring: a value added here is kept until you quit. Install one (GNOME Keyring, KWallet) to "
            "keep them, or give each as PAGE_AGENT_SECRET_<NAME>."
        )
        assert "kept in your system keyring" not in page.keeping.text()
    finally:
        keyring.set_keyring(memory_keyring)
    dialog = open_dialog()
    await dialog.secrets_page.check_keyring()
    assert dialog.secrets_page.keeping.text().startswith("Values are kept in your system keyring")
