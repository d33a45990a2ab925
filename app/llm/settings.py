"""How to reach a model endpoint. The key is a SecretStr so it never lands in a repr, a log or an export."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field, SecretStr


class ToolChoiceMode(StrEnum):
    NAMED = "named"  # tool_choice forces AgentOutput by name
    REQUIRED = "required"  # tool_choice="required": for endpoints that reject a named choice
    JSON_TEXT = "json_text"  # no tools at all: the schema goes into the prompt, the answer is JSON text


class LLMSettings(BaseModel):
    base_url: str = "https://api.openai.com/v1"
    api_key: SecretStr | None = None
    model: str = "gpt-4.1-mini"
    temperature: float | None = Field(default=None, ge=0, le=2)
    request_timeout: float = Field(default=90.0, gt=0)
    tool_choice: ToolChoiceMode = ToolChoiceMode.NAMED
    max_attempts: int = Field(default=3, ge=1, le=10)
    # First backoff delay; doubled each retry, with jitter.
    retry_base_delay: float = Field(default=1.0, ge=0)
    retry_max_delay: float = Field(default=30.0, ge=0)
