"""In-page A/B of the observer: resources/js/observe.js as it is now against the same file at a git revision, on the
observation bench's pages, timed inside the page (no round trip, no settle), calls of the two alternating on one
document so that the machine's drift falls on both alike.

Run: .venv/bin/python -m tests.bench.bench_observer_ab [REV]   (REV defaults to HEAD; headless Chromium)
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import tempfile
from pathlib import Path

from app.assets import read_resource
from app.browser.observer import SCRIPT
from app.browser.session import BrowserSession, LaunchOptions
from tests.bench.bench_observation import admin_page, controls_page, docs_index, text_page

ROUNDS = 8
CALLS = 4  # per round and version; the first round warms both up and is not counted
INSTALL = "([name, source]) => { window[name] = (0, eval)(source); }"
# dry: the look keeps its state to itself, so the two versions never see each other's marks.
TIME = """([name, calls]) => {
  const observe = window[name];
  const times = [];
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    observe({nonce: 'ab', margin: 0.5, skip: 'page-agent-stop-bar', dry: true});
    times.push(performance.now() - started);
  }
  return times;
}"""


def source_at(revision: str) -> str:
    root = Path(__file__).resolve().parents[2]
    shown = subprocess.run(
        ["git", "show", f"{revision}:resources/{SCRIPT}"], cwd=root, capture_output=True, text=True, check=True
    )
    return shown.stdout


def bench_pages() -> list[tuple[str, str]]:
    """The observation bench's pages, by name (also what bench_listing_size measures)."""
    return [
        ("200 interactive elements", controls_page(200)),
        ("2,000 interactive elements", controls_page(2_000)),
        ("10,000 interactive elements", controls_page(10_000)),
        ("long text page (300 sections)", text_page(300)),
        ("docs index (50,000 nodes)", docs_index(50_000)),
        ("admin list (200 rows)", admin_page(200)),
    ]


async def main(revision: str) -> None:
    versions = {"before": source_at(revision), "now": read_resource(SCRIPT)}
    cases = bench_pages()
    with tempfile.TemporaryDirectory() as profile:
        session = await BrowserSession.launch(LaunchOptions(profile_dir=Path(profile), headless=True))
        try:
            page = session.active_page
            print(f"in-page ms, median; before = {revision}")
            print(f"{'page':34} {'before':>8} {'now':>8}")
            for name, html in cases:
                await page.set_content(html)
                for version, source in versions.items():
                    await page.evaluate(INSTALL, [version, source])
                times: dict[str, list[float]] = {version: [] for version in versions}
                for round_ in range(ROUNDS):
                    for version in versions:
                        taken = await page.evaluate(TIME, [version, CALLS])
                        if round_:
                            times[version].extend(taken)
                before, now = (statistics.median(times[version]) for version in versions)
                print(f"{name:34} {before:8.1f} {now:8.1f}")
        finally:
            await session.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision", nargs="?", default="HEAD")
    asyncio.run(main(parser.parse_args().revision))
