"""Before Qt opens a window on X11: the system libraries its xcb platform plugin needs. Without one of them Qt prints
its own message ("Could not load the Qt platform plugin xcb…") and aborts; here the person reads, in plain words,
which package to install. A pip or pipx install brings Qt, never these."""

from __future__ import annotations

import ctypes
import os
import sys

# The library (as the dynamic loader finds it) and the Debian/Ubuntu package that has it.
XCB_LIBRARIES = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
}


def _uses_xcb() -> bool:
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if platform:
        return platform.startswith("xcb")
    # Unset: Qt picks Wayland in a Wayland session (when it can), else X11.
    return (
        sys.platform.startswith("linux") and bool(os.environ.get("DISPLAY")) and not os.environ.get("WAYLAND_DISPLAY")
    )


def missing_packages() -> list[str]:
    """The packages whose libraries Qt's X11 plugin would fail to load (none when it will not be used)."""
    if not _uses_xcb():
        return []
    missing: list[str] = []
    for library, package in XCB_LIBRARIES.items():
        try:
            ctypes.CDLL(library)
        except OSError:
            missing.append(package)
    return missing


def missing_message(packages: list[str]) -> str:
    names = " ".join(packages)
    return (
        f"Page Agent cannot open its window: the system is missing {', '.join(packages)} "
        f"(libraries Qt needs to draw windows on X11).\n"
        f"On Debian or Ubuntu install them with:  sudo apt-get install {names}\n"
        "(bash packaging/setup.sh installs them too.)"
    )
