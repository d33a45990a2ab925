"""The panel and Chromium tile the screen: when the user moves or resizes the panel, Chromium follows.

An event filter on the panel window waits until the panel has been still for a moment (a drag sends a stream of
moves), then snaps the panel to the nearer screen edge and gives Chromium the rest (app.ui.placement.side_by_side.tile),
so that neither ever covers the other and Stop stays in sight. Maximizing either window maximizes the pair: the panel
takes the screen's full height at its edge and Chromium all the rest, still side by side (``fill_screen``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from PySide6.QtCore import QEvent, QObject, QRect, Qt, QTimer
from PySide6.QtWidgets import QWidget

from app.background import Background
from app.browser.screen_rect import ScreenRect
from app.ui.placement.side_by_side import PANEL_WIDTH, tile

log = logging.getLogger(__name__)

# Long enough for a drag's stream of moves to end, short enough to feel like Chromium follows.
SETTLE_MS = 300

PlaceBrowser = Callable[[ScreenRect], Awaitable[None]]


class BrowserTiler(QObject):
    """Keeps Chromium beside ``window``; ``place_browser(rect)`` moves Chromium (``Runtime.place_browser``)."""

    def __init__(self, window: QWidget, place_browser: PlaceBrowser, settle_ms: int = SETTLE_MS) -> None:
        super().__init__(window)
        self._window = window
        self._place_browser = place_browser
        self._sent: ScreenRect | None = None
        self._background = Background("tiling")
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(settle_ms)
        self._timer.timeout.connect(self.tile_now)
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._window and event.type() in (QEvent.Type.Move, QEvent.Type.Resize, QEvent.Type.Show):
            self._timer.start()
        elif (
            watched is self._window
            and event.type() == QEvent.Type.WindowStateChange
            and self._window.windowState() & Qt.WindowState.WindowMaximized
        ):
            # After the state change is done with: the window manager restores the old size when it un-maximizes.
            QTimer.singleShot(0, self, self.fill_screen)
        return False

    def fill_screen(self) -> None:
        """The pair fills the screen, side by side: the panel at its edge, full height; Chromium the rest."""
        window = self._window
        screen = window.screen()
        if screen is None or not window.isVisible():
            return
        frame = window.frameGeometry()
        decoration = frame.width() - window.width()
        # Where the person had it before maximizing: its width, and the edge it sat at.
        before = window.normalGeometry() if window.windowState() & Qt.WindowState.WindowMaximized else window.geometry()
        if window.windowState() & Qt.WindowState.WindowMaximized:
            window.setWindowState(window.windowState() & ~Qt.WindowState.WindowMaximized)
        area = screen.availableGeometry()
        width = (before.width() if before.isValid() else PANEL_WIDTH) + decoration
        at_left = before.center().x() <= area.center().x()
        x = area.x() if at_left else area.x() + area.width() - width
        placement = tile(area, (x, area.y(), width, area.height()), window.minimumWidth() + decoration)
        px, py, pwidth, pheight = placement.panel
        window.move(px, py)
        window.resize(pwidth - decoration, pheight - (frame.height() - window.height()))
        self._sent = placement.browser
        self._background.spawn(self._send(placement.browser))

    def tile_now(self) -> None:
        """Snap the panel and send Chromium beside it (at once; the event filter calls this once moves settle)."""
        window = self._window
        screen = window.screen()
        if (
            not window.isVisible()
            or screen is None
            or window.windowState()
            & (Qt.WindowState.WindowMaximized | Qt.WindowState.WindowMinimized | Qt.WindowState.WindowFullScreen)
        ):
            return
        frame = window.frameGeometry()
        # The window manager's decoration is part of the frame; the minimum size is the client's.
        decoration = frame.width() - window.width()
        placement = tile(screen.availableGeometry(), _rect(frame), window.minimumWidth() + decoration)
        if placement.panel != _rect(frame):
            x, y, width, height = placement.panel
            window.move(x, y)
            window.resize(width - decoration, height - (frame.height() - window.height()))
        if placement.browser != self._sent:
            self._sent = placement.browser
            self._background.spawn(self._send(placement.browser))

    async def _send(self, rect: ScreenRect) -> None:
        try:
            await self._place_browser(rect)
        except Exception as exc:
            self._sent = None
            log.warning("could not move Chromium beside the panel: %s", exc)


def _rect(rect: QRect) -> ScreenRect:
    return rect.x(), rect.y(), rect.width(), rect.height()
