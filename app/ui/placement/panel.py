"""Where the panel goes on screen, and its place remembered between starts: the panel at a screen edge, Chromium
taking the rest (side_by_side.py does the arithmetic, tiling.py keeps the two tiled as the person moves the panel)."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QRect
from PySide6.QtGui import QGuiApplication, QScreen
from PySide6.QtWidgets import QWidget

from app.browser.screen_rect import ScreenRect
from app.ui.placement.screen_geometry import frame_margins
from app.ui.placement.side_by_side import side_by_side, tile


def place_beside_browser(panel: QWidget, screen: QScreen | None = None) -> ScreenRect:
    """Put the panel at the left of ``screen``; returns Chromium's (x, y, width, height) for the rest."""
    screen = screen or panel.screen() or QGuiApplication.primaryScreen()
    placement = side_by_side(screen.availableGeometry())
    # The placement is the whole window, title bar included. Before the window manager has framed the window,
    # Qt places its content at the point given, which would push the title bar above the screen.
    panel.setGeometry(QRect(*placement.panel).marginsRemoved(frame_margins(panel)))
    return placement.browser


def tile_with_browser(panel: QWidget) -> ScreenRect:
    """Snap a panel restored where the user left it to the nearer screen edge; returns Chromium's rect for the rest
    of the screen, so that neither window ever covers the other."""
    screen = panel.screen() or QGuiApplication.primaryScreen()
    # Before the window is shown its frame is not known yet: the restored content plus room for a title bar.
    frame = panel.geometry().marginsAdded(frame_margins(panel))
    # The minimum width is the content's; the window manager's decoration comes on top of it.
    placement = tile(
        screen.availableGeometry(),
        (frame.x(), frame.y(), frame.width(), frame.height()),
        panel.minimumWidth() + frame.width() - panel.width(),
    )
    panel.setGeometry(QRect(*placement.panel).marginsRemoved(frame_margins(panel)))
    return placement.browser


def save_geometry(panel: QWidget) -> str:
    """The panel's size and position, for Settings.panel_geometry."""
    return bytes(panel.saveGeometry().toBase64().data()).decode("ascii")


def restore_geometry(panel: QWidget, data: str) -> bool:
    return bool(data) and panel.restoreGeometry(QByteArray.fromBase64(data.encode("ascii")))
