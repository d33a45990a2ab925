"""A stand-in sign-in site on 127.0.0.1 that asks for a password, then for a one-time code, and checks the code as a
real site does: computed from the account's setup key on its own clock (the test's, or the system's), the current window
or, for a code typed just before the edge, the one before. Every attempt is kept in ``log`` with the code received,
the window it belongs to and whether it was taken. ``refuse`` makes it refuse that many codes, right or wrong. A
code it took is shown back on the page ("Code 123456 accepted"), as some sites do."""

from __future__ import annotations

import html
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from app.core.safety.one_time_codes import TotpKey

_SIGN_IN = """<!doctype html><title>Acme billing — sign in</title>
<h1>Sign in to Acme billing</h1>{message}
<form method=post action=/signin>
<label>User <input name=user></label>
<label>Password <input type=password name=password></label>
<button>Sign in</button>
</form>"""
_CODE = """<!doctype html><title>Acme billing — two-step verification</title>
<h1>Two-step verification</h1>{message}
<form method=post action=/code>
<input type=hidden name=user value="{user}">
<label>Authenticator code <input name=code autocomplete=one-time-code inputmode=numeric></label>
<button>Verify</button>
</form>"""


@dataclass(frozen=True)
class Attempt:
    user: str
    code: str
    window: int | None  # the window whose code it is (None: no window of the last two)
    accepted: bool


@dataclass
class TotpSite:
    accounts: dict[str, tuple[str, TotpKey]]  # user -> (password, key)
    now: Callable[[], float] = time.time
    origin: str = ""
    refuse: int = 0
    log: list[Attempt] = field(default_factory=list)

    def attempt(self, user: str, code: str) -> Attempt:
        known = self.accounts.get(user)
        window = None
        if known is not None:
            key, at = known[1], self.now()
            window = next((key.window(t) for t in (at, at - key.period) if key.code(t) == code), None)
        refused = window is not None and self.refuse > 0
        self.refuse -= int(refused)
        attempt = Attempt(user, code, window, window is not None and not refused)
        self.log.append(attempt)
        return attempt


@contextmanager
def totp_site(site: TotpSite) -> Iterator[TotpSite]:
    """``site`` served while the block runs; its ``origin`` set."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            url = urlsplit(self.path)
            if url.path == "/code":  # past the password already (?user=…)
                user = parse_qs(url.query).get("user", [""])[-1]
                self._send(_CODE.format(message="", user=html.escape(user)))
            else:
                self._send(_SIGN_IN.format(message=""))

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0)).decode()
            form = {name: values[-1] for name, values in parse_qs(body, keep_blank_values=True).items()}
            user = form.get("user", "")
            if self.path == "/signin":
                known = site.accounts.get(user)
                if known is None or known[0] != form.get("password"):
                    self._send(_SIGN_IN.format(message="<p role=alert>Wrong user or password.</p>"))
                else:
                    self._send(_CODE.format(message="", user=html.escape(user)))
                return
            attempt = site.attempt(user, form.get("code", ""))
            if attempt.accepted:
                self._send(
                    f"<!doctype html><title>Acme billing</title><h1>Signed in as {html.escape(user)}</h1>"
                    f"<p>Code {html.escape(attempt.code)} accepted.</p>"
                )
            else:
                message = "<p role=alert>That code is wrong. Try again.</p>"
                self._send(_CODE.format(message=message, user=html.escape(user)))

        def _send(self, page: str) -> None:
            data = page.encode()
            self.send_response(200)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *_args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    site.origin = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        yield site
    finally:
        httpd.shutdown()
        httpd.server_close()
