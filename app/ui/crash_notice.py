"""The panel's word when a crash report was saved: a small window saying where, that does not stop anything."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QMessageBox, QWidget

from app.crash_report import crash_message
from app.text.i18n import tr

# A box without a parent lives as long as its Python object: held here until it is closed.
_open: set[QMessageBox] = set()


def show_crash_notice(report: Path, parent: QWidget | None = None) -> None:
    """Tell the person where the report is (selectable, to copy); opened on the next turn of the loop, since this
    is called from inside a hook."""

    def show() -> None:
        box = QMessageBox(QMessageBox.Icon.Warning, tr("Page Agent Desktop"), crash_message(report), parent=parent)
        box.setObjectName("crashNotice")
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        _open.add(box)
        box.finished.connect(lambda _result: _open.discard(box))
        box.open()

    QTimer.singleShot(0, show)
