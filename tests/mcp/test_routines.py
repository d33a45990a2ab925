"""Routines from an MCP client: run_routine over a rows file, get_routine's counts, and the files a client may not
name. The CRM-like site and the careful scripted model of the CLI's routine tests."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from app.core.types import AgentStatus
from app.history.store import RunStore
from tests.cli.routine_helpers import results, rows_file
from tests.cli.test_cli import home  # noqa: F401  (fixture)
from tests.fakes.crm_model import TEMPLATE, crm_model
from tests.fakes.crm_site import crm_site
from tests.fakes.llm_server import FakeLLMServer, done_reply
from tests.mcp.helpers import data, raw_stdio, stdio_client, text_of

pytestmark = pytest.mark.slow


async def test_a_routine_runs_every_row_and_reports_counts(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path)
    with crm_site() as site:
        async with stdio_client(home, llm_server) as client:
            started = data(
                await client.call_tool(
                    "run_routine", {"template": TEMPLATE, "rows_path": str(rows), "start_url": site.new_url}
                )
            )
            assert started["rows"] == 4 and started["status"] in ("starting", "running")
            progress: list[tuple[float, float | None, str | None]] = []

            async def on_progress(value: float, total: float | None, message: str | None) -> None:
                progress.append((value, total, message))

            # One call that returns at the end (no polling), with progress at every row.
            view = data(
                await client.call_tool(
                    "get_routine",
                    {"routine_id": started["routine_id"], "wait_s": 150},
                    progress_callback=on_progress,
                )
            )

        assert view["status"] == "done", view
        assert progress[-1] == (4, 4, "4 of 4 rows · 3 done · 1 failed"), progress
        assert [value for value, _, _ in progress] == sorted(value for value, _, _ in progress)
        assert view["counts"] == {"done": 3, "failed": 1}
        assert view["results_path"] == str(rows.with_name("customers-results.csv"))
        assert len(site.records) == 3
        assert [r["status"] for r in results(rows)] == ["done", "done", "done", "failed"]


async def test_a_client_may_name_only_rows_files_outside_the_apps_folders(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    key = tmp_path / "id_rsa"
    key.write_text("-----BEGIN KEY-----\n")
    (home / "data").mkdir(parents=True)
    inside = rows_file(home / "data")

    async with stdio_client(home, llm_server) as client:
        not_rows = await client.call_tool("run_routine", {"template": "Add {name}", "rows_path": str(key)})
        in_app = await client.call_tool("run_routine", {"template": "Add {name}", "rows_path": str(inside)})
        results_elsewhere = await client.call_tool(
            "run_routine",
            {"template": "Add {name}", "rows_path": str(rows_file(tmp_path)), "results_path": str(tmp_path / "x.sh")},
        )

    assert not_rows.is_error and "must be a .csv" in text_of(not_rows)
    assert in_app.is_error and "Page Agent's own folder" in text_of(in_app)
    assert results_elsewhere.is_error and "must be a .csv file" in text_of(results_elsewhere)
    assert llm_server.requests == []


async def test_a_signal_stops_a_running_routine_keeps_its_results_and_closes_its_windows(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = lambda body: done_reply("Too late.", delay=60.0)
    rows = rows_file(tmp_path)
    async with raw_stdio(home, llm_server) as server:
        started = await server.call("run_routine", {"template": TEMPLATE, "rows_path": str(rows)})
        await llm_server.received(1, timeout=60)  # the first row is under way, its window open

        server.process.send_signal(signal.SIGTERM)

        assert await asyncio.wait_for(server.process.wait(), 60) == 0
    assert started["rows"] == 4
    assert [r["status"] for r in results(rows)] == ["stopped", "skipped", "skipped", "skipped"]
    runs = await asyncio.to_thread(RunStore(home / "data" / "runs").summaries)
    assert [run.status for run in runs] == [AgentStatus.STOPPED]
    # The home fixture checks that no Chromium is left with the profile.
