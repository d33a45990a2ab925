"""Screenshots for models that read images: one labelled image with the current page, none when it is off."""

from __future__ import annotations

import base64

from app.core.config import AgentConfig
from tests.core.conftest import AgentFactory
from tests.fakes.llm_server import FakeLLMServer, done_reply, tool_reply


def _images(request: dict) -> list[tuple[int, str]]:  # type: ignore[type-arg]
    """(message number, data URL) of every image part in a request."""
    found = []
    for number, message in enumerate(request["messages"]):
        if isinstance(message["content"], list):
            found += [(number, part["image_url"]["url"]) for part in message["content"] if part["type"] == "image_url"]
    return found


async def test_each_request_carries_one_image_on_its_last_message(
    llm_server: FakeLLMServer, make_agent: AgentFactory
) -> None:
    agent, page = make_agent(AgentConfig(vision=True))
    llm_server.add(tool_reply({"scroll": {"down": True}}), done_reply("Seen."))
    result = await agent.execute("Look at the chart")
    assert result.success and page.screenshots == 2
    for request in llm_server.requests:
        images = _images(request)
        assert [number for number, _ in images] == [len(request["messages"]) - 1]  # only the last message
        url = images[0][1]
        assert url.startswith("data:image/jpeg;base64,")
        assert base64.b64decode(url.split(",", 1)[1])[:2] == b"\xff\xd8"  # a JPEG
        text = next(part["text"] for part in request["messages"][-1]["content"] if part["type"] == "text")
        assert "<browser_state>" in text  # the text listing is still there, beside the image


async def test_no_image_unless_it_is_turned_on(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, page = make_agent()
    llm_server.add(done_reply("Read."))
    await agent.execute("Read the page")
    assert page.screenshots == 0
    assert all(isinstance(m["content"], str) for m in llm_server.requests[0]["messages"])
