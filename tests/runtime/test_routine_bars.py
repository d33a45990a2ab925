"""The bar inside each window of a routine says what that window is for now: the agent works there; "Your turn — see
the panel" in the window of a row that waits for the person (a captcha, an Allow/Deny), while the others still work;
"Paused by you" everywhere once the person paused the routine; gone when it ends. Real headless Chromium, the fake
model server and the CRM test site."""

from __future__ import annotations

import asyncio
from pathlib import Path

from app.routine.browsers import Slot
from app.routine.launch import OpenRoutine, open_routine
from app.routine.plan import plan_routine
from app.routine.types import PersonRequest, RoutineOptions, RowStarted
from tests.browser.test_stop_bar import _bar_box, press_the_bars_button
from tests.cli.routine_helpers import ROWS, rows_file
from tests.fakes.crm_model import TEMPLATE, crm_model
from tests.fakes.crm_site import crm_site
from tests.fakes.llm_server import FakeLLMServer
from tests.runtime.test_routine_runner import setup, with_limit
from tests.waiting import until


def slots(routine: OpenRoutine) -> dict[str, Slot]:
    return {slot.name: slot for slot in routine._browsers.slots}  # type: ignore[attr-defined]


def says(slot: Slot) -> str:
    """What the bar shows in the slot's tab (its words are out of the page's reach: read from the bar)."""
    bar = slot.controller.stop_bar
    labels = bar._labels(bar.mode_in(slot.session.active_page))
    return str(labels["working"]) if labels else ""


async def test_a_row_waiting_for_the_person_says_your_turn_in_its_window_and_a_pause_says_paused_in_all(
    tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, ROWS.replace("Dup,ana@x.test", "Dee,dee@x.test"))
    panel_asked: list[bool] = []
    stops: list[bool] = []
    with crm_site() as site:
        site.captcha_emails.add("bob@x.test")
        plan = await asyncio.to_thread(plan_routine, RoutineOptions(rows, TEMPLATE, start_url=site.new_url, parallel=2))
        routine = await open_routine(
            plan,
            setup(
                tmp_path,
                llm_server,
                on_stop_pressed=lambda: stops.append(True),
                on_panel_pressed=lambda: panel_asked.append(True),
            ),
        )
        runner = routine.runner
        needed: asyncio.Queue[PersonRequest] = asyncio.Queue()
        started: list[RowStarted] = []
        runner.on("person_needed", needed.put_nowait)
        runner.on("row_started", started.append)
        try:
            running = asyncio.ensure_future(runner.run())
            request = await asyncio.wait_for(needed.get(), 90)
            windows = slots(routine)
            mine = windows[request.browser]
            [other] = [slot for name, slot in windows.items() if name != request.browser]
            await until(lambda: says(mine) == "Your turn — see the panel", 10, "the row's window says your turn")
            assert says(other) == "Page Agent is working"
            assert mine.controller.stop_bar.mode_in(mine.session.active_page) == "waiting"
            # Esc is the person's in that window (it stops nothing); the bar's button brings the panel forward.
            page = mine.session.active_page
            await mine.controller.stop_bar._apply()  # the tab shows it too (the bar updates its tabs in the background)
            await page.keyboard.press("Escape")
            await until(lambda: _bar_box(page, mine.controller.stop_bar), 10, "the bar in the row's tab")
            await press_the_bars_button(page, mine.controller.stop_bar)
            await until(lambda: panel_asked, 10, "the panel asked for")

            runner.pause()
            await until(lambda: says(other) == "Paused by you", 10, "the other window says paused")
            assert says(mine) == "Your turn — see the panel"  # still its turn: the captcha waits
            runner.resume()
            await until(lambda: says(other) == "Page Agent is working", 10, "working again")

            site.solve()
            assert await asyncio.to_thread(site.passed.wait, 30)
            runner.continue_row(request.id, "")
            await until(lambda: says(mine) in ("Page Agent is working", ""), 10, "its window works again")
            summary = await asyncio.wait_for(running, 120)
            await routine.ended()
            assert all(says(slot) == "" for slot in windows.values())
        finally:
            await routine.close()
    assert summary.counts == {"done": 4} and not stops


async def test_at_its_limit_every_window_of_the_routine_says_your_turn(
    tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, ROWS.replace("Dup,ana@x.test", "Dee,dee@x.test"))
    with crm_site() as site:
        plan = await asyncio.to_thread(plan_routine, RoutineOptions(rows, TEMPLATE, start_url=site.new_url, parallel=2))
        in_panel = setup(tmp_path, llm_server, on_stop_pressed=lambda: None, on_panel_pressed=lambda: None)
        limited = with_limit(in_panel, calls=3)
        routine = await open_routine(plan, limited)
        needed: asyncio.Queue[PersonRequest] = asyncio.Queue()
        routine.runner.on("person_needed", needed.put_nowait)
        try:
            running = asyncio.ensure_future(routine.runner.run())
            asked = await asyncio.wait_for(needed.get(), 90)
            assert asked.kind == "limit"
            windows = slots(routine).values()
            await until(lambda: all(says(s) == "Your turn — see the panel" for s in windows), 10, "every window")
            routine.runner.answer(asked.id, True)
            await until(lambda: all(says(s) != "Your turn — see the panel" for s in windows), 10, "answered")
            summary = await asyncio.wait_for(running, 120)
        finally:
            await routine.close()
    assert summary.counts == {"done": 4}
