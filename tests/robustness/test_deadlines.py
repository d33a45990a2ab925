"""Every wait has a deadline: a page that never answers, a model that never answers, --max-duration as a hard limit
for the whole run (its final report included), and numbers that cannot be limits, refused before Chromium starts.

Real headless Chromium on hostile local pages, the real HTTP fake model, subprocess CLI runs. The deadlines are
made short through the agent's and the client's settings so that each test runs in seconds."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from app.browser.controller import PlaywrightPageController
from app.browser.session import BrowserSession, LaunchOptions
from app.core.abort import AbortSignal
from app.core.agent import Agent
from app.core.config import AgentConfig
from app.core.messages import MessageId, say
from app.core.report import REPORT_SECTIONS
from app.core.types import AgentStatus, ErrorEvent, ErrorKind, ObservationEvent
from app.llm.client import OpenAICompatibleClient
from app.llm.settings import LLMSettings
from app.settings.model import Settings
from tests.cli.test_cli import cli, cli_env, run_cli
from tests.fakes.html_site import html_site
from tests.fakes.llm_server import FakeLLMServer, FakeResponse, done_reply, tool_reply
from tests.fakes.memory_keyring import memory_keyring  # noqa: F401  (fixture)
from tests.fakes.page import FakePage
from tests.waiting import finishes, until

NEVER = 3600.0  # an answer held this long is one that never comes (the fake server lets go when it stops)

# The page finishes loading, then its script never lets the page answer again.
STUCK_PAGE = b"""<!doctype html><title>Stuck</title><p>Loading your dashboard</p>
<script>addEventListener("load", () => setTimeout(() => { for (;;) {} }, 50))</script>"""
PLAIN_PAGE = b"<!doctype html><title>Plain</title><a href='/never'>Reports</a>"


@pytest.fixture
def hostile_site() -> Iterator[str]:
    """/stuck loops forever once loaded, /never is a server that accepts and never answers, anything else is a plain
    page."""
    release = threading.Event()

    def respond(path: str) -> bytes | None:
        if path == "/never":
            release.wait(NEVER)
            return None
        return STUCK_PAGE if path == "/stuck" else PLAIN_PAGE

    with html_site(respond) as origin:
        yield origin
        release.set()


async def stuck(controller: PlaywrightPageController) -> None:
    """Until the page's script has begun its endless loop: the page answers nothing."""
    page = controller.session.active_page

    async def unresponsive() -> bool:
        try:
            await asyncio.wait_for(page.evaluate("1"), 0.2)
        except TimeoutError:
            return True
        return False

    await until(unresponsive, message="the page's script to start its endless loop")


def settings_for(server: FakeLLMServer, **changes: Any) -> LLMSettings:
    return LLMSettings(
        base_url=server.base_url, api_key=SecretStr("sk-test"), model="fake-model", retry_base_delay=0.01, **changes
    )


@pytest.fixture
async def controller(tmp_path: Path) -> AsyncIterator[PlaywrightPageController]:
    session = await BrowserSession.launch(
        LaunchOptions(profile_dir=tmp_path / "profile", downloads_dir=tmp_path / "downloads", headless=True)
    )
    try:
        yield PlaywrightPageController(session, navigation_timeout=2.0)
    finally:
        await session.close()


@pytest.fixture
async def clients() -> AsyncIterator[list[OpenAICompatibleClient]]:
    made: list[OpenAICompatibleClient] = []
    yield made
    for client in made:
        await client.close()


def client_for(clients: list[OpenAICompatibleClient], settings: LLMSettings) -> OpenAICompatibleClient:
    client = OpenAICompatibleClient(settings)
    clients.append(client)
    return client


def user_text(body: dict[str, Any]) -> str:
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


def not_responding(seconds: float) -> str:
    return say(MessageId.PAGE_NOT_RESPONDING, seconds=f"{seconds:g}").text


# --- page observation ------------------------------------------------------------------------------------------


async def test_a_page_stuck_in_a_script_is_told_to_the_model_after_the_observation_deadline(
    llm_server: FakeLLMServer,
    controller: PlaywrightPageController,
    hostile_site: str,
    clients: list[OpenAICompatibleClient],
) -> None:
    unaborted = AbortSignal()
    await controller.go_to_url(f"{hostile_site}/stuck", unaborted)
    await stuck(controller)
    llm_server.add(done_reply("The dashboard never finished loading.", success=False))
    agent = Agent(client_for(clients, settings_for(llm_server)), controller, AgentConfig(observe_timeout=1.5))

    # One 1.5 s look and one model call, not the 240 s step deadline.
    result = await finishes(agent.execute("Read the dashboard"), 30, "the run")

    assert result.status == AgentStatus.COMPLETED and result.data == "The dashboard never finished loading."
    # The model was asked, and told in plain words, once.
    prompt = user_text(llm_server.requests[0])
    assert prompt.count(not_responding(1.5)) == 1
    errors = [e.message for e in result.history if isinstance(e, ErrorEvent)]
    assert errors == [not_responding(1.5)]


async def test_a_navigation_to_a_server_that_never_answers_gives_the_page_back_to_the_model(
    llm_server: FakeLLMServer,
    controller: PlaywrightPageController,
    hostile_site: str,
    clients: list[OpenAICompatibleClient],
) -> None:
    unaborted = AbortSignal()
    await controller.go_to_url(f"{hostile_site}/plain", unaborted)
    llm_server.add(
        tool_reply({"go_to_url": {"url": f"{hostile_site}/never"}}),
        done_reply("The reports page does not answer.", success=False),
    )
    agent = Agent(client_for(clients, settings_for(llm_server)), controller, AgentConfig(observe_timeout=1.5))

    # The navigation's and the look's own deadlines, not the 240 s step deadline.
    result = await finishes(agent.execute("Open the reports"), 30, "the run")

    assert result.status == AgentStatus.COMPLETED and len(llm_server.requests) == 2
    # The navigation ran out of its own time; the page it left behind did not answer the look that followed.
    assert "still loading after 2 s" in result.history[0].action.output  # type: ignore[union-attr]
    assert user_text(llm_server.requests[1]).count(not_responding(1.5)) == 1


async def test_a_page_that_keeps_not_responding_ends_the_run_as_failures_with_a_report(
    llm_server: FakeLLMServer,
    controller: PlaywrightPageController,
    hostile_site: str,
    clients: list[OpenAICompatibleClient],
) -> None:
    unaborted = AbortSignal()
    await controller.go_to_url(f"{hostile_site}/stuck", unaborted)
    await stuck(controller)

    def answer(body: dict[str, Any]) -> FakeResponse:
        if "progress report" in user_text(body):
            return done_reply(
                "## Task\nRead it\n## Completed work\n- none\n## Key findings\n- stuck\n"
                "## Attempted but inconclusive\n- waiting\n## Not started\n- all\n"
                "## Suggested next steps\n- reload",
                success=False,
            )
        return tool_reply({"wait": {"seconds": 0.1}})

    llm_server.fallback = answer
    agent = Agent(client_for(clients, settings_for(llm_server)), controller, AgentConfig(observe_timeout=1.0))

    # Four looks of 1 s and the report, not a run that goes on failing to its step limit.
    result = await finishes(agent.execute("Read the dashboard"), 40, "the run")

    # The first time may be a slow page; the three that follow in a row are the run getting nowhere.
    assert result.status == AgentStatus.ERROR and result.steps == 4
    errors = [e.message for e in result.history if isinstance(e, ErrorEvent)]
    assert errors == [not_responding(1)] * 4 + [say(MessageId.TOO_MANY_FAILURES, count=3).text]
    assert result.data.startswith("## Task")


async def kill_renderers(session: BrowserSession, after: float) -> None:
    """Crash every tab of ``session`` the way an out-of-memory kill does: its renderer processes die (a page busy
    in a script does not even handle CDP's Page.crash)."""
    await asyncio.sleep(after)
    cdp = await session.context.browser.new_browser_cdp_session()  # type: ignore[union-attr]
    for process in (await cdp.send("SystemInfo.getProcessInfo"))["processInfo"]:
        if process["type"] == "renderer":
            os.kill(process["id"], signal.SIGKILL)


async def test_a_tab_that_crashes_while_it_is_read_is_told_once_and_costs_no_failure(
    llm_server: FakeLLMServer,
    controller: PlaywrightPageController,
    hostile_site: str,
    clients: list[OpenAICompatibleClient],
) -> None:
    await controller.go_to_url(f"{hostile_site}/stuck", AbortSignal())
    await stuck(controller)
    llm_server.add(tool_reply({"go_to_url": {"url": f"{hostile_site}/plain"}}), done_reply("Reopened it."))
    # One failure would end the run: the crash must cost none.
    agent = Agent(
        client_for(clients, settings_for(llm_server)), controller, AgentConfig(observe_timeout=10.0, max_failures=1)
    )

    crash = asyncio.ensure_future(kill_renderers(controller.session, after=1.0))
    result = await asyncio.wait_for(agent.execute("Read the dashboard"), 30)
    await crash

    assert result.status == AgentStatus.COMPLETED and result.data == "Reopened it."
    assert [e for e in result.history if isinstance(e, ErrorEvent)] == []
    told = [e.content for e in result.history if isinstance(e, ObservationEvent) and "crashed" in e.content]
    assert told == ["Tab 1 crashed (Chromium stopped rendering it)."]
    assert "Tab 1 crashed: Chromium stopped rendering this page" in user_text(llm_server.requests[0])


# --- the model request -----------------------------------------------------------------------------------------


async def test_a_model_that_never_answers_is_given_up_on_after_one_retry(
    llm_server: FakeLLMServer, clients: list[OpenAICompatibleClient]
) -> None:
    llm_server.fallback = lambda _body: done_reply(delay=NEVER)
    client = client_for(clients, settings_for(llm_server, request_timeout=1.0))
    agent = Agent(client, FakePage())

    # Two 1 s tries and a short backoff, well within 30 s; not 3 × 90 s then 3 step deadlines.
    result = await asyncio.wait_for(agent.execute("Fill in the form"), 30)

    assert len(llm_server.requests) == 2
    assert result.status == AgentStatus.ERROR
    assert result.data == (
        f"The model endpoint {llm_server.base_url} did not answer within 1 s. Try again later, "
        "or raise the model answer timeout in Settings."
    )


async def test_an_answer_trickling_in_slower_than_the_timeout_is_cut_off_too(
    llm_server: FakeLLMServer, clients: list[OpenAICompatibleClient]
) -> None:
    # A slow answer is within the SDK's per-read timeout; ours is for the whole answer. The second answer comes at
    # once, and must come within the timeout on a loaded machine too: 5 s, not 1.
    llm_server.add(done_reply(delay=NEVER), done_reply("Second try."))
    client = client_for(clients, settings_for(llm_server, request_timeout=5.0))
    result = await asyncio.wait_for(Agent(client, FakePage()).execute("Fill in the form"), 30)
    assert result.status == AgentStatus.COMPLETED and result.data == "Second try."
    assert len(llm_server.requests) == 2


def test_the_saved_model_answer_timeout_reaches_the_client() -> None:
    assert Settings(request_timeout=42).llm_settings("sk").request_timeout == 42
    assert Settings().request_timeout == 90


# --- the time budget, the final report included ----------------------------------------------------------------


async def test_the_final_report_gets_only_what_is_left_of_the_time_budget(
    llm_server: FakeLLMServer, clients: list[OpenAICompatibleClient]
) -> None:
    # One unusable answer ends the run at once (max_failures=1); the report's call then never answers. The budget
    # leaves the report most of itself even on a machine so loaded that the first answer takes seconds to read.
    llm_server.add(FakeResponse(body={"choices": []}))
    llm_server.fallback = lambda _body: done_reply(delay=NEVER)
    agent = Agent(
        client_for(clients, settings_for(llm_server)), FakePage(), AgentConfig(max_failures=1, max_duration=8.0)
    )

    # What was left of the 8 s, not the report's own 60 s (nor the answer that never comes).
    result = await finishes(agent.execute("Fill in the form"), 40, "the run")

    assert "progress report" in user_text(llm_server.requests[-1])  # it was asked for, and given up on
    assert result.status == AgentStatus.ERROR
    assert all(f"## {section}" in result.data for section in REPORT_SECTIONS)  # made from the history


async def test_no_report_call_is_made_once_the_time_budget_is_spent(
    llm_server: FakeLLMServer, clients: list[OpenAICompatibleClient]
) -> None:
    llm_server.fallback = lambda _body: tool_reply({"wait": {"seconds": 0.2}})
    agent = Agent(client_for(clients, settings_for(llm_server)), FakePage(), AgentConfig(max_duration=1.0))

    # Without the budget the model's waits would go on to the step limit.
    result = await finishes(agent.execute("Fill in the form"), 30, "the run")

    assert not any("progress report" in user_text(body) for body in llm_server.requests)
    budget = say(MessageId.TIME_BUDGET_EXCEEDED, seconds="1")
    assert result.history[-1] == ErrorEvent(message=budget.text, kind=ErrorKind.AGENT, said=budget)
    assert result.data.startswith("## Task")


# --- the command line ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "value", "complaint"),
    [
        ("--max-duration", "nan", "--max-duration: must be a finite number, not nan"),
        ("--max-duration", "inf", "--max-duration: must be a finite number, not inf"),
        ("--max-duration", "-1", "--max-duration: must be more than 0, not -1"),
        ("--max-duration", "1e12", "--max-duration: must be at most 86400, not 1e12"),
        ("--max-steps", "99999", "--max-steps: must be at most 500, not 99999"),
    ],
)
def test_numbers_that_cannot_be_limits_are_refused_before_chromium_starts(
    tmp_path: Path, llm_server: FakeLLMServer, option: str, value: str, complaint: str
) -> None:
    home = tmp_path / "home"
    done = run_cli(cli("Do it", option, value), cli_env(home, llm_server), timeout=30)
    assert done.returncode == 2
    assert complaint in done.stderr
    assert "Traceback" not in done.stderr and "pydantic" not in done.stderr.lower()
    assert not (home / "data").exists() and llm_server.requests == []


def test_max_duration_is_a_hard_limit_for_the_whole_cli_run(
    tmp_path: Path, llm_server: FakeLLMServer, hostile_site: str
) -> None:
    # The model takes its time over every answer and never answers the report call at all.
    def answer(body: dict[str, Any]) -> FakeResponse:
        if "progress report" in user_text(body):
            return done_reply(delay=NEVER)
        return tool_reply({"wait": {"seconds": 0.5}}, delay=0.5)

    llm_server.fallback = answer
    budget = 4.0
    started = time.monotonic()
    done = run_cli(
        cli("Read the page", "--url", f"{hostile_site}/plain", "--json", "--max-duration", f"{budget:g}"),
        cli_env(tmp_path / "home", llm_server),
        timeout=60,
    )
    elapsed = time.monotonic() - started

    assert done.returncode == 2, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "error" and result["data"].startswith("## Task")
    assert say(MessageId.TIME_BUDGET_EXCEEDED, seconds="4").text in result["data"]
    # The report's call never answers: without the hard limit the run would reach the test's 60 s timeout. How long
    # it takes beyond the budget (Python's and Chromium's start and close, about 4 s on a busy 2-core machine) is a
    # figure to read, not a limit a loaded machine could break.
    print(f"\n--max-duration {budget:g}: the CLI run took {elapsed:.1f} s")


# --- the setting -----------------------------------------------------------------------------------------------


async def test_the_settings_dialog_edits_the_model_answer_timeout(qapp: Any, memory_keyring: Any) -> None:
    from app.ui.setting_editors import DecimalEditor
    from app.ui.settings_dialog import SettingsDialog

    dialog = SettingsDialog(Settings(request_timeout=42))
    try:
        spin = dialog.model_page.editors.editor("request_timeout", DecimalEditor).spin
        assert spin.value() == 42 and spin.suffix() == " s"
        assert spin.accessibleName() == "Model answer timeout"
        spin.setValue(120)
        assert dialog.model_page.values()["request_timeout"] == 120
    finally:
        dialog.deleteLater()
