"""Serves resources/demo/ on 127.0.0.1 so demos and tests have a realistic site without the network.

A deliberately small HTTP/1.1 server on asyncio streams: GET and HEAD, one request per connection. File-system
work runs in a thread so the shared Qt/asyncio loop never stalls on disk.
"""

from __future__ import annotations

import asyncio
import contextlib
import mimetypes
from dataclasses import dataclass
from email.utils import formatdate
from http import HTTPStatus
from pathlib import Path
from urllib.parse import unquote, urlsplit

from app.assets import resource_path

DEMO_HOST = "127.0.0.1"

# Explicit types for what the site ships: mimetypes alone depends on the host's /etc/mime.types.
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".json": "application/json; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".txt": "text/plain; charset=utf-8",
}
MAX_HEADER_BYTES = 16 * 1024
# A client that connects and says nothing must not hold a task forever.
REQUEST_TIMEOUT = 10.0
NOT_FOUND_PAGE = "404.html"


@dataclass(frozen=True)
class Response:
    status: HTTPStatus
    body: bytes = b""
    content_type: str = "text/plain; charset=utf-8"
    location: str | None = None


class DemoSite:
    """``url = await site.start()`` … ``await site.stop()``; the port is chosen by the OS."""

    def __init__(self, root: Path | None = None, host: str = DEMO_HOST) -> None:
        self._root = (root if root is not None else resource_path("demo")).resolve()
        self._host = host
        self._server: asyncio.Server | None = None
        self._handlers: set[asyncio.Task[None]] = set()
        self._base_url: str | None = None

    @property
    def base_url(self) -> str:
        if self._base_url is None:
            raise RuntimeError("the demo site is not running")
        return self._base_url

    def url(self, path: str = "") -> str:
        return self.base_url + path.lstrip("/")

    async def start(self) -> str:
        if self._server is not None:
            raise RuntimeError("the demo site is already running")
        self._server = await asyncio.start_server(self._handle, self._host, 0, limit=MAX_HEADER_BYTES)
        port = self._server.sockets[0].getsockname()[1]
        self._base_url = f"http://{self._host}:{port}/"
        return self._base_url

    async def opened(self, path: str = "") -> str:
        """The address of ``path``, the site started first when it is not running (again after ``stop``)."""
        if self._server is None:
            await self.start()
        return self.url(path)

    async def stop(self) -> None:
        server, self._server, self._base_url = self._server, None, None
        if server is None:
            return
        server.close()
        # Python 3.11's wait_closed() does not wait for open connections, so end them here.
        for task in list(self._handlers):
            task.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)
        await server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        try:
            method, response = await self._respond(reader)
            await self._send(writer, response, include_body=method != "HEAD")
        except (TimeoutError, ConnectionError):
            pass
        finally:
            self._handlers.discard(task)
            writer.close()
            with contextlib.suppress(ConnectionError, asyncio.CancelledError):
                await writer.wait_closed()

    async def _respond(self, reader: asyncio.StreamReader) -> tuple[str, Response]:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), REQUEST_TIMEOUT)
        except (asyncio.LimitOverrunError, asyncio.IncompleteReadError, ValueError):
            return "GET", _plain(HTTPStatus.BAD_REQUEST)
        parts = head.split(b"\r\n", 1)[0].decode("latin-1").split()
        if len(parts) != 3 or not parts[2].startswith("HTTP/"):
            return "GET", _plain(HTTPStatus.BAD_REQUEST)
        method, target, _version = parts
        if method not in ("GET", "HEAD"):
            return method, _plain(HTTPStatus.METHOD_NOT_ALLOWED)
        return method, await asyncio.to_thread(self._lookup, target)

    def _lookup(self, target: str) -> Response:
        """Runs in a worker thread: maps a request target to a file strictly inside the site's root."""
        raw_path = urlsplit(target).path
        path = unquote(raw_path)
        if not path.startswith("/") or "\0" in path:
            return _plain(HTTPStatus.BAD_REQUEST)
        candidate = (self._root / path.lstrip("/")).resolve()
        if not candidate.is_relative_to(self._root):
            return self._not_found()
        if candidate.is_dir():
            if not raw_path.endswith("/"):
                # Relative links in the index page only work from a URL that ends in a slash.
                return Response(HTTPStatus.MOVED_PERMANENTLY, location=raw_path + "/")
            candidate = candidate / "index.html"
        if not candidate.is_file():
            return self._not_found()
        return Response(HTTPStatus.OK, candidate.read_bytes(), _content_type(candidate))

    def _not_found(self) -> Response:
        page = self._root / NOT_FOUND_PAGE
        if page.is_file():
            return Response(HTTPStatus.NOT_FOUND, page.read_bytes(), CONTENT_TYPES[".html"])
        return _plain(HTTPStatus.NOT_FOUND)

    @staticmethod
    async def _send(writer: asyncio.StreamWriter, response: Response, include_body: bool) -> None:
        headers = {
            "Date": formatdate(usegmt=True),
            "Server": "AcmeDemo",
            "Content-Type": response.content_type,
            "Content-Length": str(len(response.body)),
            # The demo's pages change between runs of a developer's checkout; never serve a stale copy.
            "Cache-Control": "no-store",
            "X-Content-Type-Options": "nosniff",
            "Connection": "close",
        }
        if response.location is not None:
            headers["Location"] = response.location
        if response.status is HTTPStatus.METHOD_NOT_ALLOWED:
            headers["Allow"] = "GET, HEAD"
        lines = [f"HTTP/1.1 {response.status.value} {response.status.phrase}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        if include_body:
            writer.write(response.body)
        await writer.drain()


def _plain(status: HTTPStatus) -> Response:
    return Response(status, f"{status.value} {status.phrase}\n".encode())


def _content_type(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix in CONTENT_TYPES:
        return CONTENT_TYPES[suffix]
    guessed, _encoding = mimetypes.guess_type(path.name)
    return guessed or "application/octet-stream"
