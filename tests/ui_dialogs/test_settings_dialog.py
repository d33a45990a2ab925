"""The settings dialog: presets fill the form, Save returns settings and stores the key in the keyring (never in
settings.json), the environment override is explained, a missing keyring keeps the key for the session, Test
connection runs without blocking the loop, keeps the focus and is forgotten when the form changes, and the first-run
screen offers the demo."""

from __future__ import annotations

import asyncio
from pathlib import Path

import keyring
import pytest
from PySide6.QtWidgets import QApplication, QDialog, QLineEdit

from app.llm.probe import PROBE_TOOL
from app.llm.settings import ToolChoiceMode
from app.settings import secrets
from app.settings.model import Settings, load_settings, save_settings
from app.ui.dialog_widgets import Tone
from app.ui.settings.dialog import SettingsDialog
from tests.fakes.llm_server import FakeLLMServer, FakeResponse, completion
from tests.fakes.memory_keyring import LockedKeyring, MemoryKeyring, NoKeyring
from tests.ui_dialogs.conftest import screenshot
from tests.ui_waiting import laid_out
from tests.waiting import until

KEY = "sk-dialog-secret-123456"


def choose_provider(dialog: SettingsDialog, key: str) -> None:
    dialog.model_page.provider_combo.setCurrentIndex(dialog.model_page.provider_combo.findData(key))
    dialog.model_page.provider_combo.activated.emit(dialog.model_page.provider_combo.currentIndex())


@pytest.fixture
async def dialog(qapp: QApplication, memory_keyring: MemoryKeyring) -> SettingsDialog:
    memory_keyring.set_password(secrets.SERVICE, "api-key:openai", KEY)
    dlg = SettingsDialog(Settings(), detected_browser="/usr/bin/chromium")
    dlg.show()
    await until(lambda: dlg.model_page.key_edit.text() == KEY)  # read from the keyring off the loop's thread
    yield dlg
    dlg.close()
    dlg.deleteLater()


async def test_presets_fill_the_form_and_editing_the_url_means_custom(dialog: SettingsDialog) -> None:
    screenshot(dialog, "settings")
    choose_provider(dialog, "ollama")
    assert dialog.model_page.base_url_edit.text() == "http://localhost:11434/v1"
    assert dialog.model_page.model_edit.text() == "qwen2.5:7b"
    assert dialog.model_page.key_edit.text() == ""  # no key stored for Ollama
    assert "no key" in dialog.model_page.key_hint.text()
    choose_provider(dialog, "deepseek")
    assert dialog.model_page.base_url_edit.text() == "https://api.deepseek.com/v1"
    dialog.model_page.base_url_edit.setFocus()
    dialog.model_page.base_url_edit.end(False)
    dialog.model_page.base_url_edit.insert("/beta")  # as if typed: textEdited
    dialog.model_page.base_url_edit.textEdited.emit(dialog.model_page.base_url_edit.text())
    assert dialog.model_page.provider == "custom"
    assert dialog.model_page.base_url_edit.text() == "https://api.deepseek.com/v1/beta"


async def test_key_is_hidden_until_shown(dialog: SettingsDialog) -> None:
    assert dialog.model_page.key_edit.echoMode() == QLineEdit.EchoMode.Password
    dialog.model_page.show_key_action.trigger()
    assert dialog.model_page.key_edit.echoMode() == QLineEdit.EchoMode.Normal
    dialog.model_page.show_key_action.trigger()
    assert dialog.model_page.key_edit.echoMode() == QLineEdit.EchoMode.Password


async def test_save_returns_settings_and_key_goes_to_the_keyring(
    dialog: SettingsDialog, memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    choose_provider(dialog, "openrouter")
    dialog.model_page.key_edit.setText("sk-or-new-key-987654")
    dialog.model_page.key_edit.textEdited.emit(dialog.model_page.key_edit.text())
    dialog.model_page.model_edit.setText("anthropic/claude-sonnet-4")
    dialog.model_page.mode_combo.setCurrentIndex(dialog.model_page.mode_combo.findData("required"))
    dialog.agent_page.max_steps_spin.setValue(25)
    dialog.agent_page.language_combo.setCurrentIndex(dialog.agent_page.language_combo.findData("zh"))
    dialog.agent_page.start_url_edit.setText("https://crm.example/")
    dialog.agent_page.javascript_check.setChecked(True)
    assert not dialog.model_page.vision_check.isChecked()  # off unless asked for
    dialog.model_page.vision_check.setChecked(True)
    dialog.agent_page.browser_edit.setText("/opt/chrome/chrome")
    dialog.save_button.click()
    await until(lambda: dialog.result() == QDialog.DialogCode.Accepted)
    settings = dialog.result_settings()
    assert settings.provider == "openrouter" and settings.base_url == "https://openrouter.ai/api/v1"
    assert settings.model == "anthropic/claude-sonnet-4" and settings.tool_choice == ToolChoiceMode.REQUIRED
    assert settings.max_steps == 25 and settings.language == "zh" and settings.allow_javascript and settings.vision
    assert settings.start_url == "https://crm.example/" and settings.browser_path == "/opt/chrome/chrome"
    assert dialog.result_api_key() == "sk-or-new-key-987654"
    assert memory_keyring.passwords[(secrets.SERVICE, "api-key:openrouter")] == "sk-or-new-key-987654"
    path = tmp_path / "settings.json"
    save_settings(path, settings)  # what the caller does
    assert "sk-or-new-key" not in path.read_text() and KEY not in path.read_text()
    assert load_settings(path).vision


async def test_untouched_key_is_not_rewritten(dialog: SettingsDialog, memory_keyring: MemoryKeyring) -> None:
    keyring.set_keyring(LockedKeyring())  # a write would fail: none must happen
    dialog.save_button.click()
    await until(lambda: dialog.result() == QDialog.DialogCode.Accepted)
    assert dialog.result_api_key() == KEY


async def test_without_a_keyring_the_key_is_kept_for_this_session(dialog: SettingsDialog) -> None:
    """No system keyring: Save still closes with the typed key for the app to use now, and says it is not kept."""
    keyring.set_keyring(NoKeyring())
    dialog.model_page.key_edit.setText("sk-another-key-000000")
    dialog.model_page.key_edit.textEdited.emit(dialog.model_page.key_edit.text())
    dialog.save_button.click()
    await until(lambda: dialog.result() == QDialog.DialogCode.Accepted)
    assert dialog.key_kept_in_memory and dialog.result_api_key() == "sk-another-key-000000"
    assert not dialog.error_area.isVisible()


async def test_a_key_kept_in_memory_shows_again_and_is_not_lost(
    qapp: QApplication, memory_keyring: MemoryKeyring
) -> None:
    keyring.set_keyring(NoKeyring())
    dlg = SettingsDialog(Settings(), session_key="sk-session-only-1234")
    dlg.show()
    await until(lambda: dlg.model_page.key_edit.text() == "sk-session-only-1234")
    assert "kept until you quit" in dlg.model_page.key_hint.text()
    dlg.save_button.click()  # untouched: nothing to write, and the key in use stays
    await until(lambda: dlg.result() == QDialog.DialogCode.Accepted)
    assert dlg.result_api_key() == "sk-session-only-1234" and not dlg.key_kept_in_memory
    dlg.deleteLater()


async def test_invalid_url_is_not_saved(dialog: SettingsDialog) -> None:
    dialog.model_page.base_url_edit.setText("api.openai.com")
    await dialog.save()
    assert dialog.isVisible() and "http://" in dialog.error_area.text()


async def test_environment_override_is_explained(
    qapp: QApplication, memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
    dlg = SettingsDialog(Settings())
    dlg.show()
    laid_out(dlg)
    assert dlg.model_page.key_edit.text() == ""  # the environment's key is not copied into the form
    assert "OPENAI_API_KEY" in dlg.model_page.key_hint.text() and "overrides" in dlg.model_page.key_hint.text()
    assert dlg.result_api_key() == "sk-from-the-environment"
    dlg.close()


async def test_test_connection_runs_without_blocking(dialog: SettingsDialog, llm_server: FakeLLMServer) -> None:
    llm_server.add(FakeResponse(body=completion(tool_name=PROBE_TOOL, arguments={"ok": True}), delay=2.0))
    page = dialog.model_page
    page.base_url_edit.setText(llm_server.base_url)
    page.model_edit.setText("fake-model")
    page.test_button.click()
    await until(lambda: page.message.isVisible())
    assert page.message.tone == Tone.BUSY and not page.test_button.isEnabled()
    # The loop keeps turning while the request is out: this test resumes when the server has it, answer pending.
    await llm_server.received()
    assert page.testing
    await until(lambda: not page.testing, timeout=30, message="the test's answer")
    assert page.message.tone == Tone.OK
    assert f"Connected to fake-model at {llm_server.base_url}; tool calling works." in page.message.text()
    assert llm_server.requests[0]["_headers"]["authorization"] == f"Bearer {KEY}"
    screenshot(dialog, "settings_test_ok")


async def test_no_tool_support_offers_the_next_mode(dialog: SettingsDialog, llm_server: FakeLLMServer) -> None:
    llm_server.add(
        FakeResponse(body=completion(tool_name=None, content="Hi!")),
        FakeResponse(body=completion(tool_name=PROBE_TOOL, arguments={"ok": True})),
    )
    dialog.model_page.base_url_edit.setText(llm_server.base_url)
    await dialog.model_page.test_connection()
    assert dialog.model_page.message.tone == Tone.WARNING and "plain text" in dialog.model_page.message.text()
    assert dialog.model_page.fix_button.isVisible() and "'required'" in dialog.model_page.fix_button.text()
    laid_out(dialog)  # the dialog grows to fit the message
    assert dialog.model_page.message.height() >= dialog.model_page.message.heightForWidth(
        dialog.model_page.message.width()
    )
    screenshot(dialog, "settings_test_no_tools")
    dialog.model_page.fix_button.click()
    assert dialog.model_page.mode_combo.currentData() == "required"
    await dialog.model_page.test_connection()
    assert dialog.model_page.message.tone == Tone.OK and llm_server.requests[1]["tool_choice"] == "required"


async def test_closing_cancels_a_running_test(dialog: SettingsDialog, llm_server: FakeLLMServer) -> None:
    llm_server.add(FakeResponse(body=completion(), delay=10))
    dialog.model_page.base_url_edit.setText(llm_server.base_url)
    task = dialog.model_page.test_connection()
    await until(lambda: bool(llm_server.requests))
    dialog.reject()
    await asyncio.wait([task], timeout=2)
    assert task.cancelled()


async def test_first_run_offers_the_demo(qapp: QApplication, memory_keyring: MemoryKeyring) -> None:
    dlg = SettingsDialog(Settings(), first_run=True)
    dlg.show()
    laid_out(dlg)
    assert dlg.welcome is not None and dlg.welcome.isVisible() and dlg.demo_button is not None
    screenshot(dlg, "settings_first_run")
    dlg.demo_button.click()
    assert dlg.wants_demo and dlg.result() == SettingsDialog.DEMO and not dlg.isVisible()


async def test_after_a_test_the_focus_stays_on_the_button(dialog: SettingsDialog, llm_server: FakeLLMServer) -> None:
    llm_server.add(FakeResponse(body=completion(tool_name=PROBE_TOOL, arguments={"ok": True})))
    dialog.model_page.base_url_edit.setText(llm_server.base_url)
    dialog.activateWindow()
    dialog.model_page.test_button.setFocus()
    await until(lambda: dialog.model_page.test_button.hasFocus())
    await dialog.model_page.test_connection()
    assert dialog.model_page.message.tone == Tone.OK
    assert dialog.model_page.test_button.hasFocus(), QApplication.focusWidget()


@pytest.mark.parametrize("field", ["base_url_edit", "model_edit", "key_edit"])
async def test_editing_the_url_model_or_key_clears_the_result(
    dialog: SettingsDialog, llm_server: FakeLLMServer, field: str
) -> None:
    llm_server.add(FakeResponse(body=completion(tool_name=None, content="Hi!")))
    dialog.model_page.base_url_edit.setText(llm_server.base_url)
    await dialog.model_page.test_connection()
    assert dialog.model_page.message.isVisible() and dialog.model_page.fix_button.isVisible()
    edit: QLineEdit = getattr(dialog.model_page, field)
    edit.end(False)
    edit.insert("x")
    edit.textEdited.emit(edit.text())  # as if typed
    assert not dialog.model_page.message.isVisible() and not dialog.model_page.fix_button.isVisible()


async def test_an_edit_during_a_test_cancels_it(dialog: SettingsDialog, llm_server: FakeLLMServer) -> None:
    llm_server.add(FakeResponse(body=completion(), delay=10))
    dialog.model_page.base_url_edit.setText(llm_server.base_url)
    task = dialog.model_page.test_connection()
    await until(lambda: bool(llm_server.requests))
    dialog.model_page.model_edit.textEdited.emit("another-model")
    await asyncio.wait([task], timeout=2)
    assert task.cancelled() and not dialog.model_page.message.isVisible()
    assert dialog.model_page.test_button.isEnabled() and dialog.model_page.test_button.text() == "Test connection"


async def test_theme_and_hand_off_sound_are_saved(dialog: SettingsDialog) -> None:
    assert dialog.agent_page.theme_combo.currentData() == "system" and not dialog.agent_page.sound_check.isChecked()
    dialog.agent_page.theme_combo.setCurrentIndex(dialog.agent_page.theme_combo.findData("dark"))
    dialog.agent_page.sound_check.setChecked(True)
    dialog.save_button.click()
    await until(lambda: dialog.result() == QDialog.DialogCode.Accepted)
    assert dialog.result_settings().theme == "dark" and dialog.result_settings().hand_off_sound


async def test_a_new_language_says_it_applies_at_the_next_start(dialog: SettingsDialog) -> None:
    assert not dialog.agent_page.language_hint.isVisible()
    dialog.tabs.setCurrentIndex(1)
    dialog.agent_page.language_combo.setCurrentIndex(dialog.agent_page.language_combo.findData("zh"))
    assert dialog.agent_page.language_hint.isVisible()
    assert dialog.agent_page.language_hint.text() == "Applies the next time you open Page Agent."
    dialog.agent_page.language_combo.setCurrentIndex(dialog.agent_page.language_combo.findData("en"))
    assert not dialog.agent_page.language_hint.isVisible()
