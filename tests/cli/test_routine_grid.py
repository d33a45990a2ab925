"""Routines on a Selenium Grid 4 by its own address (--browser-endpoint http://grid:4444): the routine asks the grid
for its sessions (as many as --parallel), runs its rows in them and deletes every one it created; a grid that is full
keeps the rows waiting in its queue, never failing them; one that refuses says why and ends the rows before they send
anything."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.cli.routine_helpers import ROWS, event_lines, results, routine, rows_file, run, started
from tests.cli.test_cli import ROOT, cli_env, home  # noqa: F401 - the fixture
from tests.cli.test_routine import calls_by_row
from tests.fakes.crm_model import crm_model
from tests.fakes.crm_site import crm_site
from tests.fakes.llm_server import FakeLLMServer
from tests.fakes.selenium_grid import (
    delete_session,
    grid_sessions,
    new_session,
    queued_requests,
    selenium_grid,
    settled_sessions,
)
from tests.waiting import sync_until

NINE = "".join(f"Customer {i},c{i}@x.test,{('Free', 'Pro', 'Starter')[i % 3]},2026-01-0{i},no\n" for i in range(1, 10))


def test_rows_run_on_a_selenium_grid_by_its_address_three_at_a_time_and_no_session_is_left(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, NINE)
    with selenium_grid(tmp_path, slots=3) as grid, crm_site() as site:
        done = run(
            routine(rows, site.new_url, "--browser-endpoint", grid, "--parallel", "3"),
            cli_env(home, llm_server),
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        assert sorted(site.emails()) == sorted(f"c{i}@x.test" for i in range(1, 10))
        assert settled_sessions(grid) == [] and queued_requests(grid) == 0  # every session it asked for is gone
    table = results(rows)
    assert [r["status"] for r in table] == ["done"] * 9
    assert {r["browser"] for r in table} == {f"{grid} #1", f"{grid} #2", f"{grid} #3"}  # three sessions at once
    assert calls_by_row(table)[1:] == [1] * 8  # the path learned on the first row, replayed in every session
    assert not (home / "data" / "browser-profile").exists()  # no local Chromium was started


def test_a_full_grid_keeps_the_rows_waiting_in_its_queue_not_failing(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, ROWS.rsplit("Dup", 1)[0])
    with selenium_grid(tmp_path, slots=1, queue_timeout=15) as grid, crm_site() as site:
        someone_elses = new_session(grid)  # the grid's only slot is taken
        process = started(
            routine(rows, site.new_url, "--browser-endpoint", grid, "--parallel", "2", "--events"),
            cli_env(home, llm_server),
        )
        try:
            events = event_lines(process)
            waiting = next(e for e in events if e["event"] == "browser_note")
            # The grid's queue timed out on both requests: said, and asked again; no row has started or failed.
            assert waiting["kind"] == "waiting" and waiting["browser"] == grid
            assert not (rows.with_name("customers-results.csv")).exists() or all(
                r["status"] == "" for r in results(rows)
            )
            delete_session(grid, someone_elses)  # the slot is free: the routine's request gets it
            for event in events:
                assert event["event"] != "row_finished" or event["status"] == "done", event
            assert process.wait(120) == 0
        finally:
            if process.poll() is None:
                process.kill()
        assert sorted(site.emails()) == ["ana@x.test", "bob@x.test", "chloe@x.test"]
        sync_until(lambda: grid_sessions(grid) == [], 30, "no session left on the grid")
        assert queued_requests(grid) == 0  # the request still waiting when the rows ran out was taken back
    table = results(rows)
    assert [r["status"] for r in table] == ["done"] * 3
    assert {r["browser"] for r in table} <= {f"{grid} #1", f"{grid} #2"}


class _RefusingGrid(BaseHTTPRequestHandler):
    """A stand-in grid with a Chrome node that refuses every session, as a grid does when no node can serve it."""

    def do_GET(self) -> None:
        node = {"sessionTimeout": 300000, "slots": [{"session": None, "stereotype": {"browserName": "chrome"}}]}
        self._answer(200, {"value": {"ready": True, "message": "Selenium Grid ready.", "nodes": [node]}})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        message = "Could not start a new session. No nodes support the capabilities in the request\nBuild info: …"
        self._answer(500, {"value": {"error": "session not created", "message": message, "stacktrace": ""}})

    def _answer(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json; charset=utf-8")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *_args: Any) -> None:
        pass


@contextmanager
def refusing_grid() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _RefusingGrid)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_grid_that_refuses_says_why_and_the_rows_end_error_before_sending_anything(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, ROWS.rsplit("Chloé", 1)[0])
    with refusing_grid() as grid, crm_site() as site:
        done = run(routine(rows, site.new_url, "--browser-endpoint", grid), cli_env(home, llm_server))
        assert site.records == []
    assert done.returncode == 2, done.stderr
    refused = f"The Selenium Grid at {grid} could not give a browser: Could not start a new session. No nodes"
    assert refused in done.stderr
    table = results(rows)
    assert [r["status"] for r in table] == ["error", "error"]
    assert all("No nodes support the capabilities in the request" in r["result"] for r in table)
    assert [r["model_calls"] for r in table] == ["0", "0"]
