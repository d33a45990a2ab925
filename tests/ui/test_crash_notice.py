"""The panel's crash notice: it names the report's path, which can be selected to copy, and blocks nothing. The
notice of a hard crash found at start says it is about the last session and comes once Chromium is open, over the
panel, so that Chromium's window, opening later, does not hide it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot

from app.crash_report import CrashReport
from app.settings.paths import AppPaths
from app.ui.crash_notice import show_crash_notice
from app.ui.desktop import Desktop, LaunchChoices
from app.ui.panel_state import PanelState
from tests.fakes.memory_keyring import MemoryKeyring, memory_keyring  # noqa: F401  (fixture)
from tests.waiting import until


def _notice() -> QMessageBox | None:
    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, QMessageBox) and widget.objectName() == "crashNotice" and widget.isVisible():
            return widget
    return None


def test_the_notice_says_where_the_report_is(qtbot: QtBot, tmp_path: Path) -> None:
    report = tmp_path / "crash-20261127-101010-1-1.txt"
    show_crash_notice(CrashReport(report))
    qtbot.waitUntil(lambda: _notice() is not None, timeout=5000)
    box = _notice()
    assert box is not None
    assert str(report) in box.text()
    assert "went wrong" in box.text()
    assert box.windowModality() == Qt.WindowModality.NonModal  # the panel goes on working
    assert box.textInteractionFlags() & Qt.TextInteractionFlag.TextSelectableByMouse
    box.close()


async def test_a_crash_last_time_is_told_once_chromium_is_open_over_the_panel(
    qapp: QApplication, tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    qapp.setQuitOnLastWindowClosed(False)
    desktop = Desktop(
        AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs"), LaunchChoices(demo=True, headless=True)
    )
    report = tmp_path / "logs" / "crash-20261127-101010-1-1.txt"
    # As at a real start: the hooks are installed, and the last session's report told, before the panel exists.
    desktop.crash_notices.tell(CrashReport(report, last_session=True))
    states: list[PanelState] = []
    try:
        window = await desktop.start()
        await until(lambda: _notice() is not None, timeout=60, message="the crash notice")
        states.append(window.state)
        box = _notice()
        assert box is not None
        assert states == [PanelState.READY]  # not while "Starting the browser…": Chromium's window is up by now
        assert box.parentWidget() is window  # over the panel, which it belongs to
        assert box.windowModality() == Qt.WindowModality.NonModal
        assert str(report) in box.text() and "the last time it ran" in box.text()
        box.close()
    finally:
        if desktop.window is not None:
            desktop.window.close()
        await desktop.shutdown()
