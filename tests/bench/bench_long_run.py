"""Long-run benchmark: the size of every request of a 120-step run whose memories are 5,000 characters each.

Run: .venv/bin/python -m tests.bench.bench_long_run   (prints the largest, the median and the last request size, and
the time per step; the real OpenAI client against the real HTTP fake model, a scripted page)
"""

from __future__ import annotations

import asyncio
import statistics
import time

from pydantic import SecretStr

from app.core.agent import Agent
from app.core.config import AgentConfig
from app.llm.client import OpenAICompatibleClient
from app.llm.settings import LLMSettings
from tests.fakes.llm_server import FakeLLMServer
from tests.fakes.long_run import ReportPages, answer, expected_sum, long_run_model

PAGES = 120


async def main() -> None:
    server = FakeLLMServer().start()
    server.fallback = long_run_model(PAGES)
    client = OpenAICompatibleClient(
        LLMSettings(base_url=server.base_url, api_key=SecretStr("sk-bench"), model="fake-model")
    )
    agent = Agent(client, ReportPages(), AgentConfig(max_steps=PAGES))
    started = time.perf_counter()
    try:
        result = await agent.execute(f"Add up the codes on report pages 1 to {PAGES}.")
    finally:
        await agent.dispose()
        await client.close()
        server.stop()
    elapsed = time.perf_counter() - started
    sizes = server.request_bytes
    right = result.data == answer(expected_sum(PAGES), PAGES)
    print(f"{len(sizes)} requests, 5,000-character memories; answer {'right' if right else 'WRONG'}")
    print(
        f"request size: largest {max(sizes) / 1024:.1f} KB, median {statistics.median(sizes) / 1024:.1f} KB, "
        f"last {sizes[-1] / 1024:.1f} KB"
    )
    print(f"time per step: {elapsed / len(sizes) * 1000:.1f} ms")


if __name__ == "__main__":
    asyncio.run(main())
