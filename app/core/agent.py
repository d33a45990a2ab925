"""The agent: lifecycle (execute / stop / pause / resume / dispose) and the step loop with its guards."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TypeVar

from pydantic import BaseModel

from app.core.abort import AbortController, AbortError, AbortSignal
from app.core.config import AgentConfig
from app.core.events import EventEmitter, EventName, Listener
from app.core.guards import LoopDetector, budget_warning
from app.core.llm import LLMClient, LLMError, LLMErrorKind, LLMReply, ToolSpec
from app.core.messages import TASK_ABORTED, MessageId, Said, say
from app.core.output import InvalidOutput, build_tool_spec, parse_agent_output
from app.core.page import BrowserClosedError, BrowserState, PageController, Screenshot, ToolError
from app.core.prompt import build_messages, system_prompt
from app.core.prompt_budget import PromptBudget
from app.core.report import build_report, has_report_sections, report_instruction
from app.core.safety.guardrails import Guardrails
from app.core.tools.base import AskUserHandler, ToolContext, ToolResult, run_tool
from app.core.tools.control import DONE, HAND_OFF, DoneInput, HandOffInput
from app.core.tools.registry import ToolSet, build_tools, done_only
from app.core.types import (
    ActionRecord,
    ActionTarget,
    AgentActivity,
    AgentStatus,
    ErrorActivity,
    ErrorEvent,
    ErrorKind,
    ExecutedActivity,
    ExecutingActivity,
    ExecutionResult,
    HandOffActivity,
    HistoricalEvent,
    ObservationEvent,
    PausedActivity,
    RetryEvent,
    RetryingActivity,
    StepEvent,
    TaskFinished,
    TaskRecord,
    TaskStarted,
    ThinkingActivity,
    Usage,
    UserTakeoverEvent,
)

log = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)

_PAUSED = "paused by the user"
_STEP_TIMEOUT = "step timeout"
_TIME_BUDGET = "time budget"
# Below this much time left a progress report is not worth a model call: it is built from the history at once.
_REPORT_FLOOR = 1.0
# The result of an action the user's Take over interrupted: it may have happened (a click whose page was still loading).
TAKEN_OVER_MID_STEP = "The user took over while this action was running, so its result is unknown: check the page."


@dataclass
class _Ending:
    status: AgentStatus
    success: bool
    data: str


@dataclass
class _Run:
    task: str
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
        self._run: _Run | None = None
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

    async def execute(self, task: str, *, follow_up: bool = False) -> ExecutionResult:
        if self._disposed:
            raise RuntimeError("disposed; create a new agent")
        if self._status == AgentStatus.RUNNING:
            raise RuntimeError("a task is already running")
        task = task.strip()
        if not task:
            raise ValueError("the task is empty; say what the agent should do")
        if not follow_up:
            self._previous_tasks.clear()
        tools = build_tools(
            ask_user=self._ask_user is not None,
            javascript=self.config.enable_javascript,
            result_fields=self.config.result_fields,
        )
        run = _Run(
            task=task,
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
            run.step_controller.abort(_PAUSED)
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

    async def _drive(self, run: _Run) -> _Ending:
        try:
            return await self._loop(run)
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
            return self._error(run, _agent_error(say(MessageId.BROWSER_CLOSED)))
        except Exception as exc:
            log.exception("agent run failed")
            return self._error(run, _agent_error(say(MessageId.UNEXPECTED_ERROR, error=f"{type(exc).__name__}: {exc}")))

    def _stopped(self, run: _Run) -> _Ending:
        said = say(MessageId.TASK_ABORTED)
        self._add(run, ErrorEvent(message=said.text, kind=ErrorKind.STOPPED, said=said))
        return _Ending(AgentStatus.STOPPED, False, said.text)

    def _error(self, run: _Run, error: ErrorEvent) -> _Ending:
        self._add(run, error)
        self._activity(ErrorActivity(message=error.message))
        return _Ending(AgentStatus.ERROR, False, error.message)

    def _finish(self, run: _Run, ending: _Ending) -> ExecutionResult:
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

    async def _loop(self, run: _Run) -> _Ending:
        loop = asyncio.get_running_loop()
        task_signal = run.controller.signal
        while True:
            task_signal.throw_if_aborted()
            if run.paused:
                await self._wait_for_resume(run)
                continue
            limit = self._limit_reached(run, loop.time())
            if limit:
                return await self._end_on_limit(run, limit)
            step_controller = AbortController(task_signal)
            run.step_controller = step_controller
            delay, reason = self._step_deadline(run, loop.time())
            timer = loop.call_later(delay, step_controller.abort, reason)
            try:
                ending = await self._step(run, step_controller.signal)
            except AbortError:
                if task_signal.aborted or not step_controller.signal.aborted:
                    raise
                if step_controller.signal.reason == _STEP_TIMEOUT:
                    run.step_count += 1
                    run.failures += 1
                    said = say(MessageId.STEP_TIMED_OUT, step=run.step_count, seconds=f"{self.config.step_timeout:g}")
                    self._add(run, _agent_error(said))
                    self._activity(ErrorActivity(message=said.text))
                # Paused: handled at the top of the loop. Time budget: the limit check ends the run.
                continue
            finally:
                timer.cancel()
                run.step_controller = None
            if ending is not None:
                return ending

    def _step_deadline(self, run: _Run, now: float) -> tuple[float, str]:
        budget = self.config.max_duration
        if budget is not None:
            remaining = max(0.0, budget - self._elapsed(run, now))
            if remaining < self.config.step_timeout:
                return remaining, _TIME_BUDGET
        return self.config.step_timeout, _STEP_TIMEOUT

    def _limit_reached(self, run: _Run, now: float) -> Said | None:
        if run.failures >= self.config.max_failures:
            return say(MessageId.TOO_MANY_FAILURES, count=run.failures)
        if run.step_count >= self.config.max_steps:
            return say(MessageId.STEP_LIMIT)
        budget = self.config.max_duration
        if budget is not None and self._elapsed(run, now) >= budget:
            return say(MessageId.TIME_BUDGET_EXCEEDED, seconds=f"{budget:g}")
        return None

    @staticmethod
    def _elapsed(run: _Run, now: float) -> float:
        """The run's time so far, without the time it spent waiting for the user."""
        return now - run.started - run.paused_for

    async def _step(self, run: _Run, signal: AbortSignal) -> _Ending | None:
        loop = asyncio.get_running_loop()
        started = loop.time()
        step_index = run.step_count + 1
        state = await self._observe(run, signal)
        if state is None:
            return None
        warning = budget_warning(self.config.max_steps - step_index + 1)
        if warning:
            self._add(run, ObservationEvent(content=warning))
        nudge = run.loops.record_page(state)
        if nudge:
            self._add(run, ObservationEvent(content=nudge))

        self._activity(ThinkingActivity(step_index=step_index, max_steps=self.config.max_steps))
        try:
            reply = await self._ask_model(run, run.tool_spec, state, signal)
            parsed = parse_agent_output(reply, run.tools)
        except InvalidOutput as exc:
            self._count_failure(run, say(MessageId.UNUSABLE_ANSWER, step=step_index, reason=exc))
            return None

        params = parsed.action_input.model_dump()
        tool = run.tools[parsed.action_name]
        ctx = ToolContext(
            signal=signal, page=self._page, ask_user=self._masked_ask_user(), task=run.task, guardrails=self.guardrails
        )
        if tool.prepare is not None:
            tool.prepare(ctx, parsed.action_input)
        # The element as a person names it ("the Email field"), read before the action changes the page.
        info = self._page.element_info(params["index"]) if isinstance(params.get("index"), int) else None
        target = ActionTarget(tag=info.tag, name=info.name, input_type=info.input_type) if info else None
        self._activity(ExecutingActivity(tool=parsed.action_name, input=params, target=target))
        action_started = loop.time()
        try:
            result = await run_tool(tool, ctx, parsed.action_input)
        except AbortError:
            if signal.reason != _PAUSED:
                raise
            result = ToolResult(TAKEN_OVER_MID_STEP)
        self._activity(
            ExecutedActivity(
                tool=parsed.action_name,
                input=params,
                output=result.text,
                ok=result.ok,
                declined=result.declined,
                duration=loop.time() - action_started,
                target=target,
            )
        )
        run.step_count += 1
        self._add(
            run,
            StepEvent(
                step_index=step_index,
                reflection=parsed.reflection,
                action=ActionRecord(
                    name=parsed.action_name,
                    input=params,
                    output=result.text,
                    target=target,
                    ok=result.ok,
                    declined=result.declined,
                ),
                usage=reply.usage,
                duration=loop.time() - started,
            ),
        )
        if parsed.action_name == DONE:
            assert isinstance(parsed.action_input, DoneInput)
            return _Ending(AgentStatus.COMPLETED, parsed.action_input.success, parsed.action_input.text)
        if parsed.action_name == HAND_OFF:
            assert isinstance(parsed.action_input, HandOffInput)
            return self._hand_off(run, parsed.action_input.reason)
        if signal.reason == _PAUSED:
            return None  # taken over mid-step: the loop waits for the user's resume() or stop()
        if not result.ok or run.unresponsive > 1:
            run.failures += 1
        elif not run.unresponsive:  # an action that worked on a page that never answered proves nothing
            run.failures = 0
        # The same index on another page, or on an element that now reads differently, is not a repeat.
        where = f"{state.url}\n{target.model_dump_json() if target else ''}"
        nudge = run.loops.record_action(parsed.action_name, params, where)
        if nudge:
            self._add(run, ObservationEvent(content=nudge))
        return None

    async def _observe(self, run: _Run, signal: AbortSignal) -> BrowserState | None:
        try:
            state = await self._read_page(signal, self.config.observe_timeout)
        except ToolError as exc:
            self._count_failure(run, say(MessageId.PAGE_UNREADABLE, reason=exc))
            return None
        except TimeoutError:
            state = self._not_responding(run)
        else:
            run.unresponsive = 0
            if self.config.vision:
                state = state.model_copy(update={"screenshot": await self._screenshot(signal)})
            run.last_state = state
        self._drain_page_events(run)
        return state

    async def _screenshot(self, signal: AbortSignal) -> Screenshot | None:
        """The labelled viewport for a model that reads images; without it (a page that cannot be captured) the
        step goes on with the text alone."""
        try:
            return await asyncio.wait_for(self._page.screenshot(signal), self.config.observe_timeout)
        except (ToolError, TimeoutError) as exc:
            log.info("no screenshot this step: %s", exc or "it took too long")
            return None

    def _not_responding(self, run: _Run) -> BrowserState:
        """What the model gets of a page that did not answer in time: the plain fact (in its history, said once)
        and the tabs it last knew without their stale content, so that it can choose to wait, go elsewhere or stop.
        The step counts as a failure only when this keeps happening (see _step)."""
        run.unresponsive += 1
        self._add(run, _agent_error(say(MessageId.PAGE_NOT_RESPONDING, seconds=f"{self.config.observe_timeout:g}")))
        last = run.last_state
        return (
            last.model_copy(update={"content": "", "elements": [], "screenshot": None})
            if last is not None
            else BrowserState()
        )

    def _drain_page_events(self, run: _Run) -> None:
        for sentence in self._page.drain_events():
            self._add(run, ObservationEvent(content=self.guardrails.secrets.mask(sentence)))

    async def _read_page(self, signal: AbortSignal, timeout: float) -> BrowserState:
        """The page as the model may see it, or TimeoutError after ``timeout`` s: a page that echoes a typed secret
        (a field's value, its own text, a title or an address) shows the placeholder instead."""
        return self._masked(await asyncio.wait_for(self._page.get_browser_state(signal), timeout))

    async def _ask_model(
        self, run: _Run, spec: ToolSpec, state: BrowserState | None, signal: AbortSignal, final_note: str = ""
    ) -> LLMReply:
        try:
            try:
                reply = await self._call_model(run, spec, state, signal, final_note)
            except LLMError as exc:
                tighter = run.budget.tighter()
                if exc.kind != LLMErrorKind.CONTEXT_LENGTH or run.budget == tighter:
                    raise
                # A model with a smaller context window than the default budget assumes: shrink once, for good.
                run.budget = tighter
                said = say(MessageId.PROMPT_SHORTENED)
                self._add(run, ObservationEvent(content=said.text, said=said))
                reply = await self._call_model(run, spec, state, signal, final_note)
        except LLMError as exc:
            if exc.kind == LLMErrorKind.INVALID_OUTPUT:
                raise InvalidOutput(exc.message) from exc
            raise
        run.usage += reply.usage
        return reply

    async def _call_model(
        self, run: _Run, spec: ToolSpec, state: BrowserState | None, signal: AbortSignal, final_note: str
    ) -> LLMReply:
        messages = build_messages(
            system=system_prompt(self.config.language, self.config.extra_instructions),
            task=run.task,
            step_index=min(run.step_count + 1, self.config.max_steps),
            max_steps=self.config.max_steps,
            previous_tasks=self._previous_tasks,
            history=run.history,
            state=state,
            now=self._clock(),
            final_note=final_note,
            budget=run.budget,
        )
        # The last word before the wire: the task, the history and any page text, whatever was learnt when.
        mask = self.guardrails.secrets.mask
        messages = [message.model_copy(update={"content": mask(message.content)}) for message in messages]
        if state is not None and state.screenshot is not None:
            # With the current page only: older steps' images would grow every request for little.
            messages[-1] = messages[-1].model_copy(update={"images": [state.screenshot.data_url()]})

        def on_retry(attempt: int, max_attempts: int, message: str) -> None:
            self._add(run, RetryEvent(message=message, attempt=attempt, max_attempts=max_attempts))
            self._activity(RetryingActivity(attempt=attempt, max_attempts=max_attempts, message=message))

        return await self._llm.invoke(messages, spec, signal, on_retry)

    def _count_failure(self, run: _Run, said: Said) -> None:
        run.step_count += 1
        run.failures += 1
        self._add(run, _agent_error(said))
        self._activity(ErrorActivity(message=said.text))

    def _hand_off(self, run: _Run, reason: str) -> _Ending | None:
        """Pause the run for the user (recorded as this step already), or end it when nobody is there to act."""
        if not self._person_present:
            return _Ending(AgentStatus.NEEDS_PERSON, False, reason)
        run.paused = True
        run.hand_off_reason = reason
        run.resume_event.clear()
        self._activity(HandOffActivity(reason=reason))
        return None

    async def _wait_for_resume(self, run: _Run) -> None:
        loop = asyncio.get_running_loop()
        before = run.last_state
        paused_at = loop.time()
        await run.controller.signal.race(run.resume_event.wait())
        run.paused_for += loop.time() - paused_at
        try:
            after = await run.controller.signal.race(
                self._read_page(run.controller.signal, self.config.observe_timeout)
            )
        except (ToolError, TimeoutError):
            after = None
        self._add(
            run,
            UserTakeoverEvent(
                before_url=before.url if before else "",
                before_title=before.title if before else "",
                after_url=after.url if after else "",
                after_title=after.title if after else "",
                note=run.resume_note,
                after_hand_off=bool(run.hand_off_reason),
            ),
        )
        run.paused = False
        run.hand_off_reason = ""
        run.resume_note = ""
        # The user's clicks are not the agent's failures.
        run.failures = 0

    async def _end_on_limit(self, run: _Run, limit: Said) -> _Ending:
        self._add(run, _agent_error(limit))
        self._activity(ErrorActivity(message=limit.text))
        return _Ending(AgentStatus.ERROR, False, await self._progress_report(run, limit.text))

    async def _progress_report(self, run: _Run, reason: str) -> str:
        """One last done-only call for the model's own report, within what is left of the time budget; built from
        the history if there is no time left for it or that call fails."""
        allowed = self._report_time(run)
        if allowed < _REPORT_FLOOR:
            return build_report(run.task, reason, run.history)
        try:
            text = await run.controller.signal.race(asyncio.wait_for(self._model_report(run, reason), allowed))
        except AbortError:
            raise
        except Exception as exc:
            log.info("final report call failed: %s", exc)
            return build_report(run.task, reason, run.history)
        return text if has_report_sections(text) else build_report(run.task, reason, run.history, text)

    def _report_time(self, run: _Run) -> float:
        """Seconds the final report may take: its own limit, and never beyond the run's time budget."""
        allowed = self.config.final_call_timeout
        budget = self.config.max_duration
        if budget is not None:
            allowed = min(allowed, budget - self._elapsed(run, asyncio.get_running_loop().time()))
        return allowed

    async def _model_report(self, run: _Run, reason: str) -> str:
        signal = run.controller.signal
        try:
            state: BrowserState | None = await self._read_page(signal, self.config.observe_timeout)
        except (ToolError, TimeoutError):
            state = run.last_state
        tools = done_only()
        reply = await self._ask_model(run, build_tool_spec(tools), state, signal, report_instruction(reason))
        return str(parse_agent_output(reply, tools).action_input.model_dump()["text"])

    # --- events ------------------------------------------------------------------------------------------------

    def _set_status(self, status: AgentStatus) -> None:
        if status != self._status:
            self._status = status
            self._events.emit("status_changed", status)

    def _activity(self, activity: AgentActivity) -> None:
        self._events.emit("activity", self._masked(activity))

    def _add(self, run: _Run, event: HistoricalEvent) -> None:
        masked = self._masked(event)
        self._history_of(run).append(masked)
        self._events.emit("event_added", masked)

    # --- secrets -----------------------------------------------------------------------------------------------

    def _masked(self, model: M) -> M:
        """``model`` with every secret value the vault knows by now replaced by its placeholder: events, results
        and records are masked as they leave, so a password learnt late is masked in what was recorded before."""
        return self.guardrails.secrets.mask_model(model)

    def _history_of(self, run: _Run) -> list[HistoricalEvent]:
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


def _agent_error(said: Said) -> ErrorEvent:
    """One of the agent's own messages as an error in the run's history."""
    return ErrorEvent(message=said.text, kind=ErrorKind.AGENT, said=said)
