"""A real X desktop for tests that need a window manager: Xvfb on a display number it picks itself (no clash with
another test or another person's display), openbox on it, and xdotool/xprop to act and look as a person would; a
private D-Bus session bus, and dunst on it as the desktop's notification service.

packaging/setup.sh installs what it needs (xvfb, openbox, xdotool, x11-utils, dbus-daemon, dunst). Each part is a
context manager that leaves nothing running.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

import pytest

from tests.waiting import ended, sync_until

TOOLS = ("Xvfb", "openbox", "xdotool", "xprop", "xev", "dbus-daemon", "dunst")
_START_DEADLINE = 20.0
_WM_READY = "openbox-ready"


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


class Person:
    """Types a letter into whatever has the keyboard every few tens of milliseconds and writes down which window is
    active, on a thread of its own (as a person would, whatever the agent does meanwhile)."""

    def __init__(self, desktop: XDesktop) -> None:
        self._desktop = desktop
        self.active: list[int] = []
        self.typed = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._work, daemon=True)

    def __enter__(self) -> Person:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._done.set()
        self._thread.join(20)

    def _work(self) -> None:
        while not self._done.is_set():
            self.active.append(self._desktop.active_window())
            self._desktop.run("xdotool", "type", "--delay", "0", "q")
            self.typed += 1
            time.sleep(0.02)


class ActiveWindows:
    """Every window the window manager makes the active one, as it happens (``xprop -spy`` prints each time it is set,
    the same window again too), in ``changes``: the first is the one active when it started; 0 is no window (a moment
    between two, as a rule)."""

    def __init__(self, desktop: XDesktop) -> None:
        self.changes: list[int] = []
        self._process = subprocess.Popen(
            ["stdbuf", "-oL", "xprop", "-root", "-spy", "_NET_ACTIVE_WINDOW"],
            env=desktop.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        sync_until(lambda: self.changes, _START_DEADLINE, "xprop to say the active window", alive=self._process)

    def _read(self) -> None:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            value = line.rsplit("#", 1)[-1].strip().split(",")[0]
            self.changes.append(int(value, 16) if value.startswith("0x") else 0)

    def stop(self) -> None:
        ended(self._process)
        self._reader.join(10)


@contextlib.contextmanager
def active_windows(desktop: XDesktop) -> Iterator[ActiveWindows]:
    spy = ActiveWindows(desktop)
    try:
        yield spy
    finally:
        spy.stop()


def missing_tools() -> list[str]:
    return [tool for tool in TOOLS if shutil.which(tool) is None]


NEEDS_X_DESKTOP = pytest.mark.skipif(
    not sys.platform.startswith("linux") or bool(missing_tools()),
    reason=f"needs an X desktop: {', '.join(missing_tools())} (packaging/setup.sh installs them)",
)
# Which window has the keyboard, watched as it changes, or typed into with real key presses: these tests run on their
# own, after the others (packaging/setup.sh), because under CPU load the window manager can map a window Chromium has
# just created before anything outside the window manager can refuse it the keyboard (app/browser/window_focus.py: it
# is then given back at once, which is not the "never" these tests hold the app to), and a person's keys sent while it
# moves land elsewhere.
KEYBOARD = [NEEDS_X_DESKTOP, pytest.mark.keyboard]


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
        # openbox is up once it runs its startup command: it claims the root window earlier, but a window mapped
        # before it has looked at the windows already there is never managed (nor shown).
        window_manager = subprocess.Popen(
            ["openbox", "--sm-disable", "--startup", f"echo {_WM_READY}"],
            env=desktop.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert window_manager.stdout is not None
        said, out = b"", window_manager.stdout.fileno()
        deadline = time.monotonic() + _START_DEADLINE
        while f"{_WM_READY}\n".encode() not in said:  # its own messages may come first
            ready, _, _ = select.select([out], [], [], max(0.0, deadline - time.monotonic()))
            more = os.read(out, 4096) if ready else b""
            if not more:
                raise RuntimeError(f"openbox did not start: {said.decode(errors='replace')}")
            said += more
        yield desktop
    finally:
        os.close(read)
        for process in (window_manager, server):
            if process is not None:
                ended(process)
        if window_manager is not None and window_manager.stdout is not None:
            window_manager.stdout.close()


@contextlib.contextmanager
def other_application(desktop: XDesktop, name: str, geometry: str) -> Iterator[tuple[int, KeyLog]]:
    """A window of another program (xev, which prints every key it receives) where the person works; active."""
    # Line-buffered: xev's output reaches the log as each key arrives, not when a full buffer is flushed (a buffer
    # still held when xev is ended would lose the last keys).
    process = subprocess.Popen(
        ["stdbuf", "-oL", "xev", "-name", name, "-geometry", geometry, "-event", "keyboard"],
        env=desktop.env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    log = KeyLog(process.stdout)
    try:
        window = sync_until(
            lambda: desktop.windows("--name", f"^{name}$"), _START_DEADLINE, "xev's window", alive=process
        )[0]
        desktop.run("xdotool", "windowactivate", "--sync", str(window))
        yield window, log
    finally:
        ended(process)
        log.close()


class KeyLog:
    """What the other program printed so far, read on a thread of its own as it comes."""

    def __init__(self, stream: IO[str]) -> None:
        self._lines: list[str] = []
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self._lines.append(line)

    def count(self, text: str) -> int:
        return sum(line.count(text) for line in list(self._lines))

    def close(self) -> None:
        self._thread.join(10)


@contextlib.contextmanager
def session_bus() -> Iterator[str]:
    """A D-Bus session bus of the test's own (never the person's); its address."""
    process = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--print-address=1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], _START_DEADLINE)
        address = process.stdout.readline().strip() if ready else ""
        if not address:
            raise RuntimeError("dbus-daemon did not start")
        yield address
    finally:
        ended(process)


class NotificationService:
    """dunst on ``bus``, printing every notification it receives (``received``)."""

    def __init__(self, desktop: XDesktop, bus: str, config_home: str) -> None:
        env = {**desktop.env(), "DBUS_SESSION_BUS_ADDRESS": bus, "XDG_CONFIG_HOME": config_home}
        self.bus = bus
        self.received: list[str] = []
        self.process = subprocess.Popen(
            ["dunst", "-print"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.received.append(line.rstrip("\n"))

    def call(self, interface: str, method: str, signature: str = "", *args: object) -> tuple[object, ...]:
        """A method of the service's own (org.dunstproject.cmd0: what dunstctl does), or of the notification spec."""
        from jeepney import DBusAddress, MessageFlag, MessageType, new_method_call
        from jeepney.io.blocking import open_dbus_connection

        address = DBusAddress(
            "/org/freedesktop/Notifications", bus_name="org.freedesktop.Notifications", interface=interface
        )
        message = new_method_call(address, method, signature, args)
        # Never started by the bus: asked before this dunst holds the name, the bus would start the system's own
        # (its D-Bus service file), which has no display, dies, and may take the name from this one first.
        message.header.flags |= MessageFlag.no_auto_start
        with open_dbus_connection(bus=self.bus) as connection:
            reply = connection.send_and_get_reply(message, timeout=10)
        if reply.header.message_type == MessageType.error:  # such as no service holding the name yet
            raise RuntimeError(f"{method}: {reply.body}")
        return tuple(reply.body)

    def displayed(self) -> int:
        value = self.call("org.freedesktop.DBus.Properties", "Get", "ss", "org.dunstproject.cmd0", "displayedLength")
        return int(value[0][1])  # type: ignore[index]

    def ready(self) -> bool:
        try:
            self.call("org.dunstproject.cmd0", "Ping")
        except Exception:
            return False
        return True

    def stop(self) -> None:
        ended(self.process)


@contextlib.contextmanager
def notification_service(desktop: XDesktop, bus: str, config_home: str) -> Iterator[NotificationService]:
    service = NotificationService(desktop, bus, config_home)
    try:
        sync_until(service.ready, _START_DEADLINE, "dunst to start", alive=service.process)
        yield service
    finally:
        service.stop()
