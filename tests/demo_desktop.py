"""The whole desktop in demo mode (offline, headless Chromium) in the test's own folders: the ``desktop`` fixture,
for the tests that start the app as a person does. Closed, and its Chromium with it, after the test."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from app.settings.paths import AppPaths
from app.ui.desktop import Desktop, LaunchChoices
from tests.fakes.memory_keyring import MemoryKeyring


@pytest.fixture
async def desktop(qapp: QApplication, tmp_path: Path, memory_keyring: MemoryKeyring) -> AsyncIterator[Desktop]:
    qapp.setQuitOnLastWindowClosed(False)
    started = Desktop(
        AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs"), LaunchChoices(demo=True, headless=True)
    )
    yield started
    if started.window is not None:
        started.window.close()
    await started.shutdown()
