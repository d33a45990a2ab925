"""Observation benchmark: time to extract and serialize a page (get_browser_state), and the size of what it says.

Run: .venv/bin/python -m tests.bench.bench_observation   (headless Chromium; prints medians over repeated runs)
Targets (issue 11, this 2-core machine): <= 10 ms up to 200 interactive elements, <= 20 ms at 2,000, <= 60 ms at
10,000, <= 200 ms on a 50,000-node document, first look included.

Columns: "first ms" is the median first look at freshly loaded copies of the page (each a new document served from
a local HTTP server), taken as the agent takes it: right after go_to_url, which waits for the page to settle (and
has the new document rehearse its first look meanwhile). "median ms" is the median of later looks at one copy put in
place with page.set_content. "after load" is a first look taken the moment the load event has fired (as close as the
CLI's first look at the start page it has just opened): it also pays for Chromium's first layout of the document
("of it layout": one layout-forcing read on a fresh copy, what Chromium takes by itself) and runs the observer's code
cold. The output sizes are those of the
steady looks.

Where the time goes (profiled): on the pages of 2,000 elements and more, about 60 % of the in-page time is one
getBoundingClientRect per element that can be drawn (about 1.5 us each here, measured alone: 42-44 ms for all 28,756
elements of the 10,000 page, whose 3,750 drop-down options are not measured; 89 ms for the docs index), most of the
rest the walk itself; the Playwright round trip is 2-3 ms, parsing and serializing under 1 ms. The cheapest layout
reads (clientHeight, checkVisibility: 22 ms for the 28,756) cost half as much and say nothing of where an element is
(tests.bench.bench_layout_reads prints these). Every other element is measured because no web API bounds where a
subtree's descendants are drawn (positioned, transformed, overflowing or negatively offset ones can be anywhere):
skipping a subtree by its root's box could miss a fixed dialog or an overflowing menu.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from app.browser.controller import PlaywrightPageController
from app.browser.session import BrowserSession, LaunchOptions
from app.core.abort import AbortSignal
from tests.fakes.html_site import Answer, html_site

RUNS = 21
FIRST_RUNS = 5


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
    body = "\n".join(
        f"<h2>Section {i}</h2><p>{sentence * 6}<a href='#s{i}'>anchor</a> {sentence * 3}</p>" for i in range(paragraphs)
    )
    return f"<title>Long article</title><article>{body}</article>"


def docs_index(nodes: int) -> str:
    """A documentation index of about ``nodes`` elements: nested lists of links, a few per entry, as API indexes are."""
    entries = nodes // 4  # li, a, code, span
    items = "\n".join(
        f"<li><a href='/api/module{i // 50}/symbol{i}.html'><code>symbol_{i}</code></a>"
        f"<span> Summary of symbol {i}.</span></li>"
        for i in range(entries)
    )
    return f"<title>API index</title><h1>Index</h1><ul>{items}</ul>"


def admin_page(rows: int) -> str:
    """An admin template's list view: icon sidebar, top bar with menus, a table of rows with custom checkboxes,
    status badges and icon actions, pagination."""
    nav = "".join(
        f"<li><a href='/admin/section{i}'><i class='icon' aria-hidden=true></i><span>Section {i}</span></a></li>"
        for i in range(24)
    )
    row = (
        "<tr><td><label class=check for=r{i}><input type=checkbox id=r{i}><span class=box></span></label></td>"
        "<td><a href='/admin/orders/{i}/edit'>#{i}</a></td><td>Customer {i}</td><td><span class=badge>Paid</span>"
        "</td><td>{i}.00 EUR</td><td><a href='/admin/orders/{i}' title='View'><i class=icon></i></a>"
        "<button type=button aria-label='Delete order {i}'><i class=icon></i></button></td></tr>"
    )
    body = "".join(row.format(i=i) for i in range(rows))
    pages = "".join(f"<a href='/admin/orders?page={i}'>{i}</a>" for i in range(1, 30))
    style = (
        "<style>body{display:flex;margin:0}aside{width:220px}main{flex:1}.icon{display:inline-block;width:14px;"
        "height:14px;background:#888}.check{position:relative;display:inline-block;width:18px;height:18px}"
        ".check input{position:absolute;inset:0;margin:0}.check .box{position:absolute;inset:0;background:#fff;"
        "border:1px solid #333}.badge{padding:2px 6px;background:#def}</style>"
    )
    return (
        f"<title>Orders - Admin</title>{style}<aside><ul>{nav}</ul></aside><main><header><input type=search "
        f"placeholder=Search><button aria-haspopup=menu>Account</button></header><h1>Orders</h1><table><thead><tr>"
        f"<th></th><th>Order</th><th>Customer</th><th>Status</th><th>Total</th><th></th></tr></thead><tbody>{body}"
        f"</tbody></table><nav>{pages}</nav></main>"
    )


@contextlib.contextmanager
def serving(pages: dict[str, str]) -> Iterator[str]:
    """A local HTTP server answering /<name> with ``pages[name]``; yields its base address."""

    def respond(path: str) -> Answer:
        html = pages.get(path.lstrip("/").split("?")[0])
        return html.encode() if html is not None else (404, b"")

    with html_site(respond) as origin:
        yield f"{origin}/"


async def first_look(controller: PlaywrightPageController, url: str) -> float:
    """The median first look at freshly loaded copies of the page, taken as the agent takes it: after go_to_url,
    which waits for the page to settle."""
    times = []
    for run in range(FIRST_RUNS):
        signal = AbortSignal()
        await controller.go_to_url(f"{url}?copy={run}", signal)  # a new document each time
        started = time.perf_counter()
        await controller.get_browser_state(signal)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


async def look_after_load(controller: PlaywrightPageController, url: str) -> float:
    """The median first look at freshly loaded copies taken the moment the load event has fired, before Chromium has
    drawn them: the look also pays for the first layout and runs the observer's code cold."""
    page = controller.session.active_page
    times = []
    for run in range(FIRST_RUNS):
        await page.goto(f"{url}?cold={run}")
        started = time.perf_counter()
        await controller.get_browser_state(AbortSignal())
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


async def first_layout(controller: PlaywrightPageController, url: str) -> float:
    """What laying out a new document costs Chromium by itself (the first look pays it unless the page was drawn
    before): the median time of one layout-forcing read on freshly loaded copies."""
    page = controller.session.active_page
    times = []
    for run in range(FIRST_RUNS):
        await page.goto(f"{url}?layout={run}")
        started = time.perf_counter()
        await page.evaluate("() => document.documentElement.getBoundingClientRect().height")
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


async def measure(controller: PlaywrightPageController, html: str, scroll_to: float = 0.0) -> tuple[float, int]:
    page = controller.session.active_page
    await page.goto("about:blank")  # the address on the page's first line, as in every earlier run of this bench
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
    cases = [
        ("200 interactive elements", controls_page(200), 0.0),
        ("2,000 interactive elements", controls_page(2_000), 0.0),
        ("10,000 interactive elements", controls_page(10_000), 0.0),
        ("10,000, scrolled to the middle", controls_page(10_000), 0.5),
        ("long text page (300 sections)", text_page(300), 0.0),
        ("docs index (50,000 nodes)", docs_index(50_000), 0.0),
        ("admin list (200 rows)", admin_page(200), 0.0),
    ]
    pages = {f"page{i}": html for i, (_name, html, _scroll) in enumerate(cases)}
    with tempfile.TemporaryDirectory() as profile, serving(pages) as base:
        session = await BrowserSession.launch(LaunchOptions(profile_dir=Path(profile), headless=True))
        try:
            controller = PlaywrightPageController(session)
            print(
                f"{'page':34} {'first ms':>9} {'median ms':>10} {'after load':>11} {'of it layout':>13} "
                f"{'output chars':>13}"
            )
            for i, (name, html, scroll) in enumerate(cases):
                url = f"{base}page{i}"
                first = await first_look(controller, url) if not scroll else float("nan")
                cold = await look_after_load(controller, url) if not scroll else float("nan")
                layout = await first_layout(controller, url) if not scroll else float("nan")
                median, size = await measure(controller, html, scroll)
                print(f"{name:34} {first:9.1f} {median:10.1f} {cold:11.1f} {layout:13.1f} {size:13,d}")
        finally:
            await session.close()


if __name__ == "__main__":
    asyncio.run(main())
