"""The ``mcp`` command's arguments: the same model, budget and safety options as ``run`` (the person's, never the
client's), and the transport. Light: parsed before the SDK is imported."""

from __future__ import annotations

from typing import Any

from app.engine_args import add_engine_arguments

# Ports below 1024 need privileges; 0 is refused (the URL printed must be one the person can give a client).
MIN_PORT, MAX_PORT = 1024, 65535


def _port(text: str) -> int:
    import argparse

    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a port number, not {text}") from None
    if not MIN_PORT <= port <= MAX_PORT:
        raise argparse.ArgumentTypeError(f"must be a port from {MIN_PORT} to {MAX_PORT}, not {text}")
    return port


def add_mcp_parser(subparsers: Any) -> None:
    mcp = subparsers.add_parser(
        "mcp",
        help="Serve the agent to MCP clients (Claude Desktop, Cursor, VS Code): tasks and routines, not clicks.",
        description="Serve the agent over the Model Context Protocol, on stdio (default) or on 127.0.0.1 with "
        "--http. When the panel is open, tasks run in it; otherwise in a Chromium of their own.",
    )
    mcp.add_argument(
        "--http",
        type=_port,
        metavar="PORT",
        help="Serve streamable HTTP on 127.0.0.1:PORT instead of stdio; the URL to give a client (with its token) "
        "is printed on stderr.",
    )
    mcp.add_argument(
        "--token-env",
        metavar="VAR",
        help="With --http: the token clients must send, read from this environment variable (default: a new "
        "random token each start).",
    )
    add_engine_arguments(mcp)
