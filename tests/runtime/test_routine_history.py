"""A routine's rows in History: each row's run is saved, and the results name it by its id; a row whose run could not be
saved (a full disk, a folder that is not one) names none, rather than an entry History does not have. Real headless
Chromium, the fake model server and the CRM test site."""

from __future__ import annotations

import asyncio
from pathlib import Path

from app.history.store import RunStore
from app.routine.launch import RoutineSetup, open_routine
from app.routine.plan import plan_routine
from app.routine.types import RoutineOptions, RowFinished
from app.settings.model import Settings
from app.settings.paths import AppPaths
from tests.cli.routine_helpers import rows_file
from tests.fakes.crm_model import TEMPLATE, crm_model
from tests.fakes.crm_site import crm_site
from tests.fakes.llm_server import FakeLLMServer

TWO_ROWS = '"Ana Núñez, Jr.",ana@x.test,Pro,2026-01-05,yes\nBob "B" Lee,bob@x.test,Free,2026-02-01,no\n'


async def _run(tmp_path: Path, llm_server: FakeLLMServer, paths: AppPaths) -> list[RowFinished]:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, TWO_ROWS)
    finished: list[RowFinished] = []
    with crm_site() as site:
        plan = await asyncio.to_thread(plan_routine, RoutineOptions(rows, TEMPLATE, start_url=site.new_url))
        settings = Settings(base_url=llm_server.base_url, model="fake-model")
        routine = await open_routine(
            plan, RoutineSetup(settings=settings, paths=paths, api_key="sk-dummy", headless=True)
        )
        routine.runner.on("row_finished", finished.append)
        try:
            summary = await asyncio.wait_for(routine.runner.run(), 120)
        finally:
            await routine.close()
    assert summary.counts == {"done": 2}
    return sorted(finished, key=lambda event: event.number)


async def test_each_row_names_its_saved_run(tmp_path: Path, llm_server: FakeLLMServer) -> None:
    paths = AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs")
    finished = await _run(tmp_path, llm_server, paths)

    saved = {summary.id for summary in RunStore(paths.runs_dir).summaries()}
    assert len(saved) == 2 and {event.outcome.run for event in finished} == saved


async def test_a_row_whose_run_could_not_be_saved_names_none(tmp_path: Path, llm_server: FakeLLMServer) -> None:
    paths = AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs")
    paths.runs_dir.parent.mkdir(parents=True, exist_ok=True)
    paths.runs_dir.write_text("a file where History's folder should be")  # as good as a full disk, even for root

    finished = await _run(tmp_path, llm_server, paths)

    assert [(event.number, event.outcome.status, event.outcome.run) for event in finished] == [
        (1, "done", ""),
        (2, "done", ""),
    ]
