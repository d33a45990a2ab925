"""Real headless Chromium and two local HTTP servers (two origins, for cross-origin iframes) serving tests/pages:
fixtures for every test folder (tests/conftest.py loads them as a plugin)."""

from __future__ import annotations

import http.server
import io
import shutil
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from app.browser.controller import PlaywrightPageController
from app.browser.session import BrowserSession, LaunchOptions
from app.browser.settle import Settler
from app.core.abort import AbortSignal
from app.core.safety.guardrails import Guardrails

PAGES = Path(__file__).resolve().parent / "pages"


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
    """For a test that launches a browser of its own; a test that asks for them and for ``controller`` gets a browser
    of its own, launched with them."""
    return LaunchOptions(profile_dir=tmp_path / "profile", downloads_dir=tmp_path / "downloads", headless=True)


# A test that uses ``controller`` runs on its module's event loop (tests/conftest.py marks it): one Chromium serves
# the whole module, and each test gets it with one blank tab and nothing left of the test before. A test that needs
# a browser of its own (its own launch options, or a browser it closes) is marked fresh_browser.


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def _module_controller(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[PlaywrightPageController]:
    root = tmp_path_factory.mktemp("browser")
    options = LaunchOptions(profile_dir=root / "profile", downloads_dir=root / "downloads", headless=True)
    browser = await BrowserSession.launch(options)
    yield PlaywrightPageController(browser)
    await browser.close()


@pytest_asyncio.fixture(loop_scope="module")
async def _shared_controller(_module_controller: PlaywrightPageController) -> PlaywrightPageController:
    controller = _module_controller
    session = controller.session
    blank = await session.new_tab()
    for page in session.pages:
        if page is not blank:
            await page.close()
    controller.guardrails = Guardrails()
    controller.settler = Settler(prepare=controller.rehearse)
    controller.drain_events()
    controller.foreign_keys.clear()
    shutil.rmtree(session.downloads_dir)
    session.downloads_dir.mkdir(mode=0o700)
    return controller


@pytest_asyncio.fixture(loop_scope="module")
async def _own_controller(launch_options: LaunchOptions) -> AsyncIterator[PlaywrightPageController]:
    browser = await BrowserSession.launch(launch_options)
    yield PlaywrightPageController(browser)
    await browser.close()


@pytest.fixture
def controller(request: pytest.FixtureRequest) -> PlaywrightPageController:
    # A test that asks for launch_options wants the browser launched with them.
    fresh = "launch_options" in request.node.fixturenames or request.node.get_closest_marker("fresh_browser")
    value: PlaywrightPageController = request.getfixturevalue("_own_controller" if fresh else "_shared_controller")
    return value


@pytest.fixture
def session(controller: PlaywrightPageController) -> BrowserSession:
    return controller.session


@pytest.fixture
def signal() -> AbortSignal:
    return AbortSignal()
