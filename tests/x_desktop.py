"""A real X desktop for tests that need a window manager: Xvfb on a display number it picks itself (no clash with
another test or another person's display), openbox on it, and xdotool/xprop to act and look as a person would.

packaging/setup.sh installs what it needs (xvfb, openbox, xdotool, x11-utils). Use ``x_desktop()`` as a context
manager; it leaves nothing running.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

TOOLS = ("Xvfb", "openbox", "xdotool", "xprop", "xev")
_START_DEADLINE = 20.0


@dataclass(frozen=True)
class XDesktop:
    display: str  # ":N"
    width: int
    height: int

    def env(self) -> dict[str, str]:
        """The environment for a process on this desktop (X11 only: no Wayland, no accessibility bus)."""
        env = {key: value for key, value in os.environ.items() if key not in ("WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
        return {**env, "DISPLAY": self.display, "NO_AT_BRIDGE": "1"}

    def run(self, *command: str, check: bool = False) -> str:
        done = subprocess.run(command, env=self.env(), capture_output=True, text=True, timeout=20, check=check)
        return done.stdout.strip()

    def active_window(self) -> int:
        out = self.run("xdotool", "getactivewindow")
        return int(out) if out.isdigit() else 0

    def windows(self, *search: str) -> list[int]:
        """``xdotool search`` (visible windows only)."""
        out = self.run("xdotool", "search", "--onlyvisible", *search)
        return [int(line) for line in out.split() if line.isdigit()]

    def root_windows(self, name: str) -> list[int]:
        """A window list on the root window (``_NET_CLIENT_LIST_STACKING``: bottom first)."""
        out = self.run("xprop", "-root", name)
        if "#" not in out:
            return []
        return [int(part.strip(), 16) for part in out.split("#", 1)[1].split(",") if part.strip()]

    def window_state(self, window: int) -> str:
        return self.run("xprop", "-id", str(window), "_NET_WM_STATE", "WM_HINTS")

    def screenshot(self, path: str) -> None:
        self.run("import", "-display", self.display, "-window", "root", path, check=True)


def missing_tools() -> list[str]:
    return [tool for tool in TOOLS if shutil.which(tool) is None]


NEEDS_X_DESKTOP = pytest.mark.skipif(
    not sys.platform.startswith("linux") or bool(missing_tools()),
    reason=f"needs an X desktop: {', '.join(missing_tools())} (packaging/setup.sh installs them)",
)


@contextlib.contextmanager
def x_desktop(width: int = 1366, height: int = 768) -> Iterator[XDesktop]:
    read, write = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", f"{width}x{height}x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    window_manager: subprocess.Popen[bytes] | None = None
    try:
        ready, _, _ = select.select([read], [], [], _START_DEADLINE)
        number = os.read(read, 32).decode().strip() if ready else ""
        if not number.isdigit():
            raise RuntimeError("Xvfb did not start")
        desktop = XDesktop(f":{number}", width, height)
        window_manager = subprocess.Popen(
            ["openbox", "--sm-disable"], env=desktop.env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + _START_DEADLINE
        # openbox is up once it has claimed the root window (EWMH's supporting-WM check).
        while "window id" not in desktop.run("xprop", "-root", "_NET_SUPPORTING_WM_CHECK"):
            if time.monotonic() > deadline or window_manager.poll() is not None:
                raise RuntimeError("openbox did not start")
            time.sleep(0.05)
        yield desktop
    finally:
        os.close(read)
        for process in (window_manager, server):
            if process is not None and process.poll() is None:
                process.terminate()
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


@contextlib.contextmanager
def other_application(desktop: XDesktop, name: str, geometry: str) -> Iterator[tuple[int, subprocess.Popen[str]]]:
    """A window of another program (xev, which prints every key it receives) where the person works; active."""
    process = subprocess.Popen(
        ["xev", "-name", name, "-geometry", geometry, "-event", "keyboard"],
        env=desktop.env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        deadline = time.monotonic() + _START_DEADLINE
        while not (found := desktop.windows("--name", f"^{name}$")):
            if time.monotonic() > deadline:
                raise RuntimeError("xev did not open its window")
            time.sleep(0.05)
        window = found[0]
        desktop.run("xdotool", "windowactivate", "--sync", str(window))
        yield window, process
    finally:
        process.terminate()
        process.wait(10)
