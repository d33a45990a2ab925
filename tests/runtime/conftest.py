"""The real Runtime (headless Chromium, the fake model endpoint) and a small site whose "Verify" link leads to a page
the server holds back until the test lets it load: a click that has happened while its page is still coming."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from app.runtime import Runtime, RuntimeOptions
from app.settings.model import Settings
from app.settings.paths import AppPaths
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

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            site.hits.append(self.path)
            body = PAGES.get(self.path, b"")
            if self.path == "/slow":
                site.requested.set()
                site.release.wait(HOLD)
            self.send_response(200 if body else 404)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    site.url = f"http://127.0.0.1:{httpd.server_address[1]}/"
    yield site
    site.release.set()
    httpd.shutdown()
    httpd.server_close()


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
