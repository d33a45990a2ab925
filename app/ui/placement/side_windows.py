"""History and the saved runs opened from it: windows of their own, never modal, so the live run stays in reach
(Stop, "I've done it — continue") while the person reads.

Each one opens beside the panel, over the browser's side of the screen. While the live run waits for the person in
the browser (a hand-off, or they took over), that side is theirs to work in (a captcha, a sign-in): then History and
a saved run open over the panel's column instead, down to the bar that waits for them, so they cover neither the page
nor "I've done it — continue".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QWidget

from app.ui.placement.screen_geometry import frame_margins, move_frame, place_beside_panel

if TYPE_CHECKING:
    from app.history.records import RunRecord
    from app.history.store import RunStore
    from app.ui.history_view import HistoryDialog
    from app.ui.main_window import MainWindow
    from app.ui.saved_run_window import SavedRunWindow


class SideWindows:
    """``store()`` gives the run store (made when History is first opened)."""

    def __init__(self, panel: MainWindow, store: Callable[[], RunStore]) -> None:
        self._panel = panel
        self._store = store
        self._history: HistoryDialog | None = None
        self._saved_runs: list[SavedRunWindow] = []

    @property
    def history(self) -> HistoryDialog | None:
        return self._history

    @property
    def saved_runs(self) -> list[SavedRunWindow]:
        """The saved runs open now, each in its own window."""
        return list(self._saved_runs)

    def open_history(self) -> None:
        if self._history is not None:
            _forward(self._history)
            return
        from app.ui.history_view import HistoryDialog  # only when asked for: not on the way to the panel

        dialog = HistoryDialog(self._store(), parent=self._panel)
        dialog.openRun.connect(self.open_run)
        dialog.finished.connect(self._history_closed)
        self._history = dialog
        self._place(dialog)
        dialog.show()
        _forward(dialog)

    def _history_closed(self, _code: int) -> None:
        self._history = None

    def open_run(self, record: RunRecord) -> None:
        """A saved run opens read-only in its own window: the panel's live run is never touched."""
        for open_run in self._saved_runs:
            if open_run.record.id == record.id:  # already open: bring it forward rather than open it twice
                _forward(open_run)
                return
        from app.ui.saved_run_window import SavedRunWindow

        saved = SavedRunWindow(record, parent=self._panel)
        saved.finished.connect(lambda _code: self._saved_runs.remove(saved) if saved in self._saved_runs else None)
        self._saved_runs.append(saved)
        self._place(saved)
        saved.show()

    def _place(self, window: QWidget) -> None:
        if not (self._panel.browser_is_the_persons and place_over_panel(window, self._panel)):
            place_beside_panel(window, self._panel)

    def close_all(self) -> None:
        for saved in list(self._saved_runs):
            saved.close()


# Over the panel's column, a window is never shorter than this: below it, it goes beside the panel after all.
_MIN_OVER_PANEL = 260
_GAP = 8


def place_over_panel(window: QWidget, panel: MainWindow) -> bool:
    """``window`` over the panel's column, from its top down to just above the bar waiting for the person; False
    (and nothing moved) when that leaves too little room."""
    frame = panel.frameGeometry()
    height = panel.mapToGlobal(panel.waiting_bar_top()).y() - frame.top() - _GAP
    if height < _MIN_OVER_PANEL:
        return False
    margins = frame_margins(window)
    window.resize(frame.width() - margins.left() - margins.right(), height - margins.top() - margins.bottom())
    move_frame(window, frame.left(), frame.top())
    return True


def _forward(window: QWidget) -> None:
    window.raise_()
    window.activateWindow()
