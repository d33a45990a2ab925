"""Finding a Chromium the app can drive: Playwright's own download is one option, never the only one."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

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

INSTALL_HINT = (
    "No Chromium or Google Chrome was found. Install one (on Debian/Ubuntu: `sudo apt-get install chromium "
    "libatomic1`), or set the browser path in Settings."
)

# Checked in this order after the configured path and Playwright's browser.
_KNOWN_NAMES = ("google-chrome", "google-chrome-stable", "chromium", "chromium-browser")
_KNOWN_PATHS = ("/opt/google/chrome/chrome", "/usr/bin/chromium", "/snap/bin/chromium")


class ChromiumNotFoundError(Exception):
    """No usable browser binary; the message says what to install."""


def _usable(path: str | os.PathLike[str] | None) -> bool:
    return bool(path) and Path(path).is_file() and os.access(path, os.X_OK)  # type: ignore[arg-type]


def _find(configured: str | None, playwright_browser: str | None) -> str:
    if configured:
        if _usable(configured):
            return configured
        raise ChromiumNotFoundError(
            f"The browser configured in Settings ({configured}) does not exist or cannot be run. Fix the path, or "
            "clear it to let the app find Chromium by itself."
        )
    if _usable(playwright_browser):
        return str(playwright_browser)
    for name in _KNOWN_NAMES:
        found = shutil.which(name)
        if found:
            return found
    for path in _KNOWN_PATHS:
        if _usable(path):
            return path
    raise ChromiumNotFoundError(INSTALL_HINT)


async def find_chromium(configured: str | None = None, playwright_browser: str | None = None) -> str:
    """The executable to launch: ``configured`` if set (an error if unusable), else the first one found.

    ``playwright_browser`` is ``playwright.chromium.executable_path`` (it may point at a browser never downloaded).
    """
    return await asyncio.to_thread(_find, configured, playwright_browser)
