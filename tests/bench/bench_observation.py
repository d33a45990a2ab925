"""Observation benchmark: time to extract and serialize a page (get_browser_state), and the size of what it says.

Run: .venv/bin/python -m tests.bench.bench_observation   (headless Chromium; prints medians over repeated runs)
Targets: <= 30 ms at 200 interactive elements, <= 150 ms at 10,000.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from app.browser.controller import PlaywrightPageController
from app.browser.session import BrowserSession, LaunchOptions
from app.core.abort import AbortSignal

RUNS = 21


def controls_page(count: int) -> str:
    """A form-like page cycling through the kinds of interactive element the observer must recognise."""
    kinds = (
        '<label>Field {i}<input name="f{i}" placeholder="Value {i}"></label>',
        '<button type="button">Action {i}</button>',
        '<a href="/item/{i}?ref=list">Item {i} details</a>',
        '<select name="s{i}"><option>One</option><option>Two</option><option>Three</option></select>',
        '<div style="cursor:pointer" onclick="void 0"><span>Card {i}</span> <small>more</small></div>',
        '<div role="checkbox" aria-checked="false" tabindex="0">Option {i}</div>',
        '<textarea name="t{i}"></textarea>',
        '<p>Paragraph {i} explains the next control in a sentence or two.</p><input type="checkbox" name="c{i}">',
    )
    rows = "\n".join(f"<div class=row>{kinds[i % len(kinds)].format(i=i)}</div>" for i in range(count))
    return f"<title>{count} controls</title><style>.row{{margin:6px}}</style><h1>{count} controls</h1>{rows}"


def text_page(paragraphs: int) -> str:
    sentence = "This is a long article with plenty of ordinary text that is not interactive at all. "
    body = "\n".join(f"<h2>Section {i}</h2><p>{sentence * 6}<a href='#s{i}'>anchor</a> {sentence * 3}</p>"
                     for i in range(paragraphs))
    return f"<title>Long article</title><article>{body}</article>"


async def measure(controller: PlaywrightPageController, html: str, scroll_to: float = 0.0) -> tuple[float, int]:
    page = controller.session.active_page
    await page.set_content(html)
    if scroll_to:
        await page.evaluate("f => window.scrollTo(0, f * document.documentElement.scrollHeight)", scroll_to)
    signal = AbortSignal()
    await controller.get_browser_state(signal)  # warm-up: script compile, first layout
    times = []
    content = ""
    for _ in range(RUNS):
        started = time.perf_counter()
        content = (await controller.get_browser_state(signal)).content
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), len(content)


async def main() -> None:
    with tempfile.TemporaryDirectory() as profile:
        session = await BrowserSession.launch(LaunchOptions(profile_dir=Path(profile), headless=True))
        try:
            controller = PlaywrightPageController(session)
            cases = [
                ("200 interactive elements", controls_page(200), 0.0),
                ("2,000 interactive elements", controls_page(2_000), 0.0),
                ("10,000 interactive elements", controls_page(10_000), 0.0),
                ("10,000, scrolled to the middle", controls_page(10_000), 0.5),
                ("long text page (300 sections)", text_page(300), 0.0),
            ]
            print(f"{'page':34} {'median ms':>10} {'output chars':>13}")
            for name, html, scroll in cases:
                median, size = await measure(controller, html, scroll)
                print(f"{name:34} {median:10.1f} {size:13,d}")
        finally:
            await session.close()


if __name__ == "__main__":
    asyncio.run(main())
