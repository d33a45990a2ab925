"""The panel's crash notice: it names the report's path, which can be selected to copy, and blocks nothing."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot

from app.ui.crash_notice import show_crash_notice


def _notice() -> QMessageBox | None:
    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, QMessageBox) and widget.objectName() == "crashNotice" and widget.isVisible():
            return widget
    return None


def test_the_notice_says_where_the_report_is(qtbot: QtBot, tmp_path: Path) -> None:
    report = tmp_path / "crash-20261127-101010-1-1.txt"
    show_crash_notice(report)
    qtbot.waitUntil(lambda: _notice() is not None, timeout=5000)
    box = _notice()
    assert box is not None
    assert str(report) in box.text()
    assert box.windowModality() != Qt.WindowModality.ApplicationModal  # the panel goes on working
    assert box.textInteractionFlags() & Qt.TextInteractionFlag.TextSelectableByMouse
    box.close()
