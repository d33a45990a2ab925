"""Remote endpoints as they really behave: one that answers 429 or 503 (a full queue, a session rate limit) is asked
again, later and later, and no row fails for it; one where rows keep failing is paused, said, while the others go on;
browserless full (its CONCURRENT and QUEUED reached) keeps the rows waiting; browserless ending a session at its
TIMEOUT costs the row in flight (interrupted), and the routine connects again for the rows not begun."""

from __future__ import annotations

import base64
import json
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tests.cli.routine_helpers import ROWS, event_lines, results, routine, rows_file, run, started
from tests.cli.test_cli import ROOT, cli_env, home  # noqa: F401 - the fixture
from tests.fakes.browserless import browserless
from tests.fakes.busy_endpoint import busy_endpoint
from tests.fakes.crm_model import crm_model
from tests.fakes.crm_site import crm_site
from tests.fakes.external_chromium import external_chromium
from tests.fakes.llm_server import FakeLLMServer

THREE = ROWS.rsplit("Dup", 1)[0]
EIGHT = "".join(f"Customer {i},c{i}@x.test,{('Free', 'Pro', 'Starter')[i % 3]},2026-01-0{i},no\n" for i in range(1, 9))


def _notes(stderr: str) -> list[dict[str, Any]]:
    events = [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]
    return [event for event in events if event["event"] == "browser_note"]


def test_an_endpoint_that_answers_429_then_503_is_asked_again_and_no_row_fails(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, THREE)
    with (
        external_chromium(tmp_path / "a") as (chromium, _),
        busy_endpoint(chromium, [429, 429, 503]) as busy,
        crm_site() as site,
    ):
        args = routine(rows, site.new_url, "--browser-endpoint", busy.address, "--events")
        done = run(args, cli_env(home, llm_server))
        assert done.returncode == 0, done.stderr
        assert busy.refused == [429, 429, 503] and busy.passed >= 1
        assert sorted(site.emails()) == ["ana@x.test", "bob@x.test", "chloe@x.test"]
    notes = _notes(done.stderr)  # the first answer, at the start, is asked again at once
    assert [(note["kind"], note["browser"]) for note in notes] == [("busy", busy.address)] * 2
    assert ["HTTP 429" in notes[0]["words"], "HTTP 503" in notes[1]["words"]] == [True, True]
    # About a second, then twice as long: never a row failed for it.
    assert 0.5 <= notes[0]["seconds"] <= 1 and 1 <= notes[1]["seconds"] <= 2
    assert [r["status"] for r in results(rows)] == ["done"] * 3


def test_an_endpoint_where_rows_keep_failing_is_paused_while_the_others_go_on(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, EIGHT)
    # A browser whose every page load fails: loopback goes through a proxy that is not there.
    broken_flags = ("--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>")
    with (
        external_chromium(tmp_path / "good") as (good, _),
        external_chromium(tmp_path / "broken", flags=broken_flags) as (broken, _),
        crm_site() as site,
    ):
        done = run(
            routine(rows, site.new_url, "--browser-endpoint", good, "--browser-endpoint", broken, "--events"),
            cli_env(home, llm_server),
        )
    assert done.returncode == 2, done.stderr  # the rows that failed there are errors, to look at
    table = results(rows)
    failed = [r for r in table if r["browser"] == broken]
    assert {r["status"] for r in failed} == {"error"}
    assert all("could not start" in r["result"] for r in failed)
    assert {r["status"] for r in table if r["browser"] == good} == {"done"}
    paused = [note for note in _notes(done.stderr) if note["kind"] == "paused"]
    assert paused and {note["browser"] for note in paused} == {broken} and paused[0]["seconds"] == 60
    assert 3 * len(paused) <= len(failed) <= 3 * len(paused) + 2  # no row started there while it was paused
    assert len(site.records) == len(table) - len(failed)


@contextmanager
def held_browser(endpoint: str) -> Iterator[None]:
    """A CDP connection of someone else's to browserless (a raw WebSocket handshake), holding one of its browsers."""
    address = urlsplit(endpoint)
    with socket.create_connection((address.hostname, address.port), timeout=30) as connection:
        key = base64.b64encode(os.urandom(16)).decode()
        connection.sendall(
            f"GET /?{address.query} HTTP/1.1\r\nHost: {address.netloc}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        answer = connection.recv(4096)
        assert answer.startswith(b"HTTP/1.1 101"), answer
        yield


def test_a_full_browserless_keeps_the_rows_waiting_then_runs_them(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, THREE)
    with browserless(tmp_path, CONCURRENT="1", QUEUED="0") as endpoint, crm_site() as site:
        with held_browser(endpoint):
            process = started(
                routine(rows, site.new_url, "--browser-endpoint", endpoint, "--parallel", "2", "--events"),
                cli_env(home, llm_server),
            )
            events = event_lines(process)
            try:
                first = next(events)
                while first["event"] != "browser_note":
                    assert first["event"] not in ("row_started", "row_finished"), first
                    first = next(events)
            except BaseException:
                process.kill()
                raise
            assert first["kind"] == "busy" and first["browser"] == endpoint.split("?", 1)[0]
        rest = list(events)  # the browser it held is free: the routine connects and runs its rows
        assert process.wait(120) == 0
        assert sorted(site.emails()) == ["ana@x.test", "bob@x.test", "chloe@x.test"]
    assert all(e["status"] == "done" for e in rest if e["event"] == "row_finished")
    assert [r["status"] for r in results(rows)] == ["done"] * 3


def test_browserless_ending_its_sessions_costs_only_the_row_in_flight_and_the_routine_connects_again(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, EIGHT[: EIGHT.index("Customer 6")])
    with browserless(tmp_path, TIMEOUT="4000") as endpoint, crm_site() as site:
        done = run(routine(rows, site.new_url, "--browser-endpoint", endpoint, "--events"), cli_env(home, llm_server))
    table = results(rows)
    assert {r["status"] for r in table} <= {"done", "interrupted"}, done.stderr  # none failed for it, none skipped
    assert len(site.records) >= sum(r["status"] == "done" for r in table)
    assert any(note["kind"] == "reconnecting" for note in _notes(done.stderr))
