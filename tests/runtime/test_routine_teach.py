"""Show me once through the engine, as the panel uses it: the person does row 1 in its window (here Playwright's real
keyboard input, trusted events as a person's; tests/desktop has the same on a real X desktop with xdotool), presses
Done, takes the path shown in words, and the other rows replay it at one model call each. Real headless Chromium,
the fake model server and the CRM test site (its records are what the assertions count)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from playwright.async_api import Page

from app.routine.launch import OpenRoutine, open_routine
from app.routine.plan import plan_routine
from app.routine.types import PathShown, RoutineOptions, RowFinished, TaughtStep, TeachStarted
from app.text.path_words import path_words
from app.text.wording import describe_action
from tests.cli.routine_helpers import rows_file
from tests.fakes.crm_model import TEMPLATE, crm_model
from tests.fakes.crm_site import CrmSite, crm_site
from tests.fakes.llm_server import FakeLLMServer
from tests.runtime.test_routine_runner import setup

SHORT = "Add the customer {name}"
CUSTOMERS = [
    ("Ada Lovelace", "ada@example.com", "Pro", "2026-01-05", "yes"),
    ("Bea Núñez", "bea@example.com", "Free", "2026-02-11", "no"),
    ("Cy Okafor", "cy@example.com", "Starter", "2026-03-20", "yes"),
    ("Dee Park", "dee@example.com", "Pro", "2026-04-30", "no"),
]
# How many times Down moves the plan's list from Free to each plan.
DOWNS = {"Free": 0, "Starter": 1, "Pro": 2}


def rows_of(customers: list[tuple[str, ...]]) -> str:
    return "".join(",".join(customer) + "\n" for customer in customers)


async def by_keyboard(page: Page, customer: tuple[str, ...]) -> None:
    """A person who never touches the mouse: from the customer list, "New customer", then each field in turn."""
    name, email, plan, start, newsletter = customer
    keys = page.keyboard
    await keys.press("Tab")  # the list's only link
    async with page.expect_navigation():
        await keys.press("Enter")
    await keys.press("Tab")
    await keys.type(name)
    await keys.press("Tab")
    await keys.type(email)
    await keys.press("Tab")
    for _ in range(DOWNS[plan]):
        await keys.press("ArrowDown")
    await keys.press("Tab")
    year, month, day = start.split("-")
    await keys.type(month + day + year)  # the date field's own order here (en-US)
    await keys.press("Tab")  # past the field's calendar button
    await keys.press("Tab")
    if newsletter == "yes":
        await keys.press("Space")
    await keys.press("Tab")
    async with page.expect_navigation():
        await keys.press("Enter")  # Save


class Watch:
    """The runner's Show me once events, as they come."""

    def __init__(self, routine: OpenRoutine) -> None:
        self.started: asyncio.Queue[TeachStarted] = asyncio.Queue()
        self.shown: asyncio.Queue[PathShown] = asyncio.Queue()
        self.steps: list[TaughtStep] = []
        self.finished: dict[int, RowFinished] = {}
        runner = routine.runner
        runner.on("teach_started", self.started.put_nowait)
        runner.on("path_shown", self.shown.put_nowait)
        runner.on("taught_step", self.steps.append)
        runner.on("row_finished", lambda event: self.finished.__setitem__(event.number, event))


async def open_taught(
    tmp_path: Path, llm_server: FakeLLMServer, site: CrmSite, rows: Path, template: str = SHORT
) -> OpenRoutine:
    options = RoutineOptions(rows, template, start_url=site.url + "/customers", teach=True)
    plan = await asyncio.to_thread(plan_routine, options)
    return await open_routine(plan, setup(tmp_path, llm_server))


def page_of(routine: OpenRoutine) -> Page:
    return routine._browsers.slots[0].session.active_page


def saved(site: CrmSite) -> list[tuple[str, ...]]:
    return [(r["name"], r["email"], r["plan"], r["start"], r["newsletter"]) for r in site.records]


async def test_row_one_done_by_keyboard_becomes_the_path_the_other_rows_replay_at_one_call(
    tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, rows_of(CUSTOMERS))
    with crm_site() as site:
        routine = await open_taught(tmp_path, llm_server, site, rows)
        watch = Watch(routine)
        runner = routine.runner
        try:
            running = asyncio.ensure_future(runner.run())
            started = await asyncio.wait_for(watch.started.get(), 60)
            assert (started.number, started.cells[:2]) == (1, ("Ada Lovelace", "ada@example.com"))
            await by_keyboard(page_of(routine), CUSTOMERS[0])
            assert runner.teaching is not None
            runner.teaching.done()  # the panel's Done
            shown = await asyncio.wait_for(watch.shown.get(), 60)
            assert len(llm_server.requests) == 0  # nothing asked of the model so far
            assert path_words(shown.path) == [
                "Click the “New customer” link",
                "Type {name} into the Full name field",
                "Type {email} into the Email field",
                "Choose {plan} in the Plan list",
                "Type {start} into the Start date field",
                "Tick the Newsletter checkbox when {newsletter} says yes",
                "Click the Save button",
            ]
            runner.teaching.use(True)  # Use this path
            summary = await asyncio.wait_for(running, 300)
        finally:
            await routine.close()
        assert saved(site) == CUSTOMERS  # each exactly once, with exactly its values
        assert site.posts == len(CUSTOMERS)
    described = [describe_action(step.action, dict(step.input), step.target) for step in watch.steps]
    assert described[1] == "Type “Ada Lovelace” into the Full name field"
    first = watch.finished[1].outcome
    assert (first.status, first.model_calls, first.run) == ("done", 0, "")
    assert [watch.finished[n].outcome.model_calls for n in (2, 3, 4)] == [1, 1, 1]
    assert summary.counts == {"done": 4} and summary.model_calls == 3 == len(llm_server.requests)


async def test_show_me_again_gives_the_next_row_to_the_person_and_cancel_leaves_learning_to_the_model(
    tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, rows_of(CUSTOMERS[:3]))
    with crm_site() as site:
        routine = await open_taught(tmp_path, llm_server, site, rows, TEMPLATE)  # the model learns row 3 from it
        watch = Watch(routine)
        runner = routine.runner
        try:
            running = asyncio.ensure_future(runner.run())
            await asyncio.wait_for(watch.started.get(), 60)
            await by_keyboard(page_of(routine), CUSTOMERS[0])
            assert runner.teaching is not None
            runner.teaching.done()
            await asyncio.wait_for(watch.shown.get(), 60)
            runner.teaching.use(False)  # Show me again: row 2 is the person's
            again = await asyncio.wait_for(watch.started.get(), 60)
            assert again.number == 2 and watch.finished[1].outcome.status == "done"
            runner.teaching.cancel()
            summary = await asyncio.wait_for(running, 300)
        finally:
            await routine.close()
        assert saved(site) == [CUSTOMERS[0], CUSTOMERS[2]]
    cancelled = watch.finished[2].outcome
    assert cancelled.status == "needs_person" and "cancelled" in cancelled.result
    assert watch.finished[3].outcome.model_calls > 1  # the model learns from row 3, as without Show me once
    assert summary.counts == {"done": 2, "needs_person": 1}
