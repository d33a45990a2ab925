from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest
from pydantic import SecretStr

from app.core.agent import Agent
from app.core.config import AgentConfig
from app.llm.client import OpenAICompatibleClient
from app.llm.settings import LLMSettings
from tests.fakes.llm_server import FakeLLMServer
from tests.fakes.page import FakePage

AgentFactory = Callable[..., tuple[Agent, FakePage]]


@pytest.fixture
def llm_settings(llm_server: FakeLLMServer) -> LLMSettings:
    return LLMSettings(
        base_url=llm_server.base_url, api_key=SecretStr("sk-test-secret"), model="fake-model", retry_base_delay=0.01
    )


@pytest.fixture
async def make_agent(llm_settings: LLMSettings) -> AsyncIterator[AgentFactory]:
    clients: list[OpenAICompatibleClient] = []
    agents: list[Agent] = []

    def factory(
        config: AgentConfig | None = None, page: FakePage | None = None, **kwargs: object
    ) -> tuple[Agent, FakePage]:
        settings = llm_settings.model_copy(update=kwargs.pop("llm", {}))  # type: ignore[arg-type]
        client = OpenAICompatibleClient(settings)
        page = page or FakePage()
        agent = Agent(client, page, config, **kwargs)  # type: ignore[arg-type]
        clients.append(client)
        agents.append(agent)
        return agent, page

    yield factory
    for agent in agents:
        await agent.dispose()
    for client in clients:
        await client.close()
