"""Streamable HTTP on 127.0.0.1 only, behind a token: in the URL (``?token=…``) or as ``Authorization: Bearer …``.
A request without it, or with another one, is refused (401) before the SDK sees it."""

from __future__ import annotations

import hmac
import json
import socket
import sys
from typing import Any
from urllib.parse import parse_qs

HOST = "127.0.0.1"
PATH = "/mcp"

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


async def serve_http(starlette_app: Any, listening: socket.socket, token: str) -> None:
    """Serve on the bound socket until stopped (Ctrl+C, SIGTERM). Its URL with the token is printed on stderr first:
    the port is already listening, so a client may connect as soon as it reads it."""
    import uvicorn

    port = int(listening.getsockname()[1])
    server = uvicorn.Server(uvicorn.Config(TokenGate(starlette_app, token), log_level="warning"))
    print(f"page-agent-desktop: MCP over HTTP at {endpoint(port, token)}", file=sys.stderr, flush=True)
    with listening:
        await server.serve(sockets=[listening])
