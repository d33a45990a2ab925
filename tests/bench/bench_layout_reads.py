"""What one layout read per element costs Chromium on the observation bench's 10,000-element page: the floor under a
look that must learn where every element is (see bench_observation's notes).

Run: .venv/bin/python -m tests.bench.bench_layout_reads   (headless Chromium; prints the median of 7 in-page timings)
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
from pathlib import Path

from app.browser.session import BrowserSession, LaunchOptions
from tests.bench.bench_observation import controls_page

RUNS = 7
# Each read touches a result so that nothing is optimised away; the walk alone is the baseline.
READS = {
    "walk only (firstElementChild)": "(e) => e.firstElementChild ? 1 : 0",
    "getBoundingClientRect": "(e) => e.getBoundingClientRect().top",
    "getClientRects": "(e) => e.getClientRects().length",
    "offsetTop": "(e) => e.offsetTop",
    "clientHeight": "(e) => e.clientHeight",
    "checkVisibility": "(e) => (e.checkVisibility() ? 1 : 0)",
}
TIME = """([read]) => {
  const all = Array.from(document.querySelectorAll('*'));
  const f = (0, eval)(read);
  const started = performance.now();
  let sum = 0;
  for (const e of all) sum += f(e);
  return [all.length, performance.now() - started, sum];
}"""


async def main() -> None:
    with tempfile.TemporaryDirectory() as profile:
        session = await BrowserSession.launch(LaunchOptions(profile_dir=Path(profile), headless=True))
        try:
            page = session.active_page
            await page.set_content(controls_page(10_000))
            await page.evaluate("() => document.documentElement.getBoundingClientRect()")  # the first layout
            print(f"{'read, once per element':32} {'elements':>9} {'ms':>7} {'us each':>8}")
            for name, read in READS.items():
                timings = [await page.evaluate(TIME, [read]) for _ in range(RUNS)]
                count = timings[0][0]
                ms = statistics.median(t[1] for t in timings)
                print(f"{name:32} {count:9,d} {ms:7.1f} {ms * 1000 / count:8.2f}")
        finally:
            await session.close()


if __name__ == "__main__":
    asyncio.run(main())
