"""Fixtures for the browser tests that need a real X desktop (Xvfb + openbox): its display, and a headed Chromium on
it with a controller."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from app.browser.controller import PlaywrightPageController
from app.browser.session import BrowserSession, LaunchOptions
from tests.x_desktop import XDesktop, x_desktop


@pytest.fixture
def x_screen(monkeypatch: pytest.MonkeyPatch) -> Iterator[XDesktop]:
    with x_desktop() as found:
        monkeypatch.setenv("DISPLAY", found.display)
        monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
        yield found


@pytest_asyncio.fixture
async def headed(x_screen: XDesktop, tmp_path: Path) -> AsyncIterator[PlaywrightPageController]:
    options = LaunchOptions(profile_dir=tmp_path / "profile", headless=False, window=(420, 0, 946, 740))
    session = await BrowserSession.launch(options)
    try:
        yield PlaywrightPageController(session)
    finally:
        await session.close()
