"""Never twice, even when the model misreads the site's answer: a row whose data was sent (its path's Save replayed,
or done by the model that took the row over) is never sent again. The model here misreads the CRM's Saved page and
goes to "New customer" to enter the row again (tests/fakes/crm_model.py ``misreads``); the site keeps a second
record with the same email (``unique_emails`` off), so only the routine can keep each row to one record, and the
site's records are what the assertions count."""

from __future__ import annotations

import json
from pathlib import Path

from app.routine.state import RoutineStore
from app.routine.types import RowStatus
from tests.cli.routine_helpers import ROWS, on_a_terminal, results, routine, rows_file, run
from tests.cli.test_cli import ROOT, cli_env, home  # noqa: F401 - the fixture
from tests.fakes.crm_model import crm_model
from tests.fakes.crm_site import crm_site
from tests.fakes.llm_server import FakeLLMServer

DISTINCT = ROWS.replace("Dup,ana@x.test", "Dee,dee@x.test")
UNCLEAR = "The site's answer was unclear; check row {number} before running it again."


def unclear_rows(rows: Path) -> dict[int, tuple[str, bool]]:
    """Each row's status and whether it was left unclear, as the routine's state holds them."""
    store = RoutineStore.open(rows.with_name(f"{rows.stem}-results.csv"))
    try:
        records = store.records()
    finally:
        store.close()
    return {record.number: (record.outcome.status, record.outcome.unclear) for record in records.values()}


def test_a_replayed_row_whose_saved_page_the_model_misreads_is_sent_once_and_left_to_the_person(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model(misreads=True)
    rows = rows_file(tmp_path, DISTINCT)
    with crm_site() as site:
        site.unique_emails = False
        done = run(routine(rows, site.new_url, "--json"), cli_env(home, llm_server))

        assert site.emails() == ["ana@x.test", "bob@x.test", "chloe@x.test", "dee@x.test"]  # each row once
        assert done.returncode == 4, done.stderr  # rows need a person
        table = results(rows)
        assert [r["status"] for r in table] == ["done", "needs_person", "needs_person", "needs_person"]
        for number, row in enumerate(table[1:], 2):
            assert row["result"].startswith(UNCLEAR.format(number=number)), row["result"]
            assert "“New customer”" in row["result"] and "--retry-interrupted" in row["result"]
            assert row["model_calls"] == "1"  # the confirming call, and nothing it asked for was done
        assert unclear_rows(rows) == {
            1: (RowStatus.DONE, False),
            2: (RowStatus.NEEDS_PERSON, True),
            3: (RowStatus.NEEDS_PERSON, True),
            4: (RowStatus.NEEDS_PERSON, True),
        }
        assert json.loads(done.stdout)["counts"] == {"done": 1, "needs_person": 3}

        # The same command again never sends those rows blindly: their data reached the site once.
        posts = site.posts
        again = run(routine(rows, site.new_url, "--json"), cli_env(home, llm_server))
        assert again.returncode == 4, again.stderr
        assert json.loads(again.stdout)["ran"] == 0 and site.posts == posts


def test_a_row_the_model_took_over_and_sent_is_never_sent_again(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model(misreads=True)
    rows = rows_file(tmp_path, ROWS.rsplit("Dup", 1)[0])
    with crm_site() as site:
        site.unique_emails = False

        def change_the_form(data: dict[str, str]) -> None:
            site.form_version = 2  # the next rows find "Contact email" where "Email" was: the model takes them over

        site.on_post = change_the_form
        done = run(routine(rows, site.new_url), cli_env(home, llm_server))

        assert site.emails() == ["ana@x.test", "bob@x.test", "chloe@x.test"]
        assert done.returncode == 4, done.stderr
    table = results(rows)
    assert [r["status"] for r in table] == ["done", "needs_person", "needs_person"]
    for number, row in enumerate(table[1:], 2):
        assert row["result"].startswith(UNCLEAR.format(number=number)), row["result"]
        assert int(row["model_calls"]) > 1  # the model typed the email, chose, ticked and saved: it took it over
    assert unclear_rows(rows)[2] == (RowStatus.NEEDS_PERSON, True)


def test_on_a_terminal_the_row_is_handed_to_the_person_and_never_sent_again_after_they_continue(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model(misreads=True)
    rows = rows_file(tmp_path, ROWS.rsplit("Chloé", 1)[0])
    with crm_site() as site:
        site.unique_emails = False
        with on_a_terminal(routine(rows, site.new_url), cli_env(home, llm_server)) as terminal:
            # The routine's own words, not the agent's: nothing is quoted as "The agent says", and skipping does not
            # promise a next run (the row was sent).
            asked = (
                "Row 2 needs you in its browser (window 1). This row was sent to the site, but the site's answer was "
                "unclear, and the agent's next step would have sent it again (Click the “New customer” link), so that "
                "step was not taken."
            )
            question = 'or type "skip" to leave it to you (it is not run again unless you ask for it with ' + (
                "--retry-interrupted): "
            )
            told = terminal.read_until(question)
            assert asked in told and "The agent says" not in told, told
            assert site.emails() == ["ana@x.test", "bob@x.test"]
            terminal.type("")  # carry on: the model misreads the page again, and is refused again
            assert asked in terminal.read_until(question)
            assert site.emails() == ["ana@x.test", "bob@x.test"]
            terminal.type("skip")
            told = terminal.finish()
            assert terminal.process.returncode == 4, told
        assert site.emails() == ["ana@x.test", "bob@x.test"]
    table = results(rows)
    assert [r["status"] for r in table] == ["done", "needs_person"]
    assert table[1]["result"].startswith(UNCLEAR.format(number=2))
    assert unclear_rows(rows)[2] == (RowStatus.NEEDS_PERSON, True)
