"""The MCP server as a client sees it: `python -m app mcp` in a subprocess, reached with the SDK's own client over
stdio or streamable HTTP, with the fake model server and a local page."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult

from tests.cli.test_cli import ROOT, cli_env, unused_port
from tests.fakes.llm_server import FakeLLMServer

CALL_TIMEOUT = 60.0


def server_args(*extra: str) -> list[str]:
    return ["-m", "app", "mcp", *extra]


@asynccontextmanager
async def stdio_client(home: Path, llm_server: FakeLLMServer, *extra: str, **env: str) -> AsyncIterator[Client]:
    params = StdioServerParameters(
        command=sys.executable, args=server_args(*extra), env=cli_env(home, llm_server, **env), cwd=ROOT
    )
    async with Client(params, read_timeout_seconds=CALL_TIMEOUT) as client:
        yield client


def data(result: CallToolResult) -> dict[str, Any]:
    """A tool's structured result; a refused call fails the test with the server's words."""
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return dict(result.structured_content)


def text_of(result: CallToolResult) -> str:
    return json.dumps(result.model_dump(mode="json"))


@asynccontextmanager
async def http_server(home: Path, llm_server: FakeLLMServer, token: str, *extra: str) -> AsyncIterator[str]:
    """`mcp --http PORT` in a subprocess; yields the URL it printed (with its token). Stopped with SIGTERM after."""
    port = unused_port()
    env = cli_env(home, llm_server, MCP_TEST_TOKEN=token)
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *server_args("--http", str(port), "--token-env", "MCP_TEST_TOKEN", *extra),
        env=env,
        cwd=ROOT,
        stdin=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stderr is not None
    try:
        line = (await asyncio.wait_for(process.stderr.readline(), CALL_TIMEOUT)).decode()
        assert "MCP over HTTP at " in line, line
        yield line.split("MCP over HTTP at ", 1)[1].strip()
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(process.wait(), CALL_TIMEOUT)
