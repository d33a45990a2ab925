"""A browser endpoint's token (in its query, or as user:password) is a key to someone's browser: it is never shown.
`run` in a subprocess with --browser-endpoint (a routine) or --cdp-url (one task) naming a port nothing listens on:
the error says which browser could not be reached, by its address without the token, on stderr, in --events, in the
log and in every file the run leaves (a library's error that quotes the whole address included)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from app.browser.endpoint import hide_endpoint_secrets, shown_endpoint
from tests.cli.routine_helpers import rows_file, run
from tests.cli.test_cli import cli, cli_env, home, unused_port  # noqa: F401  (home: fixture)
from tests.fakes.llm_server import FakeLLMServer
from tests.security.test_secrets import log_dir  # noqa: F401  (fixture: the app's own logging set-up)

TOKEN = "tk-9fQ2xLw7Rb3mZp8v"
PASSWORD = "pw-Hs4nQ8vXk2Lr"


def left_behind(home: Path, folder: Path) -> str:
    """Every file the run wrote: the log, the routine's state and results, History."""
    files = [path for root in (home, folder) for path in root.rglob("*") if path.is_file()]
    return "\n".join(path.read_bytes().decode("utf-8", "replace") for path in files)


@pytest.mark.parametrize("events", [False, True], ids=["plain", "events"])
@pytest.mark.parametrize(
    "endpoint",
    ["ws://127.0.0.1:{port}/?token={token}", "http://admin:{password}@127.0.0.1:{port}/?token={token}"],
    ids=["token", "user and password"],
)
def test_a_routines_endpoint_that_cannot_be_reached_is_named_without_its_token(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer, endpoint: str, events: bool
) -> None:
    port = unused_port()
    address = endpoint.format(port=port, token=TOKEN, password=PASSWORD)
    rows = rows_file(tmp_path)
    args = cli("Add {name}", "--rows", str(rows), "--browser-endpoint", address, *(["--events"] if events else []))
    finished = run(args, cli_env(home, llm_server))

    assert finished.returncode != 0
    shown = finished.stderr + finished.stdout
    assert f"127.0.0.1:{port}" in shown, shown  # it says which browser
    for secret in (TOKEN, PASSWORD):
        assert secret not in shown and secret not in left_behind(home, tmp_path)


def test_a_cdp_url_that_cannot_be_reached_is_named_without_its_token(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    port = unused_port()
    finished = run(
        cli("Look at the page", "--cdp-url", f"http://admin:{PASSWORD}@127.0.0.1:{port}/?token={TOKEN}", "--json"),
        cli_env(home, llm_server),
    )

    assert finished.returncode != 0
    shown = finished.stderr + finished.stdout
    assert f"127.0.0.1:{port}" in shown, shown
    for secret in (TOKEN, PASSWORD):
        assert secret not in shown and secret not in left_behind(home, tmp_path)


def test_a_browser_endpoint_that_is_not_one_is_refused_without_echoing_its_token(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    rows = rows_file(tmp_path)
    finished = run(
        cli("Add {name}", "--rows", str(rows), "--browser-endpoint", f"ftp://127.0.0.1:9/?token={TOKEN}"),
        cli_env(home, llm_server),
        timeout=30,
    )

    assert finished.returncode == 2
    assert "is not a browser endpoint" in finished.stderr and TOKEN not in finished.stderr
    assert json.dumps(finished.stdout).count(TOKEN) == 0


@pytest.mark.parametrize(
    ("endpoint", "shown"),
    [
        ("wss://chrome.example.io?token=tk-9fQ2xLw7Rb3mZp8v&stealth=true", "wss://chrome.example.io"),
        ("wss://admin:pw-Hs4nQ8vXk2Lr@grid.example:4444/session/x/se/cdp", "wss://grid.example:4444/session/x/se/cdp"),
        ("http://127.0.0.1:9222/#tk-9fQ2xLw7Rb3mZp8v", "http://127.0.0.1:9222/"),
        ("http://127.0.0.1:9222", "http://127.0.0.1:9222"),
    ],
)
def test_an_endpoint_is_shown_without_its_token_and_a_library_quoting_it_is_masked_in_the_log(
    endpoint: str, shown: str, log_dir: Path
) -> None:
    assert shown_endpoint(endpoint) == shown
    hide_endpoint_secrets(endpoint)
    logging.getLogger("app.test").warning("WebSocket error: %s 401 Unauthorized (stealth=true)", endpoint)
    logged = (log_dir / "page-agent.log").read_text(encoding="utf-8")
    assert TOKEN not in logged and PASSWORD not in logged
    assert "401 Unauthorized (stealth=true)" in logged  # ordinary words in the address are not masked everywhere
