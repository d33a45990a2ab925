"""The panel's moments, one table: what the status pill says and which buttons the composer offers in each.

The main window is always in exactly one ``PanelState``; the pill and the composer follow it from this table, so they
can never disagree (a "Stopping…" pill under a Run button, a "Paused" pill under Stop).
"""

from __future__ import annotations

from enum import Enum

from app.core.types import AgentStatus, ExecutionResult, RetryEvent, RunOutcome, StepEvent
from app.ui.status_pill import PillState
from app.ui.task_input import ComposerMode


class PanelState(Enum):
    READY = "ready"  # nothing run yet, or after "New task"
    OPENING = "opening"  # the panel has just opened and Chromium is starting beside it; a task may be typed and run
    STARTING = "starting"  # launching Chromium, building the agent
    RUNNING = "running"
    ASKING = "asking"  # the agent asked the person a question; the task box takes the answer
    CONFIRMING = "confirming"  # an Allow/Cancel waits for the person (a page's confirm(), an irreversible click)
    PAUSED = "paused"  # the person took over the browser
    HANDED_OFF = "handed_off"  # the agent handed the browser to the person: "Your turn"
    STOPPING = "stopping"  # Stop pressed; the agent is settling
    SUCCEEDED = "succeeded"
    FAILED = "failed"  # ended, but the agent says it did not succeed
    ERROR = "error"
    STOPPED = "stopped"
    DEMO_OVER = "demo_over"  # the demo replayed everything it recorded; a follow-up has nothing to replay
    BROWSER_CLOSED = "browser_closed"  # Chromium was closed: nothing to follow up in; the next task opens it again

    @property
    def pill(self) -> PillState:
        return _LOOK[self][0]

    @property
    def composer(self) -> ComposerMode:
        return _LOOK[self][1]

    @property
    def ended(self) -> bool:
        """A task ended: what the person types next is a follow-up."""
        return self.composer is ComposerMode.FOLLOW_UP


_LOOK: dict[PanelState, tuple[PillState, ComposerMode]] = {
    PanelState.READY: (PillState.IDLE, ComposerMode.NEW),
    PanelState.OPENING: (PillState.OPENING, ComposerMode.NEW),
    PanelState.STARTING: (PillState.STARTING, ComposerMode.STARTING),
    PanelState.RUNNING: (PillState.RUNNING, ComposerMode.RUNNING),
    PanelState.ASKING: (PillState.ASKING, ComposerMode.ASKING),
    PanelState.CONFIRMING: (PillState.ASKING, ComposerMode.RUNNING),
    PanelState.PAUSED: (PillState.PAUSED, ComposerMode.PAUSED),
    PanelState.HANDED_OFF: (PillState.HANDED_OFF, ComposerMode.HANDED_OFF),
    PanelState.STOPPING: (PillState.STOPPING, ComposerMode.STOPPING),
    PanelState.SUCCEEDED: (PillState.SUCCESS, ComposerMode.FOLLOW_UP),
    PanelState.FAILED: (PillState.FAILED, ComposerMode.FOLLOW_UP),
    PanelState.ERROR: (PillState.ERROR, ComposerMode.FOLLOW_UP),
    PanelState.STOPPED: (PillState.STOPPED, ComposerMode.FOLLOW_UP),
    PanelState.DEMO_OVER: (PillState.IDLE, ComposerMode.FOLLOW_UP),
    PanelState.BROWSER_CLOSED: (PillState.ERROR, ComposerMode.NEW),
}

ENDED_AS: dict[RunOutcome, PanelState] = {
    RunOutcome.SUCCESS: PanelState.SUCCEEDED,
    RunOutcome.FAILED: PanelState.FAILED,
    RunOutcome.ERROR: PanelState.ERROR,
    RunOutcome.STOPPED: PanelState.STOPPED,
    # Only a run with nobody to hand the browser to ends so (the CLI); the panel always has its person.
    RunOutcome.NEEDS_PERSON: PanelState.FAILED,
}


def model_unreachable(result: ExecutionResult) -> bool:
    """The run failed before its first step after retrying the model call: the endpoint did not answer (a wrong
    key is not retried, and a failure in the browser does not retry the model)."""
    return (
        result.status == AgentStatus.ERROR
        and not any(isinstance(event, StepEvent) for event in result.history)
        and any(isinstance(event, RetryEvent) for event in result.history)
    )
