"""Without a system library Qt's X11 plugin needs (as after a pip or pipx install), the panel says which package to
install instead of Qt aborting with its own message."""

from __future__ import annotations

import argparse
import ctypes

import pytest

from app.ui import app as gui
from app.ui import qt_libraries


@pytest.fixture
def on_x11(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("DISPLAY", ":99")


def without(monkeypatch: pytest.MonkeyPatch, library: str) -> None:
    real = ctypes.CDLL

    def load(name: str, *args: object, **kwargs: object) -> ctypes.CDLL:
        if name == library:
            raise OSError(f"{name}: cannot open shared object file: No such file or directory")
        return real(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(qt_libraries.ctypes, "CDLL", load)


def test_a_missing_xcb_library_is_named_with_its_package(
    on_x11: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert qt_libraries.missing_packages() == []  # all there on this machine (packaging/setup.sh)
    without(monkeypatch, "libxcb-cursor.so.0")
    assert qt_libraries.missing_packages() == ["libxcb-cursor0"]
    code = gui.run_gui(argparse.Namespace(demo=False, replay=None, record=None))
    assert code == 2
    message = capsys.readouterr().err
    assert "missing libxcb-cursor0" in message and "sudo apt-get install libxcb-cursor0" in message


def test_nothing_is_checked_where_qt_does_not_use_x11(monkeypatch: pytest.MonkeyPatch) -> None:
    without(monkeypatch, "libxcb-cursor.so.0")
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    assert qt_libraries.missing_packages() == []
    monkeypatch.delenv("QT_QPA_PLATFORM")
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    assert qt_libraries.missing_packages() == []
