"""One run's state, shared by the agent's lifecycle (app/core/agent.py) and its step loop (app/core/step_loop.py)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from app.core.abort import AbortController
from app.core.llm import ToolSpec
from app.core.messages import Said
from app.core.nudges import LoopDetector
from app.core.page import BrowserState
from app.core.prompt_budget import PromptBudget
from app.core.tools.registry import ToolSet
from app.core.types import AgentStatus, ErrorEvent, ErrorKind, HistoricalEvent, Usage

# The reason a step is aborted when the person takes over (Agent.pause).
PAUSED = "paused by the user"


@dataclass
class Ending:
    status: AgentStatus
    success: bool
    data: str


@dataclass
class Run:
    task: str
    # The person's own words in the task (Agent.execute): what the policies honour as asked for.
    own_words: str
    controller: AbortController
    tools: ToolSet
    tool_spec: ToolSpec
    started: float
    follow_up: bool = False
    # Seconds spent waiting for the user (a hand-off, a Take over): not charged to the time budget.
    paused_for: float = 0.0
    # Masked as each event is added, and again whenever the vault learns a value (Agent._history_of).
    history: list[HistoricalEvent] = field(default_factory=list)
    masked_generation: int = 0
    step_count: int = 0
    failures: int = 0
    # Page reads in a row that ran out of time: the first may be a slow page, more are the run getting nowhere.
    unresponsive: int = 0
    usage: Usage = field(default_factory=Usage)
    loops: LoopDetector = field(default_factory=LoopDetector)
    last_state: BrowserState | None = None
    # How much of the history and the page the model reads; tightened for good once the model says it is too much.
    budget: PromptBudget = field(default_factory=PromptBudget)
    step_controller: AbortController | None = None
    paused: bool = False
    # What the agent asked the user to do while the run is paused on a hand-off; "" for a Take over.
    hand_off_reason: str = ""
    resume_event: asyncio.Event = field(default_factory=asyncio.Event)
    resume_note: str = ""
    settled: asyncio.Event = field(default_factory=asyncio.Event)


def agent_error(said: Said) -> ErrorEvent:
    """One of the agent's own messages as an error in the run's history."""
    return ErrorEvent(message=said.text, kind=ErrorKind.AGENT, said=said)
