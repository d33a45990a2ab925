"""The panel's way in (the real Runtime, headless Chromium): allowed sites that could not be read from the settings
file stop every task with a message naming the setting, and no page opens meanwhile (not even the start page)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.runtime import Runtime, RuntimeOptions
from app.settings.model import read_settings
from app.settings.paths import AppPaths
from tests.fakes.llm_server import FakeLLMServer
from tests.runtime.conftest import Site


async def test_unreadable_allowed_sites_stop_the_task_and_name_the_setting(
    llm_server: FakeLLMServer, tmp_path: Path, site: Site
) -> None:
    paths = AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs")
    paths.config_dir.mkdir(parents=True)
    saved = {"base_url": llm_server.base_url, "start_url": site.url, "allowed_domains": "example.com"}
    paths.settings_file.write_text(json.dumps(saved), encoding="utf-8")
    settings = read_settings(paths.settings_file).settings
    runtime = Runtime(settings, paths, RuntimeOptions(headless=True), api_key="sk-test")
    try:
        with pytest.raises(ValueError, match="Only these sites could not be read"):
            await runtime.agent()
        assert site.hits == [] and llm_server.requests == []
    finally:
        await runtime.shutdown()
