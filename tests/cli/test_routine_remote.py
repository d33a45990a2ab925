"""Routines over browsers that run elsewhere (--browser-endpoint): real Chromium servers listening on 127.0.0.1 only,
sharing the rows; one that dies in mid-row leaves that row interrupted and its remaining rows to the others; none is
ever closed by the routine. The same over a Playwright server (playwright run-server) and browserless (a Selenium
Grid: test_routine_grid.py)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from app.browser.chromium import find_chromium
from app.routine.state import state_path
from tests.cli.routine_helpers import ROWS, results, routine, rows_file, run
from tests.cli.test_cli import ROOT, cli_env, home, unused_port  # noqa: F401 - the fixture
from tests.cli.test_routine import calls_by_row
from tests.fakes.browserless import browserless
from tests.fakes.crm_model import crm_model
from tests.fakes.crm_site import crm_site
from tests.fakes.external_chromium import external_chromium
from tests.fakes.llm_server import FakeLLMServer

FIVE = ROWS.replace("Dup,ana@x.test", "Dee,dee@x.test") + "Eve,eve@x.test,Pro,2026-04-01,no\n"


def open_pages(url: str) -> list[str]:
    with urllib.request.urlopen(f"{url}/json/list", timeout=5) as response:
        return [target["url"] for target in json.load(response) if target["type"] == "page"]


def test_two_remote_browsers_share_the_rows_and_are_left_running(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, FIVE)
    with (
        external_chromium(tmp_path / "a") as (a, first),
        external_chromium(tmp_path / "b") as (b, second),
        crm_site() as site,
    ):
        done = run(
            routine(rows, site.new_url, "--browser-endpoint", a, "--browser-endpoint", b), cli_env(home, llm_server)
        )

        assert done.returncode == 0, done.stderr
        assert len(site.records) == 5
        table = results(rows)
        assert [r["status"] for r in table] == ["done"] * 5
        assert {r["browser"] for r in table} == {a, b}
        assert first.poll() is None and second.poll() is None  # never closed: they are not the routine's
        assert open_pages(a) == ["about:blank"] and open_pages(b) == ["about:blank"]  # its own pages are gone
    assert not (home / "data" / "browser-profile").exists()  # no local Chromium was started


def test_an_endpoint_that_dies_in_mid_row_leaves_that_row_interrupted_and_the_rest_to_the_others(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, FIVE)
    state = state_path(rows.with_name(f"{rows.stem}-results.csv"))
    with (
        external_chromium(tmp_path / "a") as (a, first),
        external_chromium(tmp_path / "b") as (b, second),
        crm_site() as site,
    ):
        browsers = {a: first, b: second}
        killed: list[str] = []

        def kill_chloes_browser(data: dict[str, str]) -> None:
            if data.get("email") == "chloe@x.test" and not killed:
                with sqlite3.connect(state) as db:  # which browser this row runs in, as the routine wrote it
                    (browser,) = db.execute("SELECT browser FROM rows WHERE number = 3").fetchone()
                killed.append(browser)
                browsers[browser].kill()

        site.on_post = kill_chloes_browser
        done = run(
            routine(rows, site.new_url, "--browser-endpoint", a, "--browser-endpoint", b), cli_env(home, llm_server)
        )

        assert done.returncode == 2, done.stderr  # an interrupted row is one to look at
        table = results(rows)
        assert table[2]["status"] == "interrupted" and table[2]["browser"] == killed[0]
        assert "--retry-interrupted" in table[2]["result"]
        others = [r for i, r in enumerate(table) if i != 2]
        assert [r["status"] for r in others] == ["done"] * 4
        survivor = ({a, b} - set(killed)).pop()
        assert {r["browser"] for r in table[3:]} == {survivor}
        assert browsers[survivor].poll() is None


@contextmanager
def playwright_server() -> Iterator[str]:
    """``playwright run-server`` (the Python package's own driver) on loopback; its address, with Debian's Chromium
    as the browser it starts for each client (``--unsafe`` lets a client name the executable)."""
    port = unused_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "playwright", "run-server", "--host", "127.0.0.1", "--port", str(port), "--unsafe"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,  # the driver's node process is a child of this one: ended as a group
    )
    try:
        assert server.stdout is not None
        listening = server.stdout.readline()  # "Listening on ws://127.0.0.1:PORT/", once it listens
        assert listening.startswith("Listening on ws://"), listening
        options = json.dumps({"executablePath": asyncio.run(find_chromium())})
        yield f"ws://127.0.0.1:{port}/?launch-options={urllib.parse.quote(options)}"
        assert server.poll() is None  # the routine never ends the server
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(10)


def test_a_routine_runs_in_browsers_of_a_playwright_server(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, FIVE)
    with playwright_server() as endpoint, crm_site() as site:
        done = run(
            routine(rows, site.new_url, "--browser-endpoint", endpoint, "--parallel", "2", "--json"),
            cli_env(home, llm_server),
        )
        assert done.returncode == 0, done.stderr
        assert len(site.records) == 5 and len(set(site.emails())) == 5
    table = results(rows)
    assert [r["status"] for r in table] == ["done"] * 5
    label = endpoint.split("?", 1)[0]  # the launch options stay out of the results
    assert {r["browser"] for r in table} == {f"{label} #1", f"{label} #2"}
    assert calls_by_row(table)[1:] == [1, 1, 1, 1]
    assert not (home / "data" / "browser-profile").exists()


def test_a_routine_runs_in_a_browserless_browser(tmp_path: Path, home: Path, llm_server: FakeLLMServer) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, ROWS.rsplit("Dup", 1)[0])
    with browserless(tmp_path) as endpoint, crm_site() as site:
        done = run(
            routine(rows, site.new_url, "--browser-endpoint", endpoint, "--parallel", "2"), cli_env(home, llm_server)
        )
        assert done.returncode == 0, done.stderr
        assert sorted(site.emails()) == ["ana@x.test", "bob@x.test", "chloe@x.test"]
    table = results(rows)
    assert [r["status"] for r in table] == ["done"] * 3
    label = endpoint.split("?", 1)[0]
    assert {r["browser"] for r in table} <= {f"{label} #1", f"{label} #2"}  # the token stays out of the results
    assert endpoint.split("token=", 1)[1] not in rows.with_name("customers-results.csv").read_text(encoding="utf-8")
    assert calls_by_row(table)[1:] == [1, 1]
