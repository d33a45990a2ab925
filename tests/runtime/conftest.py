"""The real Runtime (headless Chromium, the fake model endpoint) and a small site whose "Verify" link leads to a page
the server holds back until the test lets it load: a click that has happened while its page is still coming."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from app.runtime import Runtime, RuntimeOptions
from app.settings.model import Settings
from app.settings.paths import AppPaths
from tests.fakes.html_site import html_site
from tests.fakes.llm_server import FakeLLMServer

MAX_STEPS = 3
HOLD = 30.0

PAGES = {
    "/": b"""<!doctype html><title>Security check</title><h1>Security check</h1>
<p>Type the characters you see.</p><input aria-label="Characters"> <a href="/slow">Verify</a>""",
    "/slow": b"""<!doctype html><title>Export ready</title><h1>Export ready</h1>""",
}


@dataclass
class Site:
    url: str
    hits: list[str] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    requested: threading.Event = field(default_factory=threading.Event)


@pytest.fixture
def site() -> Iterator[Site]:
    site = Site(url="")

    def respond(path: str) -> tuple[int, bytes]:
        site.hits.append(path)
        body = PAGES.get(path, b"")
        if path == "/slow":
            site.requested.set()
            site.release.wait(HOLD)
        return (200 if body else 404), body

    with html_site(respond) as origin:
        site.url = origin + "/"
        yield site
        site.release.set()


@pytest.fixture
async def runtime(llm_server: FakeLLMServer, tmp_path: Path, site: Site) -> AsyncIterator[Runtime]:
    settings = Settings(base_url=llm_server.base_url, model="fake-model", max_steps=MAX_STEPS, start_url=site.url)
    paths = AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs")
    runtime = Runtime(settings, paths, RuntimeOptions(headless=True), api_key="sk-test")
    try:
        yield runtime
    finally:
        site.release.set()  # a held page must not keep Chromium's shutdown waiting
        await runtime.shutdown()
