"""What the MCP tools return: typed, plain words, secrets masked. Statuses are values, never English to parse."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from app.core.types import AgentStatus, RunOutcome

# A task's status: before it ends, and how it ended (``task_status``: success and failed are both "completed",
# the outcome's ``success`` tells them apart).
TaskStatus = Literal["queued", "running", "needs_person", "completed", "error", "stopped"]


def task_status(outcome: RunOutcome) -> TaskStatus:
    """The status of a task that ended so."""
    match outcome:
        case RunOutcome.SUCCESS | RunOutcome.FAILED:
            return "completed"
        case RunOutcome.NEEDS_PERSON:
            return "needs_person"
        case RunOutcome.STOPPED:
            return "stopped"
        case RunOutcome.ERROR:
            return "error"


# Ended for a headless task (nobody can take the browser); a pause in the panel, which carries on afterwards.
NEEDS_PERSON = "needs_person"
ENDED: frozenset[TaskStatus] = frozenset(task_status(outcome) for outcome in RunOutcome) - {NEEDS_PERSON}


class TaskOutcome(BaseModel):
    success: bool = Field(description="The agent reports the task done as asked.")
    final_words: str = Field(description="The agent's final words: its answer, or why it ended.")
    steps: int
    run_id: str = Field(default="", description="Its run in History (get_run), when it was saved there.")


class TaskView(BaseModel):
    task_id: str
    status: TaskStatus
    where: Literal["panel", "headless"] = Field(
        description="panel: in the open Page Agent Desktop panel, where the person sees it; headless: in a "
        "Chromium of its own."
    )
    steps: int = Field(description="Steps taken so far.")
    now: str = Field(description="What the agent is doing now, in plain words.")
    reason: str = Field(
        default="",
        description="With needs_person: what the person is asked to do, and where; for a task that could not run "
        "(the panel busy, in demo or Routine mode): why.",
    )
    note: str = Field(default="", description="Why it runs headless although a panel's socket was found, if so.")
    outcome: TaskOutcome | None = Field(default=None, description="Once the task has ended.")

    @property
    def ended(self) -> bool:
        return self.status in ENDED or (self.status == NEEDS_PERSON and self.outcome is not None)


RoutineStatus = Literal["starting", "running", "done", "stopped", "error"]


class RoutineView(BaseModel):
    routine_id: str
    status: RoutineStatus
    rows: int = Field(description="Rows in the file.")
    counts: dict[str, int] = Field(description="Rows per status so far (done, failed, needs_person, error…).")
    results_path: str = Field(description="The results CSV, rewritten after every row.")
    message: str = Field(default="", description="Why it stopped or failed, in plain words.")

    @property
    def ended(self) -> bool:
        return self.status in ("done", "stopped", "error")


class RunListItem(BaseModel):
    run_id: str
    started_at: str
    title: str
    status: AgentStatus
    success: bool
    steps: int


class RunList(BaseModel):
    runs: list[RunListItem]
