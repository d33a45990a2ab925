"""`page-agent-desktop mcp` over stdio, as Claude Desktop runs it: the SDK's client, a real headless Chromium, the fake
model server and a local page. No panel is open in these tests, so every task runs headless."""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path
from typing import Any

import pytest

from app.core.types import AgentStatus
from app.history.store import RunStore
from tests.browser.helpers import index_of
from tests.cli.test_cli import (  # noqa: F401  (fixtures)
    PageServer,
    browser_state,
    home,
    page_server,
    press_then_done,
)
from tests.cli.test_hand_off import REASON, SAYS, hand_off_then_done
from tests.fakes.html_site import html_site
from tests.fakes.llm_server import FakeLLMServer, FakeResponse, agent_output, completion, done_reply
from tests.mcp.helpers import data, raw_stdio, stdio_client, text_of

pytestmark = pytest.mark.slow

TOOLS = {"run_task", "get_task", "cancel_task", "run_routine", "get_routine", "list_runs", "get_run"}


async def test_the_tools_are_listed_with_tight_schemas(home: Path, llm_server: FakeLLMServer) -> None:
    async with stdio_client(home, llm_server) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}

    assert set(tools) == TOOLS
    run_task = tools["run_task"]
    assert set(run_task.input_schema["properties"]) == {"task", "start_url", "wait_s"}
    assert run_task.input_schema["required"] == ["task"]
    assert run_task.input_schema["properties"]["wait_s"]["maximum"] <= 240  # below what clients cut off
    for tool in tools.values():
        assert tool.input_schema["additionalProperties"] is False
        assert tool.description
    readers = {name for name, tool in tools.items() if tool.annotations and tool.annotations.read_only_hint}
    assert readers == {"get_task", "get_routine", "list_runs", "get_run"}


async def test_a_task_on_a_local_page_ends_with_its_outcome_progress_and_its_run_in_history(
    home: Path, llm_server: FakeLLMServer, page_server: PageServer
) -> None:
    llm_server.fallback = press_then_done()
    progress: list[tuple[float, str | None]] = []

    async def on_progress(value: float, _total: float | None, message: str | None) -> None:
        progress.append((value, message))

    async with stdio_client(home, llm_server) as client:
        result = data(
            await client.call_tool(
                "run_task",
                {"task": "Press the button", "start_url": page_server.url, "wait_s": 60},
                progress_callback=on_progress,
            )
        )
        runs = data(await client.call_tool("list_runs", {"limit": 5}))
        run = data(await client.call_tool("get_run", {"run_id": result["outcome"]["run_id"]}))

    assert result["status"] == "completed" and result["where"] == "headless"
    assert result["outcome"]["success"] is True
    assert result["outcome"]["final_words"] == "Pressed it."
    assert result["outcome"]["steps"] == 2
    assert "/pressed" in page_server.hits
    # Progress at every step, in order, in plain words.
    assert [value for value, _ in progress] == sorted(value for value, _ in progress)
    assert any(message and message.startswith("Step 1:") for _, message in progress), progress
    assert runs["runs"][0]["run_id"] == result["outcome"]["run_id"]
    assert run["tasks"][0]["task"] == "Press the button"


async def test_a_long_task_returns_a_task_id_to_poll(
    home: Path, llm_server: FakeLLMServer, page_server: PageServer
) -> None:
    llm_server.add(done_reply("Read it.", delay=3.0))

    async with stdio_client(home, llm_server) as client:
        first = data(
            await client.call_tool("run_task", {"task": "Read the page", "start_url": page_server.url, "wait_s": 0.5})
        )
        assert first["status"] in ("queued", "running") and first["outcome"] is None
        now = data(await client.call_tool("get_task", {"task_id": first["task_id"]}))
        polled = data(await client.call_tool("get_task", {"task_id": first["task_id"], "wait_s": 30}))

    assert now["status"] == "running" and now["outcome"] is None  # without wait_s: at once
    assert polled["status"] == "completed", polled
    assert polled["outcome"]["final_words"] == "Read it."


async def test_cancel_stops_a_running_task(home: Path, llm_server: FakeLLMServer, page_server: PageServer) -> None:
    llm_server.add(done_reply("Too late.", delay=60.0))

    async with stdio_client(home, llm_server) as client:
        started = data(
            await client.call_tool("run_task", {"task": "Read slowly", "start_url": page_server.url, "wait_s": 0})
        )
        await llm_server.received(1, timeout=30)  # the model is thinking: the run is under way
        cancelled = data(await client.call_tool("cancel_task", {"task_id": started["task_id"]}))
        again = data(await client.call_tool("get_task", {"task_id": started["task_id"]}))
        unknown = await client.call_tool("get_task", {"task_id": "no-such-task"})

    assert cancelled["status"] == "stopped"
    assert cancelled["outcome"]["success"] is False
    assert again["status"] == "stopped"
    assert unknown.is_error and "There is no task 'no-such-task'" in text_of(unknown)


async def test_a_hand_off_without_a_panel_ends_needs_person_with_the_reason(
    home: Path, llm_server: FakeLLMServer, page_server: PageServer
) -> None:
    hand_off_then_done(llm_server)

    async with stdio_client(home, llm_server) as client:
        result = data(
            await client.call_tool("run_task", {"task": "Export the customers", "start_url": page_server.url})
        )

    assert result["status"] == "needs_person"
    assert result["outcome"]["final_words"] == REASON
    assert result["reason"] == (
        f"A person is needed, and no Page Agent Desktop panel is open to hand the browser to. {SAYS} Open the panel "
        "and give the task there."
    )
    assert len(llm_server.requests) == 1


async def test_a_client_cannot_widen_the_allowed_sites(
    home: Path, llm_server: FakeLLMServer, page_server: PageServer
) -> None:
    llm_server.fallback = lambda _body: done_reply("Read it.")

    async with stdio_client(home, llm_server, "--allowed-domains", "example.com") as client:
        outside = data(await client.call_tool("run_task", {"task": "Read the page", "start_url": page_server.url}))
        widened = await client.call_tool(
            "run_task", {"task": "Read the page", "start_url": page_server.url, "allowed_domains": "127.0.0.1"}
        )

    assert outside["status"] == "error"
    assert "cannot be opened" in outside["outcome"]["final_words"]
    assert page_server.hits == []
    assert widened.is_error and "allowed_domains" in text_of(widened)
    assert llm_server.requests == []


SECRET = "hunter2-very-secret"
FORM = b"""<!doctype html><title>Sign in</title>
<input name=password aria-label=Password oninput="document.getElementById('echo').textContent = this.value">
<p id=echo></p>"""


async def test_a_client_cannot_read_a_secret(home: Path, llm_server: FakeLLMServer, tmp_path: Path) -> None:
    secrets_file = tmp_path / "secrets.json"
    secrets_file.write_text(json.dumps({"pw": SECRET}))
    secrets_file.chmod(0o600)

    answered: list[str] = []

    def respond(body: dict[str, Any]) -> FakeResponse:
        page = browser_state(body)
        answered.append(page)
        if len(answered) > 1:
            # A model that repeats what the page showed, and the value itself: both reach the client masked.
            words = f"The page shows: {page[-200:]} and the password is {SECRET}"
            return FakeResponse(body=completion(arguments=agent_output({"done": {"text": words, "success": True}})))
        typing = {"input_text": {"index": index_of(page, "Password"), "text": "<secret>pw</secret>"}}
        return FakeResponse(body=completion(arguments=agent_output(typing)))

    llm_server.fallback = respond
    with html_site(lambda path: FORM if path == "/" else b"") as url:
        async with stdio_client(home, llm_server, "--secrets-file", str(secrets_file)) as client:
            result = await client.call_tool("run_task", {"task": "Sign in with <secret>pw</secret>", "start_url": url})
            outcome = data(result)
            run = await client.call_tool("get_run", {"run_id": outcome["outcome"]["run_id"]})
            runs = await client.call_tool("list_runs", {})

    assert outcome["status"] == "completed"
    for answer in (result, run, runs):
        assert SECRET not in text_of(answer)
    assert SECRET not in json.dumps([r for r in llm_server.requests])


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
async def test_a_signal_stops_the_running_task_saves_it_and_closes_chromium(
    home: Path, llm_server: FakeLLMServer, page_server: PageServer, signum: signal.Signals
) -> None:
    """As a client that ends the server with a signal and leaves the pipe open (the SDK's client is not used: the
    process is needed). Plain JSON-RPC lines on stdio."""
    llm_server.add(done_reply("Too late.", delay=60.0))
    async with raw_stdio(home, llm_server) as server:
        started = await server.call("run_task", {"task": "Read slowly", "start_url": page_server.url, "wait_s": 0})
        assert started["status"] in ("queued", "running")
        await llm_server.received(1, timeout=60)  # the task is under way, Chromium open

        server.process.send_signal(signum)

        assert await asyncio.wait_for(server.process.wait(), 30) == 0
    runs = await asyncio.to_thread(RunStore(home / "data" / "runs").summaries)
    assert [(run.title, run.status) for run in runs] == [("Read slowly", AgentStatus.STOPPED)]
    # The home fixture checks that no Chromium is left with the profile.
