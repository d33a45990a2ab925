"""A CRM-like site on 127.0.0.1 that keeps its customers on the server, for routine tests and the routine bench.

``/new`` is the new-customer form (name, email, plan drop-down, start date, newsletter checkbox, Save). A POST to
``/customers`` saves the record (the server is the truth: ``records``) and shows "Saved customer", or refuses it with
"Refused: …" (an email without "@", or one already saved). An email in ``captcha_emails`` first gets a Security
check page, which goes on by itself once the test ``solve()``s it, or once a person types ``captcha_code`` in its
field and presses Verify (``codes``: what was typed there). ``form_version = 2`` renames the email field, the way a
site changes between rows; ``save_label`` words the Save button ("Save and pay $9" makes it a risky click),
``newsletter_label`` the check box.
``on_post`` runs as each POST arrives (a test kills the routine there, in mid-row). ``foreign_keys`` stands for
someone typing in the form's window while the agent types: the name field gets those characters after the agent's
first key.
"""

from __future__ import annotations

import html
import itertools
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

FORM = """<!doctype html><html lang=en><meta charset=utf-8><title>New customer — Test CRM</title>
<h1>New customer</h1>{error}
<form method=post action=/customers>
<p><label>Name <input name=name></label></p>
<p><label>{email_label} <input name={email_name} type=email></label></p>
<p><label>Plan <select name=plan><option>Free</option><option>Starter</option><option>Pro</option></select></label></p>
<p><label>Start date <input name=start type=date></label></p>
<p><label><input type=checkbox name=newsletter> {newsletter}</label></p>
<p><button>{save}</button></p>
</form>{script}</html>"""
# What another person's keys do to the name field while the agent types into it.
FOREIGN_KEYS = """<script>const name = document.querySelector('[name=name]');
name.addEventListener('input', () => {{ name.value += {keys}; }}, {{once: true}});</script>"""
SAVED = """<!doctype html><html lang=en><meta charset=utf-8><title>Saved — Test CRM</title>
<h1>Saved customer {name}</h1><p>Customer number: {id}</p><p><a href=/new>New customer</a></p></html>"""
# It asks the server one question at a time and goes on once: on a loaded machine an interval's polls overlapped,
# several came back "solved" and each navigated, and the last one's /verify/done (done already) replaced the Saved
# page with "not solved".
VERIFY = """<!doctype html><html lang=en><meta charset=utf-8><title>Security check — Test CRM</title>
<h1>Security check</h1><p>A person must confirm this customer before it is saved.</p>
<form method=post action=/verify><input type=hidden name=id value={id}>
<p><label>Type the characters <input name=code autofocus autocomplete=off></label></p>
<p><button>Verify</button></p></form>
<script>
const poll = async () => {{
  if ((await (await fetch('/verify/status?id={id}')).text()) === 'solved') location = '/verify/done?id={id}';
  else setTimeout(poll, 100);
}};
setTimeout(poll, 100);
</script></html>"""


@dataclass
class CrmSite:
    url: str = ""
    records: list[dict[str, str]] = field(default_factory=list)
    posts: int = 0
    captcha_emails: set[str] = field(default_factory=set)
    form_version: int = 1
    save_label: str = "Save"
    newsletter_label: str = "Newsletter"
    foreign_keys: str = ""
    captcha_code: str = "7Kq4Zx"
    codes: list[str] = field(default_factory=list)
    unique_emails: bool = True  # False: a second record with the same email is saved too (a test counts twice)
    on_post: Callable[[dict[str, str]], None] | None = None
    # Set when a page passed its Security check and went on: its Saved page was served (what the person sees
    # before pressing continue; set at the check itself, a continue under load could find the page mid-redirect).
    passed: threading.Event = field(default_factory=threading.Event)
    _checked: set[str] = field(default_factory=set)  # ids of the records saved after a Security check
    _pending: dict[str, dict[str, str]] = field(default_factory=dict)
    _solved: set[str] = field(default_factory=set)
    _done: dict[str, str] = field(default_factory=dict)  # a passed check's token, and where its record is
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    @property
    def new_url(self) -> str:
        return self.url + "/new"

    def emails(self) -> list[str]:
        with self._lock:
            return [record["email"] for record in self.records]

    def solve(self) -> None:
        """What the person does at the Security check: every pending one passes."""
        with self._lock:
            self._solved.update(self._pending)

    def form(self, error: str = "") -> bytes:
        email_label, email_name = ("Email", "email") if self.form_version == 1 else ("Contact email", "contact_email")
        alert = f"<p role=alert>Refused: {html.escape(error)}</p>" if error else ""
        script = FOREIGN_KEYS.format(keys=json.dumps(self.foreign_keys)) if self.foreign_keys else ""
        return FORM.format(
            error=alert,
            email_label=email_label,
            email_name=email_name,
            save=html.escape(self.save_label),
            newsletter=html.escape(self.newsletter_label),
            script=script,
        ).encode()

    def verify(self, data: dict[str, str]) -> tuple[int, bytes, str]:
        """The person's answer at a Security check."""
        token, code = data.get("id", ""), data.get("code", "")
        with self._lock:
            self.codes.append(code)
            if token not in self._pending:
                return 404, b"no such check", ""
            if code != self.captcha_code:
                return 200, VERIFY.format(id=html.escape(token)).encode(), ""
            self._solved.add(token)
        return 303, b"", f"/verify/done?id={token}"

    def post(self, data: dict[str, str]) -> tuple[int, bytes, str]:
        """(status, body, location) for a POSTed form."""
        if self.on_post is not None:
            self.on_post(data)
        email = data.get("email") or data.get("contact_email") or ""
        record = {
            "name": data.get("name", ""),
            "email": email,
            "plan": data.get("plan", ""),
            "start": data.get("start", ""),
            "newsletter": "yes" if data.get("newsletter") else "no",
        }
        with self._lock:
            self.posts += 1
            if "@" not in email:
                return 200, self.form("that email address is not valid."), ""
            if self.unique_emails and any(r["email"] == email for r in self.records):
                return 200, self.form("that email is already a customer."), ""
            if email in self.captcha_emails and email not in {p["email"] for p in self._pending.values()}:
                token = str(next(self._ids))
                self._pending[token] = record
                return 200, VERIFY.format(id=token).encode(), ""
        return 303, b"", self._save(record)

    def _save(self, record: dict[str, str]) -> str:
        with self._lock:
            record = {**record, "id": str(len(self.records) + 1)}
            self.records.append(record)
        return f"/saved?id={record['id']}"

    def get(self, path: str) -> tuple[int, bytes, str]:
        parts = urlsplit(path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        if parts.path in ("/", "/new"):
            return 200, self.form(), ""
        if parts.path == "/saved":
            with self._lock:
                record = next((r for r in self.records if r["id"] == query.get("id")), None)
            if record is None:
                return 404, b"no such customer", ""
            if record["id"] in self._checked:
                self.passed.set()
            return 200, SAVED.format(name=html.escape(record["name"]), id=record["id"]).encode(), ""
        if parts.path == "/verify/status":
            with self._lock:
                return 200, (b"solved" if query.get("id") in self._solved else b"waiting"), ""
        if parts.path == "/verify/done":
            token = query.get("id", "")
            with self._lock:
                if token in self._done:  # asked twice (the page's own check and the person's Verify): saved once
                    return 303, b"", self._done[token]
                record = self._pending.pop(token, None) if token in self._solved else None
            if record is None:
                return 404, b"not solved", ""
            saved = self._save(record)
            with self._lock:
                self._checked.add(saved.split("=", 1)[1])
                self._done[token] = saved
            return 303, b"", saved
        return 404, b"not found", ""


@contextmanager
def crm_site() -> Iterator[CrmSite]:
    site = CrmSite()

    class Handler(BaseHTTPRequestHandler):
        def _answer(self, status: int, body: bytes, location: str) -> None:
            try:
                self.send_response(status)
                if location:
                    self.send_header("location", location)
                self.send_header("content-type", "text/html; charset=utf-8")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def do_GET(self) -> None:
            self._answer(*site.get(self.path))

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            fields = parse_qs(self.rfile.read(length).decode("utf-8"), keep_blank_values=True)
            data = {k: v[0] for k, v in fields.items()}
            self._answer(*(site.verify(data) if self.path == "/verify" else site.post(data)))

        def log_message(self, *_args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    site.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        yield site
    finally:
        httpd.shutdown()
        httpd.server_close()
