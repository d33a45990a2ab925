"""Engine benchmarks: stop latency during a slow model call, and the engine's own overhead per step.

Run: .venv/bin/python -m tests.bench.bench_engine   (prints medians over repeated runs)
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time

from pydantic import SecretStr

from app.core.abort import AbortSignal
from app.core.agent import Agent
from app.core.config import AgentConfig
from app.core.llm import LLMReply, Message, RetryCallback, ToolCall, ToolSpec
from app.llm.client import OpenAICompatibleClient
from app.llm.settings import LLMSettings
from tests.fakes.llm_server import FakeLLMServer, done_reply, tool_reply
from tests.fakes.page import FakePage

STEPS = 40
RUNS = 7


class InstantModel:
    """Answers at once, in process: what remains of a step's time is the engine's own work."""

    def __init__(self, steps: int) -> None:
        self._left = steps

    async def invoke(
        self, messages: list[Message], tool: ToolSpec, signal: AbortSignal, on_retry: RetryCallback | None = None
    ) -> LLMReply:
        self._left -= 1
        action = {"done": {"text": "ok"}} if self._left <= 0 else {"scroll": {"down": True}}
        arguments = json.dumps(
            {"evaluation_previous_goal": "✅", "memory": "m" * 200, "next_goal": "g", "action": action}
        )
        return LLMReply(tool_calls=[ToolCall(name="AgentOutput", arguments=arguments)])


async def overhead_per_step() -> float:
    page = FakePage(content="\n".join(f"[{i}]<button>Item {i} />" for i in range(300)))
    agent = Agent(InstantModel(STEPS), page, AgentConfig(max_steps=STEPS + 5))
    started = time.perf_counter()
    result = await agent.execute("Scroll around")
    assert result.steps == STEPS, result
    return (time.perf_counter() - started) / STEPS * 1000


async def http_step(server: FakeLLMServer, client: OpenAICompatibleClient) -> float:
    server.add(*[tool_reply({"scroll": {"down": True}})] * (STEPS - 1), done_reply())
    agent = Agent(client, FakePage(), AgentConfig(max_steps=STEPS + 5))
    started = time.perf_counter()
    await agent.execute("Scroll around")
    return (time.perf_counter() - started) / STEPS * 1000


async def stop_latency(server: FakeLLMServer, client: OpenAICompatibleClient) -> float:
    server.add(done_reply(delay=30))
    agent = Agent(client, FakePage())
    seen = len(server.requests)
    run = asyncio.ensure_future(agent.execute("Slow"))
    await server.received(seen + 1)
    started = time.perf_counter()
    await agent.stop()
    elapsed = (time.perf_counter() - started) * 1000
    assert (await run).status == "stopped"
    return elapsed


async def main() -> None:
    server = FakeLLMServer().start()
    client = OpenAICompatibleClient(LLMSettings(base_url=server.base_url, api_key=SecretStr("x")))
    try:
        await overhead_per_step()  # warm-up: imports, caches
        overhead = [await overhead_per_step() for _ in range(RUNS)]
        http = [await http_step(server, client) for _ in range(RUNS)]
        stops = [await stop_latency(server, client) for _ in range(RUNS)]
    finally:
        await client.close()
        server.stop()
    print(
        f"engine overhead per step (instant in-process model, {STEPS} steps): "
        f"median {statistics.median(overhead):.2f} ms over {RUNS} runs"
    )
    print(
        f"step time with the HTTP fake model (openai client + JSON + engine): "
        f"median {statistics.median(http):.2f} ms over {RUNS} runs"
    )
    print(
        f"stop() -> stopped during a held model call: median {statistics.median(stops):.2f} ms, "
        f"max {max(stops):.2f} ms over {RUNS} runs"
    )


if __name__ == "__main__":
    asyncio.run(main())
