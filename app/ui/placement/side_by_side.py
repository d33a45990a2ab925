"""Where the panel and Chromium go: side by side on one screen, the panel at the left.

Pure arithmetic on a screen's available geometry so the runtime can size Chromium before any window exists.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from app.browser.screen_rect import ScreenRect

PANEL_WIDTH = 420
# On narrow screens the panel never takes more than this share, so the page stays usable.
MAX_PANEL_SHARE = 0.45
MIN_PANEL_WIDTH = 320
SNAP = 40  # a panel's top or bottom this close to the screen's goes to it (the room guessed for a title bar)


class RectLike(Protocol):
    def x(self) -> int: ...
    def y(self) -> int: ...
    def width(self) -> int: ...
    def height(self) -> int: ...


@dataclass(frozen=True)
class Placement:
    panel: ScreenRect
    browser: ScreenRect


def side_by_side(available: RectLike | ScreenRect, panel_width: int = PANEL_WIDTH) -> Placement:
    """Split ``available`` (a QRect or an (x, y, w, h) tuple) into the panel's rect and Chromium's rect.

    Rects are frame rects: window decorations are the window manager's business, so a small overlap on some
    desktops is accepted rather than guessed at.
    """
    x, y, width, height = (
        available
        if isinstance(available, tuple)
        else (available.x(), available.y(), available.width(), available.height())
    )
    panel = min(panel_width, max(MIN_PANEL_WIDTH, int(width * MAX_PANEL_SHARE)))
    panel = min(panel, width)
    return Placement(panel=(x, y, panel, height), browser=(x + panel, y, max(0, width - panel), height))


# Narrower than this, a page is cramped enough that covering the panel's screen is the better choice.
MIN_BROWSER_WIDTH = 640


def browser_beside(available: RectLike | ScreenRect, panel: ScreenRect) -> ScreenRect:
    """Chromium's rect next to a panel the user has placed: the wider free side of ``available``, or all of it."""
    x, y, width, height = (
        available
        if isinstance(available, tuple)
        else (available.x(), available.y(), available.width(), available.height())
    )
    panel_x, _, panel_width, _ = panel
    left = max(0, min(panel_x, x + width) - x)
    right_start = max(x, panel_x + panel_width)
    right = max(0, x + width - right_start)
    if max(left, right) < MIN_BROWSER_WIDTH:
        return (x, y, width, height)
    if right >= left:
        return (right_start, y, right, height)
    return (x, y, left, height)


def tile(available: RectLike | ScreenRect, panel: ScreenRect, panel_min_width: int = MIN_PANEL_WIDTH) -> Placement:
    """The panel as the user placed it, made to tile ``available`` with Chromium: never overlapping it.

    The panel goes to the screen edge nearer its centre, no wider than leaves Chromium MIN_BROWSER_WIDTH (but never
    narrower than ``panel_min_width``: on a screen too small for both, Chromium gets what is left), and stays on
    screen vertically, its top and bottom snapped to the screen's when they are near. Chromium takes the full height
    of the rest.
    """
    x, y, width, height = (
        available
        if isinstance(available, tuple)
        else (available.x(), available.y(), available.width(), available.height())
    )
    panel_x, panel_y, panel_width, panel_height = panel
    at_left = panel_x + panel_width / 2 <= x + width / 2
    new_width = max(min(panel_width, width - MIN_BROWSER_WIDTH), min(panel_min_width, width))
    top = min(max(panel_y, y), y + height - min(panel_height, height))
    bottom = top + min(panel_height, height)
    # An edge a title bar's height or less from the screen's goes to it: the frame is guessed until the window manager
    # has framed the window, and the panel would otherwise sit that much below Chromium's top.
    top = y if top - y <= SNAP else top
    bottom = y + height if y + height - bottom <= SNAP else bottom
    new_y, new_height = top, bottom - top
    rest = width - new_width
    if at_left:
        return Placement(panel=(x, new_y, new_width, new_height), browser=(x + new_width, y, rest, height))
    return Placement(panel=(x + rest, new_y, new_width, new_height), browser=(x, y, rest, height))
