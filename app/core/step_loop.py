"""The step loop of one run: read the page, ask the model, act, and the guards around it (deadlines, limits, loops,
failures), until the task is done, handed to a person nobody can take it, or a limit ends it with a progress report.

``Agent`` (app/core/agent.py) owns the lifecycle and the events; it builds one ``StepLoop`` per run and hands it how
to record an event and report an activity, so every event still leaves through the agent, masked."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime

from app.core.abort import AbortController, AbortError, AbortSignal
from app.core.config import AgentConfig
from app.core.errors import ToolError
from app.core.llm import LLMClient, LLMError, LLMErrorKind, LLMReply, ToolSpec
from app.core.messages import MessageId, Said, say
from app.core.nudges import budget_warning
from app.core.output import InvalidOutput, ParsedOutput, build_tool_spec, parse_agent_output
from app.core.page import BrowserState, PageController, Screenshot
from app.core.prompt import build_messages, system_prompt
from app.core.report import build_report, has_report_sections, report_instruction
from app.core.run import PAUSED, Ending, Run, agent_error
from app.core.safety.guardrails import Guardrails
from app.core.tools.base import AskUserHandler, ToolContext, ToolResult, run_tool
from app.core.tools.control import DONE, HAND_OFF, DoneInput, HandOffInput
from app.core.tools.registry import done_only
from app.core.types import (
    ActionRecord,
    ActionTarget,
    AgentActivity,
    AgentStatus,
    ErrorActivity,
    ExecutedActivity,
    ExecutingActivity,
    HandOffActivity,
    HistoricalEvent,
    ObservationEvent,
    RetryEvent,
    RetryingActivity,
    StepEvent,
    TaskRecord,
    ThinkingActivity,
    UserTakeoverEvent,
)

log = logging.getLogger(__name__)

_STEP_TIMEOUT = "step timeout"
_TIME_BUDGET = "time budget"
# Below this much time left a progress report is not worth a model call: it is built from the history at once.
_REPORT_FLOOR = 1.0
# The result of an action the user's Take over interrupted: it may have happened (a click whose page was still loading).
TAKEN_OVER_MID_STEP = "The user took over while this action was running, so its result is unknown: check the page."


class StepLoop:
    def __init__(
        self,
        *,
        llm: LLMClient,
        page: PageController,
        config: AgentConfig,
        guardrails: Guardrails,
        previous_tasks: list[TaskRecord],
        clock: Callable[[], datetime],
        person_present: bool,
        ask_user: AskUserHandler | None,
        record: Callable[[Run, HistoricalEvent], None],
        history: Callable[[Run], list[HistoricalEvent]],
        report: Callable[[AgentActivity], None],
    ) -> None:
        self.config = config
        self.guardrails = guardrails
        self._llm = llm
        self._page = page
        self._previous_tasks = previous_tasks
        self._clock = clock
        self._person_present = person_present
        self._ask_user = ask_user  # already masked: the question bar shows no secret either
        self._record = record
        self._history = history  # masked with every value the vault knows by now
        self._report = report

    async def run(self, run: Run) -> Ending:
        """Step until the run ends (done, a hand-off nobody can take, a limit); a stop raises AbortError."""
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
                    self._record(run, agent_error(said))
                    self._report(ErrorActivity(message=said.text))
                # Paused: handled at the top of the loop. Time budget: the limit check ends the run.
                continue
            finally:
                timer.cancel()
                run.step_controller = None
            if ending is not None:
                return ending

    def _step_deadline(self, run: Run, now: float) -> tuple[float, str]:
        budget = self.config.max_duration
        if budget is not None:
            remaining = max(0.0, budget - self._elapsed(run, now))
            if remaining < self.config.step_timeout:
                return remaining, _TIME_BUDGET
        return self.config.step_timeout, _STEP_TIMEOUT

    def _limit_reached(self, run: Run, now: float) -> Said | None:
        if run.failures >= self.config.max_failures:
            return say(MessageId.TOO_MANY_FAILURES, count=run.failures)
        if run.step_count >= self.config.max_steps:
            return say(MessageId.STEP_LIMIT)
        budget = self.config.max_duration
        if budget is not None and self._elapsed(run, now) >= budget:
            return say(MessageId.TIME_BUDGET_EXCEEDED, seconds=f"{budget:g}")
        return None

    @staticmethod
    def _elapsed(run: Run, now: float) -> float:
        """The run's time so far, without the time it spent waiting for the user."""
        return now - run.started - run.paused_for

    async def _step(self, run: Run, signal: AbortSignal) -> Ending | None:
        loop = asyncio.get_running_loop()
        started = loop.time()
        step_index = run.step_count + 1
        state = await self._observe(run, signal)
        if state is None:
            return None
        self._note(run, budget_warning(self.config.max_steps - step_index + 1))
        self._note(run, run.loops.record_page(state))

        self._report(ThinkingActivity(step_index=step_index, max_steps=self.config.max_steps))
        try:
            reply = await self._ask_model(run, run.tool_spec, state, signal)
            parsed = parse_agent_output(reply, run.tools)
        except InvalidOutput as exc:
            self._count_failure(run, say(MessageId.UNUSABLE_ANSWER, step=step_index, reason=exc))
            return None

        params = parsed.action_input.model_dump()
        tool = run.tools[parsed.action_name]
        ctx = ToolContext(
            signal=signal,
            page=self._page,
            ask_user=self._ask_user,
            own_words=run.own_words,
            guardrails=self.guardrails,
        )
        if tool.prepare is not None:
            tool.prepare(ctx, parsed.action_input)
        # The element as a person names it ("the Email field"), read before the action changes the page.
        info = self._page.element_info(params["index"]) if isinstance(params.get("index"), int) else None
        target = ActionTarget(tag=info.tag, name=info.name, input_type=info.input_type) if info else None
        self._report(ExecutingActivity(tool=parsed.action_name, input=params, target=target))
        action_started = loop.time()
        try:
            result = await run_tool(tool, ctx, parsed.action_input)
        except AbortError:
            if signal.reason != PAUSED:
                raise
            result = ToolResult(TAKEN_OVER_MID_STEP)
        self._report(
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
        self._record(
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
        ending = self._ending(run, parsed, result)
        if ending is not None or signal.reason == PAUSED:
            return ending  # None when taken over mid-step: the loop waits for the user's resume() or stop()
        if not result.ok or run.unresponsive > 1:
            run.failures += 1
        elif not run.unresponsive:  # an action that worked on a page that never answered proves nothing
            run.failures = 0
        # The same index on another page, or on an element that now reads differently, is not a repeat.
        where = f"{state.url}\n{target.model_dump_json() if target else ''}"
        self._note(run, run.loops.record_action(parsed.action_name, params, where))
        return None

    def _ending(self, run: Run, parsed: ParsedOutput, result: ToolResult) -> Ending | None:
        """How the run ends after this step's action (None: it goes on)."""
        if parsed.action_name == DONE:
            assert isinstance(parsed.action_input, DoneInput)
            return Ending(AgentStatus.COMPLETED, parsed.action_input.success, parsed.action_input.text)
        if parsed.action_name == HAND_OFF:
            assert isinstance(parsed.action_input, HandOffInput)
            return self._hand_off(run, parsed.action_input.reason)
        if result.hand_off:  # the app's own: only the person can go on (a locked password manager, a refused code)
            return self._hand_off(run, result.hand_off)
        return None

    def _note(self, run: Run, words: str | None) -> None:
        """A note for the model in the run's history (none without ``words``)."""
        if words:
            self._record(run, ObservationEvent(content=words))

    async def _observe(self, run: Run, signal: AbortSignal) -> BrowserState | None:
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

    def _not_responding(self, run: Run) -> BrowserState:
        """What the model gets of a page that did not answer in time: the plain fact (in its history, said once)
        and the tabs it last knew without their stale content, so that it can choose to wait, go elsewhere or stop.
        The step counts as a failure only when this keeps happening (see _step)."""
        run.unresponsive += 1
        self._record(run, agent_error(say(MessageId.PAGE_NOT_RESPONDING, seconds=f"{self.config.observe_timeout:g}")))
        last = run.last_state
        return (
            last.model_copy(update={"content": "", "elements": [], "screenshot": None})
            if last is not None
            else BrowserState()
        )

    def _drain_page_events(self, run: Run) -> None:
        for sentence in self._page.drain_events():
            self._record(run, ObservationEvent(content=self.guardrails.secrets.mask(sentence)))

    async def _read_page(self, signal: AbortSignal, timeout: float) -> BrowserState:
        """The page as the model may see it, or TimeoutError after ``timeout`` s: a page that echoes a typed secret
        (a field's value, its own text, a title or an address) shows the placeholder instead."""
        return self.guardrails.secrets.mask_model(await asyncio.wait_for(self._page.get_browser_state(signal), timeout))

    async def _ask_model(
        self, run: Run, spec: ToolSpec, state: BrowserState | None, signal: AbortSignal, final_note: str = ""
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
                self._record(run, ObservationEvent(content=said.text, said=said))
                reply = await self._call_model(run, spec, state, signal, final_note)
        except LLMError as exc:
            if exc.kind == LLMErrorKind.INVALID_OUTPUT:
                raise InvalidOutput(exc.message) from exc
            raise
        run.usage += reply.usage
        return reply

    async def _call_model(
        self, run: Run, spec: ToolSpec, state: BrowserState | None, signal: AbortSignal, final_note: str
    ) -> LLMReply:
        # What came from a page or the model is masked with every value the vault knows (the page state already
        # is); the person's and the app's own words only with the secrets the person gave, so that a value learnt
        # from typing never changes what they say.
        vault = self.guardrails.secrets
        mask = vault.mask
        messages = build_messages(
            system=system_prompt(self.config.language, self.config.extra_instructions),
            task=run.task,
            step_index=min(run.step_count + 1, self.config.max_steps),
            max_steps=self.config.max_steps,
            previous_tasks=[
                record.model_copy(update={"result": mask(record.result), "last_memory": mask(record.last_memory)})
                for record in self._previous_tasks
            ],
            history=self._history(run),
            state=state,
            now=self._clock(),
            final_note=final_note,
            budget=run.budget,
        )
        # The last word before the wire, for the secrets the person gave: a task or a setting may quote one.
        messages = [
            message.model_copy(update={"content": vault.mask_own_words(message.content)}) for message in messages
        ]
        if state is not None and state.screenshot is not None:
            # With the current page only: older steps' images would grow every request for little.
            messages[-1] = messages[-1].model_copy(update={"images": [state.screenshot.data_url()]})

        def on_retry(attempt: int, max_attempts: int, message: str) -> None:
            self._record(run, RetryEvent(message=message, attempt=attempt, max_attempts=max_attempts))
            self._report(RetryingActivity(attempt=attempt, max_attempts=max_attempts, message=message))

        return await self._llm.invoke(messages, spec, signal, on_retry)

    def _count_failure(self, run: Run, said: Said) -> None:
        run.step_count += 1
        run.failures += 1
        self._record(run, agent_error(said))
        self._report(ErrorActivity(message=said.text))

    def _hand_off(self, run: Run, reason: str) -> Ending | None:
        """Pause the run for the user (recorded as this step already), or end it when nobody is there to act."""
        if not self._person_present:
            return Ending(AgentStatus.NEEDS_PERSON, False, reason)
        run.paused = True
        run.hand_off_reason = reason
        run.resume_event.clear()
        self._report(HandOffActivity(reason=reason))
        return None

    async def _wait_for_resume(self, run: Run) -> None:
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
        self._record(
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

    async def _end_on_limit(self, run: Run, limit: Said) -> Ending:
        self._record(run, agent_error(limit))
        self._report(ErrorActivity(message=limit.text))
        return Ending(AgentStatus.ERROR, False, await self._progress_report(run, limit.text))

    async def _progress_report(self, run: Run, reason: str) -> str:
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

    def _report_time(self, run: Run) -> float:
        """Seconds the final report may take: its own limit, and never beyond the run's time budget."""
        allowed = self.config.final_call_timeout
        budget = self.config.max_duration
        if budget is not None:
            allowed = min(allowed, budget - self._elapsed(run, asyncio.get_running_loop().time()))
        return allowed

    async def _model_report(self, run: Run, reason: str) -> str:
        signal = run.controller.signal
        try:
            state: BrowserState | None = await self._read_page(signal, self.config.observe_timeout)
        except (ToolError, TimeoutError):
            state = run.last_state
        tools = done_only()
        reply = await self._ask_model(run, build_tool_spec(tools), state, signal, report_instruction(reason))
        return str(parse_agent_output(reply, tools).action_input.model_dump()["text"])
