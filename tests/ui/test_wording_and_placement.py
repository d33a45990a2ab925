"""The side-by-side window placement (the plain words moved to tests/text)."""

from __future__ import annotations

from PySide6.QtCore import QRect

from app.ui.placement.side_by_side import browser_beside, side_by_side


def test_side_by_side_on_a_full_hd_screen() -> None:
    placement = side_by_side(QRect(0, 0, 1920, 1050))
    assert placement.panel == (0, 0, 420, 1050)
    assert placement.browser == (420, 0, 1500, 1050)


def test_side_by_side_respects_the_screen_origin_and_narrow_screens() -> None:
    assert side_by_side((1920, 30, 1280, 770)).browser == (2340, 30, 860, 770)
    narrow = side_by_side((0, 0, 800, 600))
    assert narrow.panel[2] == 360 and narrow.browser == (360, 0, 440, 600)


def test_browser_beside_a_panel_the_user_moved() -> None:
    screen = (0, 0, 1920, 1050)
    assert browser_beside(screen, (0, 0, 420, 1050)) == (420, 0, 1500, 1050)
    # Panel moved to the right edge: Chromium takes the left.
    assert browser_beside(screen, (1500, 0, 420, 1050)) == (0, 0, 1500, 1050)
    # Panel in the middle: the wider side wins.
    assert browser_beside(screen, (700, 0, 420, 1050)) == (1120, 0, 800, 1050)
    # No side wide enough for a page: Chromium covers the screen.
    assert browser_beside((0, 0, 1000, 700), (300, 0, 420, 700)) == (0, 0, 1000, 700)
    # Works on a second screen with an origin, and with a panel hanging off it.
    assert browser_beside((1920, 30, 1280, 770), (1800, 30, 420, 770)) == (2220, 30, 980, 770)
