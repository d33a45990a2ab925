"""What a routine will cost, told on the command line as it starts, and its limit (--max-calls, --max-cost): past it,
the routine asks on a terminal whether to go on, and without one it stops with the rows left for the next run. A
subprocess, real headless Chromium, the fake model server and the CRM test site, as in test_routine.py."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.routine_helpers import ROWS, on_a_terminal, results, routine, rows_file, run
from tests.cli.test_cli import cli_env, home  # noqa: F401 - the fixture
from tests.fakes.crm_model import crm_model
from tests.fakes.crm_site import crm_site
from tests.fakes.llm_server import FakeLLMServer

FOUR = ROWS.replace("Dup,ana@x.test", "Dee,dee@x.test")  # four rows the CRM takes
GO_ON = "Go on past your limit? [y/N; N stops here, the rows left run next time] "


def events(stderr: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]


def test_the_estimate_is_told_as_it_starts_and_after_the_first_row(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, FOUR)
    with crm_site() as site:
        done = run(routine(rows, site.new_url), cli_env(home, llm_server))
    assert done.returncode == 0, done.stderr
    # Five columns: the row that learns the path takes about 5 + 3 calls, the three that replay it one each.
    assert "About what it takes: 4 rows · about 11 model calls (a guess from the template's columns" in done.stderr
    assert "After the first row: 4 rows · about " in done.stderr
    assert done.stderr.index("About what it takes") < done.stderr.index("Row 1 of 4")


def test_with_events_the_estimate_and_the_limit_are_events_and_nobody_to_ask_stops_the_routine(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, FOUR)
    with crm_site() as site:
        stopped = run(routine(rows, site.new_url, "--events", "--max-calls", "3"), cli_env(home, llm_server))
        assert stopped.returncode == 3, stopped.stderr  # stopped, as Ctrl+C would
        told = events(stopped.stderr)
        kinds = [event["event"] for event in told]
        first = told[kinds.index("estimate")]
        assert kinds.index("estimate") < kinds.index("row_started")
        assert (first["rows"], first["calls"], first["calls_in_all"], first["from_rows_run"]) == (4, 0, 11, 0)
        limit = told[kinds.index("limit_reached")]
        assert (limit["limit"], limit["at"], limit["calls"]) == ("calls", 3, 3)
        assert len(llm_server.requests) == 3  # not one call past the limit
        assert [r["status"] for r in results(rows)][1:] == ["skipped"] * 3
        # The same command without the limit runs the rows left; none is sent twice.
        again = run(routine(rows, site.new_url, "--retry-interrupted"), cli_env(home, llm_server))
        assert again.returncode == 0, again.stderr
        assert sorted(site.emails()) == sorted({"ana@x.test", "bob@x.test", "chloe@x.test", "dee@x.test"})


def test_past_its_limit_on_a_terminal_the_routine_asks_and_goes_on_when_told(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, FOUR)
    env = cli_env(home, llm_server)
    with crm_site() as site:
        with on_a_terminal(routine(rows, site.new_url, "--max-calls", "3"), env) as terminal:
            told = terminal.read_until(GO_ON)
            assert "It has made 3 model calls; your limit was 3." in told
            assert len(llm_server.requests) == 3  # the routine waits for the answer
            terminal.type("y")
            told = terminal.finish()
            assert terminal.process.returncode == 0, told
        assert told.count("Go on past your limit?") == 1  # said once
        assert sorted(site.emails()) == ["ana@x.test", "bob@x.test", "chloe@x.test", "dee@x.test"]


def test_a_limit_of_money_needs_the_models_price_and_keeps_to_it(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, FOUR)
    env = cli_env(home, llm_server)
    with crm_site() as site:
        refused = run(routine(rows, site.new_url, "--max-cost", "0.30"), env)
        assert refused.returncode == 2 and not llm_server.requests
        assert "A limit of money needs the model's price, and that of fake-model is not known" in refused.stderr
        # Each of the fake model's calls is 120 tokens: at 1000 a million, 0.12 a call, past 0.30 after the third.
        priced = ("--max-cost", "0.30", "--price-per-million-tokens", "1000")
        stopped = run(routine(rows, site.new_url, *priced), env)
    assert stopped.returncode == 3, stopped.stderr
    assert "About what it takes: 4 rows · about 11 model calls" in stopped.stderr
    assert "It has cost 0.36; your limit was 0.30. The routine stops here" in stopped.stderr
    assert len(llm_server.requests) == 3
