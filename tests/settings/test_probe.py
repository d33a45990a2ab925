"""Test connection against a real HTTP fake endpoint: every verdict in plain words, and never the key."""

from __future__ import annotations

import socket
from types import SimpleNamespace

import pytest
from pydantic import SecretStr

from app.core.abort import AbortSignal
from app.core.llm import LLMError, LLMErrorKind, Message, ToolSpec
from app.llm import probe
from app.llm.client import OpenAICompatibleClient
from app.llm.probe import ProbeKind
from app.llm.settings import LLMSettings, ToolChoiceMode
from tests.fakes.llm_server import FakeLLMServer, FakeResponse, completion, error_reply

KEY = "sk-probe-secret-1234567890"


def settings_for(server: FakeLLMServer, **changes: object) -> LLMSettings:
    base = LLMSettings(base_url=server.base_url, api_key=SecretStr(KEY), model="fake-model")
    return base.model_copy(update=changes)


def assert_no_key(result: probe.ProbeResult) -> None:
    assert KEY not in result.message and KEY not in (result.suggestion or "")


async def test_ok_with_a_named_tool_call(llm_server: FakeLLMServer) -> None:
    llm_server.add(FakeResponse(body=completion(tool_name=probe.PROBE_TOOL, arguments={"ok": True})))
    result = await probe.test_connection(settings_for(llm_server))
    assert result.ok and result.kind == ProbeKind.OK
    assert result.message == f"Connected to fake-model at {llm_server.base_url}; tool calling works."
    request = llm_server.requests[0]
    assert request["tool_choice"] == {"type": "function", "function": {"name": probe.PROBE_TOOL}}
    assert request["_headers"]["authorization"] == f"Bearer {KEY}"
    assert len(llm_server.requests) == 1  # one request, no retries


async def test_required_mode_sends_required(llm_server: FakeLLMServer) -> None:
    llm_server.add(FakeResponse(body=completion(tool_name=probe.PROBE_TOOL, arguments={"ok": True})))
    result = await probe.test_connection(settings_for(llm_server, tool_choice=ToolChoiceMode.REQUIRED))
    assert result.ok
    assert llm_server.requests[0]["tool_choice"] == "required"


async def test_json_text_mode_needs_no_tools(llm_server: FakeLLMServer) -> None:
    llm_server.add(FakeResponse(body=completion(tool_name=None, content='Sure: {"ok": true}')))
    result = await probe.test_connection(settings_for(llm_server, tool_choice=ToolChoiceMode.JSON_TEXT))
    assert result.ok and "JSON answers work" in result.message
    assert "tools" not in llm_server.requests[0]


async def test_bad_key_is_named_and_never_echoed(llm_server: FakeLLMServer) -> None:
    llm_server.add(error_reply(401, f"Incorrect API key provided: {KEY}. You can find your key at ..."))
    result = await probe.test_connection(settings_for(llm_server))
    assert not result.ok and result.kind == ProbeKind.AUTH
    assert "rejected the API key (401)" in result.message
    assert_no_key(result)
    assert "sk-" not in result.message  # masked variants are dropped too


async def test_missing_key(llm_server: FakeLLMServer) -> None:
    llm_server.add(error_reply(401, "You didn't provide an API key."))
    result = await probe.test_connection(settings_for(llm_server, api_key=None))
    assert result.kind == ProbeKind.AUTH and "needs an API key" in result.message


async def test_unknown_model(llm_server: FakeLLMServer) -> None:
    llm_server.add(error_reply(404, "The model `gpt-9` does not exist or you do not have access to it."))
    result = await probe.test_connection(settings_for(llm_server, model="gpt-9"))
    assert result.kind == ProbeKind.NOT_FOUND
    assert "does not know the model 'gpt-9'" in result.message
    assert result.suggestion and "model name" in result.suggestion


async def test_wrong_path(llm_server: FakeLLMServer) -> None:
    llm_server.add(error_reply(404, "Not Found"))
    result = await probe.test_connection(settings_for(llm_server))
    assert result.kind == ProbeKind.NOT_FOUND and result.suggestion and "/v1" in result.suggestion


async def test_plain_text_answer_suggests_another_mode(llm_server: FakeLLMServer) -> None:
    llm_server.add(FakeResponse(body=completion(tool_name=None, content="Hello! How can I help?")))
    result = await probe.test_connection(settings_for(llm_server))
    assert result.kind == ProbeKind.NO_TOOLS and not result.ok
    assert "plain text instead of calling the tool" in result.message
    assert result.suggestion and "'required'" in result.suggestion and "JSON in text" in result.suggestion


async def test_refused_named_choice_suggests_required(llm_server: FakeLLMServer) -> None:
    llm_server.add(error_reply(400, "tool_choice object is not supported by this model"))
    result = await probe.test_connection(settings_for(llm_server))
    assert result.kind == ProbeKind.NO_TOOLS
    assert result.suggestion and result.suggestion.startswith("Set the tool-choice mode to 'required'")


async def test_refused_tools_in_required_mode_suggests_json(llm_server: FakeLLMServer) -> None:
    llm_server.add(error_reply(400, "This model does not support tools"))
    result = await probe.test_connection(settings_for(llm_server, tool_choice=ToolChoiceMode.REQUIRED))
    assert result.kind == ProbeKind.NO_TOOLS
    assert result.suggestion == "Set the tool-choice mode to 'JSON in text', which works without tool support."


async def test_rate_limit_and_quota_and_server_error(llm_server: FakeLLMServer) -> None:
    llm_server.add(
        error_reply(429, "Rate limit reached"),
        error_reply(429, "You exceeded your current quota"),
        error_reply(503, "overloaded"),
    )
    limited = await probe.test_connection(settings_for(llm_server))
    quota = await probe.test_connection(settings_for(llm_server))
    server = await probe.test_connection(settings_for(llm_server))
    assert limited.kind == ProbeKind.RATE_LIMIT and "limiting requests" in limited.message
    # An account out of credit is not helped by waiting: an account problem, as a running task reads it too.
    assert quota.kind == ProbeKind.AUTH and "no quota left" in quota.message
    assert server.kind == ProbeKind.SERVER and "(503)" in server.message


@pytest.mark.parametrize(
    ("status", "detail"),
    [
        (401, "bad key"),
        (403, "forbidden"),
        (404, "The model does not exist"),
        (405, "Method Not Allowed"),
        (408, "timeout"),
        (409, "conflict"),
        (429, "Rate limit reached"),
        (429, "You exceeded your current quota"),
        (500, "oops"),
        (503, "overloaded"),
    ],
)
async def test_the_connection_test_reads_a_status_as_a_running_task_does(
    llm_server: FakeLLMServer, status: int, detail: str
) -> None:
    settings = settings_for(llm_server)
    llm_server.add(error_reply(status, detail), error_reply(status, detail))
    tested = await probe.test_connection(settings)
    client = OpenAICompatibleClient(settings.model_copy(update={"max_attempts": 1}))
    tool = ToolSpec(name="check", description="Check.", parameters={"type": "object", "properties": {}})
    try:
        with pytest.raises(LLMError) as raised:
            await client.invoke([Message(role="user", content="hi")], tool, AbortSignal())
    finally:
        await client.close()
    same = {
        LLMErrorKind.AUTH: ProbeKind.AUTH,
        LLMErrorKind.RATE_LIMIT: ProbeKind.RATE_LIMIT,
        LLMErrorKind.SERVER: ProbeKind.SERVER,
        LLMErrorKind.CONFIG: ProbeKind.NOT_FOUND,
    }
    assert tested.kind == same[raised.value.kind], (tested, raised.value)


async def test_unreachable_port() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings = LLMSettings(base_url=f"http://127.0.0.1:{port}/v1", api_key=SecretStr(KEY), model="m")
    result = await probe.test_connection(settings)
    assert result.kind == ProbeKind.UNREACHABLE
    assert "connection refused" in result.message
    assert_no_key(result)


async def test_timeout(llm_server: FakeLLMServer) -> None:
    llm_server.add(FakeResponse(body=completion(), delay=5))
    result = await probe.test_connection(settings_for(llm_server, request_timeout=0.3))
    assert result.kind == ProbeKind.TIMEOUT and "did not answer within 0.3 s" in result.message


async def test_form_is_checked_before_any_request() -> None:
    bad_url = await probe.test_connection(LLMSettings(base_url="localhost:11434", model="m"))
    no_model = await probe.test_connection(LLMSettings(base_url="http://localhost:1/v1", model=" "))
    assert bad_url.kind == ProbeKind.INVALID and "http://" in bad_url.message
    assert no_model.kind == ProbeKind.INVALID and "model" in no_model.message


@pytest.mark.parametrize(
    ("status", "problem", "advice"),
    [
        (405, "does not accept chat requests at this address (405).", "Check the Base URL: it usually ends in /v1."),
        (404, "Nothing was found at", "Check the Base URL: it usually ends in /v1."),
        (403, "rejected the API key (403).", "still active"),
        (502, "had a server error (502).", "try again in a few minutes"),
    ],
)
async def test_common_statuses_read_as_advice(
    llm_server: FakeLLMServer, status: int, problem: str, advice: str
) -> None:
    llm_server.add(error_reply(status, "Method Not Allowed" if status == 405 else "nope"))
    result = await probe.test_connection(settings_for(llm_server))
    assert result.message.startswith(f"The server at {llm_server.base_url}" if status != 404 else "Nothing")
    assert problem in result.message and result.suggestion and advice in result.suggestion


async def test_a_running_task_gets_the_same_advice_as_the_probe(llm_server: FakeLLMServer) -> None:
    """One place words the advice: the agent's error for a 405 says what Test connection says."""
    import openai

    from app.llm.errors import classify

    llm_server.add(error_reply(405, "Method Not Allowed"))
    client = openai.AsyncOpenAI(base_url=llm_server.base_url, api_key=KEY, max_retries=0)
    try:
        with pytest.raises(openai.APIStatusError) as caught:
            await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    finally:
        await client.close()
    error = classify(caught.value, llm_server.base_url, "m", KEY)
    assert (
        f"The server at {llm_server.base_url} does not accept chat requests at this address (405). "
        "Check the Base URL: it usually ends in /v1."
    ) in error.message


def test_the_sdks_status_line_is_not_repeated_as_the_servers_words() -> None:
    import openai

    from app.llm.errors import error_detail

    response = SimpleNamespace(status_code=405, headers={}, request=None)  # all the error reads of a response
    bare = openai.APIStatusError("Error code: 405", response=response, body=None)
    assert error_detail(bare) == ""
    worded = openai.APIStatusError("Error code: 405 - Method Not Allowed", response=response, body=None)
    assert error_detail(worded) == "Method Not Allowed"


async def test_with_screenshots_on_the_test_sends_an_image_and_says_it_was_taken(llm_server: FakeLLMServer) -> None:
    llm_server.add(FakeResponse(body=completion(tool_name=probe.PROBE_TOOL, arguments={"ok": True})))
    result = await probe.test_connection(settings_for(llm_server), images=True)
    assert result.ok and result.message.endswith("tool calling and images work.")
    parts = llm_server.requests[0]["messages"][0]["content"]
    assert [part["type"] for part in parts] == ["text", "image_url"]
    assert parts[1]["image_url"]["url"].startswith("data:image/jpeg;base64,/9j/")


async def test_a_model_that_takes_no_images_is_told_in_plain_words(llm_server: FakeLLMServer) -> None:
    llm_server.add(error_reply(400, "Invalid content type. image_url is only supported by certain models."))
    result = await probe.test_connection(settings_for(llm_server), images=True)
    assert not result.ok and result.kind == ProbeKind.NO_IMAGES
    assert "does not accept images (400)" in result.message
    assert result.suggestion and "Show the model screenshots" in result.suggestion
