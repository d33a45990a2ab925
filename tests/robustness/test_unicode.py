"""Text that is not valid Unicode (lone UTF-16 surrogates from a page or the model, command-line bytes that are not
UTF-8) and words that are not the model's fault (a bad base URL, a garbage Retry-After): each ends in a clear state.

The page tests run the real CLI in a subprocess against real headless Chromium and the real HTTP fake model.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from app.browser.controller import PlaywrightPageController
from app.core.abort import AbortSignal
from app.core.agent import Agent
from app.core.clean_text import REPLACEMENT, is_valid_text, valid_data, valid_text
from app.core.types import AgentStatus, StepEvent
from app.history.export import export_html, export_json
from app.history.store import RunStore
from app.llm.client import OpenAICompatibleClient
from app.llm.errors import retry_after_seconds
from app.llm.settings import LLMSettings
from tests.browser.helpers import page_events
from tests.cli.test_cli import cli, cli_env, event_lines, home, statuses  # noqa: F401  (home: the fixture)
from tests.fakes.html_site import html_site
from tests.fakes.llm_server import (
    FakeLLMServer,
    FakeResponse,
    agent_output,
    completion,
    done_reply,
    error_reply,
    tool_reply,
)
from tests.fakes.page import FakePage
from tests.history.conftest import make_record
from tests.waiting import finishes

ROOT = Path(__file__).resolve().parents[2]
LONE = "\ud800"
# Built by script: an HTML file cannot hold a lone surrogate, a JS string can. b"..." keeps "\ud800" as JS's escape.
ODD_PAGE = b"""<!doctype html><meta charset=utf-8><title>placeholder</title>
<p id=note></p><button>Press me</button>
<script>
document.title = "Odd \\ud800 title";
document.getElementById("note").textContent = "odd " + String.fromCharCode(0xD800) + " text";
</script>"""
# An alert whose message holds a lone surrogate, once the page has loaded: the agent is told about it.
ALERT_PAGE = ODD_PAGE.replace(
    b"</script>",
    b"""setTimeout(() => alert("Hello " + String.fromCharCode(0xDC00)), 0);
</script>""",
)


@pytest.fixture
def odd_page() -> Iterator[str]:
    with html_site(lambda path: ALERT_PAGE if path == "/alert" else ODD_PAGE) as origin:
        yield origin + "/"


def run(args: list[str | bytes], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    # Decoded strictly: output that is not UTF-8 fails the test here.
    return subprocess.run(args, env=env, cwd=ROOT, capture_output=True, encoding="utf-8", errors="strict", timeout=45)


def user_message(body: dict[str, Any]) -> str:
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


# --- the helper ---------------------------------------------------------------------------------------------------


def test_valid_text_replaces_lone_halves_and_keeps_everything_else() -> None:
    assert valid_text("a\ud800b\udc00c") == f"a{REPLACEMENT}b{REPLACEMENT}c"
    assert valid_text("\udcff") == REPLACEMENT  # a byte that was not UTF-8, as Python decodes argv
    assert valid_text("\ud83d\ude00") == "😀"  # a pair split over two code points is one character again
    text = "plain, 中文, 😀"
    assert valid_text(text) is text and is_valid_text(text) and not is_valid_text(LONE)
    assert valid_data({"k" + LONE: [LONE, 1, None]}) == {"k" + REPLACEMENT: [REPLACEMENT, 1, None]}


# --- the page -----------------------------------------------------------------------------------------------------


async def test_the_page_and_its_dialog_enter_the_product_as_valid_text(
    controller: PlaywrightPageController, odd_page: str
) -> None:
    signal = AbortSignal()
    await controller.go_to_url(odd_page + "alert", signal)

    state = await controller.get_browser_state(signal)

    assert state.title == f"Odd {REPLACEMENT} title" and f"odd {REPLACEMENT} text" in state.content
    assert all(is_valid_text(tab.title) for tab in state.tabs)
    told = await page_events(controller, containing="Hello")  # the alert comes from the page's own timer
    assert any(f"Hello {REPLACEMENT}" in sentence for sentence in told), told
    assert all(is_valid_text(sentence) for sentence in told)


def test_a_lone_surrogate_on_the_page_and_in_the_answer_still_ends_in_success_with_parsable_json(
    home: Path, llm_server: FakeLLMServer, odd_page: str
) -> None:
    # Inside the tool call's arguments, as JSON text: "\\ud800" arrives escaped twice.
    llm_server.add(done_reply(f"Read it: {LONE}."))

    done = run(cli("Read the note", "--url", odd_page, "--json"), cli_env(home, llm_server))

    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "completed" and result["success"] is True
    assert result["data"] == f"Read it: {REPLACEMENT}."
    page = user_message(llm_server.requests[0])
    assert f"Odd {REPLACEMENT} title" in page and f"odd {REPLACEMENT} text" in page


def test_a_raw_surrogate_in_the_model_answer_keeps_every_events_line_parsable(
    home: Path, llm_server: FakeLLMServer, odd_page: str
) -> None:
    # The arguments as a Python str holding a real lone surrogate: the server's JSON carries it as a bare "\ud800"
    # escape, which the SDK decodes into the arguments themselves; the content carries one too.
    arguments = json.dumps(
        agent_output({"done": {"text": f"Done {LONE}", "success": True}}, memory=f"memo {LONE}"), ensure_ascii=False
    )
    llm_server.add(FakeResponse(body=completion(arguments=arguments, content=f"thinking {LONE}")))

    done = run(cli("Read the note", "--url", odd_page, "--events"), cli_env(home, llm_server))

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"Done {REPLACEMENT}"
    events = event_lines(done.stderr)
    assert statuses(events)[-1] == "completed"
    steps = [e["item"] for e in events if e["event"] == "history" and e["item"]["type"] == "step"]
    assert steps and steps[-1]["reflection"]["memory"] == f"memo {REPLACEMENT}"
    assert "\\ud800" not in done.stderr and all(is_valid_text(line) for line in done.stderr.splitlines())


def test_a_dialog_with_a_lone_surrogate_reaches_the_model_and_the_events_valid(
    home: Path, llm_server: FakeLLMServer, odd_page: str
) -> None:
    llm_server.add(done_reply("Saw it."))

    done = run(cli("Read the note", "--url", odd_page + "alert", "--events"), cli_env(home, llm_server))

    assert done.returncode == 0, done.stderr
    told = f"Hello {REPLACEMENT}"
    observations = [
        e["item"]["content"]
        for e in event_lines(done.stderr)
        if e["event"] == "history" and e["item"]["type"] == "observation"
    ]
    assert any(told in text for text in observations), observations
    assert told in json.dumps(llm_server.requests[0], ensure_ascii=False)


def test_an_action_result_with_a_lone_surrogate_survives_the_history_the_next_request_and_the_output(
    home: Path, llm_server: FakeLLMServer, odd_page: str
) -> None:
    # Playwright hands page.title() back with its lone surrogate, and go_to_url's result quotes the title.
    llm_server.add(tool_reply({"go_to_url": {"url": odd_page}}), done_reply("Read it."))

    done = run(cli("Read the title", "--events"), cli_env(home, llm_server))

    assert done.returncode == 0, done.stderr
    results = [
        e["item"]["action"] for e in event_lines(done.stderr) if e["event"] == "history" and e["item"]["type"] == "step"
    ]
    assert f"Odd {REPLACEMENT} title" in json.dumps(results[0], ensure_ascii=False)
    assert f"Odd {REPLACEMENT} title" in json.dumps(llm_server.requests[1], ensure_ascii=False)


def test_a_model_answer_with_a_lone_surrogate_reaches_the_agent_valid(llm_server: FakeLLMServer) -> None:
    client = OpenAICompatibleClient(LLMSettings(base_url=llm_server.base_url, api_key=SecretStr("sk-x")))
    llm_server.add(done_reply(f"A{LONE}B"))

    async def go() -> Any:
        try:
            return await Agent(client, FakePage()).execute(f"Task with a broken {LONE} character")
        finally:
            await client.close()

    result = asyncio.run(go())
    assert result.success and result.data == f"A{REPLACEMENT}B"
    # The task's own lone surrogate was sent as U+FFFD instead of making the request unsendable.
    assert f"broken {REPLACEMENT} character" in json.dumps(llm_server.requests[0], ensure_ascii=False)


# --- saved and exported runs --------------------------------------------------------------------------------------


def test_a_run_with_lone_surrogates_is_saved_listed_and_exported(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs")
    record = make_record(task=f"Find {LONE} things")
    step = next(e for e in record.tasks[0].events if isinstance(e, StepEvent))
    step.reflection.memory = f"seen {LONE}"
    record.tasks[0].result = f"Found {LONE}"

    store.save(record)

    loaded = store.load(record.id)
    assert loaded.tasks[0].task == f"Find {REPLACEMENT} things" and loaded.tasks[0].result == f"Found {REPLACEMENT}"
    assert [s.id for s in store.summaries()] == [record.id]
    assert json.loads(export_json(record))["tasks"][0]["result"] == f"Found {REPLACEMENT}"
    html = export_html(record)
    html.encode("utf-8")  # writable as the file the user saves
    assert f"Find {REPLACEMENT} things" in html


# --- words that are not the model's fault -------------------------------------------------------------------------


def test_a_task_that_is_not_utf8_is_refused_before_chromium_starts(home: Path, llm_server: FakeLLMServer) -> None:
    args: list[str | bytes] = [*cli(), b"Press the \xff button"]

    done = run(args, cli_env(home, llm_server))

    assert done.returncode == 2
    assert f"the task is not valid UTF-8 text: 'Press the {REPLACEMENT} button'" in done.stderr
    assert "model's answer" not in done.stderr
    assert "Traceback" not in done.stderr
    assert not (home / "data").exists() and llm_server.requests == []


@pytest.mark.parametrize("base_url", ["ftp://example.com/v1", "http://", "localhost:11434/v1", "http://[::1/v1"])
def test_a_bad_base_url_flag_is_refused_before_chromium_starts(
    home: Path, llm_server: FakeLLMServer, base_url: str
) -> None:
    done = run(cli("Press the button", "--base-url", base_url), cli_env(home, llm_server))

    assert done.returncode == 2
    assert "--base-url: The base URL" in done.stderr and "is not a web address" in done.stderr
    assert "model's answer" not in done.stderr and "Traceback" not in done.stderr
    assert not (home / "data").exists() and llm_server.requests == []


def test_a_bad_base_url_from_the_environment_is_refused_before_chromium_starts(
    home: Path, llm_server: FakeLLMServer
) -> None:
    done = run(cli("Press the button", "--events"), cli_env(home, llm_server, OPENAI_BASE_URL="api.example.com"))

    assert done.returncode == 2
    error = event_lines(done.stderr)[-1]
    assert error["event"] == "error"
    assert error["message"].startswith("The base URL 'api.example.com' is not a web address")
    assert "OPENAI_BASE_URL" in error["message"]
    assert not (home / "data" / "browser-profile").exists() and llm_server.requests == []


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("soon", None),
        ("-5", 0.0),
        ("nan", None),
        ("inf", None),
        ("1e400", None),
        ("7", 7.0),
        ("Wed, 21 Oct 99999 07:28:00 GMT", None),
        ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0),
    ],
)
def test_retry_after_that_means_nothing_is_ignored(header: str, seconds: float | None) -> None:
    assert retry_after_seconds({"retry-after": header}) == seconds


def test_retry_after_ms_that_means_nothing_falls_back_to_retry_after() -> None:
    assert retry_after_seconds({"retry-after-ms": "later", "retry-after": "2"}) == 2.0


@pytest.mark.parametrize("header", ["soon", "99999999999"])
def test_a_garbage_or_huge_retry_after_is_retried_with_a_capped_wait(llm_server: FakeLLMServer, header: str) -> None:
    settings = LLMSettings(
        base_url=llm_server.base_url, api_key=SecretStr("sk-x"), retry_base_delay=0.05, retry_max_delay=0.3
    )
    client = OpenAICompatibleClient(settings)
    llm_server.add(error_reply(429, "slow down", headers={"Retry-After": header}), done_reply("Fine."))

    async def go() -> Any:
        try:
            return await Agent(client, FakePage()).execute("Do it")
        finally:
            await client.close()

    # The retry waits the capped 0.3 s, not the header's years (nor an error for a header it cannot read).
    result = asyncio.run(finishes(go(), 20, "the retry"))

    assert result.status == AgentStatus.COMPLETED and result.data == "Fine."
    assert len(llm_server.requests) == 2


def test_the_cli_prints_a_result_even_where_stdout_cannot_show_it(
    home: Path, llm_server: FakeLLMServer, odd_page: str
) -> None:
    llm_server.add(done_reply("Gefunden: 中文 😀"))
    env = cli_env(home, llm_server, PYTHONIOENCODING="ascii")

    done = subprocess.run(cli("Read the note", "--url", odd_page), env=env, cwd=ROOT, capture_output=True, timeout=45)

    assert done.returncode == 0, done.stderr
    assert done.stdout.decode("ascii").strip() == "Gefunden: ?? ?"
