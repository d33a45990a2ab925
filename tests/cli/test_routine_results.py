"""The results file of `run --rows` as a person opens it: rows whose own columns are named like the app's (status,
run) keep them, the app's columns get a prefix instead, a second run and --retry-failed read the routine back, and
no cell is a live formula."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from app.routine.results import RESULT_COLUMNS
from tests.cli.routine_helpers import routine, run
from tests.cli.test_cli import cli_env, home  # noqa: F401 - the fixture
from tests.fakes.crm_model import crm_model
from tests.fakes.crm_site import crm_site
from tests.fakes.llm_server import FakeLLMServer
from tests.routine.test_results import live

PREFIXED = [f"page_agent_{name}" for name in RESULT_COLUMNS]


def read_results(rows: Path) -> list[list[str]]:
    text = rows.with_name(f"{rows.stem}-results.csv").read_bytes().decode("utf-8-sig")
    return list(csv.reader(io.StringIO(text, newline="")))


def test_rows_with_a_status_and_a_run_column_keep_them_and_the_results_read_back(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = tmp_path / "customers.csv"
    rows.write_text(
        "name,email,plan,start,newsletter,status,run\n"
        'Ana,ana@x.test,Pro,2026-01-05,yes,VIP,"=HYPERLINK(""http://evil.test"",""x"")"\n'
        "Dup,ana@x.test,Free,2026-03-02,no,new,weekly\n",
        encoding="utf-8",
    )
    with crm_site() as site:
        done = run(routine(rows, site.new_url, "--json"), cli_env(home, llm_server))
        assert done.returncode == 1, done.stderr  # the second row's email is taken: it fails

        table = read_results(rows)
        header, lines = table[0], [dict(zip(table[0], line, strict=True)) for line in table[1:]]
        assert header == ["name", "email", "plan", "start", "newsletter", "status", "run", *PREFIXED]
        assert [(line["status"], line["run"]) for line in lines] == [
            ("VIP", '\'=HYPERLINK("http://evil.test","x")'),
            ("new", "weekly"),
        ]
        assert [line["page_agent_status"] for line in lines] == ["done", "failed"]
        assert lines[1]["page_agent_result"] == "The CRM refused it: that email is already a customer."
        assert all(
            json.loads((home / "data" / "runs" / f"{line['page_agent_run']}.json").read_bytes()) for line in lines
        )
        assert [cell for line in table for cell in line if live(cell)] == []

        # The routine goes on from its state as before: nothing done is redone, and --retry-failed tries row 2 again.
        retried = run(routine(rows, site.new_url, "--retry-failed", "--json"), cli_env(home, llm_server))
        assert retried.returncode == 1, retried.stderr
        assert json.loads(retried.stdout)["ran"] == 1 and site.posts == 3 and len(site.records) == 1
        assert read_results(rows)[0] == header
