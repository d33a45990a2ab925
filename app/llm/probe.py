""" "Test connection": one real chat-completions request with a tiny forced tool, and a plain-words verdict.

The agent's own client retries and classifies for a running task; the probe instead wants the *first* failure
explained as precisely as possible (refused vs. unknown host, unknown model vs. wrong path, which tool-choice mode
to try next), so it talks to the openai package directly.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
import socket
from enum import StrEnum
from typing import Any
from urllib.parse import urlparse

from pydantic import BaseModel

from app.assets import resource_path
from app.core.llm import LLMErrorKind
from app.core.safety.secrets import hide_everywhere
from app.llm.errors import TOOL_HINTS, error_detail, redact_key, status_advice, status_kind
from app.llm.sdk import forced_tool, new_client
from app.llm.settings import LLMSettings, ToolChoiceMode

PROBE_TOOL = "connection_check"
TEST_IMAGE = "probe/white-8x8.jpg"  # sent when the model is to be shown screenshots
# What providers say when a model takes no images: "image input is not supported", "does not support vision"...
_IMAGE_HINTS = ("image", "vision", "multimodal", "multi-modal")
_AND_IMAGES = {False: "", True: " and images"}
# Long enough for a local server that loads the model on the first request, short enough to feel like a test.
PROBE_TIMEOUT = 45.0


class ProbeKind(StrEnum):
    OK = "ok"
    INVALID = "invalid"  # the form itself: no http(s) URL, no model
    UNREACHABLE = "unreachable"
    TIMEOUT = "timeout"
    AUTH = "auth"
    NOT_FOUND = "not_found"
    NO_TOOLS = "no_tools"
    NO_IMAGES = "no_images"  # asked with an image (Show the model screenshots), and the model does not take one
    RATE_LIMIT = "rate_limit"
    SERVER = "server"
    REFUSED = "refused"  # any other 4xx


class ProbeResult(BaseModel):
    ok: bool
    kind: ProbeKind
    message: str
    suggestion: str | None = None


def _result(kind: ProbeKind, message: str, suggestion: str | None = None) -> ProbeResult:
    return ProbeResult(ok=kind == ProbeKind.OK, kind=kind, message=message, suggestion=suggestion)


async def test_connection(settings: LLMSettings, *, images: bool = False) -> ProbeResult:
    """Make one request to ``settings``' endpoint and say in plain words whether the agent can use it; with
    ``images`` the request carries a small image, as every step does when the model is shown screenshots."""
    invalid = _check_form(settings)
    if invalid is not None:
        return invalid
    key = settings.api_key.get_secret_value() if settings.api_key else ""
    hide_everywhere(key)  # from the log too, whatever the SDK or a server says
    timeout = min(settings.request_timeout, PROBE_TIMEOUT)
    client = new_client(settings.base_url, key, timeout)
    import openai  # imported by new_client already; here for its exception types

    try:
        response = await client.chat.completions.create(**_request(settings, images))
    except openai.APITimeoutError:
        result = _result(
            ProbeKind.TIMEOUT,
            f"{settings.base_url} did not answer within {timeout:g} s.",
            "The server may be overloaded or still loading the model; try again in a moment.",
        )
    except openai.APIConnectionError as exc:
        result = _unreachable(settings.base_url, exc)
    except openai.APIStatusError as exc:
        result = _refused(settings, exc.status_code, error_detail(exc), bool(key), images)
    else:
        result = _verdict(settings, response, images)
    finally:
        await asyncio.shield(client.close())
    return _redacted(result, key)


def _check_form(settings: LLMSettings) -> ProbeResult | None:
    url = urlparse(settings.base_url.strip())
    if url.scheme not in ("http", "https") or not url.netloc:
        return _result(
            ProbeKind.INVALID,
            "The base URL must start with http:// or https://.",
            "For example https://api.openai.com/v1 or http://localhost:11434/v1.",
        )
    if not settings.model.strip():
        return _result(ProbeKind.INVALID, "Enter the name of the model to use.")
    return None


def _request(settings: LLMSettings, images: bool) -> dict[str, Any]:
    if settings.tool_choice == ToolChoiceMode.JSON_TEXT:
        prompt = 'This is a connection test. Answer with exactly this JSON object and nothing else: {"ok": true}'
        return {"model": settings.model, "messages": [_user(prompt, images)]}
    parameters = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    prompt = f"This is a connection test. Call the {PROBE_TOOL} tool with ok set to true."
    return {
        "model": settings.model,
        "messages": [_user(prompt, images)],
        **forced_tool(PROBE_TOOL, "Report that the connection works.", parameters, settings.tool_choice),
    }


def _user(prompt: str, images: bool) -> dict[str, Any]:
    if not images:
        return {"role": "user", "content": prompt}
    pixel = base64.b64encode(resource_path(TEST_IMAGE).read_bytes()).decode("ascii")
    picture = {"type": "image_url", "image_url": {"url": f"data:image/jpeg;base64,{pixel}", "detail": "low"}}
    return {"role": "user", "content": [{"type": "text", "text": prompt}, picture]}


def _verdict(settings: LLMSettings, response: Any, images: bool) -> ProbeResult:
    where = f"{settings.model} at {settings.base_url}"
    choices = getattr(response, "choices", None)
    if not choices:
        return _result(
            ProbeKind.REFUSED,
            f"{settings.base_url} answered, but not like an OpenAI-compatible API (no choices in the answer).",
            "Check that the base URL points at the API (it usually ends in /v1).",
        )
    message = choices[0].message
    if settings.tool_choice == ToolChoiceMode.JSON_TEXT:
        if _has_json_object(message.content or ""):
            return _result(ProbeKind.OK, f"Connected to {where}; JSON answers{_AND_IMAGES[images]} work.")
        return _result(
            ProbeKind.NO_TOOLS,
            f"{where} answered, but not with the JSON object it was asked for.",
            "This model may be too small to follow the agent's format; try a larger model.",
        )
    if any(getattr(call, "function", None) is not None for call in (message.tool_calls or [])):
        works = "tool calling and images work" if images else "tool calling works"
        return _result(ProbeKind.OK, f"Connected to {where}; {works}.")
    return _result(
        ProbeKind.NO_TOOLS,
        f"{where} answered in plain text instead of calling the tool.",
        _next_mode_hint(settings.tool_choice),
    )


def _next_mode_hint(mode: ToolChoiceMode) -> str:
    if mode == ToolChoiceMode.NAMED:
        return (
            "Set the tool-choice mode to 'required'; if that still fails, use 'JSON in text', "
            "which works without tool support."
        )
    return "Set the tool-choice mode to 'JSON in text', which works without tool support."


def _has_json_object(text: str) -> bool:
    match = re.search(r"\{.*\}", text, re.DOTALL)
    if not match:
        return False
    try:
        return isinstance(json.loads(match.group(0)), dict)
    except ValueError:
        return False


def _unreachable(base_url: str, exc: BaseException) -> ProbeResult:
    host = urlparse(base_url).hostname or base_url
    cause = _root_cause(exc)
    text = str(cause).lower()
    if isinstance(cause, socket.gaierror) or "name or service not known" in text or "nodename" in text:
        return _result(
            ProbeKind.UNREACHABLE,
            f"The host name '{host}' could not be found.",
            "Check the base URL for typos, and your internet connection.",
        )
    if isinstance(cause, ConnectionRefusedError) or "refused" in text:
        local = host in ("localhost", "127.0.0.1", "::1")
        return _result(
            ProbeKind.UNREACHABLE,
            f"Nothing is answering at {base_url} (connection refused).",
            "Start the local model server (Ollama, LM Studio) and check its port."
            if local
            else "Check the base URL and port.",
        )
    return _result(
        ProbeKind.UNREACHABLE,
        f"Could not reach {base_url}: {cause}",
        "Check the base URL, your network and any proxy or firewall.",
    )


def _root_cause(exc: BaseException) -> BaseException:
    seen: set[int] = set()
    current = exc
    while id(current) not in seen:
        seen.add(id(current))
        nxt = current.__cause__ or current.__context__
        if nxt is None:
            break
        current = nxt
    return current


def _probe_kind(status: int, detail: str) -> ProbeKind | None:
    """The running agent's reading of the status (``status_kind``), in the connection test's words."""
    kind = status_kind(status, detail)
    if kind is LLMErrorKind.CONFIG:
        return ProbeKind.NOT_FOUND  # 404, 405: the model's name or the address
    return (
        {
            LLMErrorKind.AUTH: ProbeKind.AUTH,
            LLMErrorKind.RATE_LIMIT: ProbeKind.RATE_LIMIT,
            LLMErrorKind.SERVER: ProbeKind.SERVER,
        }.get(kind)
        if kind is not None
        else None
    )


def _refused(settings: LLMSettings, status: int, detail: str, sent_key: bool, images: bool) -> ProbeResult:
    said = status_advice(status, settings.base_url, settings.model, detail, sent_key=sent_key)
    server_said = f" The server said: {detail}" if detail else ""
    kind = _probe_kind(status, detail)
    if images and kind is None and any(hint in detail.lower() for hint in _IMAGE_HINTS):
        return _result(
            ProbeKind.NO_IMAGES,
            f"{settings.model} does not accept images ({status}).{server_said}",
            'Turn off "Show the model screenshots", or choose a model that reads images.',
        )
    if (
        kind is None
        and any(hint in detail.lower() for hint in TOOL_HINTS)
        and settings.tool_choice != ToolChoiceMode.JSON_TEXT
    ):
        return _result(
            ProbeKind.NO_TOOLS,
            f"{settings.model} refused the tool call ({status}).{server_said}",
            _next_mode_hint(settings.tool_choice),
        )
    return _result(kind or ProbeKind.REFUSED, said.problem + server_said, said.advice or None)


def _redacted(result: ProbeResult, key: str) -> ProbeResult:
    """Servers sometimes echo the key back (whole or masked); none of it may reach the screen."""
    return result.model_copy(
        update={
            "message": redact_key(result.message, key),
            "suggestion": redact_key(result.suggestion, key) if result.suggestion else None,
        }
    )
