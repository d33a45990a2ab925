"""What the agent needs from a model endpoint. app/llm implements it with the openai package."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any, Protocol

from pydantic import BaseModel, Field

from app.core.abort import AbortSignal
from app.core.page import ListedElement
from app.core.types import Usage


class LLMErrorKind(StrEnum):
    AUTH = "auth"
    CONFIG = "config"
    RATE_LIMIT = "rate_limit"
    SERVER = "server"
    NETWORK = "network"
    CONTEXT_LENGTH = "context_length"
    CONTENT_FILTER = "content_filter"
    INVALID_OUTPUT = "invalid_output"


RETRYABLE_KINDS = frozenset({LLMErrorKind.RATE_LIMIT, LLMErrorKind.SERVER, LLMErrorKind.NETWORK})


class LLMError(Exception):
    """A classified failure of the model call. The message says, in plain words, what to fix where it can."""

    def __init__(self, kind: LLMErrorKind, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        return self.kind in RETRYABLE_KINDS


class ToolCall(BaseModel):
    name: str
    arguments: str  # raw JSON text, exactly as the model sent it: core repairs it


class LLMReply(BaseModel):
    tool_calls: list[ToolCall] = Field(default_factory=list)
    content: str | None = None
    usage: Usage = Field(default_factory=Usage)


class Message(BaseModel):
    role: str  # "system" | "user" | "assistant"
    content: str
    # data: URLs of images shown with the text (the page's screenshot, on the last message only).
    images: list[str] = Field(default_factory=list)
    # The page's elements as data (on the last message only, beside the page in ``content``), for a client that
    # reads the answers against the page: a cassette, a scripted model. Never sent: the model reads the text.
    elements: list[ListedElement] = Field(default_factory=list)


class ToolSpec(BaseModel):
    """The one forced tool: its name, description and JSON schema of its arguments."""

    name: str
    description: str
    parameters: dict[str, Any]


RetryCallback = Callable[[int, int, str], None]  # (attempt, max_attempts, message)


class LLMClient(Protocol):
    async def invoke(
        self,
        messages: list[Message],
        tool: ToolSpec,
        signal: AbortSignal,
        on_retry: RetryCallback | None = None,
    ) -> LLMReply:
        """One model call with the tool forced. Retries retryable errors itself (reporting each via ``on_retry``);
        raises LLMError when it gives up and AbortError the moment ``signal`` aborts."""
        ...
