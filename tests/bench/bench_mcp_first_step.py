"""Time from an MCP client's `run_task` to the task's first step, with no panel open (headless).

One `python -m app mcp` server over stdio, reached with the SDK's client, as Claude Desktop runs it. Each run
calls run_task on a local page; the clock starts just before the call and stops at the first progress notification
that reports step 1 (the model's first answer acted on: the page read, the model asked, the click made). The model
is the fake server answering at once, so the figure is the app's own share. The first task opens Chromium (cold);
the later ones find it open (warm), as a client's second task does.

Run: .venv/bin/python -m tests.bench.bench_mcp_first_step [--runs N]   (prints cold, and the warm median and spread)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from tests.fakes.html_site import html_site
from tests.fakes.llm_server import FakeLLMServer, FakeResponse, agent_output, completion

ROOT = Path(__file__).resolve().parents[2]
PAGE = b"<!doctype html><title>Orders</title><h1>Orders</h1><button>Export</button><input aria-label=Search>"


def _model(body: dict[str, Any]) -> FakeResponse:
    """Scroll once (the first step), then done."""
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    action: dict[str, Any] = {"done": {"text": "Read.", "success": True}} if "scroll" in user else {"scroll": {}}
    return FakeResponse(body=completion(arguments=agent_output(action)))


async def _one(client: Client, url: str) -> float:
    first: asyncio.Future[float] = asyncio.get_running_loop().create_future()

    async def on_progress(_value: float, _total: float | None, message: str | None) -> None:
        if message and message.startswith("Step 1") and not first.done():
            first.set_result(time.monotonic())

    start = time.monotonic()
    result = await client.call_tool(
        "run_task", {"task": "Scroll the page once", "start_url": url, "wait_s": 60}, progress_callback=on_progress
    )
    if result.is_error or not first.done():
        raise SystemExit(f"the task did not report its first step: {result.model_dump_json()[:2000]}")
    return (first.result() - start) * 1000


async def _bench(runs: int) -> tuple[float, list[float]]:
    server = FakeLLMServer().start()
    server.fallback = _model
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PAGE_AGENT_"))}
    with tempfile.TemporaryDirectory() as home, html_site(lambda _path: PAGE) as site:
        env.update(
            PAGE_AGENT_HOME=home, OPENAI_API_KEY="sk-dummy", OPENAI_BASE_URL=server.base_url, PAGE_AGENT_MODEL="m"
        )
        params = StdioServerParameters(command=sys.executable, args=["-m", "app", "mcp"], env=env, cwd=ROOT)
        try:
            async with Client(params, read_timeout_seconds=90) as client:
                cold = await _one(client, site + "/")
                warm = [await _one(client, site + "/") for _ in range(runs)]
        finally:
            server.stop()
    return cold, warm


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="warm runs after the cold one (default 9)")
    args = parser.parse_args()
    cold, warm = asyncio.run(_bench(args.runs))
    spread = f"{min(warm):.0f}–{max(warm):.0f}"
    print(f"run_task → first step, cold (Chromium opens): {cold:.0f} ms")
    print(f"run_task → first step, warm: median {statistics.median(warm):.0f} ms over {len(warm)} runs ({spread} ms)")
    print(f"machine load (1 min): {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
