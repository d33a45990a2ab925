"""Knobs of one agent: limits and behaviour. Persisted settings map onto this; it holds no secrets."""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.core.limits import MAX_DURATION_LIMIT, MAX_STEPS_LIMIT


class AgentConfig(BaseModel):
    max_steps: int = Field(default=40, ge=1, le=MAX_STEPS_LIMIT)
    max_failures: int = Field(default=3, ge=1, le=50)
    # Covers one whole step: observation, the model call (a timed-out call is tried twice) and the action.
    step_timeout: float = Field(default=240.0, gt=0, allow_inf_nan=False)
    # Reading the page: one that never finishes (a script in an endless loop, a server that never answers) is told
    # to the model as not responding after this long, instead of using up the whole step.
    observe_timeout: float = Field(default=10.0, gt=0, allow_inf_nan=False)
    # The whole task's time budget, the final progress report included; None means no limit.
    max_duration: float | None = Field(default=None, gt=0, le=MAX_DURATION_LIMIT, allow_inf_nan=False)
    # The final, done-only call that writes the progress report after a limit (never beyond max_duration).
    final_call_timeout: float = Field(default=60.0, gt=0, allow_inf_nan=False)
    language: str = "en"
    enable_javascript: bool = False
    # Show the model a labelled screenshot of the viewport with each step (for models that accept images).
    vision: bool = False
    extra_instructions: str = ""
    # The keys of the data object the done tool then requires (a routine's --output-columns); empty: no data.
    result_fields: tuple[str, ...] = ()
