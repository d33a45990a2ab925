"""The panel's word when a crash report was saved: a small window saying where, over the panel, that does not stop
anything. The last session's (a hard crash found at this start) waits until Chromium has opened, whose window would
otherwise come up over it."""

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


class CrashNotices:
    """The crash reports' ``tell`` for the panel: each report said by ``show_crash_notice`` over the panel, the last
    session's once ``browser_opened`` was called."""

    def __init__(self) -> None:
        self._panel: QWidget | None = None
        self._later: list[CrashReport] = []

    def tell(self, report: CrashReport) -> None:
        if report.last_session and self._panel is None:
            self._later.append(report)
        else:
            show_crash_notice(report, self._panel)

    def browser_opened(self, panel: QWidget) -> None:
        """Chromium is up (or could not start): from now on every notice shows at once, over ``panel``."""
        self._panel = panel
        told, self._later = self._later, []
        for report in told:
            show_crash_notice(report, panel)
