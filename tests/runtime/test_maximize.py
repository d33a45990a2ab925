"""Maximizing Chromium, as a person does (a double click on its tab strip, on a real desktop: Xvfb + openbox), tells
the panel, which makes the pair fill the screen side by side (app/ui/placement/tiling.py fill_screen) instead of
Chromium hiding it; moved back beside the panel, Chromium is a normal window again."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from app.runtime import Runtime, RuntimeOptions
from app.settings.model import Settings
from app.settings.paths import AppPaths
from tests.x_desktop import NEEDS_X_DESKTOP, x_desktop

pytestmark = NEEDS_X_DESKTOP

BESIDE_THE_PANEL = (420, 0, 946, 768)


async def test_maximizing_chromium_asks_for_the_pair_to_fill_the_screen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with x_desktop() as screen:
        monkeypatch.setenv("DISPLAY", screen.display)
        paths = AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs")
        options = RuntimeOptions(headless=False, window=BESIDE_THE_PANEL)
        runtime = Runtime(Settings(base_url="http://127.0.0.1:9/v1"), paths, options, api_key="sk-test")
        maximized = asyncio.Event()
        runtime.on_browser_maximized(maximized.set)
        try:
            await runtime.agent()
            browser = runtime._browser
            assert browser is not None
            # A double click on the empty part of the tab strip: Chromium's own maximize.
            screen.run("xdotool", "mousemove", "1250", "18", "click", "--repeat", "2", "--delay", "80", "1")
            await asyncio.wait_for(maximized.wait(), 20)
            assert await browser.window_state() == "maximized"
            await runtime.place_browser(BESIDE_THE_PANEL)  # what the panel's fill_screen() sends
            assert await browser.window_state() == "normal"
            assert await browser.window_bounds() == BESIDE_THE_PANEL
        finally:
            await runtime.shutdown()
