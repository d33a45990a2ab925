"""What waiting for the page to settle adds to an action (app/browser/settle.py).

On a static page nothing follows an action, so the wait is the quiet window itself; on a page with a
search-as-you-type field it lasts until the suggestions are shown. Prints the median action time (click, typing)
with the settle as it ships and with it cut to nothing, side by side, over repeated runs in one headless Chromium.

Run: .venv/bin/python -m tests.bench.bench_settle
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from app.browser.controller import PlaywrightPageController
from app.browser.session import BrowserSession, LaunchOptions
from app.browser.settle import Settler
from app.core.abort import AbortSignal
from tests.browser.helpers import index_of
from tests.fakes.html_site import html_site

RUNS = 15
STATIC = b"<!doctype html><title>Form</title><label>Name <input name=n></label><button type=button>Save</button>"


async def _median(controller: PlaywrightPageController, url: str, act: str) -> float:
    signal = AbortSignal()
    times = []
    for _ in range(RUNS):
        await controller.go_to_url(url, signal)
        content = (await controller.get_browser_state(signal)).content
        started = time.perf_counter()
        if act == "click":
            await controller.click(index_of(content, "Save"), signal)
        else:
            await controller.input_text(index_of(content, "<input"), "Ada", signal)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


async def main() -> None:
    with tempfile.TemporaryDirectory() as home, html_site(lambda path: STATIC) as origin:
        session = await BrowserSession.launch(LaunchOptions(profile_dir=Path(home) / "profile", headless=True))
        try:
            controller = PlaywrightPageController(session)
            shipped = controller.settler
            for act in ("click", "type"):
                controller.settler = shipped
                settled = await _median(controller, origin + "/", act)
                controller.settler = Settler(quiet=0.0, cap=0.0)
                bare = await _median(controller, origin + "/", act)
                print(
                    f"{act} on a static page: {settled:,.0f} ms with the settle, {bare:,.0f} ms without "
                    f"(+{settled - bare:,.0f} ms; medians of {RUNS})"
                )
        finally:
            await session.close()


if __name__ == "__main__":
    asyncio.run(main())
