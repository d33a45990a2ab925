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


INITIALIZE = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}


class RawStdio:
    """The server over stdio as a client that may end it with a signal and leave the pipe open (the SDK's client
    hides the process): plain JSON-RPC lines."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self._ids = 1

    async def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The tool's structured result."""
        self._ids += 1
        await self._send(
            {
                "jsonrpc": "2.0",
                "id": self._ids,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments},
            }
        )
        answer = await self._answer()
        assert not answer["result"].get("isError"), answer
        return dict(answer["result"]["structuredContent"])

    async def _send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        await self.process.stdin.drain()

    async def _answer(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        return dict(json.loads(await asyncio.wait_for(self.process.stdout.readline(), CALL_TIMEOUT)))


@asynccontextmanager
async def raw_stdio(home: Path, llm_server: FakeLLMServer) -> AsyncIterator[RawStdio]:
    """`mcp` on stdio, initialized; killed after if the test has not ended it."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *server_args(),
        env=cli_env(home, llm_server),
        cwd=ROOT,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    server = RawStdio(process)
    try:
        await server._send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE})
        await server._answer()
        await server._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        yield server
    finally:
        if process.returncode is None:  # the test failed: the server goes anyway
            process.kill()
            await process.wait()


def data(result: CallToolResult) -> dict[str, Any]:
    """A tool's structured result; a refused call fails the test with the server's words."""
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return dict(result.structured_content)


def text_of(result: CallToolResult) -> str:
    return json.dumps(result.model_dump(mode="json"))


@asynccontextmanager
async def http_process(
    home: Path, llm_server: FakeLLMServer, token: str, *extra: str
) -> AsyncIterator[tuple[asyncio.subprocess.Process, str]]:
    """`mcp --http PORT` in a subprocess, and the URL it printed (with its token) once its port listens. Killed
    after, if the test has not ended it."""
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
        yield process, line.split("MCP over HTTP at ", 1)[1].strip()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


@asynccontextmanager
async def http_server(home: Path, llm_server: FakeLLMServer, token: str, *extra: str) -> AsyncIterator[str]:
    """`mcp --http PORT` in a subprocess; yields the URL it printed (with its token). Stopped with SIGTERM after,
    which it ends with exit 0."""
    async with http_process(home, llm_server, token, *extra) as (process, url):
        yield url
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), CALL_TIMEOUT) == 0
