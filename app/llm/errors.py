"""Turns the openai package's exceptions into LLMErrors whose message tells a person what to fix."""

from __future__ import annotations

import email.utils
import math
import re
import time
from typing import Any, NamedTuple

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
    kind = status_kind(status, detail)
    if kind is None:  # another 4xx: the provider's words may tell what it objects to
        if any(hint in lowered for hint in _CONTEXT_HINTS):
            return LLMError(LLMErrorKind.CONTEXT_LENGTH, f"The prompt is too long for model '{model}'. ({detail})")
        if any(hint in lowered for hint in _FILTER_HINTS):
            return LLMError(
                LLMErrorKind.CONTENT_FILTER, f"The endpoint's content filter refused the request. ({detail})"
            )
        if any(hint in lowered for hint in TOOL_HINTS):
            return LLMError(
                LLMErrorKind.CONFIG,
                f"Model '{model}' at {base_url} refused the tool call ({status}). Switch the tool-choice mode to "
                f"'required' or 'JSON in text' in Settings. Server said: {detail}",
            )
        kind = LLMErrorKind.CONFIG
    said = status_advice(status, base_url, model, detail)
    text = " ".join(part for part in (said.problem, said.advice, f"Server said: {detail}" if detail else "") if part)
    waits = kind in (LLMErrorKind.RATE_LIMIT, LLMErrorKind.SERVER)
    retry = retry_after_seconds(exc.response.headers) if waits else None
    return LLMError(kind, text, retry_after=retry)


def status_kind(status: int, detail: str) -> LLMErrorKind | None:
    """What a status means for retrying and for the run's ending; None for a 4xx that says no more. The one reading
    of a status, for a running task and for the connection test alike."""
    if status in (401, 403):
        return LLMErrorKind.AUTH
    if status in (404, 405):
        return LLMErrorKind.CONFIG
    if status == 429:
        # An account out of credit is not helped by waiting.
        return LLMErrorKind.AUTH if quota_exhausted(detail) else LLMErrorKind.RATE_LIMIT
    if status >= 500 or status in (408, 409):
        return LLMErrorKind.SERVER
    return None


class StatusAdvice(NamedTuple):
    """An HTTP error status in plain words: what happened (naming the server) and what to do about it."""

    problem: str
    advice: str


def quota_exhausted(detail: str) -> bool:
    """Whether a 429's text says the account ran out of credit, rather than that it sends too fast."""
    lowered = detail.lower()
    return (
        "insufficient_quota" in lowered
        or "billing" in lowered
        or ("quota" in lowered and ("exceeded" in lowered or "insufficient" in lowered))
    )


def status_advice(status: int, base_url: str, model: str, detail: str, *, sent_key: bool = True) -> StatusAdvice:
    """The one place that turns a status the endpoint answered with into advice, for a running task's error and
    for Test connection alike."""
    server = f"The server at {base_url}"
    if status in (401, 403):
        if not sent_key:
            return StatusAdvice(f"{server} needs an API key ({status}).", "Paste your API key into Settings.")
        return StatusAdvice(
            f"{server} rejected the API key ({status}).",
            "Check in Settings (or OPENAI_API_KEY) that the key is complete, belongs to this "
            "provider and is still active.",
        )
    if status == 404:
        if "model" in detail.lower():
            return StatusAdvice(
                f"{server} does not know the model '{model}' (404).",
                "Check the model name's spelling; the provider's model list has the exact names.",
            )
        return StatusAdvice(f"Nothing was found at {base_url} (404).", _BASE_URL_HINT)
    if status == 405:
        return StatusAdvice(f"{server} does not accept chat requests at this address (405).", _BASE_URL_HINT)
    if status == 429:
        if quota_exhausted(detail):
            return StatusAdvice(
                "The account behind this API key has no quota left (429).",
                "Add credit or raise the limit on the provider's billing page.",
            )
        return StatusAdvice(f"{server} is rate limiting requests right now (429).", "Wait a minute and try again.")
    if status >= 500 or status in (408, 409):
        return StatusAdvice(
            f"{server} had a server error ({status}).", "This is on the provider's side; try again in a few minutes."
        )
    return StatusAdvice(f"{server} refused the request ({status}).", "")


_BASE_URL_HINT = "Check the Base URL: it usually ends in /v1."


def retry_after_seconds(headers: Any) -> float | None:
    """Retry-After as seconds: 'retry-after-ms', a number of seconds, or an HTTP date. None when the endpoint's
    value means nothing ("soon", "nan", a date out of range): the usual backoff applies; the caller caps the wait."""
    if headers is None:
        return None
    millis = _seconds(headers.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000
    value = headers.get("retry-after")
    seconds = _seconds(value)
    if seconds is not None or not value:
        return seconds
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (ValueError, TypeError, OverflowError):  # Python raises for a text that is no date at all
        return None
    return max(0.0, moment.timestamp() - time.time())


def _seconds(value: str | None) -> float | None:
    """A header's number, no less than 0; None when it is missing, not a number, infinite or NaN."""
    try:
        number = float(value) if value else math.nan
    except ValueError:
        return None
    return max(0.0, number) if math.isfinite(number) else None


_SDK_PREFIX = re.compile(r"^Error code: \d+(?: - )?")


def error_detail(exc: Exception) -> str:
    """The provider's own words about the error (its JSON body's message), else the exception's text without the
    SDK's "Error code: 405" (the status is said already): "" when that is all there is."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error")
        message = error.get("message") if isinstance(error, dict) else body.get("message")
        if message:
            return _clipped(str(message))
    return _clipped(_SDK_PREFIX.sub("", str(exc)).strip())


def _clipped(text: str) -> str:
    # Masked before the cut: a cut could leave the start of a key that nothing would recognise any more.
    return mask_everywhere(text)[:300]
