"""The size of what the model reads of a page: the listing (BrowserState.content) of each observation bench page, in
characters and lines, and how many of its lines are the page's free text. Compare before/after a change to how the
listing is written (tokens are printed when tiktoken and its o200k encoding are available on this machine).

Run: .venv/bin/python -m tests.bench.bench_listing_size
"""

from __future__ import annotations

import asyncio
import re
import tempfile
from pathlib import Path

from app.browser.controller import PlaywrightPageController
from app.browser.session import BrowserSession, LaunchOptions
from app.core.abort import AbortSignal
from tests.bench.bench_observer_ab import bench_pages
from tests.bench.bench_prompt_overhead import _tokens

_ELEMENT = re.compile(r"^\t*\*?\[\d+\]")


async def main() -> None:
    cases = bench_pages()
    with tempfile.TemporaryDirectory() as profile:
        session = await BrowserSession.launch(LaunchOptions(profile_dir=Path(profile), headless=True))
        try:
            controller = PlaywrightPageController(session)
            page = session.active_page
            print(f"{'page':34} {'chars':>7} {'lines':>6} {'text lines':>11}  tokens")
            for name, html in cases:
                await page.goto("about:blank")
                await page.set_content(html)
                content = (await controller.get_browser_state(AbortSignal())).content
                lines = content.splitlines()[3:-1]  # the header and the end line are the app's
                text = [line for line in lines if not _ELEMENT.match(line)]
                print(f"{name:34} {len(content):7,d} {len(lines):6,d} {len(text):11,d}  {_tokens(content)}")
        finally:
            await session.close()


if __name__ == "__main__":
    asyncio.run(main())
