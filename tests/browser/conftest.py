"""Real headless Chromium and two local HTTP servers (two origins, for cross-origin iframes) serving tests/pages."""

from __future__ import annotations

import http.server
import io
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from app.browser.controller import PlaywrightPageController
from app.browser.session import BrowserSession, LaunchOptions
from app.core.abort import AbortSignal

PAGES = Path(__file__).resolve().parent.parent / "pages"


class _Handler(http.server.SimpleHTTPRequestHandler):
    other_origin = ""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, directory=str(PAGES), **kwargs)  # type: ignore[arg-type]

    def send_head(self):  # type: ignore[no-untyped-def]
        # Pages name the other server as {{OTHER_ORIGIN}}: its port is only known at run time.
        path = Path(self.translate_path(self.path))
        if path.suffix != ".html" or not path.is_file():
            return super().send_head()
        body = path.read_text(encoding="utf-8").replace("{{OTHER_ORIGIN}}", self.other_origin).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


class Servers:
    def __init__(self) -> None:
        self._servers: list[http.server.ThreadingHTTPServer] = []

    def start(self) -> tuple[str, str]:
        origins = []
        for _ in range(2):
            handler = type("Handler", (_Handler,), {})
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
            threading.Thread(target=server.serve_forever, daemon=True).start()
            self._servers.append(server)
            origins.append(f"http://127.0.0.1:{server.server_address[1]}")
        self._servers[0].RequestHandlerClass.other_origin = origins[1]  # type: ignore[attr-defined]
        self._servers[1].RequestHandlerClass.other_origin = origins[0]  # type: ignore[attr-defined]
        return origins[0], origins[1]

    def stop(self) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()


@pytest.fixture(scope="session")
def origins() -> Iterator[tuple[str, str]]:
    servers = Servers()
    yield servers.start()
    servers.stop()


@pytest.fixture
def site(origins: tuple[str, str]) -> str:
    return origins[0]


@pytest.fixture
def launch_options(tmp_path: Path) -> LaunchOptions:
    return LaunchOptions(profile_dir=tmp_path / "profile", downloads_dir=tmp_path / "downloads", headless=True)


@pytest.fixture
async def session(launch_options: LaunchOptions) -> AsyncIterator[BrowserSession]:
    browser = await BrowserSession.launch(launch_options)
    yield browser
    await browser.close()


@pytest.fixture
def controller(session: BrowserSession) -> PlaywrightPageController:
    return PlaywrightPageController(session)


@pytest.fixture
def signal() -> AbortSignal:
    return AbortSignal()
