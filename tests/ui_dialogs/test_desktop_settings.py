"""Settings through the whole app (real headless Chromium): a key no keyring can keep is used for this session and
said so, and after a restart the app comes up in demo mode again; a new language is saved, announced, and applied
only at the next start, everywhere at once."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import keyring
import pytest
from PySide6.QtWidgets import QApplication, QDialog

from app.settings.model import load_settings
from app.settings.paths import AppPaths
from app.text import i18n
from app.ui.desktop import Desktop, LaunchChoices
from app.ui.history_view import HistoryDialog
from app.ui.main_window import MainWindow
from app.ui.panel_state import PanelState
from app.ui.settings.dialog import SettingsDialog
from app.ui.timeline.items import NoticeItem
from tests.fakes.llm_server import FakeLLMServer, done_reply
from tests.fakes.memory_keyring import MemoryKeyring, NoKeyring
from tests.ui.conftest import settle
from tests.waiting import until

KEY = "sk-typed-in-the-form-4321"
NO_KEYRING = "No system keyring: the key is kept until you quit; you'll be asked again next time."
LANGUAGE_LATER = "The language changes the next time you open Page Agent."


@pytest.fixture
def paths(tmp_path: Path) -> AppPaths:
    return AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs")


@pytest.fixture
async def start(qapp: QApplication, paths: AppPaths) -> AsyncIterator:  # type: ignore[type-arg]
    started: list[Desktop] = []

    async def _start(choices: LaunchChoices = LaunchChoices(headless=True)) -> tuple[Desktop, MainWindow]:
        desktop = Desktop(paths, choices)
        started.append(desktop)
        return desktop, await desktop.start()

    yield _start
    for dialog in QApplication.topLevelWidgets():
        if isinstance(dialog, QDialog) and dialog.isVisible():
            dialog.reject()
    for desktop in started:
        await stop(desktop)
    i18n.set_language("en")


async def stop(desktop: Desktop) -> None:
    if desktop.window is not None:
        desktop.window.close()
    await desktop.shutdown()


def shown(kind: type[QDialog]) -> QDialog | None:
    return next((w for w in QApplication.topLevelWidgets() if isinstance(w, kind) and w.isVisible()), None)


async def settings_dialog() -> SettingsDialog:
    await until(lambda: shown(SettingsDialog) is not None)
    dialog = shown(SettingsDialog)
    assert isinstance(dialog, SettingsDialog)
    return dialog


def notices(window: MainWindow) -> list[str]:
    return [item.text for item in window.model.items if isinstance(item, NoticeItem)]


def type_key(dialog: SettingsDialog, key: str) -> None:
    dialog.model_page.key_edit.setText(key)
    dialog.model_page.key_edit.textEdited.emit(key)


async def test_without_a_keyring_the_typed_key_is_used_for_this_session(
    start, llm_server: FakeLLMServer, memory_keyring: MemoryKeyring
) -> None:  # type: ignore[no-untyped-def]
    keyring.set_keyring(NoKeyring())
    desktop, window = await start()
    dialog = await settings_dialog()
    dialog.model_page.base_url_edit.setText(llm_server.base_url)
    dialog.model_page.model_edit.setText("fake-model")
    type_key(dialog, KEY)
    await dialog.save()
    await until(lambda: desktop.runtime is not None and not desktop.runtime.demo)
    assert NO_KEYRING in notices(window)
    assert not dialog.isVisible() and not dialog.error_area.isVisible()

    llm_server.add(done_reply("Hello.", success=True))
    window.composer.input.setPlainText("Say hello")
    window.composer.run.click()
    await settle(window, timeout=60)
    assert llm_server.requests[0]["_headers"]["authorization"] == f"Bearer {KEY}"

    window.settingsRequested.emit()  # the key is still there, not lost to an empty field on the next Save
    again = await settings_dialog()
    await until(lambda: again.model_page.key_edit.text() == KEY)
    again.reject()


async def test_after_a_restart_without_a_key_the_demo_is_back(
    start, paths: AppPaths, memory_keyring: MemoryKeyring
) -> None:  # type: ignore[no-untyped-def]
    keyring.set_keyring(NoKeyring())
    desktop, window = await start()
    dialog = await settings_dialog()
    type_key(dialog, KEY)  # for OpenAI itself, which no test calls
    await dialog.save()
    await until(lambda: desktop.runtime is not None and not desktop.runtime.demo)
    assert NO_KEYRING in notices(window) and not window.demo_banner.isVisible()
    await stop(desktop)
    assert KEY not in paths.settings_file.read_text(encoding="utf-8")

    desktop, window = await start()  # the key went with the last session
    assert desktop.runtime is not None and desktop.runtime.demo and window.demo_banner.isVisible()
    welcome = await settings_dialog()
    assert welcome.demo_button is not None and welcome.model_page.key_edit.text() == ""


async def test_a_key_a_local_endpoint_needed_but_no_keyring_kept_is_asked_for_again(
    start, paths: AppPaths, llm_server: FakeLLMServer, memory_keyring: MemoryKeyring
) -> None:  # type: ignore[no-untyped-def]
    keyring.set_keyring(NoKeyring())
    desktop, window = await start()
    dialog = await settings_dialog()
    # Nothing promises a keyring that is not there.
    await until(lambda: dialog.model_page.key_hint.text().startswith("No system keyring"), message="the key hint")
    dialog.model_page.base_url_edit.setText(
        llm_server.base_url
    )  # on this machine: "needs no key", as far as the app can tell
    dialog.model_page.model_edit.setText("fake-model")
    type_key(dialog, KEY)
    await dialog.save()
    await until(lambda: desktop.runtime is not None and not desktop.runtime.demo)
    await stop(desktop)
    assert KEY not in paths.settings_file.read_text(encoding="utf-8")

    desktop, window = await start()  # not the model without its key: asked again, the demo meanwhile
    assert desktop.runtime is not None and desktop.runtime.demo and window.demo_banner.isVisible()
    again = await settings_dialog()
    assert again.welcome is not None and again.welcome.text.text().startswith("There is no system keyring")
    type_key(again, KEY)
    await again.save()
    await until(lambda: desktop.runtime is not None and not desktop.runtime.demo)


async def test_a_new_language_applies_at_the_next_start_and_not_before(
    start, paths: AppPaths, memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    desktop, window = await start(LaunchChoices(demo=True, headless=True))
    run_label = window.composer.run.text()
    window.settingsRequested.emit()
    dialog = await settings_dialog()
    dialog.agent_page.language_combo.setCurrentIndex(dialog.agent_page.language_combo.findData("zh"))
    await dialog.save()
    await until(lambda: LANGUAGE_LATER in notices(window))
    assert load_settings(paths.settings_file).language == "zh"
    # Nothing switches before the restart: not the panel, not a dialog opened now, not the agent.
    assert i18n.language() == "en" and window.composer.run.text() == run_label
    window.historyRequested.emit()
    await until(lambda: shown(HistoryDialog) is not None)
    history = shown(HistoryDialog)
    assert history is not None and history.windowTitle() == "Run history"  # it used to switch at once
    history.reject()
    assert desktop.runtime is not None and desktop.runtime.settings.agent_config().language == "en"
    await stop(desktop)
    assert load_settings(paths.settings_file).language == "zh"  # not undone by what is saved on closing

    desktop, window = await start(LaunchChoices(demo=True, headless=True))
    assert i18n.language() == "zh"
    assert window.composer.run.text() != run_label and not window.composer.run.text().isascii()
    assert desktop.runtime is not None and desktop.runtime.settings.agent_config().language == "zh"
    window.settingsRequested.emit()
    assert (await settings_dialog()).model_page.test_button.text() == "测试连接"


async def test_the_first_start_asks_before_any_demo_banner_and_remembers_the_demo(
    start, paths: AppPaths, memory_keyring: MemoryKeyring
) -> None:  # type: ignore[no-untyped-def]
    keyring.set_keyring(NoKeyring())
    desktop, window = await start()
    welcome = await settings_dialog()
    assert welcome.demo_button is not None
    assert not window.demo_banner.isVisible()  # nothing chosen yet: one question at a time
    welcome.demo_button.click()
    await until(lambda: window.demo_banner.isVisible(), message="the demo chosen")
    await stop(desktop)

    desktop, window = await start()  # the demo it is, straight away: no welcome at every start
    assert desktop.runtime is not None and desktop.runtime.demo and window.demo_banner.isVisible()
    # The welcome would be asked for as the panel opens, and shown before Chromium is up.
    await until(lambda: window.state is not PanelState.OPENING, timeout=30, message="Chromium up")
    assert shown(SettingsDialog) is None
