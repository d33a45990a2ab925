"""Where a Chromium-family browser lives on Windows, macOS and Linux: one table, searched in order.

No browser is bundled with the app. The order: Google Chrome and Microsoft Edge (the places Playwright's ``chrome``
and ``msedge`` channels look; Edge is on every Windows), then the system's Chromium (Debian/Ubuntu, Fedora, Arch,
snap, flatpak), then Playwright's browser folders, the app's own first (where "Download a browser" puts one). The
browser set in Settings comes before all of them (``app/browser/chromium.py``).

The search runs against a ``Host``: the system's name, its environment, the home and data folders, and a file
system that answers two questions. Tests give it a fake one, so every system's table is checked on any machine.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path, PurePath, PurePosixPath, PureWindowsPath
from typing import Literal, Protocol

System = Literal["linux", "darwin", "win32"]


class BrowserKind(StrEnum):
    CONFIGURED = "configured"
    CHROME = "chrome"
    EDGE = "msedge"
    CHROMIUM = "chromium"
    PLAYWRIGHT = "playwright"  # Chrome for Testing or Chromium in a Playwright browser folder
    DOWNLOADED = "downloaded"  # the same, downloaded by the app into its data folder


_NAMES = {
    BrowserKind.CONFIGURED: "the browser set in Settings",
    BrowserKind.CHROME: "Google Chrome",
    BrowserKind.EDGE: "Microsoft Edge",
    BrowserKind.CHROMIUM: "Chromium",
    BrowserKind.PLAYWRIGHT: "Playwright's browser",
    BrowserKind.DOWNLOADED: "the browser Page Agent downloaded",
}


def browser_name(kind: BrowserKind) -> str:
    return _NAMES[kind]


@dataclass(frozen=True)
class FoundBrowser:
    path: str
    kind: BrowserKind


class FileSystem(Protocol):
    def is_executable(self, path: str) -> bool: ...

    def list_dir(self, path: str) -> list[str]:
        """The names in a folder; [] when it does not exist."""
        ...


class RealFileSystem:
    def is_executable(self, path: str) -> bool:
        return os.path.isfile(path) and os.access(path, os.X_OK)

    def list_dir(self, path: str) -> list[str]:
        try:
            return os.listdir(path)
        except OSError:
            return []


@dataclass(frozen=True)
class Host:
    system: System
    env: Mapping[str, str]
    home: str
    data_dir: str  # the app's data folder: its downloaded browser is in <data_dir>/browsers
    files: FileSystem

    def path(self, *parts: str) -> PurePath:
        return PureWindowsPath(*parts) if self.system == "win32" else PurePosixPath(*parts)


def this_host(data_dir: Path) -> Host:
    system: System = "win32" if sys.platform == "win32" else "darwin" if sys.platform == "darwin" else "linux"
    return Host(system, dict(os.environ), str(Path.home()), str(data_dir), RealFileSystem())


def browsers_dir(data_dir: Path) -> Path:
    """Where "Download a browser" installs one (Playwright's PLAYWRIGHT_BROWSERS_PATH for that install)."""
    return data_dir / "browsers"


# --- the table -------------------------------------------------------------------------------------------------------
#
# A row: the kind, the system, and where to look. "{NAME}" is an environment variable (the row is skipped when it is
# not set), "~" the home folder, "{PLAYWRIGHT}" each Playwright browser folder, "*" any name in that folder (the
# newest revision wins), and a bare name is looked up on the PATH.

_WIN_PREFIXES = ("{LOCALAPPDATA}", "{PROGRAMFILES}", "{PROGRAMFILES(X86)}", "{HOMEDRIVE}\\Program Files")

TABLE: tuple[tuple[BrowserKind, System, str], ...] = (
    # Google Chrome: Playwright's "chrome" channel.
    *((BrowserKind.CHROME, "win32", f"{p}\\Google\\Chrome\\Application\\chrome.exe") for p in _WIN_PREFIXES),
    (BrowserKind.CHROME, "darwin", "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"),
    (BrowserKind.CHROME, "darwin", "~/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"),
    (BrowserKind.CHROME, "linux", "/opt/google/chrome/chrome"),
    (BrowserKind.CHROME, "linux", "google-chrome-stable"),
    (BrowserKind.CHROME, "linux", "google-chrome"),
    # Microsoft Edge: Playwright's "msedge" channel.
    *((BrowserKind.EDGE, "win32", f"{p}\\Microsoft\\Edge\\Application\\msedge.exe") for p in _WIN_PREFIXES),
    (BrowserKind.EDGE, "darwin", "/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge"),
    (BrowserKind.EDGE, "darwin", "~/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge"),
    (BrowserKind.EDGE, "linux", "/opt/microsoft/msedge/msedge"),
    (BrowserKind.EDGE, "linux", "microsoft-edge-stable"),
    (BrowserKind.EDGE, "linux", "microsoft-edge"),
    # The system's Chromium.
    (BrowserKind.CHROMIUM, "win32", "{LOCALAPPDATA}\\Chromium\\Application\\chrome.exe"),
    (BrowserKind.CHROMIUM, "win32", "{PROGRAMFILES}\\Chromium\\Application\\chrome.exe"),
    (BrowserKind.CHROMIUM, "darwin", "/Applications/Chromium.app/Contents/MacOS/Chromium"),
    (BrowserKind.CHROMIUM, "darwin", "~/Applications/Chromium.app/Contents/MacOS/Chromium"),
    (BrowserKind.CHROMIUM, "linux", "/usr/bin/chromium"),  # Debian, Arch, openSUSE
    (BrowserKind.CHROMIUM, "linux", "chromium"),
    (BrowserKind.CHROMIUM, "linux", "/usr/bin/chromium-browser"),  # Fedora; Ubuntu's shim for the snap
    (BrowserKind.CHROMIUM, "linux", "/usr/lib64/chromium-browser/chromium-browser"),  # Fedora's binary itself
    (BrowserKind.CHROMIUM, "linux", "chromium-browser"),
    (BrowserKind.CHROMIUM, "linux", "/snap/bin/chromium"),
    (BrowserKind.CHROMIUM, "linux", "/var/lib/flatpak/exports/bin/org.chromium.Chromium"),
    (BrowserKind.CHROMIUM, "linux", "~/.local/share/flatpak/exports/bin/org.chromium.Chromium"),
    # Playwright's browser folders: Chrome for Testing (today), Chromium (older Playwright releases).
    (BrowserKind.PLAYWRIGHT, "win32", "{PLAYWRIGHT}\\chromium-*\\chrome-win64\\chrome.exe"),
    (BrowserKind.PLAYWRIGHT, "win32", "{PLAYWRIGHT}\\chromium-*\\chrome-win\\chrome.exe"),
    *(
        (BrowserKind.PLAYWRIGHT, "darwin", f"{{PLAYWRIGHT}}/chromium-*/{folder}")
        for folder in (
            "chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
            "chrome-mac-x64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
            "chrome-mac/Chromium.app/Contents/MacOS/Chromium",
        )
    ),
    (BrowserKind.PLAYWRIGHT, "linux", "{PLAYWRIGHT}/chromium-*/chrome-linux64/chrome"),
    (BrowserKind.PLAYWRIGHT, "linux", "{PLAYWRIGHT}/chromium-*/chrome-linux/chrome"),
)

# The file Playwright writes into a browser's folder once its download is complete.
INSTALL_MARKER = "INSTALLATION_COMPLETE"

_VARIABLE = re.compile(r"\{([A-Z0-9_()]+)\}")


def discover(host: Host) -> FoundBrowser | None:
    """The first browser of the table that is there and can be run, or None."""
    for kind, system, where in TABLE:
        if system != host.system:
            continue
        for path in _expand(host, kind, where):
            if host.files.is_executable(path):
                downloaded = kind is BrowserKind.PLAYWRIGHT and path.startswith(playwright_dirs(host)[0])
                return FoundBrowser(path, BrowserKind.DOWNLOADED if downloaded else kind)
    return None


def playwright_dirs(host: Host) -> list[str]:
    """The app's own browser folder, then Playwright's (PLAYWRIGHT_BROWSERS_PATH, else its per-user cache)."""
    own = str(host.path(host.data_dir, "browsers"))
    configured = host.env.get("PLAYWRIGHT_BROWSERS_PATH", "")
    if configured and configured != "0":
        return [own, configured]
    if host.system == "win32":
        cache = host.env.get("LOCALAPPDATA") or str(host.path(host.home, "AppData", "Local"))
    elif host.system == "darwin":
        cache = str(host.path(host.home, "Library", "Caches"))
    else:
        cache = host.env.get("XDG_CACHE_HOME") or str(host.path(host.home, ".cache"))
    return [own, str(host.path(cache, "ms-playwright"))]


def _expand(host: Host, kind: BrowserKind, where: str) -> Iterator[str]:
    if kind is BrowserKind.PLAYWRIGHT:
        for folder in playwright_dirs(host):
            yield from _newest_first(host, where.replace("{PLAYWRIGHT}", folder))
        return
    missing = [name for name in _VARIABLE.findall(where) if not host.env.get(name)]
    if missing:
        return
    where = _VARIABLE.sub(lambda m: host.env[m.group(1)], where)
    if where.startswith("~"):
        yield str(host.path(host.home, where[2:]))
    elif host.path(where).is_absolute():
        yield where
    else:
        yield from _on_path(host, where)


def _newest_first(host: Host, pattern: str) -> Iterator[str]:
    """``pattern`` with one "*" in a folder name: every complete install, the highest revision first."""
    parent, _, rest = pattern.partition("*")
    folder = str(host.path(parent).parent)
    prefix = host.path(parent).name
    tail = rest.lstrip("\\/")
    revisions = [name for name in host.files.list_dir(folder) if name.startswith(prefix)]
    revisions.sort(key=lambda name: _revision(name[len(prefix) :]), reverse=True)
    for name in revisions:
        # Playwright writes the marker last: a download cut short (cancelled, failed) is not a browser.
        if INSTALL_MARKER in host.files.list_dir(str(host.path(folder, name))):
            yield str(host.path(folder, name, tail))


def _revision(text: str) -> tuple[int, str]:
    return (int(text), "") if text.isdigit() else (-1, text)


def _on_path(host: Host, name: str) -> Iterator[str]:
    separator = ";" if host.system == "win32" else ":"
    for folder in host.env.get("PATH", "").split(separator):
        if folder:
            yield str(host.path(folder, name))
