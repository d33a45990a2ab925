"""Time from Esc pressed IN Chromium (the page has the keyboard focus) to the agent's status "stopped".

The real Runtime with headless Chromium (or headed with --headed, on $DISPLAY) and the fake model endpoint scripted
to think for 30 s: each run opens a page, the model is asked for the next step, and Esc goes to a focused field in
the page. The clock starts just before the key is sent and stops at the "stopped" status event. Nobody subscribes to
``on_stop_requested``, so the runtime stops the agent itself (the panel's Stop does the same: ``agent.stop()``).

Run: .venv/bin/python -m tests.bench.bench_stop_esc [--headed]   (prints the median over runs)
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from app.core.types import AgentStatus
from app.runtime import Runtime, RuntimeOptions
from app.settings.model import Settings
from app.settings.paths import AppPaths
from tests.browser_fixtures import Servers
from tests.fakes.llm_server import FakeLLMServer, done_reply, tool_reply

RUNS = 15
THINKING = 30.0


async def _one(runtime: Runtime, server: FakeLLMServer, url: str, first: bool) -> float:
    server.add(tool_reply({"go_to_url": {"url": url}}), done_reply("Too late.", delay=THINKING))
    agent = await runtime.agent()
    stopped = asyncio.Event()
    stamp: list[float] = []

    def status(value: AgentStatus) -> None:
        if value is AgentStatus.STOPPED:
            stamp.append(time.perf_counter())
            stopped.set()

    off = agent.on("status_changed", status)
    requests = len(server.requests)
    run = asyncio.ensure_future(agent.execute("Export the orders", follow_up=not first))
    # The second model call has begun: the agent is thinking, the page is loaded and the bar is up.
    await server.received(requests + 2)
    page = runtime.active_page
    assert page is not None
    await page.focus("input")
    await asyncio.sleep(0.2)
    start = time.perf_counter()
    await page.keyboard.press("Escape")
    await asyncio.wait_for(stopped.wait(), 10)
    await run
    off()
    return (stamp[0] - start) * 1000


async def main(headed: bool) -> None:
    servers = Servers()
    site, _other = servers.start()
    server = FakeLLMServer().start()
    with tempfile.TemporaryDirectory() as home:
        paths = AppPaths(Path(home) / "config", Path(home) / "data", Path(home) / "logs")
        settings = Settings(base_url=server.base_url, model="fake-model", max_steps=10)
        runtime = Runtime(settings, paths, RuntimeOptions(headless=not headed), api_key="sk-test")
        times = []
        try:
            for index in range(RUNS):
                times.append(await _one(runtime, server, site + "/stop_bar.html", index == 0))
        finally:
            await runtime.shutdown()
            server.stop()
            servers.stop()
    mode = "headed" if headed else "headless"
    print(
        f"Esc in Chromium -> stopped ({mode}, {RUNS} runs, model thinking): median {statistics.median(times):.1f} ms,"
        f" min {min(times):.1f} ms, max {max(times):.1f} ms"
    )


if __name__ == "__main__":
    threading.excepthook = lambda _args: None  # the held fake answers end with their closed connections
    asyncio.run(main("--headed" in sys.argv))
