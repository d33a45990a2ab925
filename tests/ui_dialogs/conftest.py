"""Dialog tests run on qasync's loop (as in the app), with an in-memory keyring and the fake model endpoint."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtWidgets import QApplication, QWidget

from tests.fakes.memory_keyring import memory_keyring  # noqa: F401  (fixture)

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts" / "ui"


def pytest_asyncio_loop_factories(config: pytest.Config, item: pytest.Item) -> Mapping[str, Callable[[], Any]]:
    return {"qasync": lambda: qasync.QEventLoop(QApplication.instance() or QApplication([]))}


def screenshot(widget: QWidget, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    widget.grab().save(str(path))
    return path


@pytest.fixture(autouse=True)
def keep_running_when_a_dialog_closes(qapp: QApplication) -> None:
    # In the app the panel stays open; here a dialog is the only window, and closing it must not quit the loop.
    qapp.setQuitOnLastWindowClosed(False)
