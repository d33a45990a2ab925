"""What the allowed-sites route costs a page load: a page with 50 sub-resources (images, scripts, style sheets),
loaded to its "load" event with and without the navigation guard's route (runs interleaved, medians).

Run: .venv/bin/python -m tests.bench.bench_navigation_guard   (headless Chromium, a local HTTP server)
"""

from __future__ import annotations

import asyncio
import http.server
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from app.browser.controller import PlaywrightPageController
from app.browser.session import BrowserSession, LaunchOptions
from app.core.abort import AbortSignal
from app.core.safety.guardrails import Guardrails
from app.core.safety.navigation import NavigationPolicy

RUNS = 15
RESOURCES = 50


def _page() -> bytes:
    tags = []
    for i in range(RESOURCES):
        kind = i % 3
        tags.append(
            f'<img src="/r/{i}.svg">'
            if kind == 0
            else f'<script src="/r/{i}.js"></script>'
            if kind == 1
            else f'<link rel=stylesheet href="/r/{i}.css">'
        )
    return ("<!doctype html><title>Fifty</title>" + "".join(tags) + "<p>done</p>").encode()


class _Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *_args: Any) -> None:
        pass

    def do_GET(self) -> None:
        if self.path.startswith("/page"):
            body, kind = _page(), "text/html"
        elif self.path.endswith(".svg"):
            body, kind = b'<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>', "image/svg+xml"
        elif self.path.endswith(".js"):
            body, kind = b"window.loaded = (window.loaded || 0) + 1;", "text/javascript"
        else:
            body, kind = b"p { margin: 1px }", "text/css"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")  # routing turns the cache off: compare like with like
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the browser moved on to the next load


async def _load(controller: PlaywrightPageController, url: str) -> float:
    page = controller.session.active_page
    started = time.perf_counter()
    await page.goto(url, wait_until="load")
    return (time.perf_counter() - started) * 1000


async def main() -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    signal = AbortSignal()
    with tempfile.TemporaryDirectory() as tmp:
        session = await BrowserSession.launch(LaunchOptions(profile_dir=Path(tmp) / "profile", headless=True))
        try:
            controller = PlaywrightPageController(session)
            guarded = Guardrails(navigation=NavigationPolicy(allowed_domains=("127.0.0.1",)))
            times: dict[str, list[float]] = {"no route": [], "route": []}
            for run in range(RUNS + 2):
                for name, guardrails in (("no route", Guardrails()), ("route", guarded)):
                    controller.guardrails = guardrails
                    await controller.get_browser_state(signal)  # the route follows the guardrails here
                    elapsed = await _load(controller, f"{origin}/page?{run}")
                    if run >= 2:  # warm-up
                        times[name].append(elapsed)
        finally:
            await session.close()
            server.shutdown()
    plain, routed = (statistics.median(times[k]) for k in ("no route", "route"))
    print(
        f"page with {RESOURCES} sub-resources, median of {RUNS} loads: without route {plain:.1f} ms, "
        f"with route {routed:.1f} ms, overhead {routed - plain:+.1f} ms ({(routed - plain) / RESOURCES:+.2f} ms "
        "per request)"
    )


if __name__ == "__main__":
    asyncio.run(main())
