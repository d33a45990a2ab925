"""Long runs keep what the model reads bounded: clipped history fields, the last steps whole, older steps folded
with their memory first, and one shrink-and-retry when the model says the request is too long.

The core agent, the real OpenAI client and the real HTTP fake model; the page is scripted (tests/fakes)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from pydantic import SecretStr

from app.core.agent import Agent
from app.core.config import AgentConfig
from app.core.messages import MessageId, say
from app.core.types import AgentStatus, ErrorEvent, ObservationEvent
from app.llm.client import OpenAICompatibleClient
from app.llm.settings import LLMSettings
from tests.fakes.llm_server import FakeLLMServer, error_reply
from tests.fakes.long_run import ReportPages, answer, code_of, expected_sum, long_run_model
from tests.fakes.page import FakePage

PAGES = 120
LIMIT = 64 * 1024
TOO_LONG = "This model's maximum context length is 16385 tokens. However, your messages resulted in 20000 tokens."


@pytest.fixture
async def client(llm_server: FakeLLMServer) -> AsyncIterator[OpenAICompatibleClient]:
    settings = LLMSettings(
        base_url=llm_server.base_url, api_key=SecretStr("sk-test"), model="fake-model", retry_base_delay=0.01
    )
    client = OpenAICompatibleClient(settings)
    yield client
    await client.close()


async def test_a_120_step_run_with_long_memories_stays_under_64_kb_and_gets_the_sum_right(
    llm_server: FakeLLMServer, client: OpenAICompatibleClient
) -> None:
    llm_server.fallback = long_run_model(PAGES)
    agent = Agent(client, ReportPages(), AgentConfig(max_steps=PAGES))
    try:
        result = await agent.execute(f"Add up the codes on report pages 1 to {PAGES}.")
    finally:
        await agent.dispose()

    assert result.status is AgentStatus.COMPLETED and result.success
    assert result.data == answer(expected_sum(PAGES), PAGES)
    assert len(llm_server.request_bytes) == PAGES
    assert max(llm_server.request_bytes) < LIMIT, max(llm_server.request_bytes)
    last = llm_server.user_message()
    # The first facts the agent kept are still there, folded; the latest memory is shown whole enough to carry on.
    assert "<earlier_steps>" in last
    for page in (1, 60, 111):
        assert f"Step {page}: memory: Code of page {page} is {code_of(page)}." in last
    assert last.count("<step_") == 8


async def test_a_context_length_error_shrinks_the_request_once_and_the_run_goes_on(
    llm_server: FakeLLMServer, client: OpenAICompatibleClient
) -> None:
    pages = 15
    model = long_run_model(pages)
    refused: list[int] = []

    def small_model(body: dict[str, object]) -> object:
        # A model with a small context window: it refuses any request of more than 16 KB.
        size = len(str(body))
        if size > 16_000:
            refused.append(len(llm_server.requests) - 1)
            return error_reply(400, TOO_LONG, code="context_length_exceeded")
        return model(body)

    llm_server.fallback = small_model  # type: ignore[assignment]
    agent = Agent(client, ReportPages(), AgentConfig(max_steps=pages))
    try:
        result = await agent.execute(f"Add up the codes on report pages 1 to {pages}.")
    finally:
        await agent.dispose()

    assert result.status is AgentStatus.COMPLETED, result.data
    assert result.data == answer(expected_sum(pages), pages)
    assert len(refused) == 1  # tightened once, for the rest of the run
    notes = [e for e in result.history if isinstance(e, ObservationEvent) and e.said == say(MessageId.PROMPT_SHORTENED)]
    assert len(notes) == 1
    retried = llm_server.user_message(refused[0] + 1)
    assert "<sys>" + say(MessageId.PROMPT_SHORTENED).text in retried and retried.count("<step_") == 3


async def test_a_request_still_too_long_after_shrinking_ends_the_run_with_the_models_words(
    llm_server: FakeLLMServer, client: OpenAICompatibleClient
) -> None:
    llm_server.fallback = lambda _body: error_reply(400, TOO_LONG, code="context_length_exceeded")
    long_page = FakePage(content="\n".join(f"[{i}]<a>Row {i} of the report />" for i in range(3000)))
    agent = Agent(client, long_page, AgentConfig(max_steps=5))
    try:
        result = await agent.execute("Add up the codes.")
    finally:
        await agent.dispose()

    assert result.status is AgentStatus.ERROR
    assert len(llm_server.requests) == 2  # the request, then the shrunk one: no more
    assert llm_server.request_bytes[1] < llm_server.request_bytes[0]
    errors = [e for e in result.history if isinstance(e, ErrorEvent)]
    assert errors and "maximum context length" in errors[-1].message
