"""Hostile pages on 127.0.0.1 (two origins: the page and a second, attacker's, origin), real headless Chromium, and
an agent whose model is the real HTTP fake server scripted to obey whatever the page says.

Pages live in tests/security/pages; ``{{OTHER_ORIGIN}}`` in a page is replaced by the other server's origin. Every
request either server receives is kept in ``HostileSite.hits`` (method, path, body), so a test can show that a
secret, a file or a page's content never reached the attacker. ``/redirect?to=URL`` answers 302 to URL.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
import pytest_asyncio
from pydantic import SecretStr

from app.browser.controller import PlaywrightPageController
from app.core.agent import Agent
from app.core.config import AgentConfig
from app.llm.client import OpenAICompatibleClient
from app.llm.settings import LLMSettings
from tests.fakes.llm_server import FakeLLMServer

PAGES = Path(__file__).resolve().parent / "pages"


@dataclass(frozen=True)
class Hit:
    origin: str
    method: str
    path: str
    body: bytes


@dataclass
class HostileSite:
    """``page`` is the origin the agent is sent to; ``attacker`` the second origin a page tries to leak to."""

    page: str
    attacker: str
    hits: list[Hit] = field(default_factory=list)

    def received(self, needle: bytes | str, origin: str | None = None) -> bool:
        """Whether any request (path or body) to ``origin`` (default: either) carried ``needle``."""
        raw = needle.encode() if isinstance(needle, str) else needle
        return any(
            raw in hit.body or raw in hit.path.encode() for hit in self.hits if origin is None or hit.origin == origin
        )


def _handler(site: HostileSite, own: Callable[[], str], other: Callable[[], str]) -> type:
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *_args: Any) -> None:
            pass

        def _record(self, body: bytes = b"") -> None:
            site.hits.append(Hit(own(), self.command, self.path, body))

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            self._record(self.rfile.read(length))
            self._send(200, b"<!doctype html><title>Received</title><p>Received</p>")

        def do_GET(self) -> None:
            self._record()
            url = urlparse(self.path)
            if url.path == "/redirect":
                target = parse_qs(url.query).get("to", [""])[0]
                self.send_response(302)
                self.send_header("Location", target)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            path = (PAGES / url.path.lstrip("/")).resolve()
            if PAGES not in path.parents or not path.is_file():
                self._send(404, b"<!doctype html><title>Not found</title><p>Not found</p>")
                return
            body = path.read_bytes()
            if path.suffix == ".html":
                body = body.replace(b"{{OTHER_ORIGIN}}", other().encode())
            self._send(200, body, "text/html; charset=utf-8" if path.suffix == ".html" else "text/plain")

        def _send(self, status: int, body: bytes, content_type: str = "text/html; charset=utf-8") -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


@pytest.fixture
def hostile() -> Iterator[HostileSite]:
    site = HostileSite("", "")
    servers: list[http.server.ThreadingHTTPServer] = []
    for own, other in ((lambda: site.page, lambda: site.attacker), (lambda: site.attacker, lambda: site.page)):
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(site, own, other))
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        servers.append(server)
    site.page = f"http://127.0.0.1:{servers[0].server_address[1]}"
    site.attacker = f"http://127.0.0.1:{servers[1].server_address[1]}"
    yield site
    for server in servers:
        server.shutdown()
        server.server_close()


AgentOnPage = Callable[..., Agent]


@pytest_asyncio.fixture(loop_scope="module")  # on the module's loop, as the shared browser
async def agent_on_page(controller: PlaywrightPageController, llm_server: FakeLLMServer) -> AsyncIterator[AgentOnPage]:
    """``agent_on_page(config=None, **agent_kwargs)``: an Agent on the real Chromium controller and the fake model."""
    settings = LLMSettings(
        base_url=llm_server.base_url, api_key=SecretStr("sk-test-secret"), model="fake-model", retry_base_delay=0.01
    )
    clients: list[OpenAICompatibleClient] = []
    agents: list[Agent] = []

    def factory(config: AgentConfig | None = None, **kwargs: Any) -> Agent:
        client = OpenAICompatibleClient(settings)
        agent = Agent(client, controller, config, **kwargs)
        clients.append(client)
        agents.append(agent)
        return agent

    yield factory
    for agent in agents:
        await agent.dispose()
    for client in clients:
        await client.close()
