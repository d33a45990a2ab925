"""The agent's public vocabulary (names from page-agent): statuses, reflections, activities, history, results."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, model_validator

from app.core.messages import TASK_ABORTED, Said

# The mark in front of a failed action's result where the model reads it; ``ActionRecord.ok`` is what code reads.
FAILURE_MARK = "❌"


class AgentStatus(StrEnum):
    IDLE = "idle"
    RUNNING = "running"
    COMPLETED = "completed"
    ERROR = "error"
    STOPPED = "stopped"
    # The agent handed the browser to a person (a captcha, a sign-in) and nobody was there to take it: the CLI
    # without a terminal. With a person present a hand-off is a pause inside the run, not an ending.
    NEEDS_PERSON = "needs_person"


TERMINAL_STATUSES = frozenset({AgentStatus.COMPLETED, AgentStatus.ERROR, AgentStatus.STOPPED, AgentStatus.NEEDS_PERSON})


class RunOutcome(StrEnum):
    """How a run ended, the one idea of it every view derives its words and colour from."""

    SUCCESS = "success"  # completed, and the agent says the task was done
    FAILED = "failed"  # completed, and the agent says it could not be done
    ERROR = "error"
    STOPPED = "stopped"
    NEEDS_PERSON = "needs_person"

    @classmethod
    def of(cls, status: AgentStatus, success: bool) -> RunOutcome:
        match status:
            case AgentStatus.COMPLETED:
                return cls.SUCCESS if success else cls.FAILED
            case AgentStatus.STOPPED:
                return cls.STOPPED
            case AgentStatus.NEEDS_PERSON:
                return cls.NEEDS_PERSON
        return cls.ERROR


class ErrorKind(StrEnum):
    """What an ``ErrorEvent`` is about: the person's stop, the agent's own trouble (its words in ``said``), or a
    model endpoint's failure (the same values as ``LLMErrorKind``; the endpoint's own words in ``message``)."""

    STOPPED = "stopped"
    AGENT = "agent"
    AUTH = "auth"
    CONFIG = "config"
    RATE_LIMIT = "rate_limit"
    SERVER = "server"
    NETWORK = "network"
    CONTEXT_LENGTH = "context_length"
    CONTENT_FILTER = "content_filter"
    INVALID_OUTPUT = "invalid_output"


class AgentReflection(BaseModel):
    evaluation_previous_goal: str = ""
    memory: str = ""
    next_goal: str = ""


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
        )

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


# --- Activities: transient, for the UI -------------------------------------------------------------------------


class ThinkingActivity(BaseModel):
    type: Literal["thinking"] = "thinking"
    step_index: int
    max_steps: int


class ActionTarget(BaseModel):
    """The element an action acts on, as a person would name it ("the Email field"), for plain-words display."""

    tag: str
    name: str = ""
    input_type: str = ""


class ExecutingActivity(BaseModel):
    type: Literal["executing"] = "executing"
    tool: str
    input: dict[str, Any]
    target: ActionTarget | None = None


class ExecutedActivity(BaseModel):
    type: Literal["executed"] = "executed"
    tool: str
    input: dict[str, Any]
    output: str
    duration: float
    target: ActionTarget | None = None
    ok: bool = True
    declined: bool = False  # not done: the person did not allow it


class RetryingActivity(BaseModel):
    type: Literal["retrying"] = "retrying"
    attempt: int
    max_attempts: int
    message: str = ""


class ErrorActivity(BaseModel):
    type: Literal["error"] = "error"
    message: str


class PausedActivity(BaseModel):
    """The user took over the browser; the agent waits for resume() or stop()."""

    type: Literal["paused"] = "paused"


class HandOffActivity(BaseModel):
    """The agent asked the person to act in the browser (hand_off_to_user: a captcha, a sign-in, a code); the run
    is paused, its step budget and time limit stand still, and it waits for resume() or stop()."""

    type: Literal["hand_off"] = "hand_off"
    reason: str


AgentActivity = Annotated[
    ThinkingActivity
    | ExecutingActivity
    | ExecutedActivity
    | RetryingActivity
    | ErrorActivity
    | PausedActivity
    | HandOffActivity,
    Field(discriminator="type"),
]


# --- History: persistent, fed back to the model ----------------------------------------------------------------


class ActionRecord(BaseModel):
    name: str
    input: dict[str, Any] = Field(default_factory=dict)
    output: str = ""
    target: ActionTarget | None = None
    ok: bool = True  # False: the action failed, and ``output`` says why
    declined: bool = False  # it failed because the person did not allow it: nothing was done

    @model_validator(mode="before")
    @classmethod
    def _read_older_runs(cls, data: Any) -> Any:
        # Runs saved before ``ok`` existed marked a failure only by the ❌ in front of the output.
        if isinstance(data, dict) and "ok" not in data and str(data.get("output", "")).startswith(FAILURE_MARK):
            return {**data, "ok": False}
        return data


class StepEvent(BaseModel):
    type: Literal["step"] = "step"
    step_index: int
    reflection: AgentReflection = Field(default_factory=AgentReflection)
    action: ActionRecord
    usage: Usage = Field(default_factory=Usage)
    duration: float = 0.0


class ObservationEvent(BaseModel):
    type: Literal["observation"] = "observation"
    content: str
    said: Said | None = None  # when the content is one of the agent's own messages (app/core/messages.py)


class UserTakeoverEvent(BaseModel):
    type: Literal["user_takeover"] = "user_takeover"
    before_url: str = ""
    before_title: str = ""
    after_url: str = ""
    after_title: str = ""
    note: str = ""
    # True when the agent had handed the browser over (hand_off_to_user), not when the user took it (Take over).
    after_hand_off: bool = False


class RetryEvent(BaseModel):
    type: Literal["retry"] = "retry"
    message: str
    attempt: int
    max_attempts: int


class ErrorEvent(BaseModel):
    type: Literal["error"] = "error"
    message: str  # in English, as the model reads it
    kind: ErrorKind = ErrorKind.AGENT
    said: Said | None = None  # the agent's own message, for a view to say in its language

    @property
    def stopped(self) -> bool:
        return self.kind is ErrorKind.STOPPED

    @model_validator(mode="before")
    @classmethod
    def _read_older_runs(cls, data: Any) -> Any:
        # Older runs: no kind for the agent's own trouble, and before that a stop was told by its message alone.
        if isinstance(data, dict) and not data.get("kind"):
            stopped = data.get("message") == TASK_ABORTED
            return {**data, "kind": ErrorKind.STOPPED if stopped else ErrorKind.AGENT}
        return data


HistoricalEvent = Annotated[
    StepEvent | ObservationEvent | UserTakeoverEvent | RetryEvent | ErrorEvent,
    Field(discriminator="type"),
]


class TaskRecord(BaseModel):
    """A finished task, carried into follow-ups so the model keeps its context."""

    task: str
    status: AgentStatus
    success: bool
    result: str
    last_memory: str = ""


class ExecutionResult(BaseModel):
    success: bool
    data: str
    history: list[HistoricalEvent] = Field(default_factory=list)
    status: AgentStatus
    steps: int = 0
    usage: Usage = Field(default_factory=Usage)

    @property
    def outcome(self) -> RunOutcome:
        return RunOutcome.of(self.status, self.success)


class TaskStarted(BaseModel):
    """The ``task_started`` event: a task began (its history starts empty).

    Without the task's text: it may hold a password the agent learns only when it types it; ``TaskFinished`` carries
    the text, masked by then."""

    follow_up: bool  # carries on from the tasks before it (the model keeps their context)


class TaskFinished(BaseModel):
    """The ``task_finished`` event: a task ended, after its status became final; ``result`` is what execute returns."""

    task: str
    follow_up: bool
    result: ExecutionResult
