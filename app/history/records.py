"""What a saved run holds: its tasks (the first and its follow-ups) with every event, the outcome, and the settings
it ran with, minus anything secret."""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field, field_validator

from app.core.types import AgentStatus, ExecutionResult, HistoricalEvent, RunOutcome, Usage

# Settings has no secret field today; this keeps one out of every record and export if it ever gets one.
_SECRET_NAME = re.compile(r"key|token|secret|password|passwd|credential|auth", re.IGNORECASE)
# Window placement says nothing about the run.
_NOT_A_RUN_SETTING = frozenset({"panel_geometry", "first_run_done", "api_access_not_kept"})


def settings_snapshot(settings: BaseModel | Mapping[str, Any]) -> dict[str, Any]:
    data = settings.model_dump(mode="json") if isinstance(settings, BaseModel) else dict(settings)
    return {
        name: value for name, value in data.items() if not _SECRET_NAME.search(name) and name not in _NOT_A_RUN_SETTING
    }


def new_run_id(now: datetime) -> str:
    """Sorts by time as text; the random tail keeps two runs started in one second apart."""
    return f"{now.astimezone(UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


class TaskRun(BaseModel):
    """One task of a run: the first one, or a follow-up in the same browser with the previous context."""

    task: str
    follow_up: bool = False
    started_at: datetime
    finished_at: datetime
    status: AgentStatus
    success: bool
    result: str = ""
    steps: int = 0
    usage: Usage = Field(default_factory=Usage)
    events: list[HistoricalEvent] = Field(default_factory=list)

    @property
    def outcome(self) -> RunOutcome:
        return RunOutcome.of(self.status, self.success)

    def to_result(self) -> ExecutionResult:
        """The task's outcome as the agent reported it, to show it again."""
        return ExecutionResult(
            success=self.success,
            data=self.result,
            history=self.events,
            status=self.status,
            steps=self.steps,
            usage=self.usage,
        )


class RunSummary(BaseModel):
    """The little a history list needs, kept in the store's index so listing never parses every event."""

    id: str
    started_at: datetime
    finished_at: datetime
    title: str
    task_count: int
    status: AgentStatus
    success: bool
    steps: int
    total_tokens: int = 0
    demo: bool = False
    replay: bool = False

    @property
    def outcome(self) -> RunOutcome:
        return RunOutcome.of(self.status, self.success)


class RunRecord(BaseModel):
    id: str
    started_at: datetime
    demo: bool = False
    replay: bool = False  # answers came from a recording (--replay), not a model: no model ran, nothing was spent
    settings: dict[str, Any] = Field(default_factory=dict)
    tasks: list[TaskRun] = Field(default_factory=list)

    @field_validator("settings")
    @classmethod
    def _no_secrets(cls, value: dict[str, Any]) -> dict[str, Any]:
        return settings_snapshot(value)

    @property
    def model_called(self) -> bool:
        """False for the demo and for replays: their model name and token count mean nothing."""
        return not (self.demo or self.replay)

    @property
    def finished_at(self) -> datetime:
        return self.tasks[-1].finished_at if self.tasks else self.started_at

    @property
    def status(self) -> AgentStatus:
        return self.tasks[-1].status if self.tasks else AgentStatus.IDLE

    @property
    def success(self) -> bool:
        return bool(self.tasks) and self.tasks[-1].success

    @property
    def outcome(self) -> RunOutcome:
        return RunOutcome.of(self.status, self.success)

    @property
    def steps(self) -> int:
        return sum(task.steps for task in self.tasks)

    @property
    def usage(self) -> Usage:
        return sum((task.usage for task in self.tasks), Usage())

    def summary(self) -> RunSummary:
        return RunSummary(
            id=self.id,
            started_at=self.started_at,
            finished_at=self.finished_at,
            title=self.tasks[0].task if self.tasks else "",
            task_count=len(self.tasks),
            status=self.status,
            success=self.success,
            steps=self.steps,
            total_tokens=self.usage.total_tokens,
            demo=self.demo,
            replay=self.replay,
        )
