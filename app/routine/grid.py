"""A Selenium Grid 4 by its own address (a router, a hub or a standalone: ``http://grid:4444``), as the W3C
WebDriver protocol reaches it: known by its ``/status`` (which lists its nodes), asked for one browser per session
(``browserName`` chrome; the node's own configuration says which binary and options), each session's CDP address read
from ``se:cdp`` and reached through the address the person gave, and every session this process asked for deleted
when it is done with it (a session left behind holds a node's slot until the grid's timeout).

The grid's queue is the grid's: a request for a session waits in it, and abandoning that request (the routine ended,
or was stopped) closes its connection, which takes it out of the queue. Each session carries a capability of this
routine's own (``TAG``), so that one the grid made as the request was abandoned is found and deleted too. A session
no WebDriver command reaches for the grid's session timeout is ended by the grid, whatever its CDP connection does:
each one is kept alive by a cheap command while it is ours.

No Playwright here: HTTP only, each request on a thread of its own (the grid's queue may hold one for minutes).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import http.client
import json
import logging
import secrets
import socket
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

from app.browser.endpoint import shown_endpoint

log = logging.getLogger(__name__)

TAG = "page-agent:routine"  # an extension capability (W3C: a name with a colon) that marks our sessions
_STATUS_TIMEOUT = 5.0
_CALL_TIMEOUT = 30.0
# A new-session request waits in the grid's queue for the grid's session-request-timeout (300 s by default); this
# only bounds a grid that never answers at all.
_QUEUE_TIMEOUT = 3600.0
_ANSWER_LIMIT = 4 * 1024 * 1024
_BUSY = frozenset({429, 503})  # a queue that is full, a rate limit: back off and ask again
_DEFAULT_SESSION_TIMEOUT = 300.0  # the grid's own default (--session-timeout)


class GridBusy(Exception):
    """The grid answered 429 or 503 (or could not be reached for now): ask again after a while."""


class GridRefused(Exception):
    """The grid could not give a browser; the message says why in plain words. ``again``: it may give one later (its
    queue timed out while its nodes were busy); else no node can serve the request."""

    def __init__(self, words: str, *, again: bool) -> None:
        super().__init__(words)
        self.again = again


@dataclass(frozen=True)
class GridSession:
    id: str
    cdp: str  # its CDP address, through the grid's router


def grid_session_timeout(endpoint: str) -> float | None:
    """None when ``endpoint`` is not a Selenium Grid 4 (its /status lists no nodes); else the shortest session
    timeout of its nodes, in seconds. Blocking: call it off the event loop."""
    try:
        status, answer = _Call(endpoint, "GET", "/status", None, _STATUS_TIMEOUT).run()
    except (OSError, ValueError, http.client.HTTPException):
        return None
    value = answer.get("value") if isinstance(answer, dict) else None
    if status != 200 or not isinstance(value, dict) or not isinstance(value.get("nodes"), list):
        return None
    timeouts = [node.get("sessionTimeout") for node in value["nodes"] if isinstance(node, dict)]
    found = [float(each) / 1000 for each in timeouts if isinstance(each, (int, float)) and each > 0]
    return min(found, default=_DEFAULT_SESSION_TIMEOUT)


class Grid:
    """The sessions one routine asks of one grid. ``close()`` deletes every one of them, and any the grid made for a
    request abandoned on the way."""

    def __init__(self, endpoint: str, session_timeout: float) -> None:
        self.endpoint = endpoint
        self.label = shown_endpoint(endpoint)
        self._tag = secrets.token_hex(8)
        self._keep_alive_every = max(1.0, min(60.0, session_timeout / 3))
        self._alive: dict[str, asyncio.Task[None]] = {}

    @property
    def sessions(self) -> list[str]:
        return list(self._alive)

    async def new_session(self) -> GridSession:
        """A browser of the grid's, once the grid's queue hands one out: GridBusy (back off), GridRefused (plain
        words), RuntimeError (an answer that is not the grid's)."""
        capabilities = {"browserName": "chrome", TAG: self._tag}
        body = {"capabilities": {"alwaysMatch": capabilities}}
        status, answer = await self._call("POST", "/session", body, _QUEUE_TIMEOUT)
        value = answer.get("value") if isinstance(answer, dict) else None
        if status in _BUSY:
            raise GridBusy(f"The Selenium Grid at {self.label} is busy (HTTP {status}).")
        if status != 200 or not isinstance(value, dict):
            raise self._refusal(status, value)
        session_id = str(value.get("sessionId", ""))
        given = value.get("capabilities")
        cdp = given.get("se:cdp") if isinstance(given, dict) else None
        if not session_id:
            raise RuntimeError(f"The Selenium Grid at {self.label} answered without a session.")
        self._alive[session_id] = asyncio.ensure_future(self._keep_alive(session_id))
        if not isinstance(cdp, str) or not cdp:
            await self.end(session_id)
            raise GridRefused(
                f"The Selenium Grid at {self.label} gave a browser without a CDP address (se:cdp): the routine needs "
                "Chrome, Chromium or Edge on its nodes, with CDP on.",
                again=False,
            )
        return GridSession(session_id, self._through_router(cdp))

    async def end(self, session_id: str) -> None:
        """Delete the session (its browser goes, its node's slot is free again); quietly when it is gone already."""
        keeper = self._alive.pop(session_id, None)
        if keeper is not None:
            keeper.cancel()
        try:
            await self._call("DELETE", f"/session/{session_id}", None, _CALL_TIMEOUT)
        except (OSError, ValueError, http.client.HTTPException) as exc:
            log.warning("could not delete the grid session %s at %s: %s", session_id, self.label, exc)

    async def close(self) -> None:
        """Every session of ours deleted, those the grid made for an abandoned request included."""
        for session_id in self.sessions:
            await self.end(session_id)
        for session_id in await self._tagged():
            await self.end(session_id)

    async def _tagged(self) -> list[str]:
        """Sessions of the grid's that carry this routine's tag."""
        try:
            _, answer = await self._call("GET", "/status", None, _CALL_TIMEOUT)
        except (OSError, ValueError, http.client.HTTPException):
            return []
        value = answer.get("value") if isinstance(answer, dict) else None
        nodes = value.get("nodes") if isinstance(value, dict) else None
        found = []
        for node in nodes if isinstance(nodes, list) else []:
            for slot in node.get("slots", []) if isinstance(node, dict) else []:
                session = slot.get("session") if isinstance(slot, dict) else None
                if isinstance(session, dict) and session.get("capabilities", {}).get(TAG) == self._tag:
                    found.append(str(session.get("sessionId")))
        return found

    async def _keep_alive(self, session_id: str) -> None:
        """A command now and then: the grid ends a session no command reached within its session timeout (a row
        waiting for the person, windows waiting while the first row learns the path)."""
        while True:
            await asyncio.sleep(self._keep_alive_every)
            try:
                status, _ = await self._call("GET", f"/session/{session_id}/timeouts", None, _CALL_TIMEOUT)
            except (OSError, ValueError, http.client.HTTPException):
                continue
            if status == 404:
                return

    def _refusal(self, status: int, value: object) -> GridRefused:
        error = value.get("error", "") if isinstance(value, dict) else ""
        message = str(value.get("message", "")) if isinstance(value, dict) else ""
        said = (message.strip().splitlines() or [str(error) or f"HTTP {status}"])[0]
        again = "timed out" in said.lower()  # the grid's queue timed out: its nodes may be free later
        return GridRefused(f"The Selenium Grid at {self.label} could not give a browser: {said}", again=again)

    def _through_router(self, cdp: str) -> str:
        """The session's CDP address as the grid's router serves it at the address the person gave: the grid names
        itself as it sees itself (a container's name, another interface), which may not be reachable from here."""
        given, told = urlsplit(self.endpoint), urlsplit(cdp)
        scheme = "wss" if given.scheme == "https" else "ws"
        return urlunsplit((scheme, given.netloc, told.path, told.query, ""))

    async def _call(self, method: str, path: str, body: object, timeout: float) -> tuple[int, Any]:
        call = _Call(self.endpoint, method, path, body, timeout)
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[tuple[int, Any]] = loop.create_future()

        def run() -> None:
            try:
                result = call.run()
            except BaseException as exc:  # handed to the waiting task
                loop.call_soon_threadsafe(_settle, answer, None, exc)
            else:
                loop.call_soon_threadsafe(_settle, answer, result, None)

        threading.Thread(target=run, name="grid-request", daemon=True).start()
        try:
            return await answer
        except asyncio.CancelledError:
            call.cancel()  # the grid takes a request out of its queue when its connection closes
            raise


def _settle(future: asyncio.Future[tuple[int, Any]], result: tuple[int, Any] | None, exc: BaseException | None) -> None:
    if future.done():
        return
    if exc is not None:
        future.set_exception(exc)
    elif result is not None:
        future.set_result(result)


class _Call:
    """One HTTP request to the grid, on the calling thread; ``cancel()`` from another thread closes its connection."""

    def __init__(self, endpoint: str, method: str, path: str, body: object, timeout: float) -> None:
        parts = urlsplit(endpoint)
        kind = http.client.HTTPSConnection if parts.scheme in ("https", "wss") else http.client.HTTPConnection
        self._connection = kind(parts.hostname or "", parts.port, timeout=timeout)
        self._method = method
        self._path = parts.path.rstrip("/") + path
        self._body = None if body is None else json.dumps(body).encode()
        self._headers = {"Accept": "application/json", "Content-Type": "application/json; charset=utf-8"}
        if parts.username is not None:  # a grid behind basic authentication: http://user:password@grid:4444
            pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
            self._headers["Authorization"] = "Basic " + base64.b64encode(pair).decode()

    def run(self) -> tuple[int, Any]:
        try:
            self._connection.request(self._method, self._path, self._body, self._headers)
            response = self._connection.getresponse()
            data = response.read(_ANSWER_LIMIT)
        finally:
            self._connection.close()
        try:
            return response.status, json.loads(data) if data else None
        except ValueError:
            return response.status, None

    def cancel(self) -> None:
        sock = self._connection.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        self._connection.close()
