"""Where a window is on the screen: the window manager's frame around it, the screen's free area, and moving or
capping a window so that all of it, title bar included, stays inside that area."""

from __future__ import annotations

from PySide6.QtCore import QMargins, QRect
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

# Room kept for a window manager's title bar until the real frame is known.
TITLE_BAR = 40


def frame_margins(window: QWidget) -> QMargins:
    """The window manager's frame around ``window``: measured once shown, else room for a title bar."""
    outer, inner = window.frameGeometry(), window.geometry()
    measured = QMargins(
        inner.left() - outer.left(),
        inner.top() - outer.top(),
        outer.right() - inner.right(),
        outer.bottom() - inner.bottom(),
    )
    return measured if measured.top() > 0 else QMargins(0, TITLE_BAR, 0, 0)


def screen_area(window: QWidget) -> QRect:
    """The free part of ``window``'s screen (without the desktop's panels and docks)."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry()


def cap_to_screen(window: QWidget, available: QRect | None = None) -> QRect:
    """Make ``window`` (its frame included) no bigger than ``available``, by default its screen's free area; returns
    the room left for the window's content."""
    room = (available or screen_area(window)).marginsRemoved(frame_margins(window))
    window.setMaximumSize(room.size())
    return room


def outer_geometry(window: QWidget) -> QRect:
    """``window`` with its frame: the real one once the window manager has framed it, else an assumed title bar."""
    return window.geometry().marginsAdded(frame_margins(window))


def move_frame(window: QWidget, x: int, y: int) -> None:
    """Put the top-left corner of ``window``'s frame at (x, y).

    Placed through the content's geometry: before the window manager has framed a window, Qt places its content,
    not its frame, at a ``move()``'s point, which would push the title bar above the screen."""
    margins = frame_margins(window)
    window.setGeometry(QRect(x + margins.left(), y + margins.top(), window.width(), window.height()))


_BESIDE_GAP = 8  # between the panel and a window placed beside it
# Narrower than this, a window beside the panel goes over the panel's edge rather than beside it.
_BESIDE_MIN_WIDTH = 380


def place_beside_panel(window: QWidget, panel: QWidget) -> None:
    """``window`` to the right of the panel (over the browser's side) when there is room, always on the screen:
    the panel, its Stop and its live run stay in sight."""
    screen = (panel.screen() or window.screen()).availableGeometry()
    frame = panel.frameGeometry()
    room = screen.right() - frame.right() - _BESIDE_GAP
    width = min(window.width(), room if room >= _BESIDE_MIN_WIDTH else screen.width())
    height = min(max(window.height(), frame.height() * 4 // 5), screen.height())
    x = frame.right() + _BESIDE_GAP if room >= _BESIDE_MIN_WIDTH else screen.right() - width
    y = max(screen.top(), min(frame.top(), screen.bottom() - height))
    window.resize(width, height)
    move_frame(window, x, y)


def keep_on_screen(window: QWidget, available: QRect | None = None) -> None:
    """No bigger than ``available`` (by default the screen's free area), and moved so that the whole frame, title
    bar and buttons, is inside it."""
    area = available or screen_area(window)
    cap_to_screen(window, area)
    window.resize(window.size().boundedTo(window.maximumSize()))
    outer = outer_geometry(window)
    x = max(area.left(), min(outer.x(), area.x() + area.width() - outer.width()))
    y = max(area.top(), min(outer.y(), area.y() + area.height() - outer.height()))
    if (x, y) != (outer.x(), outer.y()):
        move_frame(window, x, y)
