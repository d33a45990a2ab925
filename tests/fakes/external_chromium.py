"""A Chromium that another program started, serving CDP on loopback: what `--cdp-url` and a routine's remote
browsers attach to. It picks its own port and says so on stderr once it listens, so nothing polls for it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import select
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from app.browser.chromium import CHROMIUM_FLAGS, find_chromium
from tests.waiting import ended

_LISTENING = re.compile(rb"DevTools listening on ws://127\.0\.0\.1:(\d+)/")
_START_DEADLINE = 20.0


@contextlib.contextmanager
def external_chromium(
    profile: Path, url: str = "about:blank", flags: tuple[str, ...] = ()
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Chromium on ``url`` with its own ``profile`` (and ``flags``): yields its CDP address (``http://127.0.0.1:port``)
    and its process; terminated (killed after 10 s) on the way out."""
    chromium = subprocess.Popen(
        [
            asyncio.run(find_chromium()),
            *CHROMIUM_FLAGS,
            "--headless=new",
            "--remote-debugging-address=127.0.0.1",
            "--remote-debugging-port=0",
            f"--user-data-dir={profile}",
            *flags,
            url,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        yield f"http://127.0.0.1:{_listening_port(chromium)}", chromium
    finally:
        ended(chromium)


def _listening_port(chromium: subprocess.Popen[bytes]) -> int:
    """The port from Chromium's "DevTools listening on" line; the rest of its stderr is then drained in the
    background (a full pipe would stall it)."""
    assert chromium.stderr is not None
    stream = chromium.stderr.fileno()
    said = b""
    deadline = time.monotonic() + _START_DEADLINE
    while not (found := _LISTENING.search(said)):
        left = deadline - time.monotonic()
        ready, _, _ = select.select([stream], [], [], max(0.0, left))
        chunk = os.read(stream, 4096) if ready else b""
        if not chunk:
            said_so_far = said.decode(errors="replace")
            raise AssertionError(f"Chromium did not listen within {_START_DEADLINE:g} s: {said_so_far}")
        said += chunk
    threading.Thread(target=_drain, args=(chromium.stderr,), daemon=True).start()
    return int(found.group(1))


def _drain(stream: IO[bytes]) -> None:
    with contextlib.suppress(OSError, ValueError):  # closed under it as the process ends
        while stream.read(4096):
            pass
