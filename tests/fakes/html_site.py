"""A local web site for tests, on 127.0.0.1, answering each GET from a function of its path.

The function returns the page's bytes (200), a (status, bytes) pair, or None to answer nothing at all (it may also
block first, as a server that never answers does). It runs in the server's threads, never on the test's loop."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = bytes | tuple[int, bytes] | None


@contextmanager
def html_site(respond: Callable[[str], Answer]) -> Iterator[str]:
    """The site's origin ("http://127.0.0.1:PORT") while the block runs."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            answer = respond(self.path)
            if answer is None:
                return
            status, body = answer if isinstance(answer, tuple) else (200, answer)
            try:
                self.send_response(status)
                self.send_header("content-type", "text/html; charset=utf-8")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the browser moved on

        def log_message(self, *_args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
