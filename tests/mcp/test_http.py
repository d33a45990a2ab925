"""`page-agent-desktop mcp --http PORT`: streamable HTTP on 127.0.0.1, refused without its token."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from urllib.parse import urlsplit

import httpx2
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from app.core.types import AgentStatus
from app.history.store import RunStore
from tests.cli.test_cli import (  # noqa: F401  (fixtures)
    PageServer,
    home,
    page_server,
    press_then_done,
)
from tests.fakes.llm_server import FakeLLMServer, done_reply
from tests.mcp.helpers import CALL_TIMEOUT, data, http_process, http_server

pytestmark = pytest.mark.slow

TOKEN = "a-test-token-of-some-length"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


async def test_a_task_runs_over_http_with_the_token(
    home: Path, llm_server: FakeLLMServer, page_server: PageServer
) -> None:
    llm_server.fallback = press_then_done()

    async with http_server(home, llm_server, TOKEN) as url:
        assert urlsplit(url).hostname == "127.0.0.1" and f"token={TOKEN}" in url
        async with Client(url, read_timeout_seconds=CALL_TIMEOUT) as client:
            tools = [tool.name for tool in (await client.list_tools()).tools]
            result = data(
                await client.call_tool("run_task", {"task": "Press the button", "start_url": page_server.url})
            )

    assert "run_task" in tools
    assert result["status"] == "completed" and result["outcome"]["final_words"] == "Pressed it."


async def test_a_missing_or_wrong_token_is_refused_and_the_header_works(home: Path, llm_server: FakeLLMServer) -> None:
    async with http_server(home, llm_server, TOKEN) as url:
        bare = url.split("?", 1)[0]
        async with httpx2.AsyncClient(timeout=CALL_TIMEOUT) as http:
            missing = await http.post(bare, json=INITIALIZE, headers=HEADERS)
            wrong = await http.post(f"{bare}?token=not-{TOKEN}", json=INITIALIZE, headers=HEADERS)
            wrong_header = await http.post(bare, json=INITIALIZE, headers={**HEADERS, "authorization": "Bearer nope"})
            header = await http.post(bare, json=INITIALIZE, headers={**HEADERS, "authorization": f"Bearer {TOKEN}"})
        with pytest.RaisesGroup(MCPError, flatten_subgroups=True):
            async with Client(f"{bare}?token=wrong", read_timeout_seconds=10) as client:
                await client.list_tools()

    assert missing.status_code == wrong.status_code == wrong_header.status_code == 401
    assert header.status_code == 200
    assert llm_server.requests == []


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
async def test_a_signal_ends_the_server_with_exit_0_and_the_running_task_is_saved_stopped(
    home: Path, llm_server: FakeLLMServer, page_server: PageServer, signum: signal.Signals
) -> None:
    llm_server.add(done_reply("Too late.", delay=60.0))
    async with http_process(home, llm_server, TOKEN) as (process, url):
        async with Client(url, read_timeout_seconds=CALL_TIMEOUT) as client:
            started = data(
                await client.call_tool("run_task", {"task": "Read slowly", "start_url": page_server.url, "wait_s": 0})
            )
        await llm_server.received(1, timeout=CALL_TIMEOUT)  # the task is under way, its Chromium open

        process.send_signal(signum)

        assert await asyncio.wait_for(process.wait(), CALL_TIMEOUT) == 0
    assert started["status"] in ("queued", "running")
    runs = await asyncio.to_thread(RunStore(home / "data" / "runs").summaries)
    assert [(run.title, run.status) for run in runs] == [("Read slowly", AgentStatus.STOPPED)]
    # The home fixture checks that no Chromium is left with the profile.
