"""The panel's word when a crash report was saved: a small window saying where, that does not stop anything."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QMessageBox, QWidget

from app.crash_report import CrashReport, crash_message
from app.text.i18n import tr

# A box without a parent lives as long as its Python object: held here until it is closed.
_open: set[QMessageBox] = set()


def show_crash_notice(report: CrashReport, parent: QWidget | None = None) -> None:
    """Tell the person where the report is (selectable, to copy), in front, over ``parent`` (the panel) when there
    is one, which goes on working; opened on the next turn of the loop, since this is called from inside a hook."""

    def show() -> None:
        box = QMessageBox(QMessageBox.Icon.Warning, tr("Page Agent Desktop"), crash_message(report), parent=parent)
        box.setObjectName("crashNotice")
        box.setWindowModality(Qt.WindowModality.NonModal)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        _open.add(box)
        box.finished.connect(lambda _result: _open.discard(box))
        box.show()
        box.raise_()
        box.activateWindow()

    QTimer.singleShot(0, show)
