"""Streamable HTTP on 127.0.0.1 only, behind a token: in the URL (``?token=…``) or as ``Authorization: Bearer …``.
A request without it, or with another one, is refused (401) before the SDK sees it."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import socket
import sys
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs

import uvicorn

HOST = "127.0.0.1"
PATH = "/mcp"
# Seconds the requests still open when the server stops are given to end (a client's stream is cut after that).
GRACE = 5

Scope = dict[str, Any]
Receive = Any
Send = Any


class TokenGate:
    """ASGI middleware: every request needs the token; only the server's own lifespan events pass without it."""

    def __init__(self, app: Any, token: str) -> None:
        self._app = app
        self._token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and not self._allowed(scope):
            await send({"type": "websocket.close", "code": 1008})  # policy violation
            return
        if scope["type"] == "http" and not self._allowed(scope):
            body = json.dumps(
                {
                    "error": "A token is needed: the URL page-agent-desktop mcp printed, or its "
                    "Authorization: Bearer header."
                }
            ).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        await self._app(scope, receive, send)

    def _allowed(self, scope: Scope) -> bool:
        given: list[bytes] = []
        for name, value in scope.get("headers", []):
            if name.lower() == b"authorization" and value[:7].lower() == b"bearer ":
                given.append(value[7:].strip())
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        given.extend(value.encode() for value in query.get("token", []))
        return any(hmac.compare_digest(value, self._token) for value in given)


def endpoint(port: int, token: str) -> str:
    return f"http://{HOST}:{port}{PATH}?token={token}"


def bind(port: int) -> socket.socket:
    """The listening socket on 127.0.0.1:``port``; OSError when the port is taken."""
    listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listening.bind((HOST, port))
        listening.listen()
    except OSError:
        listening.close()
        raise
    return listening


async def serve_http(starlette_app: Any, listening: socket.socket, token: str, closing: asyncio.Event) -> None:
    """Serve on the bound socket until ``closing`` is set. Its URL with the token is printed on stderr first: the
    port is already listening, so a client may connect as soon as it reads it."""
    port = int(listening.getsockname()[1])
    config = uvicorn.Config(TokenGate(starlette_app, token), log_level="warning", timeout_graceful_shutdown=GRACE)
    server = _Server(config)
    print(f"page-agent-desktop: MCP over HTTP at {endpoint(port, token)}", file=sys.stderr, flush=True)
    closer = asyncio.ensure_future(_close_when(closing, server))
    try:
        with listening:
            await server.serve(sockets=[listening])
    finally:
        closer.cancel()


class _Server(uvicorn.Server):
    """uvicorn without its own signal handlers: the command's stop the tasks first (each saved in History), then the
    server. uvicorn's would end the server first and, once it is down, raise the signal again: the process died of
    it (exit 143 on SIGTERM) before its tasks were stopped and saved."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def _close_when(closing: asyncio.Event, server: uvicorn.Server) -> None:
    await closing.wait()
    server.should_exit = True
