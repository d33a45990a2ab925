"""browserless (npm @browserless.io/browserless) on loopback, as the README starts it without Docker."""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import signal
import subprocess
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from app.browser.chromium import find_chromium
from tests.fakes.ports import ROOT, unused_port
from tests.waiting import sync_until

BROWSERLESS = ROOT / ".test-tools" / "node_modules" / "@browserless.io" / "browserless"


@contextmanager
def browserless(folder: Path, **settings: str) -> Iterator[str]:
    """browserless (npm @browserless.io/browserless, installed by packaging/setup.sh --test) on loopback, started by
    packaging/browserless.mjs with Debian's Chromium where playwright-core looks for its own; its ws:// address.
    ``settings``: browserless' own (CONCURRENT, QUEUED, TIMEOUT), else packaging/browserless.mjs's."""
    node = shutil.which("node")
    if node is None or not BROWSERLESS.is_dir():
        pytest.skip(
            "browserless is not installed here (node and .test-tools/node_modules/@browserless.io/browserless): "
            "packaging/setup.sh --test installs it"
        )
    tools = BROWSERLESS.parents[2]
    env = {**os.environ, "PLAYWRIGHT_BROWSERS_PATH": str(folder / "browsers"), "DEBUG": "-*"}
    expected = subprocess.run(
        [node, "-e", "console.log(require('playwright-core').chromium.executablePath())"],
        cwd=tools,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    chrome = Path(expected.stdout.strip())
    chrome.parent.mkdir(parents=True)
    chrome.symlink_to(asyncio.run(find_chromium()))
    port, token = unused_port(), secrets.token_hex(8)
    server = subprocess.Popen(
        [node, str(ROOT / "packaging" / "browserless.mjs")],
        cwd=tools,
        env={**env, **settings, "HOST": "127.0.0.1", "PORT": str(port), "TOKEN": token},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        active = f"http://127.0.0.1:{port}/active?token={token}"
        sync_until(lambda: _answers(active), 60, "browserless listening", alive=server, every=0.2)
        yield f"ws://127.0.0.1:{port}?token={token}"
        assert server.poll() is None  # the routine never ends it
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(10)


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status < 300)
    except OSError:
        return False
