"""Knobs of one agent: limits and behaviour. Persisted settings map onto this; it holds no secrets."""

from __future__ import annotations

from pydantic import BaseModel, Field


class AgentConfig(BaseModel):
    max_steps: int = Field(default=40, ge=1, le=500)
    max_failures: int = Field(default=3, ge=1, le=50)
    # Covers one whole step: observation, the model call (with its retries) and the action.
    step_timeout: float = Field(default=180.0, gt=0)
    # The whole task's time budget; None means no limit.
    max_duration: float | None = Field(default=None, gt=0)
    # The final, done-only call that writes the progress report after a limit.
    final_call_timeout: float = Field(default=60.0, gt=0)
    language: str = "en"
    enable_javascript: bool = False
    extra_instructions: str = ""
