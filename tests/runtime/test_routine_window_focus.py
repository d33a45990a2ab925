"""A routine's windows on a real X desktop (Xvfb + openbox), as the panel runs them: the person works in another
program while the rows run, and a row that waits for them (a captcha) comes forward when asked ("Show its window")
and keeps the keyboard while the other rows go on in windows that never come forward: every character the person
types lands in that row's page."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest

from app.routine.launch import open_routine
from app.routine.plan import plan_routine
from app.routine.types import PersonRequest, RoutineOptions, RowActivity
from tests.cli.routine_helpers import rows_file
from tests.fakes.crm_model import TEMPLATE, crm_model
from tests.fakes.crm_site import crm_site
from tests.fakes.llm_server import FakeLLMServer
from tests.runtime.test_routine_runner import setup
from tests.waiting import until
from tests.x_desktop import KEYBOARD, XDesktop, active_windows, other_application, x_desktop

pytestmark = KEYBOARD

EDITOR = "someone-elses-editor"
CUSTOMERS = [(f"Customer {i}", f"c{i}@x.test", "Pro", f"2026-02-{i:02d}", "no") for i in range(1, 9)]


def _chromium(desktop: XDesktop) -> set[int]:
    return set(desktop.windows("--class", "chromium"))


def _above(desktop: XDesktop, window: int, others: set[int]) -> bool:
    stacking = desktop.root_windows("_NET_CLIENT_LIST_STACKING")
    return all(stacking.index(window) > stacking.index(other) for other in others if other in stacking)


async def test_a_row_shown_to_the_person_keeps_the_keyboard_while_the_other_rows_go_on(
    tmp_path: Path, llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, "".join(",".join(customer) + "\n" for customer in CUSTOMERS))
    with crm_site() as site, x_desktop() as desktop:
        monkeypatch.setenv("DISPLAY", desktop.display)
        monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
        site.captcha_emails.add("c1@x.test")
        options = RoutineOptions(rows, TEMPLATE, start_url=site.new_url, parallel=3)
        plan = await asyncio.to_thread(plan_routine, options)
        with other_application(desktop, EDITOR, "520x420+800+300") as (editor, _keys):
            routine = await open_routine(plan, dataclasses.replace(setup(tmp_path, llm_server), headless=False))
            runner = routine.runner
            needed: asyncio.Queue[PersonRequest] = asyncio.Queue()
            others: asyncio.Queue[RowActivity] = asyncio.Queue()  # what the other rows do meanwhile
            runner.on("person_needed", needed.put_nowait)
            runner.on("row_activity", lambda event: event.number != 1 and others.put_nowait(event))
            try:
                running = asyncio.ensure_future(runner.run())
                request = await asyncio.wait_for(needed.get(), 90)
                assert (request.number, desktop.active_window()) == (1, editor)  # nothing came forward by itself
                await runner.bring_to_front(1)  # the person presses "Show its window"
                chromium = _chromium(desktop)
                shown = await until(lambda: desktop.active_window() in chromium and desktop.active_window())
                with active_windows(desktop) as seen:
                    # The person types the characters they read, one by one, while the other rows act in between.
                    for character in site.captcha_code:
                        while not others.empty():
                            others.get_nowait()
                        await asyncio.wait_for(others.get(), 60)
                        assert desktop.active_window() == shown, "another row's window took the keyboard"
                        assert _above(desktop, shown, _chromium(desktop) - {shown}), "another row's window came up"
                        desktop.run("xdotool", "type", "--delay", "0", character)
                    desktop.run("xdotool", "key", "Return")  # Verify
                    assert await asyncio.to_thread(site.passed.wait, 30)
                    # The person sees the customer saved in the row's window, then presses continue.
                    title = lambda: desktop.run("xdotool", "getwindowname", str(shown))  # noqa: E731
                    await until(lambda: title().startswith("Saved"), message="the saved customer on screen")
                    runner.continue_row(request.id)
                    summary = await asyncio.wait_for(running, 180)
            finally:
                await routine.close()
        assert set(seen.changes) == {shown}, "another row's window took the keyboard"
        assert site.codes == [site.captcha_code]  # every character in the shown row's page, none elsewhere
        stored = sorted((r["name"], r["email"], r["plan"], r["start"], r["newsletter"]) for r in site.records)
        assert stored == sorted(CUSTOMERS)
    assert summary.counts == {"done": 8}
