"""Finding a Chromium the app can drive: the one set in Settings, else the first of the table in discovery.py."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from app.browser.discovery import BrowserKind, FoundBrowser, discover, this_host

# They keep a driven browser quiet: no update checks, no sync, no first-run UI, no QUIC (some proxies break it),
# no /dev/shm (tiny in Docker), and never the "Restore pages?" bubble (the app closes Chromium itself; a session it
# could not close cleanly is not the user's to restore).
CHROMIUM_FLAGS: tuple[str, ...] = (
    "--hide-crash-restore-bubble",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-dev-shm-usage",
)

# Chromium refuses to start as root without it (containers, kiosks); for anyone else the sandbox stays on.
# --test-type keeps Chromium's "unsupported command-line flag: --no-sandbox" bar off the page: it would push the
# page down and the user can do nothing about it.
if hasattr(os, "geteuid") and os.geteuid() == 0:
    CHROMIUM_FLAGS += ("--no-sandbox", "--test-type")

_WHAT_TO_INSTALL = {
    "win32": "Install Google Chrome or Microsoft Edge",
    "darwin": "Install Google Chrome (or Microsoft Edge, or Chromium)",
    "linux": "Install Chromium (on Debian/Ubuntu: `sudo apt-get install chromium`) or Google Chrome",
}
INSTALL_HINT = (
    f"No Chrome, Edge or Chromium was found. {_WHAT_TO_INSTALL.get(sys.platform, _WHAT_TO_INSTALL['linux'])}, "
    "set the browser's path in Settings, or let Page Agent download a browser for itself."
)


class ChromiumNotFoundError(Exception):
    """No usable browser binary; the message says what to install."""


def _usable(path: str) -> bool:
    return Path(path).is_file() and os.access(path, os.X_OK)


def locate(configured: str | None, data_dir: Path | None) -> FoundBrowser:
    """The browser to launch: ``configured`` if set (an error if unusable), else the first one the table finds.
    ``data_dir``: the app's data folder, where a browser it downloaded lives."""
    if configured:
        if _usable(configured):
            return FoundBrowser(configured, BrowserKind.CONFIGURED)
        raise ChromiumNotFoundError(
            f"The browser configured in Settings ({configured}) does not exist or cannot be run. Fix the path, or "
            "clear it to let the app find Chromium by itself."
        )
    if data_dir is None:
        from app.settings.paths import app_paths

        data_dir = app_paths().data_dir
    found = discover(this_host(data_dir))
    if found is None:
        raise ChromiumNotFoundError(INSTALL_HINT)
    return found


async def find_chromium(configured: str | None = None, data_dir: Path | None = None) -> str:
    """The executable to launch (see ``locate``), found off the event loop."""
    found = await asyncio.to_thread(locate, configured, data_dir)
    return found.path
