"""Turns the openai package's exceptions into LLMErrors whose message tells a person what to fix."""

from __future__ import annotations

import email.utils
import re
import time
from typing import Any

from app.core.llm import LLMError, LLMErrorKind
from app.core.safety.secrets import HIDDEN, mask_everywhere

_CONTEXT_HINTS = ("context_length", "context length", "maximum context", "too many tokens", "max_tokens", "too long")
_FILTER_HINTS = ("content_filter", "content management", "content policy", "safety")
TOOL_HINTS = ("tool_choice", "tools", "function call", "tool call", "function_call")
# What providers echo of a key, whole or starred ("Incorrect API key provided: sk-abc*****wxyz").
_KEYLIKE = re.compile(r"\b(?:sk|pk|key)-[A-Za-z0-9_\-*.]{6,}")


def redact_key(text: str, api_key: str = "") -> str:
    """``text`` without the key, anything that looks like a key, or any other secret the process holds."""
    if api_key:
        text = text.replace(api_key, HIDDEN)
    return _KEYLIKE.sub(HIDDEN, mask_everywhere(text))


def classify(exc: Exception, base_url: str, model: str, api_key: str = "") -> LLMError:
    """The failure as an LLMError whose message a person can act on, and which never quotes the key."""
    error = _classify(exc, base_url, model)
    return LLMError(error.kind, redact_key(error.message, api_key), retry_after=error.retry_after)


def _classify(exc: Exception, base_url: str, model: str) -> LLMError:
    import openai  # lazily: importing openai costs over a second

    detail = error_detail(exc)
    lowered = detail.lower()
    if isinstance(exc, openai.APITimeoutError):
        return LLMError(LLMErrorKind.NETWORK, f"The model endpoint {base_url} did not answer in time.")
    if isinstance(exc, openai.APIConnectionError):
        return LLMError(
            LLMErrorKind.NETWORK,
            f"Could not reach the model endpoint {base_url}. Check the base URL and your network. ({detail})",
        )
    if not isinstance(exc, openai.APIStatusError):
        return LLMError(LLMErrorKind.INVALID_OUTPUT, f"The model's answer could not be read: {detail}")

    status = exc.status_code
    if status in (401, 403):
        return LLMError(
            LLMErrorKind.AUTH,
            f"The endpoint {base_url} rejected the API key ({status}). Check the key in Settings "
            f"(or OPENAI_API_KEY). Server said: {detail}",
        )
    if status == 404:
        return LLMError(
            LLMErrorKind.CONFIG,
            f"The endpoint {base_url} does not know model '{model}' or this path (404). Check the base URL "
            f"(it usually ends in /v1) and the model name. Server said: {detail}",
        )
    if status == 429:
        if "insufficient_quota" in lowered or ("quota" in lowered and "exceeded your" in lowered):
            return LLMError(LLMErrorKind.AUTH, f"The account behind this API key has no quota left. ({detail})")
        return LLMError(
            LLMErrorKind.RATE_LIMIT, f"The endpoint is rate limiting requests (429). {detail}",
            retry_after=retry_after_seconds(exc.response.headers),
        )
    if status >= 500 or status in (408, 409):
        return LLMError(
            LLMErrorKind.SERVER, f"The model endpoint had a server error ({status}). {detail}",
            retry_after=retry_after_seconds(exc.response.headers),
        )
    if any(hint in lowered for hint in _CONTEXT_HINTS):
        return LLMError(LLMErrorKind.CONTEXT_LENGTH, f"The prompt is too long for model '{model}'. ({detail})")
    if any(hint in lowered for hint in _FILTER_HINTS):
        return LLMError(LLMErrorKind.CONTENT_FILTER, f"The endpoint's content filter refused the request. ({detail})")
    if any(hint in lowered for hint in TOOL_HINTS):
        return LLMError(
            LLMErrorKind.CONFIG,
            f"Model '{model}' at {base_url} refused the tool call ({status}). Switch the tool-choice mode to "
            f"'required' or 'JSON in text' in Settings. Server said: {detail}",
        )
    return LLMError(LLMErrorKind.CONFIG, f"The endpoint refused the request ({status}): {detail}")


def retry_after_seconds(headers: Any) -> float | None:
    """Retry-After as seconds: 'retry-after-ms', a number of seconds, or an HTTP date."""
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value) if value else None
        return max(0.0, parsed.timestamp() - time.time()) if parsed else None


def error_detail(exc: Exception) -> str:
    """The provider's own words about the error (its JSON body's message), else the exception's text."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error")
        message = error.get("message") if isinstance(error, dict) else body.get("message")
        if message:
            return _clipped(str(message))
    return _clipped(str(exc))


def _clipped(text: str) -> str:
    # Masked before the cut: a cut could leave the start of a key that nothing would recognise any more.
    return mask_everywhere(text)[:300]
