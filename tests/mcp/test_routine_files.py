"""The files an MCP client names for a routine: a link is judged by the file it leads to (a .csv-named link to a
key is refused, and nothing of it reaches the model), the results are never written through a link nor over a file
that is not this routine's results, and a pipe is refused at once instead of blocking the server."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from app.routine.plan import plan_routine
from app.routine.results import write_results
from app.routine.state import state_path
from app.routine.types import RoutineOptions
from tests.cli.routine_helpers import rows_file
from tests.cli.test_cli import home  # noqa: F401  (fixture)
from tests.fakes.crm_model import TEMPLATE, crm_model
from tests.fakes.crm_site import crm_site
from tests.fakes.llm_server import FakeLLMServer, done_reply
from tests.mcp.helpers import data, stdio_client, text_of

pytestmark = pytest.mark.slow

KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
BASHRC = "export PATH=$HOME/bin:$PATH\n"
REFUSED_AT_ONCE = 30.0  # seconds: a refusal reads no more than a name; a pipe read would never return


def _release(fifo: Path) -> None:
    """Give a reader stuck on the pipe (the defect) its end of file, so that a failing test ends."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:  # nobody is reading it
        pass


async def test_a_csv_named_link_to_a_key_a_hidden_file_or_a_relative_path_is_refused_and_nothing_reaches_the_model(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = lambda body: done_reply("Added.")
    secret = tmp_path / "ssh"
    secret.mkdir()
    (secret / "id_rsa").write_text(KEY)
    link = tmp_path / "customers.csv"
    link.symlink_to(secret / "id_rsa")
    to_device = tmp_path / "endless.csv"
    to_device.symlink_to("/dev/zero")
    column = KEY.splitlines()[0]
    (tmp_path / ".config").mkdir()
    hidden = rows_file(tmp_path / ".config")

    async with stdio_client(home, llm_server) as client:
        refused = [
            await asyncio.wait_for(
                client.call_tool("run_routine", {"template": f"Add {{{column}}}", "rows_path": str(path)}),
                REFUSED_AT_ONCE,
            )
            for path in (link, to_device)
        ]
        in_hidden = await client.call_tool("run_routine", {"template": TEMPLATE, "rows_path": str(hidden)})
        relative = await client.call_tool("run_routine", {"template": TEMPLATE, "rows_path": "customers.csv"})

    for answer in refused:
        assert answer.is_error and "must be a .csv, .tsv, .xlsm, .xlsx file" in text_of(answer), text_of(answer)
        assert "a link is judged by the file it leads to" in text_of(answer)
    assert "b3BlbnNzaC1rZXkt" not in text_of(refused[0])
    assert in_hidden.is_error and "is a hidden file" in text_of(in_hidden), text_of(in_hidden)
    assert relative.is_error and "is not a full path" in text_of(relative), text_of(relative)
    assert llm_server.requests == []


async def test_a_csv_link_to_rows_elsewhere_is_read_as_those_rows(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    """The link is judged by the file it leads to: a rows file the client could have named itself is read."""
    llm_server.fallback = crm_model()
    elsewhere = tmp_path / "shared"
    elsewhere.mkdir()
    link = tmp_path / "mine.csv"
    link.symlink_to(rows_file(elsewhere))
    with crm_site() as site:
        async with stdio_client(home, llm_server) as client:
            started = data(
                await client.call_tool(
                    "run_routine", {"template": TEMPLATE, "rows_path": str(link), "start_url": site.new_url}
                )
            )
            view = data(await client.call_tool("get_routine", {"routine_id": started["routine_id"], "wait_s": 150}))
    assert view["status"] == "done" and view["counts"] == {"done": 3, "failed": 1}, view
    assert view["results_path"] == str(elsewhere / "customers-results.csv")


async def test_a_results_path_that_is_a_link_is_refused_and_what_it_leads_to_is_unchanged(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    bashrc = tmp_path / "bashrc"
    bashrc.write_text(BASHRC)
    link = tmp_path / "results.csv"
    link.symlink_to(bashrc)
    rows = rows_file(tmp_path)
    state_link = tmp_path / "other.csv"  # a new results file, but its state's lock beside it is a link
    os.symlink(bashrc, f"{state_path(state_link)}.lock")

    async with stdio_client(home, llm_server) as client:
        through_link = await client.call_tool(
            "run_routine", {"template": TEMPLATE, "rows_path": str(rows), "results_path": str(link)}
        )
        through_state = await client.call_tool(
            "run_routine", {"template": TEMPLATE, "rows_path": str(rows), "results_path": str(state_link)}
        )

    assert through_link.is_error and "results_path" in text_of(through_link), text_of(through_link)
    assert "is a link, not a regular file" in text_of(through_link)
    assert through_state.is_error and "is a link, not a regular file" in text_of(through_state)
    assert bashrc.read_text() == BASHRC and link.is_symlink()
    assert not state_path(link).exists() and not state_path(state_link).exists()
    assert llm_server.requests == []


async def test_a_pipe_named_like_rows_or_results_is_refused_at_once(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    fifo_rows = tmp_path / "rows.csv"
    os.mkfifo(fifo_rows)
    fifo_results = tmp_path / "results.csv"
    os.mkfifo(fifo_results)
    rows = rows_file(tmp_path)
    async with stdio_client(home, llm_server) as client:
        try:
            as_rows = await asyncio.wait_for(
                client.call_tool("run_routine", {"template": TEMPLATE, "rows_path": str(fifo_rows)}),
                REFUSED_AT_ONCE,
            )
            as_results = await asyncio.wait_for(
                client.call_tool(
                    "run_routine", {"template": TEMPLATE, "rows_path": str(rows), "results_path": str(fifo_results)}
                ),
                REFUSED_AT_ONCE,
            )
        finally:  # before the server is closed, which would otherwise wait for its stuck reader
            _release(fifo_rows)
            _release(fifo_results)

    assert as_rows.is_error and "is a named pipe, not a regular file" in text_of(as_rows), text_of(as_rows)
    assert as_results.is_error and "is a named pipe" in text_of(as_results), text_of(as_results)
    assert llm_server.requests == []


async def test_the_results_go_only_to_a_new_file_or_this_routines_own_results(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path)
    accounts = tmp_path / "accounts.csv"
    accounts.write_text("user,password_hash\nada,$2b$12$abc\n")
    (tmp_path / "beside").mkdir()
    beside = rows_file(tmp_path / "beside")
    foreign = beside.with_name("customers-results.csv")  # where its results would go by default: not ours
    foreign.write_text("name,email\nsomeone else's,file\n")
    ours = tmp_path / "earlier-results.csv"  # what this routine wrote before: the app's own header
    plan = plan_routine(RoutineOptions(rows_file=rows, template=TEMPLATE, results_file=ours))
    write_results(ours, plan.table, plan.keys, {}, [], [])

    with crm_site() as site:
        async with stdio_client(home, llm_server) as client:
            over_accounts = await client.call_tool(
                "run_routine", {"template": TEMPLATE, "rows_path": str(rows), "results_path": str(accounts)}
            )
            over_default = await client.call_tool("run_routine", {"template": TEMPLATE, "rows_path": str(beside)})
            again = data(
                await client.call_tool(
                    "run_routine",
                    {
                        "template": TEMPLATE,
                        "rows_path": str(rows),
                        "results_path": str(ours),
                        "start_url": site.new_url,
                    },
                )
            )
            view = data(await client.call_tool("get_routine", {"routine_id": again["routine_id"], "wait_s": 150}))

    for refused, path in ((over_accounts, accounts), (over_default, foreign)):
        assert refused.is_error, text_of(refused)
        assert f"{path} already exists and is not this routine's results" in text_of(refused), text_of(refused)
    assert accounts.read_text() == "user,password_hash\nada,$2b$12$abc\n"
    assert foreign.read_text() == "name,email\nsomeone else's,file\n"
    assert view["status"] == "done" and view["counts"] == {"done": 3, "failed": 1}, view
    assert "done" in ours.read_text(encoding="utf-8-sig")
