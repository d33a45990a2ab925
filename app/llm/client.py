"""An OpenAI-compatible chat client: one forced tool call per request, classified errors, retries with backoff."""

from __future__ import annotations

import asyncio
import json
import logging
import random
from typing import Any

from app.core.abort import AbortError, AbortSignal
from app.core.clean_text import valid_text
from app.core.llm import LLMError, LLMErrorKind, LLMReply, Message, RetryCallback, ToolCall, ToolSpec
from app.core.safety.secrets import hide_everywhere
from app.core.types import Usage
from app.llm.errors import classify
from app.llm.sdk import forced_tool, new_client
from app.llm.settings import LLMSettings, ToolChoiceMode

log = logging.getLogger(__name__)

# A request that ran out of time is tried once more, not as often as other passing troubles: each try costs the
# whole timeout, and an endpoint that is silent twice is unlikely to answer a third time.
_TIMEOUT_TRIES = 2
# The SDK's own (per-read) timeout sits a little beyond ours, so that our deadline for the whole answer is the one
# that speaks.
_SDK_TIMEOUT_SLACK = 5.0


class OpenAICompatibleClient:
    def __init__(self, settings: LLMSettings) -> None:
        self.settings = settings
        self._key = settings.api_key.get_secret_value() if settings.api_key else ""
        hide_everywhere(self._key)  # masked in every log line and file from now on
        self._client: Any = None

    async def prepare(self) -> None:
        """Import the SDK and build its client on a worker thread (over a second: the import, and the TLS context
        httpx loads), so that this overlaps Chromium starting instead of holding up the first model call and the
        event loop."""
        if self._client is None:
            client = await asyncio.to_thread(self._new_client)
            if self._client is None:  # the first call may have built one meanwhile
                self._client = client

    def _sdk(self) -> Any:
        if self._client is None:
            self._client = self._new_client()
        return self._client

    def _new_client(self) -> Any:
        client = new_client(self.settings.base_url, self._key, self.settings.request_timeout + _SDK_TIMEOUT_SLACK)
        _ = client.chat.completions  # imported on first use: here, on prepare()'s thread, not at the first call
        return client

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def invoke(
        self,
        messages: list[Message],
        tool: ToolSpec,
        signal: AbortSignal,
        on_retry: RetryCallback | None = None,
    ) -> LLMReply:
        attempts = self.settings.max_attempts
        timeouts = 0
        for attempt in range(1, attempts + 1):
            signal.throw_if_aborted()
            try:
                return await signal.race(asyncio.wait_for(self._call(messages, tool), self.settings.request_timeout))
            except AbortError:
                raise
            except LLMError as error:
                failure = error
            except TimeoutError:
                failure = self._timed_out()
                timeouts += 1
            except Exception as exc:
                failure = classify(exc, self.settings.base_url, self.settings.model, self._key)
                timeouts += _is_sdk_timeout(exc)
            if not failure.retryable or attempt == attempts or timeouts >= _TIMEOUT_TRIES:
                raise failure
            delay = self._backoff(attempt, failure.retry_after)
            log.info("model call failed (%s), retry %d/%d in %.2fs", failure.kind, attempt + 1, attempts, delay)
            if on_retry is not None:
                on_retry(attempt + 1, attempts, failure.message)
            await signal.sleep(delay)
        raise AssertionError("unreachable")

    def _timed_out(self) -> LLMError:
        return LLMError(
            LLMErrorKind.NETWORK,
            f"The model endpoint {self.settings.base_url} did not answer within "
            f"{self.settings.request_timeout:g} s. Try again later, or raise the model answer timeout in Settings.",
        )

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self.settings.retry_max_delay)
        exponential = self.settings.retry_base_delay * 2.0 ** (attempt - 1)
        return min(exponential * random.uniform(0.5, 1.5), self.settings.retry_max_delay)

    async def _call(self, messages: list[Message], tool: ToolSpec) -> LLMReply:
        mode = self.settings.tool_choice
        request: dict[str, Any] = {"model": self.settings.model, "messages": _wire_messages(messages, tool, mode)}
        if self.settings.temperature is not None:
            request["temperature"] = self.settings.temperature
        request.update(forced_tool(tool.name, tool.description, tool.parameters, mode))
        response = await self._sdk().chat.completions.create(**request)
        return _reply_of(response)


def _is_sdk_timeout(exc: Exception) -> bool:
    import openai  # already imported by the call that failed

    return isinstance(exc, openai.APITimeoutError)


def _wire_messages(messages: list[Message], tool: ToolSpec, mode: ToolChoiceMode) -> list[dict[str, Any]]:
    # Valid once more on the way out: one lone surrogate (a tab's title) would make the whole request unsendable.
    wire: list[dict[str, Any]] = [{"role": message.role, "content": _content(message)} for message in messages]
    if mode == ToolChoiceMode.JSON_TEXT:
        wire.append(
            {
                "role": "system",
                "content": (
                    f"Answer with one JSON object only (no prose, no code fence): the arguments of {tool.name}, "
                    f"which follow this JSON schema:\n{json.dumps(tool.parameters, ensure_ascii=False)}"
                ),
            }
        )
    return wire


def _content(message: Message) -> str | list[dict[str, Any]]:
    """Plain text, or text and images as content parts (the OpenAI image-input format)."""
    text = valid_text(message.content)
    if not message.images:
        return text
    # "auto" lets the endpoint pick the detail the image needs; the image is already scaled down to keep it modest.
    images = [{"type": "image_url", "image_url": {"url": url, "detail": "auto"}} for url in message.images]
    return [{"type": "text", "text": text}, *images]


def _reply_of(response: Any) -> LLMReply:
    if not getattr(response, "choices", None):
        raise LLMError(LLMErrorKind.INVALID_OUTPUT, "The endpoint answered without any choice.")
    choice = response.choices[0]
    if choice.finish_reason == "content_filter":
        raise LLMError(LLMErrorKind.CONTENT_FILTER, "The endpoint's content filter stopped the model's answer.")
    message = choice.message
    # The answer enters the product here: a lone surrogate in it ("\ud800") could not be printed or saved.
    calls = [
        ToolCall(name=valid_text(call.function.name or ""), arguments=valid_text(call.function.arguments or ""))
        for call in (message.tool_calls or [])
        if getattr(call, "function", None) is not None
    ]
    content = valid_text(message.content) if message.content is not None else None
    return LLMReply(tool_calls=calls, content=content, usage=_usage_of(response))


def _usage_of(response: Any) -> Usage:
    usage = getattr(response, "usage", None)
    if usage is None:
        return Usage()
    details = getattr(usage, "prompt_tokens_details", None)
    return Usage(
        prompt_tokens=usage.prompt_tokens or 0,
        completion_tokens=usage.completion_tokens or 0,
        cached_tokens=(getattr(details, "cached_tokens", 0) or 0) if details else 0,
    )
