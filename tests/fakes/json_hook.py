"""A stand-in for a notification service on 127.0.0.1: it keeps the JSON body of every POST (what apprise's json://
sends: version, title, message, type), and ``received`` is set at the first."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class JsonHook:
    address: str = ""  # host:port
    bodies: list[dict[str, Any]] = field(default_factory=list)
    received: threading.Event = field(default_factory=threading.Event)


@contextmanager
def json_hook() -> Iterator[JsonHook]:
    hook = JsonHook()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            data = self.rfile.read(int(self.headers.get("content-length") or 0))
            hook.bodies.append(json.loads(data))
            hook.received.set()
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *_args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    hook.address = f"127.0.0.1:{httpd.server_address[1]}"
    try:
        yield hook
    finally:
        httpd.shutdown()
        httpd.server_close()
