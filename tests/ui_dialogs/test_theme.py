"""The Theme setting: Light and Dark switch the whole app at once (panel, timeline, open dialogs, the palette behind
native widgets); System follows the desktop's scheme again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from app.history.store import RunStore
from app.settings.model import Settings
from app.ui import style
from app.ui.history_view import HistoryDialog
from app.ui.main_window import MainWindow
from app.ui.settings.dialog import SettingsDialog
from tests.fakes.llm_server import FakeLLMServer
from tests.fakes.memory_keyring import MemoryKeyring
from tests.ui.conftest import TestRuntime
from tests.ui_dialogs.conftest import screenshot
from tests.waiting import until

DARK_WINDOW, LIGHT_WINDOW = "#181a1f", "#f4f5f7"


@pytest.fixture(autouse=True)
def back_to_the_system_theme(qapp: QApplication) -> Iterator[None]:
    yield
    style.use_theme("system")


def window_colour() -> str:
    return QApplication.palette().color(QPalette.ColorRole.Window).name()


async def test_a_chosen_theme_applies_at_once_everywhere(
    qapp: QApplication, llm_server: FakeLLMServer, memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    system_window = window_colour()
    assert not style.theme().dark  # the offscreen platform's scheme is light
    runtime = TestRuntime(llm_server)
    panel = MainWindow(runtime)
    panel.show()
    settings = SettingsDialog(Settings(), parent=panel)
    settings.show()
    history = HistoryDialog(RunStore(tmp_path / "runs"), parent=panel)
    history.show()
    try:
        for widget in (panel, settings, history):
            assert LIGHT_WINDOW in widget.styleSheet() and DARK_WINDOW not in widget.styleSheet()

        style.use_theme("dark")
        assert style.theme().dark and window_colour() == DARK_WINDOW
        # Restyled by the palette change's event, with nothing else to call.
        await until(lambda: all(DARK_WINDOW in w.styleSheet() for w in (panel, settings, history)))
        assert panel.timeline.itemDelegate().theme.dark  # the cards are painted dark too
        screenshot(settings, "settings_dark")
        screenshot(panel, "panel_dark")

        style.use_theme("light")
        assert not style.theme().dark and window_colour() == LIGHT_WINDOW
        await until(lambda: all(LIGHT_WINDOW in w.styleSheet() for w in (panel, settings, history)))

        style.use_theme("system")  # the platform's own palette and scheme again
        assert window_colour() == system_window and not style.theme().dark
        await until(lambda: LIGHT_WINDOW in panel.styleSheet() and DARK_WINDOW not in panel.styleSheet())
    finally:
        for widget in (history, settings, panel):
            widget.close()
            widget.deleteLater()
        await runtime.shutdown()


async def test_the_dark_theme_holds_for_dialogs_opened_later(qapp: QApplication, memory_keyring: MemoryKeyring) -> None:
    style.use_theme("dark")
    dialog = SettingsDialog(Settings(theme="dark"))
    assert DARK_WINDOW in dialog.styleSheet()
    dialog.deleteLater()
