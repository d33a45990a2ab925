"""A stand-in in front of a real CDP endpoint, answering as a full one does: its first connections to the browser get
an HTTP status (429 as browserless' full queue or a cloud's session rate limit, 503 as a service that is busy), the
rest reach the browser behind it byte for byte (and so does any other request: a look at ``/status``)."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import urlsplit

_REASONS = {429: "Too Many Requests", 503: "Service Unavailable"}


@dataclass
class BusyEndpoint:
    address: str
    refused: list[int] = field(default_factory=list)  # the statuses answered so far, in order
    passed: int = 0  # connections that went through


@contextlib.contextmanager
def busy_endpoint(target: str, statuses: list[int]) -> Iterator[BusyEndpoint]:
    """``target``'s stand-in (``http://127.0.0.1:PORT``): the first ``len(statuses)`` connections are answered with
    those statuses in turn."""
    behind = urlsplit(target)
    listener = socket.create_server(("127.0.0.1", 0))
    endpoint = BusyEndpoint(f"http://127.0.0.1:{listener.getsockname()[1]}")
    left = list(statuses)
    lock = threading.Lock()

    def serve() -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            client.settimeout(10)
            try:
                request = client.recv(65536)
            except OSError:
                client.close()
                continue
            with lock:
                for_browser = not request.startswith(b"GET /status ")
                status = left.pop(0) if left and for_browser else None
            if status is None:
                endpoint.passed += int(for_browser)
                relay = threading.Thread(
                    target=_relay, args=(client, request, behind.hostname, behind.port), daemon=True
                )
                relay.start()
            else:
                endpoint.refused.append(status)
                _refuse(client, status)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield endpoint
    finally:
        listener.close()
        thread.join(5)


def _refuse(client: socket.socket, status: int) -> None:
    with client, contextlib.suppress(OSError):
        body = b"Too many requests"
        head = f"HTTP/1.1 {status} {_REASONS[status]}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        client.sendall(head.encode() + body)


def _relay(client: socket.socket, request: bytes, host: str | None, port: int | None) -> None:
    client.settimeout(None)
    with client, socket.create_connection((host or "127.0.0.1", port or 80)) as upstream:
        upstream.sendall(request)
        pipes = [
            threading.Thread(target=_pipe, args=(client, upstream), daemon=True),
            threading.Thread(target=_pipe, args=(upstream, client), daemon=True),
        ]
        for pipe in pipes:
            pipe.start()
        for pipe in pipes:
            pipe.join()


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            sink.sendall(data)
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)
