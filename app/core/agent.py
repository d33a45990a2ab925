"""The agent: its lifecycle (execute / stop / pause / resume / dispose), its events and its masking; each run's steps
are taken by app/core/step_loop.py."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

from pydantic import BaseModel

from app.core.abort import AbortController, AbortError
from app.core.config import AgentConfig
from app.core.errors import BrowserClosedError, CannotStart
from app.core.events import EventEmitter, EventName, Listener
from app.core.llm import LLMClient, LLMError
from app.core.messages import TASK_ABORTED, MessageId, say
from app.core.output import build_tool_spec
from app.core.page import PageController
from app.core.run import PAUSED, Ending, Run, agent_error
from app.core.safety.guardrails import Guardrails
from app.core.step_loop import StepLoop
from app.core.tools.base import AskUserHandler
from app.core.tools.registry import build_tools
from app.core.types import (
    AgentActivity,
    AgentStatus,
    ErrorActivity,
    ErrorEvent,
    ErrorKind,
    ExecutionResult,
    HistoricalEvent,
    PausedActivity,
    StepEvent,
    TaskFinished,
    TaskRecord,
    TaskStarted,
)

log = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)


class Agent:
    """Runs one task at a time against a page, through a model, and reports everything through events.

    Events (subscribe with ``on``; see app/core/events.py): ``status_changed(AgentStatus)``,
    ``activity(AgentActivity)``, ``task_started(TaskStarted)``, ``event_added(HistoricalEvent)``,
    ``task_finished(TaskFinished)``, ``disposed()``.
    """

    def __init__(
        self,
        llm: LLMClient,
        page: PageController,
        config: AgentConfig | None = None,
        *,
        ask_user: AskUserHandler | None = None,
        guardrails: Guardrails | None = None,
        clock: Callable[[], datetime] = datetime.now,
        person_present: bool = True,
    ) -> None:
        """``person_present``: someone can take the browser when the agent hands it over; when False (a script, the
        CLI without a terminal) a hand-off ends the run as ``needs_person`` instead of pausing it."""
        self.config = config or AgentConfig()
        self._llm = llm
        self._page = page
        self._ask_user = ask_user
        self._person_present = person_present
        self.guardrails = guardrails or Guardrails()
        self._clock = clock
        self._events = EventEmitter()
        self._status = AgentStatus.IDLE
        self._run: Run | None = None
        self._previous_tasks: list[TaskRecord] = []
        self._last_result: ExecutionResult | None = None
        self._disposed = False

    # --- public state ------------------------------------------------------------------------------------------

    @property
    def status(self) -> AgentStatus:
        return self._status

    @property
    def history(self) -> list[HistoricalEvent]:
        return list(self._history_of(self._run)) if self._run else []

    @property
    def last_result(self) -> ExecutionResult | None:
        return self._last_result

    @property
    def previous_tasks(self) -> list[TaskRecord]:
        return [self._masked(record) for record in self._previous_tasks]

    @property
    def disposed(self) -> bool:
        return self._disposed

    @property
    def paused(self) -> bool:
        return bool(self._run and self._run.paused and not self._run.settled.is_set())

    @property
    def hand_off_reason(self) -> str | None:
        """What the agent asked the user to do while it waits on a hand-off (``paused`` is then true too); None
        otherwise, a Take over included."""
        run = self._run
        if run is None or not run.hand_off_reason or not self.paused:
            return None
        return self.guardrails.secrets.mask(run.hand_off_reason)

    def on(self, event: EventName, listener: Listener) -> Callable[[], None]:
        return self._events.on(event, listener)

    # --- lifecycle ---------------------------------------------------------------------------------------------

    async def execute(self, task: str, *, follow_up: bool = False, own_words: str | None = None) -> ExecutionResult:
        """Run ``task`` to its end. ``own_words``: the person's own words in it, when they are not the whole task (a
        routine's template without its cells; nothing, "", of a task an MCP client wrote). Only they can ask for
        something a policy would otherwise refuse or ask about: a site for a secret that names none, a file to
        upload by its path, an irreversible act. ``CannotStart`` when it cannot begin: the agent disposed, a task
        already running, an empty task."""
        if self._disposed:
            raise CannotStart("disposed; create a new agent")
        if self._status == AgentStatus.RUNNING:
            raise CannotStart("a task is already running")
        task = task.strip()
        if not task:
            raise CannotStart("the task is empty; say what the agent should do")
        if not follow_up:
            self._previous_tasks.clear()
        tools = build_tools(
            ask_user=self._ask_user is not None,
            javascript=self.config.enable_javascript,
            result_fields=self.config.result_fields,
        )
        run = Run(
            task=task,
            own_words=task if own_words is None else own_words,
            controller=AbortController(),
            tools=tools,
            tool_spec=build_tool_spec(tools),
            started=asyncio.get_running_loop().time(),
            follow_up=follow_up,
        )
        self._run = run
        self._set_status(AgentStatus.RUNNING)
        self._events.emit("task_started", TaskStarted(follow_up=follow_up))
        try:
            ending = await self._drive(run)
        finally:
            run.settled.set()
        return self._finish(run, ending)

    async def stop(self) -> None:
        """Abort the running task and return once it has settled (status ``stopped``). A no-op when idle."""
        run = self._run
        if run is None or run.settled.is_set():
            return
        run.controller.abort(TASK_ABORTED)
        await run.settled.wait()

    def pause(self) -> None:
        """Let the user take over: abort the current step at once and wait for ``resume()`` (or ``stop()``). An
        action already under way is recorded as a step whose result is unknown. A no-op while already paused (the
        agent's own hand-off included)."""
        run = self._run
        if run is None or run.settled.is_set() or run.paused:
            return
        run.paused = True
        run.resume_event.clear()
        if run.step_controller is not None:
            run.step_controller.abort(PAUSED)
        self._activity(PausedActivity())

    def resume(self, note: str = "") -> None:
        """Hand the browser back to the agent (after a Take over or a hand-off); it records a user_takeover event
        with ``note`` and carries on with the same task, with a fresh look at the page."""
        run = self._run
        if run is None or not run.paused:
            return
        run.resume_note = note.strip()
        run.resume_event.set()

    async def dispose(self) -> None:
        """Stop any run and release listeners. Terminal: later execute() calls raise."""
        if self._disposed:
            return
        await self.stop()
        self._disposed = True
        self._events.emit("disposed")
        self._events.clear()

    # --- the run -----------------------------------------------------------------------------------------------

    async def _drive(self, run: Run) -> Ending:
        steps = StepLoop(
            llm=self._llm,
            page=self._page,
            config=self.config,
            guardrails=self.guardrails,
            previous_tasks=self._previous_tasks,
            clock=self._clock,
            person_present=self._person_present,
            ask_user=self._masked_ask_user(),
            record=self._add,
            history=self._history_of,
            report=self._activity,
        )
        try:
            return await steps.run(run)
        except AbortError:
            return self._stopped(run)
        except asyncio.CancelledError:
            # Whoever awaited execute() was cancelled: that is a stop too, and the run must not stay "running".
            run.controller.abort(TASK_ABORTED)
            ending = self._stopped(run)
            run.settled.set()
            self._finish(run, ending)
            raise
        except LLMError as exc:
            return self._error(run, ErrorEvent(message=exc.message, kind=ErrorKind(exc.kind.value)))
        except BrowserClosedError as exc:
            log.info("the browser closed: %s", exc)
            return self._error(run, agent_error(say(MessageId.BROWSER_CLOSED)))
        except Exception as exc:
            log.exception("agent run failed")
            return self._error(run, agent_error(say(MessageId.UNEXPECTED_ERROR, error=f"{type(exc).__name__}: {exc}")))

    def _stopped(self, run: Run) -> Ending:
        said = say(MessageId.TASK_ABORTED)
        self._add(run, ErrorEvent(message=said.text, kind=ErrorKind.STOPPED, said=said))
        return Ending(AgentStatus.STOPPED, False, said.text)

    def _error(self, run: Run, error: ErrorEvent) -> Ending:
        self._add(run, error)
        self._activity(ErrorActivity(message=error.message))
        return Ending(AgentStatus.ERROR, False, error.message)

    def _finish(self, run: Run, ending: Ending) -> ExecutionResult:
        memory = next(
            (e.reflection.memory for e in reversed(run.history) if isinstance(e, StepEvent) and e.reflection.memory),
            "",
        )
        self._previous_tasks.append(
            TaskRecord(
                task=run.task, status=ending.status, success=ending.success, result=ending.data, last_memory=memory
            )
        )
        self._last_result = self._masked(
            ExecutionResult(
                success=ending.success,
                data=ending.data,
                history=list(run.history),
                status=ending.status,
                steps=run.step_count,
                usage=run.usage,
            )
        )
        self._set_status(ending.status)
        self._events.emit(
            "task_finished",
            self._masked(TaskFinished(task=run.task, follow_up=run.follow_up, result=self._last_result)),
        )
        return self._last_result

    # --- events ------------------------------------------------------------------------------------------------

    def _set_status(self, status: AgentStatus) -> None:
        if status != self._status:
            self._status = status
            self._events.emit("status_changed", status)

    def _activity(self, activity: AgentActivity) -> None:
        self._events.emit("activity", self._masked(activity))

    def _add(self, run: Run, event: HistoricalEvent) -> None:
        masked = self._masked(event)
        self._history_of(run).append(masked)
        self._events.emit("event_added", masked)

    # --- secrets -----------------------------------------------------------------------------------------------

    def _masked(self, model: M) -> M:
        """``model`` with every secret value the vault knows by now replaced by its placeholder: events, results
        and records are masked as they leave, so a password learnt late is masked in what was recorded before."""
        return self.guardrails.secrets.mask_model(model)

    def _history_of(self, run: Run) -> list[HistoricalEvent]:
        """The run's history with every value the vault knows by now masked: a password learnt late is masked in
        what was recorded before, once, rather than on every read."""
        generation = self.guardrails.secrets.generation
        if run.masked_generation != generation:
            run.history[:] = [self._masked(event) for event in run.history]
            run.masked_generation = generation
        return run.history

    def _masked_ask_user(self) -> AskUserHandler | None:
        """The user's question bar shows no secret either (a model may echo one into its question)."""
        ask_user = self._ask_user
        if ask_user is None:
            return None
        mask = self.guardrails.secrets.mask
        return lambda question, signal: ask_user(mask(question), signal)
