"""A path for every kind of row, mended when the site changes, against real headless Chromium, the fake model server
and the CRM test site (its records are what the assertions count): rows of a kind the first path cannot do are the
model's once, then replay their own path; a redesign mid-routine costs the model one row, then the rows replay the
mended path."""

from __future__ import annotations

import asyncio
from pathlib import Path

from app.routine.launch import open_routine
from app.routine.paths import PathChange
from app.routine.plan import plan_routine
from app.routine.types import RoutineOptions, RowFinished
from app.text.path_words import change_words
from tests.cli.routine_helpers import rows_file
from tests.fakes.crm_model import TEMPLATE, crm_model
from tests.fakes.crm_site import crm_site
from tests.fakes.llm_server import FakeLLMServer
from tests.runtime.test_routine_runner import setup

PLANS = ("Free", "Starter", "Pro")


def customers(news: list[str]) -> str:
    return "".join(
        f"Customer {i},c{i}@x.test,{PLANS[i % 3]},2026-02-{i:02d},{said}\n" for i, said in enumerate(news, 1)
    )


async def run_rows(
    tmp_path: Path, llm_server: FakeLLMServer, rows: Path, site_url: str
) -> tuple[dict[int, int], list[PathChange], object]:
    plan = await asyncio.to_thread(plan_routine, RoutineOptions(rows, TEMPLATE, start_url=site_url))
    routine = await open_routine(plan, setup(tmp_path, llm_server))
    calls: dict[int, int] = {}
    changes: list[PathChange] = []
    runner = routine.runner
    runner.on("row_finished", lambda event: calls.__setitem__(event.number, _calls(event)))
    runner.on("path_changed", changes.append)
    try:
        summary = await asyncio.wait_for(runner.run(), 400)
    finally:
        await routine.close()
    return calls, changes, (summary, runner.paths)


def _calls(event: RowFinished) -> int:
    assert event.outcome.status == "done", event.outcome
    return event.outcome.model_calls


async def test_rows_of_each_kind_replay_their_own_path_whatever_their_order(
    tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    """The first row leaves the newsletter box unticked, so its path has no checkbox step: the first row that ticks it
    is the model's, and its steps become the path for the rows like it; every other row replays at one call."""
    llm_server.fallback = crm_model()
    news = ["no", "yes", "no", "yes", "yes", "no", "yes", "no"]
    rows = rows_file(tmp_path, customers(news))
    with crm_site() as site:
        calls, changes, (summary, book) = await run_rows(tmp_path, llm_server, rows, site.new_url)
        saved = sorted((r["name"], r["email"], r["plan"], r["start"], r["newsletter"]) for r in site.records)
    assert saved == sorted(
        (f"Customer {i}", f"c{i}@x.test", PLANS[i % 3], f"2026-02-{i:02d}", said) for i, said in enumerate(news, 1)
    )
    assert site.posts == len(news)  # each customer sent once
    assert calls[1] > 1 and calls[2] > 1  # the first row, and the first row of the other kind: the model's
    assert [calls[n] for n in range(3, 9)] == [1] * 6
    assert [(c.origin, c.number, c.key) for c in changes] == [("learned", 1, {}), ("added", 2, {"newsletter": "yes"})]
    assert changes[1].rows == (4, 5, 7)
    assert change_words(changes[1]) == (
        "Row 2 was another kind of row ({newsletter} is yes): rows like it follow its steps. "
        "Rows 4–5 and 7 use the new path."
    )
    assert summary.model_calls == sum(calls.values())  # type: ignore[attr-defined]
    assert len(book.live()) == 2  # type: ignore[attr-defined]


async def test_a_redesign_mid_routine_is_mended_from_the_row_that_met_it(
    tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    """After its third customer the CRM renames "Full name" to "Customer name" and moves it below Email: row 4 is
    taken over by the model, and its steps become the path of rows 5-9, which replay again at one call each."""
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, customers(["yes", "no"] * 4 + ["yes"]))
    with crm_site() as site:

        def redesign(_data: dict[str, str]) -> None:
            if len(site.records) >= 2:  # this POST saves the third
                site.form_version = 3

        site.on_post = redesign
        calls, changes, (_summary, book) = await run_rows(tmp_path, llm_server, rows, site.new_url)
        assert [r["name"] for r in site.records] == [f"Customer {i}" for i in range(1, 10)]
        assert site.posts == 9
    assert calls[2] == calls[3] == 1 and calls[4] > 1
    assert [calls[n] for n in range(5, 10)] == [1] * 5
    mended = changes[-1]
    assert (mended.origin, mended.number, mended.rows) == ("mended", 4, (5, 6, 7, 8, 9))
    assert change_words(mended) == (
        "The site changed at row 4: “Full name” is now “Customer name”. Rows 5–9 use the new path."
    )
    old, new = book.paths  # type: ignore[attr-defined]
    assert (old.number, old.replaced_by, new.number, new.origin) == (1, 4, 4, "mended")
