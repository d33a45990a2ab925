"""A routine's windows of one profile: each is a session of its own (its tabs, and the tabs they open), and a window
behind the others keeps its timers and animation frames running, so no row starves."""

from __future__ import annotations

import asyncio
import gc
import weakref
from pathlib import Path

from pytest import MonkeyPatch

from app.browser.processes import profile_pids
from app.browser.session import LaunchOptions
from app.core.abort import AbortSignal
from app.routine import browsers as browsers_module
from app.routine.browsers import local_browsers, remote_browsers
from tests.fakes.selenium_grid import grid_sessions, selenium_grid

TIMERS = """async () => {
  const started = performance.now();
  for (let i = 0; i < 20; i++) await new Promise((done) => setTimeout(done, 10));
  const frame = await new Promise((done) => {
    const late = setTimeout(() => done(false), 10000);  // a hidden page paints no frame at all
    requestAnimationFrame(() => { clearTimeout(late); done(true); });
  });
  return [document.visibilityState, performance.now() - started, frame];
}"""


async def test_each_window_keeps_its_own_tabs_and_runs_at_full_speed(tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    browsers = await local_browsers(LaunchOptions(profile_dir=profile, headless=True), 3)
    try:
        assert [slot.name for slot in browsers.slots] == ["window 1", "window 2", "window 3"]
        pages = [slot.session.active_page for slot in browsers.slots]
        assert len(set(pages)) == 3
        for page in pages:
            await page.set_content("<a href='about:blank' target=_blank>open</a>")
        for page in pages:
            state, elapsed, frame = await page.evaluate(TIMERS)
            # 20 timers of 10 ms: a throttled background page takes 20 s (one a second), a running one 0.2 s; the
            # bound between them is half the throttled time, which no loaded machine makes a running page reach.
            assert state == "visible" and elapsed < 10_000 and frame is True
        second = browsers.slots[1].session
        async with second.context.expect_page() as opened:
            await pages[1].click("a")
        popup = await opened.value
        assert popup in second.pages and len(second.pages) == 2
        assert all(popup not in slot.session.pages for slot in (browsers.slots[0], browsers.slots[2]))
    finally:
        await browsers.close()
    assert await profile_pids(profile) == []


async def test_a_window_that_ran_its_rows_is_replaced_by_a_fresh_one(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    # A page's memory grows with every row it runs: after RENEW_EVERY rows the lane's next row gets a fresh window,
    # opened before the old one closes; the other lanes keep theirs.
    monkeypatch.setattr(browsers_module, "RENEW_EVERY", 2)
    profile = tmp_path / "profile"
    browsers = await local_browsers(LaunchOptions(profile_dir=profile, headless=True), 2)
    try:
        first, other = browsers.lanes
        used = await first.ready()
        kept = await other.ready()
        assert used is not None and kept is not None
        old_page, kept_page = used.session.active_page, kept.session.active_page
        for _ in range(2):
            assert await first.ready() is used
            first.row_ended(False)
            other.row_ended(False)
        fresh = await first.ready()
        assert fresh is not None and fresh is not used and fresh.alive and fresh.name == "window 1"
        assert old_page.is_closed() and not used.alive
        assert fresh.controller.stop_bar is kept.controller.stop_bar  # one Stop for the whole browser, as before
        await fresh.session.active_page.set_content("<p>fresh</p>")
        assert await other.ready() is not kept and kept_page.is_closed()  # its turn came too
        assert len(browsers.slots) == 2
    finally:
        await browsers.close()
    assert await profile_pids(profile) == []


async def test_a_window_replaced_is_let_go_by_the_app_too(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    # Over a long routine each lane's window is replaced every RENEW_EVERY rows: a replaced window (its session, its
    # controller, what its pages were) must not stay alive in the app's process, or the app grows with the rows.
    monkeypatch.setattr(browsers_module, "RENEW_EVERY", 1)
    profile = tmp_path / "profile"
    browsers = await local_browsers(LaunchOptions(profile_dir=profile, headless=True), 1)
    try:
        (lane,) = browsers.lanes
        await lane.ready()
        lane.row_ended(False)
        fresh = await lane.ready()  # the first fresh window: the first one's controller holds the shared stop bar
        assert fresh is not None
        gone, gone_session = weakref.ref(fresh), weakref.ref(fresh.session)
        del fresh
        for _ in range(2):
            lane.row_ended(False)
            assert await lane.ready() is not None
        gc.collect()
        assert gone() is None and gone_session() is None
    finally:
        await browsers.close()
    assert await profile_pids(profile) == []


def test_a_grid_session_let_go_is_let_go_by_the_app_too(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    # Each window of a Selenium Grid is a browser (a session) of its own, replaced every RENEW_EVERY rows: once its
    # session is deleted, nothing of it (its stop bar, its Playwright connection and every object of its pages) may
    # stay in the app's process.
    monkeypatch.setattr(browsers_module, "RENEW_EVERY", 1)

    async def renewed(grid: str) -> None:
        browsers = await remote_browsers([grid], 1, tmp_path / "downloads")
        try:
            (lane,) = browsers.lanes
            first = await lane.ready()
            assert first is not None
            gone = weakref.ref(first.session)
            del first
            for _ in range(2):
                lane.row_ended(False)
                assert await lane.ready() is not None
            gc.collect()
            assert gone() is None and len(browsers.stop_bars) == 1
        finally:
            await browsers.close()

    with selenium_grid(tmp_path, slots=1) as grid:
        asyncio.run(renewed(grid))
        assert grid_sessions(grid) == []


async def test_fresh_windows_of_one_browser_add_the_observer_to_new_documents_once(
    tmp_path: Path, monkeypatch: MonkeyPatch
) -> None:
    # The windows of a local routine share one browser context, whose init scripts run in every document it opens:
    # each replaced window that added the observer again made every later page run one more copy of it.
    monkeypatch.setattr(browsers_module, "RENEW_EVERY", 1)
    profile = tmp_path / "profile"
    browsers = await local_browsers(LaunchOptions(profile_dir=profile, headless=True), 1)
    try:
        (lane,) = browsers.lanes
        slot = await lane.ready()
        assert slot is not None
        context, added = slot.session.context, []
        add = context.add_init_script

        async def counted(script: str | None = None) -> object:
            added.append(script or "")
            return await add(script)

        monkeypatch.setattr(context, "add_init_script", counted)
        for _ in range(3):
            assert slot is not None and slot.session.context is context
            await slot.controller.get_browser_state(AbortSignal())
            lane.row_ended(False)
            slot = await lane.ready()
        assert sum("__pageAgent" in script for script in added) <= 1
    finally:
        await browsers.close()
    assert await profile_pids(profile) == []
