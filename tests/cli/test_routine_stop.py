"""Stopping a routine on the command line (SIGTERM, or Esc in a row's Chromium window): every row in flight ends, the
results are kept, exit 3. A row the Stop caught, or an error ended, after it may have sent its form is
``interrupted``, so running again never enters it twice; one that had sent nothing is tried again. Counted on the CRM
test site, which keeps its records on the server."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

from app.browser.chromium import find_chromium
from tests.cli.routine_helpers import ROWS, results, routine, rows_file, run, started
from tests.cli.test_cli import ROOT, cli_env, home, unused_port  # noqa: F401 - the fixture
from tests.fakes.crm_model import crm_model, row_values, user_text
from tests.fakes.crm_site import CrmSite, crm_site
from tests.fakes.external_chromium import external_chromium
from tests.fakes.llm_server import FakeLLMServer, FakeResponse, error_reply

UNIQUE = ROWS.replace("Dup,ana@x.test", "Dee,dee@x.test")
EMAILS = ["ana@x.test", "bob@x.test", "chloe@x.test", "dee@x.test"]


class HeldRows:
    """The CRM model, with two answers held as a slow model would hold them, until the routine is stopped: row 1's
    once its form is saved (it has sent its data) and row 2's first (it has done nothing yet)."""

    def __init__(self) -> None:
        self._model = crm_model()
        self._lock = threading.Lock()
        self._asked: set[str] = set()
        self._held = 0
        self.both_held = threading.Event()

    def __call__(self, body: dict[str, Any]) -> FakeResponse:
        answer = self._model(body)
        email = row_values(body)[1]
        page = user_text(body).split("<browser_state>", 1)[1]
        with self._lock:
            first = email not in self._asked
            self._asked.add(email)
            hold = (email == "ana@x.test" and "Saved customer" in page) or (email == "bob@x.test" and first)
            self._held += int(hold)
            if self._held == 2:
                self.both_held.set()
        if hold:
            answer.delay = 60  # released when the routine gives up on it (Stop), or when the test ends
        return answer


def stopped_run(
    rows: Path,
    site: CrmSite,
    env: dict[str, str],
    held: HeldRows,
    stop: Callable[[subprocess.Popen[str]], None],
    *where: str,
) -> tuple[int, str, str]:
    """The routine over two windows at a time (``where``: two local ones), the model doing every row; ``stop`` once
    rows 1 and 2 both wait."""
    process = started(routine(rows, site.new_url, "--no-replay", "--json", *(where or ("--parallel", "2"))), env)
    try:
        if not held.both_held.wait(90):
            process.kill()
            raise AssertionError(f"rows 1 and 2 never both waited on the model: {process.communicate()[1]}")
        stop(process)
        stdout, stderr = process.communicate(timeout=90)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    return process.returncode, stdout, stderr


def assert_stopped(rows: Path, site: CrmSite, code: int, stdout: str, stderr: str) -> None:
    assert code == 3, stderr
    assert site.emails() == ["ana@x.test"]  # row 1 sent its form before the Stop; nothing else was sent
    table = results(rows)
    assert [r["status"] for r in table] == ["interrupted", "stopped", "skipped", "skipped"]
    assert table[0]["result"].startswith("The routine was stopped after this row may have sent its data")
    assert "--retry-interrupted" in table[0]["result"]
    summary = json.loads(stdout)
    assert summary["counts"] == {"interrupted": 1, "stopped": 1, "skipped": 2} and summary["stopped"] is True


def test_sigterm_stops_the_rows_in_flight_and_a_row_that_may_have_sent_its_form_is_never_redone(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    held = HeldRows()
    llm_server.fallback = held
    rows = rows_file(tmp_path, UNIQUE)
    with crm_site() as site:
        site.unique_emails = False  # the site itself would save a row twice: only the routine can prevent it
        env = cli_env(home, llm_server)
        assert_stopped(rows, site, *stopped_run(rows, site, env, held, lambda p: p.send_signal(signal.SIGTERM)))

        llm_server.fallback = crm_model()
        again = run(routine(rows, site.new_url, "--no-replay", "--parallel", "2", "--json"), env)

        assert again.returncode == 2, again.stderr  # the interrupted row is one to look at
        assert sorted(site.emails()) == EMAILS  # the stopped row was entered this time, the interrupted one not
        assert [r["status"] for r in results(rows)] == ["interrupted", "done", "done", "done"]
        assert json.loads(again.stdout)["ran"] == 3


def press_escape(cdp_url: str, where: Callable[[str], bool]) -> None:
    """Esc, as a person presses it, in the one page of that browser whose address ``where`` accepts."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.connect_over_cdp(cdp_url)
        pages = [page for context in browser.contexts for page in context.pages]
        chosen = [page for page in pages if where(page.url)]
        assert len(chosen) == 1, [page.url for page in pages]
        chosen[0].keyboard.press("Escape")


def test_esc_in_a_rows_chromium_window_stops_the_routine(tmp_path: Path, home: Path, llm_server: FakeLLMServer) -> None:
    held = HeldRows()
    llm_server.fallback = held
    rows = rows_file(tmp_path, UNIQUE)
    # The app's own Chromium, launched by the routine, with a DevTools port the test reaches its pages through.
    port = unused_port()
    chromium = tmp_path / "chromium-with-devtools"
    chromium.write_text(
        f"#!/bin/sh\nexec {asyncio.run(find_chromium())} --remote-debugging-address=127.0.0.1 "
        f'--remote-debugging-port={port} "$@"\n'
    )
    chromium.chmod(0o755)
    (home / "config").mkdir(parents=True)
    (home / "config" / "settings.json").write_text(json.dumps({"browser_path": str(chromium)}))

    def press_escape_in_row_two(_process: subprocess.Popen[str]) -> None:
        # Row 2's window still shows the empty form (row 1's shows its saved customer).
        press_escape(f"http://127.0.0.1:{port}", lambda url: url.endswith("/new"))

    with crm_site() as site:
        assert_stopped(rows, site, *stopped_run(rows, site, cli_env(home, llm_server), held, press_escape_in_row_two))


def test_esc_in_any_remote_browsers_window_stops_the_routine(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    held = HeldRows()
    llm_server.fallback = held
    rows = rows_file(tmp_path, UNIQUE)
    with (
        external_chromium(tmp_path / "a") as (a, _first),
        external_chromium(tmp_path / "b") as (b, _second),
        crm_site() as site,
    ):
        code, stdout, stderr = stopped_run(
            rows,
            site,
            cli_env(home, llm_server),
            held,
            lambda _process: press_escape(b, lambda url: url.startswith(site.url)),  # the second browser's row
            *("--browser-endpoint", a, "--browser-endpoint", b),
        )
        assert_stopped(rows, site, code, stdout, stderr)


def test_a_row_that_ends_in_an_error_after_it_may_have_sent_its_form_is_never_redone(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    model = crm_model()

    def refusing(body: dict[str, Any]) -> FakeResponse:
        """The model's key stops working: once row 1's form is saved, and at row 2's first step."""
        email = row_values(body)[1]
        page = user_text(body).split("<browser_state>", 1)[1]
        if (email == "ana@x.test" and "Saved customer" in page) or email == "bob@x.test":
            return error_reply(401, "Incorrect API key provided")
        return model(body)

    llm_server.fallback = refusing
    rows = rows_file(tmp_path, UNIQUE.rsplit("Chloé", 1)[0])
    with crm_site() as site:
        site.unique_emails = False
        env = cli_env(home, llm_server)
        broken = run(routine(rows, site.new_url, "--no-replay"), env)

        assert broken.returncode == 2, broken.stderr
        table = results(rows)
        assert [r["status"] for r in table] == ["interrupted", "error"]
        assert "This came after the row may have sent its data" in table[0]["result"]
        assert "--retry-interrupted" in table[0]["result"] and table[1]["result"] != ""
        assert site.emails() == ["ana@x.test"]

        llm_server.fallback = model
        again = run(routine(rows, site.new_url, "--no-replay"), env)

        assert again.returncode == 2, again.stderr
        assert site.emails() == ["ana@x.test", "bob@x.test"]  # row 2 sent nothing before: it is entered now
        assert [r["status"] for r in results(rows)] == ["interrupted", "done"]
