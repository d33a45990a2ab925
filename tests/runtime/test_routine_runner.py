"""The routine engine as the panel uses it (no CLI): open_routine, the runner's events, pause / resume, and the
person queue served through its API, against real headless Chromium, the fake model server and the CRM test site."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

from app.core.types import PausedActivity
from app.routine.launch import RoutineSetup, open_routine
from app.routine.plan import plan_routine
from app.routine.types import (
    LimitReached,
    PersonRequest,
    RoutineOptions,
    RoutineProgress,
    RowFinished,
    RowsPlanned,
    RowStatus,
)
from app.settings.model import Settings
from app.settings.paths import AppPaths
from app.text.cost_words import limit_words
from app.text.wording import describe_activity
from tests.cli.routine_helpers import ROWS, results, rows_file
from tests.fakes.crm_model import TEMPLATE, crm_model
from tests.fakes.crm_site import crm_site
from tests.fakes.llm_server import FakeLLMServer
from tests.routine.fake_rows import pause_at

PAUSED = describe_activity(PausedActivity())


def setup(tmp_path: Path, llm_server: FakeLLMServer, **more: Any) -> RoutineSetup:
    settings = Settings(base_url=llm_server.base_url, model="fake-model")
    paths = AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs")
    return RoutineSetup(settings=settings, paths=paths, api_key="sk-dummy", headless=True, person_present=True, **more)


def with_limit(setup: RoutineSetup, *, calls: int) -> RoutineSetup:
    """The same, with a limit of model calls set in Settings."""
    return dataclasses.replace(setup, settings=setup.settings.model_copy(update={"routine_max_calls": calls}))


async def test_pause_holds_the_row_in_flight_after_its_step_and_resume_finishes_the_routine(
    tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, ROWS.replace("Dup,ana@x.test", "Dee,dee@x.test"))
    with crm_site() as site:
        plan = await asyncio.to_thread(plan_routine, RoutineOptions(rows, TEMPLATE, start_url=site.new_url))
        routine = await open_routine(plan, setup(tmp_path, llm_server))
        runner = routine.runner
        watch = pause_at(runner, 2, words=PAUSED)  # the panel says "Paused by you"
        seen = watch.seen
        runner.on("row_finished", lambda event: seen.append(("finished", event.number)))
        try:
            running = asyncio.ensure_future(runner.run())
            await asyncio.wait_for(watch.held.wait(), 60)
            assert runner.progress().paused and site.emails() == ["ana@x.test"]
            seen.append(("resumed", 0))
            runner.resume()
            summary = await asyncio.wait_for(running, 120)
        finally:
            await routine.close()
    assert summary.counts == {"done": 4}
    assert seen.index(("held", 2)) < seen.index(("resumed", 0)) < seen.index(("started", 3))
    assert len(site.records) == 4


async def test_a_hand_off_waits_in_the_person_queue_while_the_other_rows_go_on(
    tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, ROWS.replace("Dup,ana@x.test", "Dee,dee@x.test"))
    with crm_site() as site:
        site.captcha_emails.add("bob@x.test")
        plan = await asyncio.to_thread(plan_routine, RoutineOptions(rows, TEMPLATE, start_url=site.new_url, parallel=2))
        routine = await open_routine(plan, setup(tmp_path, llm_server))
        runner = routine.runner
        needed: asyncio.Queue[PersonRequest] = asyncio.Queue()
        finished: list[RowFinished] = []
        third_done = asyncio.Event()
        runner.on("person_needed", needed.put_nowait)
        runner.on("row_finished", finished.append)
        runner.on("row_finished", lambda event: event.number == 3 and third_done.set())
        try:
            running = asyncio.ensure_future(runner.run())
            request = await asyncio.wait_for(needed.get(), 90)
            assert (request.number, request.kind) == (2, "hand_off")
            assert runner.person_queue.requests == [request]
            await runner.bring_to_front(request.number)
            await asyncio.wait_for(third_done.wait(), 90)  # the other rows go on while row 2 waits
            assert runner.person_queue.requests == [request]
            site.solve()  # the person passes the check; then presses continue
            assert await asyncio.to_thread(site.passed.wait, 30)
            runner.continue_row(request.id, "")
            summary = await asyncio.wait_for(running, 120)
        finally:
            await routine.close()
    assert summary.counts == {"done": 4}
    assert runner.person_queue.requests == []
    assert sorted(site.emails()) == ["ana@x.test", "bob@x.test", "chloe@x.test", "dee@x.test"]
    order = [event.number for event in finished]
    assert order.index(2) > order.index(3)


async def test_a_row_the_person_gives_up_says_so_with_the_agents_words_quoted(
    tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, ROWS.replace("Dup,ana@x.test", "Dee,dee@x.test"))
    with crm_site() as site:
        site.captcha_emails.add("bob@x.test")
        plan = await asyncio.to_thread(plan_routine, RoutineOptions(rows, TEMPLATE, start_url=site.new_url))
        routine = await open_routine(plan, setup(tmp_path, llm_server))
        runner = routine.runner
        needed: asyncio.Queue[PersonRequest] = asyncio.Queue()
        finished: list[RowFinished] = []
        runner.on("person_needed", needed.put_nowait)
        runner.on("row_finished", finished.append)
        try:
            running = asyncio.ensure_future(runner.run())
            request = await asyncio.wait_for(needed.get(), 90)
            runner.give_up(request.id)
            summary = await asyncio.wait_for(running, 120)
        finally:
            await routine.close()
    assert summary.counts == {"done": 3, "needs_person": 1}
    outcome = next(event.outcome for event in finished if event.number == 2)
    assert outcome.result == (
        "You gave this row up when the agent handed it to you, so it was not finished; it is tried again next run. "
        "The agent had said: “The CRM asks a person to confirm this customer.”"
    )


async def test_closing_a_routine_that_still_runs_stops_it_first_and_every_rows_ending_is_saved(
    tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    """The panel or a test may close a routine while a row waits for the person: the rows end as a Stop ends them,
    and those endings reach the state before it closes (they met a closed database, and the run raised)."""
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, ROWS.rsplit("Chlo", 1)[0])
    with crm_site() as site:
        site.captcha_emails.add("ana@x.test")
        plan = await asyncio.to_thread(plan_routine, RoutineOptions(rows, TEMPLATE, start_url=site.new_url))
        routine = await open_routine(plan, setup(tmp_path, llm_server))
        needed: asyncio.Queue[PersonRequest] = asyncio.Queue()
        routine.runner.on("person_needed", needed.put_nowait)
        running = asyncio.ensure_future(routine.runner.run())
        try:
            assert (await asyncio.wait_for(needed.get(), 90)).number == 1
        finally:
            await routine.close()
        summary = await asyncio.wait_for(running, 30)
    assert summary.stopped and summary.counts == {"interrupted": 1, "skipped": 1}
    assert [r["status"] for r in results(rows)] == ["interrupted", "skipped"]


async def test_allow_for_every_row_answers_the_same_act_on_the_rows_after_it_without_asking(
    tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    """A risky Save on every row (its words name a payment the task did not ask for): the person allows it once for
    every row of the routine, and the other rows click the same button without waiting for a click each. Ticking
    "Send the newsletter" (a check box) asks nothing."""
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, ROWS.replace("Dup,ana@x.test", "Dee,dee@x.test"))
    with crm_site() as site:
        site.save_label = "Save and pay $9"
        site.newsletter_label = "Send the newsletter"
        plan = await asyncio.to_thread(plan_routine, RoutineOptions(rows, TEMPLATE, start_url=site.new_url, parallel=2))
        routine = await open_routine(plan, setup(tmp_path, llm_server))
        runner = routine.runner
        asked: list[PersonRequest] = []

        def needed(request: PersonRequest) -> None:
            asked.append(request)
            runner.answer(request.id, True, every_row=True)

        runner.on("person_needed", needed)
        try:
            summary = await asyncio.wait_for(runner.run(), 120)
        finally:
            await routine.close()
    assert summary.counts == {"done": 4}
    assert [(r.number, r.kind) for r in asked] == [(1, "confirm")]
    assert '"Save and pay $9"' in asked[0].words
    assert sorted(site.emails()) == ["ana@x.test", "bob@x.test", "chloe@x.test", "dee@x.test"]


async def test_allowing_once_still_asks_the_next_row(tmp_path: Path, llm_server: FakeLLMServer) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, ROWS.split("Chlo", 1)[0])
    with crm_site() as site:
        site.save_label = "Save and pay $9"
        plan = await asyncio.to_thread(plan_routine, RoutineOptions(rows, TEMPLATE, start_url=site.new_url))
        routine = await open_routine(plan, setup(tmp_path, llm_server))
        runner = routine.runner
        asked: list[int] = []

        def needed(request: PersonRequest) -> None:
            asked.append(request.number)
            runner.answer(request.id, True)

        runner.on("person_needed", needed)
        try:
            summary = await asyncio.wait_for(runner.run(), 120)
        finally:
            await routine.close()
    assert summary.counts == {"done": 2} and asked == [1, 2]


async def test_a_second_run_counts_its_own_rows_and_says_which_rows_it_runs(
    tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    """Retry failed rows: the bar and the counts are this run's (one row), not every row's outcome so far, and the
    rows it runs are told before they start (the panel shows them Waiting, not "Failed · Earlier: …")."""
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path)
    with crm_site() as site:
        plan = await asyncio.to_thread(plan_routine, RoutineOptions(rows, TEMPLATE, start_url=site.new_url))
        async with await open_routine(plan, setup(tmp_path, llm_server)) as routine:
            first = await asyncio.wait_for(routine.runner.run(), 120)
        assert first.counts == {"done": 3, "failed": 1}
        again = await asyncio.to_thread(
            plan_routine, RoutineOptions(rows, TEMPLATE, start_url=site.new_url, retry_failed=True)
        )
        routine = await open_routine(again, setup(tmp_path, llm_server))
        planned: list[RowsPlanned] = []
        progress: list[RoutineProgress] = []
        routine.runner.on("rows_planned", planned.append)
        routine.runner.on("progress", progress.append)
        try:
            summary = await asyncio.wait_for(routine.runner.run(), 120)
        finally:
            await routine.close()
    assert summary.ran == 1 and summary.counts == {"done": 3, "failed": 1}
    [told] = planned
    assert told.queued == (4,) and sorted(told.kept) == [1, 2, 3]
    assert {outcome.status for outcome in told.kept.values()} == {RowStatus.DONE}
    assert progress and all(p.total == 1 and p.earlier == 3 for p in progress)
    assert progress[-1].counts == {"failed": 1} and progress[-1].left == 0


async def test_past_its_limit_of_model_calls_the_routine_pauses_before_the_next_call_and_asks(
    tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, ROWS.replace("Dup,ana@x.test", "Dee,dee@x.test"))
    with crm_site() as site:
        plan = await asyncio.to_thread(plan_routine, RoutineOptions(rows, TEMPLATE, start_url=site.new_url))
        routine = await open_routine(plan, with_limit(setup(tmp_path, llm_server), calls=3))
        runner = routine.runner
        reached: asyncio.Queue[LimitReached] = asyncio.Queue()
        needed: asyncio.Queue[PersonRequest] = asyncio.Queue()
        held = asyncio.Event()
        progress: list[RoutineProgress] = []
        runner.on("limit_reached", reached.put_nowait)
        runner.on("person_needed", needed.put_nowait)
        runner.on("row_activity", lambda event: held.set() if event.paused else None)
        runner.on("progress", progress.append)
        try:
            running = asyncio.ensure_future(runner.run())
            passed = await asyncio.wait_for(reached.get(), 90)
            asked = await asyncio.wait_for(needed.get(), 10)
            await asyncio.wait_for(held.wait(), 10)  # the row that was about to call the model holds
            assert runner.paused and (passed.what, passed.limit, passed.costs.calls) == ("calls", 3, 3)
            assert (asked.kind, asked.words) == ("limit", limit_words(passed))
            assert len(llm_server.requests) == 3  # the fourth call waits for the person
            assert progress[0].costs.calls == 0 and progress[0].costs.calls_in_all == 8 + 3  # before any row
            runner.answer(asked.id, True)  # go on past it: the limit is not said again
            summary = await asyncio.wait_for(running, 120)
        finally:
            await routine.close()
    assert summary.counts == {"done": 4} and reached.empty() and needed.empty()
    assert not runner.person_queue.requests
    assert progress[-1].costs.calls == summary.model_calls == len(llm_server.requests)


async def test_told_to_stop_at_its_limit_the_routine_leaves_its_rows_for_a_rerun(
    tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, ROWS.replace("Dup,ana@x.test", "Dee,dee@x.test"))
    with crm_site() as site:
        plan = await asyncio.to_thread(plan_routine, RoutineOptions(rows, TEMPLATE, start_url=site.new_url))
        routine = await open_routine(plan, with_limit(setup(tmp_path, llm_server), calls=3))
        needed: asyncio.Queue[PersonRequest] = asyncio.Queue()
        routine.runner.on("person_needed", needed.put_nowait)
        try:
            running = asyncio.ensure_future(routine.runner.run())
            asked = await asyncio.wait_for(needed.get(), 90)
            routine.runner.answer(asked.id, False)
            summary = await asyncio.wait_for(running, 60)
        finally:
            await routine.close()
    assert summary.stopped and summary.counts.get("skipped") == 3  # left for the next run
    assert sum(summary.counts.values()) == 4 and not summary.counts.get("done")  # row 1 ended stopped or interrupted
    assert len(llm_server.requests) == 3


async def test_past_its_limit_with_nobody_to_ask_the_routine_stops(tmp_path: Path, llm_server: FakeLLMServer) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, ROWS.replace("Dup,ana@x.test", "Dee,dee@x.test"))
    with crm_site() as site:
        plan = await asyncio.to_thread(plan_routine, RoutineOptions(rows, TEMPLATE, start_url=site.new_url))
        nobody = dataclasses.replace(with_limit(setup(tmp_path, llm_server), calls=3), person_present=False)
        routine = await open_routine(plan, nobody)
        reached: list[LimitReached] = []
        routine.runner.on("limit_reached", reached.append)
        try:
            summary = await asyncio.wait_for(routine.runner.run(), 120)
        finally:
            await routine.close()
    assert summary.stopped and [r.what for r in reached] == ["calls"]
    assert summary.counts.get("skipped") == 3 and not summary.counts.get("done")
    assert len(llm_server.requests) <= 4
