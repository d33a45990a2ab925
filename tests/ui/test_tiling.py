"""The panel and Chromium tile the screen: Chromium follows the panel (its real window, read back over CDP), the two
never overlap, Chromium keeps a usable width, and on a small screen the panel keeps its minimum."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QWidget

from app.browser.screen_rect import ScreenRect
from app.browser.session import BrowserSession, LaunchOptions
from app.ui.placement.side_by_side import MIN_BROWSER_WIDTH, tile
from app.ui.placement.tiling import BrowserTiler
from tests.waiting import until


def _overlap(a: ScreenRect, b: ScreenRect) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


@pytest.mark.parametrize("screen", [(0, 0, 1366, 768), (0, 0, 1600, 900), (0, 0, 1280, 720), (1920, 30, 1280, 690)])
@pytest.mark.parametrize(
    "panel", [(0, 0, 420, 700), (500, 40, 420, 600), (900, 0, 420, 768), (100, 0, 1200, 700), (-300, -50, 500, 2000)]
)
def test_tiles_never_overlap_and_stay_on_screen(screen: ScreenRect, panel: ScreenRect) -> None:
    x, y, width, height = screen
    panel = (panel[0] + x, panel[1] + y, panel[2], panel[3])
    placement = tile(screen, panel, 340)
    assert not _overlap(placement.panel, placement.browser)
    for rect in (placement.panel, placement.browser):
        assert x <= rect[0] and rect[0] + rect[2] <= x + width and y <= rect[1] and rect[1] + rect[3] <= y + height
    assert placement.panel[2] >= 340 and placement.browser[2] >= MIN_BROWSER_WIDTH
    assert placement.panel[2] + placement.browser[2] == width  # nothing wasted between them
    assert placement.browser[3] == height


def test_the_panel_goes_to_the_nearer_edge_and_is_kept_narrow_enough_for_chromium() -> None:
    screen = (0, 0, 1366, 768)
    assert tile(screen, (0, 0, 420, 768), 340).browser == (420, 0, 946, 768)
    assert tile(screen, (800, 0, 420, 768), 340).panel == (946, 0, 420, 768)  # dropped right of the middle
    assert tile(screen, (800, 0, 420, 768), 340).browser == (0, 0, 946, 768)
    widened = tile(screen, (0, 0, 1000, 768), 340)
    assert widened.panel == (0, 0, 1366 - MIN_BROWSER_WIDTH, 768)


def test_a_screen_too_small_for_both_keeps_the_panels_minimum() -> None:
    placement = tile((0, 0, 800, 600), (0, 0, 420, 600), 340)
    assert placement.panel == (0, 0, 340, 600) and placement.browser == (340, 0, 460, 600)


@pytest.fixture
async def chromium(tmp_path: Path) -> AsyncIterator[BrowserSession]:
    session = await BrowserSession.launch(
        LaunchOptions(profile_dir=tmp_path / "profile", downloads_dir=tmp_path / "downloads", headless=True)
    )
    yield session
    await session.close()


async def test_chromium_follows_the_panel(qapp: QApplication, chromium: BrowserSession) -> None:
    panel = QWidget()
    panel.setMinimumWidth(340)
    screen = panel.screen().availableGeometry()
    BrowserTiler(panel, chromium.set_window_bounds, settle_ms=50)
    # The offscreen screen (800 px) is too small for both: the panel keeps its minimum, Chromium gets the rest.
    panel.setGeometry(screen.x(), screen.y(), 400, screen.height())
    panel.show()
    try:
        await until(lambda: panel.width() == 340, timeout=10, message="the panel at its minimum width")
        frame = panel.frameGeometry()  # the window frame, decoration included
        assert frame.x() == screen.x()
        end = frame.x() + frame.width()
        await _until_bounds(chromium, (end, screen.y(), screen.x() + screen.width() - end, screen.height()))

        # The user drags the panel to the right half: it snaps to the right edge, Chromium takes the left.
        panel.move(screen.x() + screen.width() - 300, screen.y())
        await until(lambda: panel.frameGeometry().right() == screen.right(), timeout=10, message="the snap")
        frame = panel.frameGeometry()
        expected = (screen.x(), screen.y(), frame.x() - screen.x(), screen.height())
        await _until_bounds(chromium, expected)
        assert not _overlap(expected, (frame.x(), frame.y(), frame.width(), frame.height()))
    finally:
        panel.close()


async def _until_bounds(chromium: BrowserSession, expected: ScreenRect, timeout: float = 10.0) -> None:
    """Chromium's window, as CDP reports it, reaches ``expected`` (the tiler waits for the panel to settle first)."""

    async def reached() -> bool:
        return await chromium.window_bounds() == expected

    await until(reached, timeout, message=f"Chromium's window to reach {expected}")


async def test_maximizing_the_panel_maximizes_the_pair(qapp: QApplication) -> None:
    sent: list[ScreenRect] = []

    async def place_browser(rect: ScreenRect) -> None:
        sent.append(rect)

    panel = QWidget()
    panel.setMinimumWidth(280)
    screen = panel.screen().availableGeometry()
    tiler = BrowserTiler(panel, place_browser, settle_ms=50)
    panel.setGeometry(screen.x(), screen.y() + 60, 300, screen.height() - 200)
    panel.show()
    try:
        panel.showMaximized()  # the title bar's maximize button, or a double click on it
        # Not over Chromium: at its edge, the whole height; Chromium beside it, the whole height too.
        await until(lambda: not panel.isMaximized() and panel.frameGeometry().height() == screen.height())
        frame = panel.frameGeometry()
        assert (frame.x(), frame.y()) == (screen.x(), screen.y()) and frame.width() < screen.width() // 2
        rest = (frame.right() + 1, screen.y(), screen.right() - frame.right(), screen.height())
        await until(lambda: sent and sent[-1] == rest, message="Chromium beside it")
        tiler.fill_screen()  # what Chromium's own maximize asks for (app/runtime.py on_browser_maximized)
        assert panel.frameGeometry() == frame and sent[-1] == rest
    finally:
        panel.close()


def test_a_panel_a_title_bar_below_the_top_snaps_to_the_top_of_the_screen_as_chromium_does() -> None:
    # Placed before openbox framed it, with room for a 40 px title bar where openbox draws 20: 20 px low, 19 short.
    placement = tile((0, 0, 1366, 768), (0, 20, 420, 729), 340)
    assert placement.panel == (0, 0, 420, 768) and placement.browser[1] == placement.panel[1]
    assert tile((0, 30, 1280, 690), (860, 90, 420, 500), 340).panel == (860, 90, 420, 500)  # the person's place
