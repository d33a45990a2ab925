"""The model one row talks to: the real one, or the routine's path played back in its place.

A row that learns (no path yet) is the model's from start to end; its steps are kept (``taken``) to become the path
if the row succeeds. A row that replays gets each path step as the answer, pointed at this page's element, with no
model call, and the agent runs it through the same tools, safety gates and settling as any answer. Where the page
differs from what the path expects (the element is not there, the last action failed, a dialog or an error came,
elements appeared that the learning row never saw), the model takes the row over from that step, told so in the
app's own words, with the history so far. At the end of the path the model is asked once to confirm the outcome
from the page: a row's status never comes from the replay alone.

Never twice: once the path's step that sends the row (``RoutinePath.sending_step``, its Save) has been taken, by the
replay or by the model that took the row over, the model's answers that could send anything are never acted on. The
row goes to the person in the model's stead (``refused`` says why): without one it ends ``needs_person``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from app.core.abort import AbortSignal
from app.core.llm import LLMClient, LLMReply, Message, RetryCallback, ToolCall, ToolSpec
from app.core.output import InvalidOutput, action_names, read_action
from app.core.page import ListedElement
from app.core.tools.control import HAND_OFF
from app.core.types import ActionTarget, ErrorEvent, HistoricalEvent, ObservationEvent, StepEvent, Usage
from app.routine.path import (
    PathStep,
    RoutinePath,
    Taken,
    fill,
    find_target,
    is_checked,
    may_send,
    truth,
    url_field,
)
from app.text.wording import describe_action

CONFIRM = (
    "The steps so far replayed this routine's recorded path with this row's values (they are in your history). "
    "Look at the page now and confirm the outcome: if it shows that this row's work succeeded, call done with "
    "success true; if the site refused it or shows an error, call done with success false and say why in the "
    "page's words; if you cannot tell, hand the row to the person."
)
SENT = (
    "This row has been sent to the site already: never send it again. A click, a key, a choice, a page opened, a "
    "script or an upload is refused from now on, and the row is left to the person."
)
SENT_AGAIN = (
    "The site's answer was unclear; check row {number} before running it again. The row had been sent, and the "
    "agent's next step could have sent it a second time ({act}), so it was refused."
)
TAKE_OVER = (
    "The routine's recorded path was replayed for this row up to here, and then the page differed from what it "
    "expects: {reason}. Carry on with the task yourself from this page."
)
REPLAYED_GOAL = "Replay step {step} of {steps} of the routine's path."


class Followable(Protocol):
    def on(self, event: Any, listener: Callable[..., Any]) -> Callable[[], None]: ...


class RowModel:
    """An LLMClient for one row. ``follow(agent)`` before the row runs: it reads the agent's steps as they happen."""

    def __init__(self, model: LLMClient, number: int, values: Mapping[str, str], path: RoutinePath | None) -> None:
        """``number``: the row's, in the file, for the words that name it."""
        self._model = model
        self._values = values
        self._path = path
        self._number = number
        self._sending = path.sending_step() if path is not None else None
        self.submitted = False  # the path's sending step was taken: nothing may send the row again
        self.refused = ""  # why the row went to the person instead of the model's answer ("" : it did not)
        self.held_back = ""  # the last answer held back, in plain words, while the agent hands the row over ("": none)
        self._position = 0
        self.calls = 0  # real model calls
        self.usage = Usage()  # their tokens
        self.replayed_steps = 0
        self.took_over = ""  # why the model took over ("" : it did not)
        self.taken: list[Taken] = []  # every step the agent ran, for learning the path
        self._events = 0  # page events since the last answer
        self._call_events = 0  # page events just before the current answer
        self._listing: list[ListedElement] = []
        self._asked: PathStep | None = None  # a path step the model was asked to decide
        self._note = ""

    def follow(self, agent: Followable) -> Callable[[], None]:
        return agent.on("event_added", self._added)

    def _added(self, event: HistoricalEvent) -> None:
        if isinstance(event, StepEvent):
            taken = Taken(
                event.action.name, dict(event.action.input), event.action.ok, self._listing, self._call_events
            )
            self.taken.append(taken)
            if self._sending is not None and self._is(self._sending, taken):
                self.submitted = True  # a click that failed may have sent it too
        elif isinstance(event, (ObservationEvent, ErrorEvent)):
            self._events += 1

    async def invoke(
        self, messages: list[Message], tool: ToolSpec, signal: AbortSignal, on_retry: RetryCallback | None = None
    ) -> LLMReply:
        signal.throw_if_aborted()
        listing = messages[-1].elements if messages else []
        if self.taken and not self.taken[-1].after:
            self.taken[-1].after = listing
        events, self._events = self._events, 0
        self._call_events = events
        previous, self._listing = self._listing, listing
        if self._path is not None:
            reply = self._replayed(listing, previous, events, tool)
            if reply is not None:
                return reply
        if self._note:
            last = messages[-1]
            messages = [
                *messages[:-1],
                last.model_copy(update={"content": f"{last.content}\n\n<sys>{self._note}</sys>"}),
            ]
            self._note = ""
        self.calls += 1
        self.held_back = ""
        reply = await self._model.invoke(messages, tool, signal, on_retry)
        self.usage += reply.usage
        return self._refused(reply, tool, listing) if self.submitted else reply

    # --- never twice -------------------------------------------------------------------------------------------

    def _refused(self, reply: LLMReply, tool: ToolSpec, listing: list[ListedElement]) -> LLMReply:
        """The model's answer, or, when it could send the row again, a hand-off to the person in its stead."""
        names = action_names(tool)
        try:
            payload, name, params = read_action(reply, names)
        except InvalidOutput:
            return reply  # the agent tells the model, and does nothing
        if name not in names or not may_send(name):
            return reply
        params = params if isinstance(params, dict) else {}
        element = next((e for e in listing if e.index == params.get("index")), None)
        target = ActionTarget(tag=element.tag, name=element.name, input_type=element.input_type) if element else None
        self.held_back = describe_action(name, params, target)
        self.refused = SENT_AGAIN.format(number=self._number, act=self.held_back)
        arguments = {
            "evaluation_previous_goal": str(payload.get("evaluation_previous_goal") or ""),
            "memory": str(payload.get("memory") or ""),
            "next_goal": "",
            "action": {HAND_OFF: {"reason": self.refused}},
        }
        return LLMReply(tool_calls=[ToolCall(name=tool.name, arguments=json.dumps(arguments, ensure_ascii=False))])

    # --- replaying ---------------------------------------------------------------------------------------------

    def _replayed(
        self, listing: list[ListedElement], previous: list[ListedElement], events: int, tool: ToolSpec
    ) -> LLMReply | None:
        """The next path step as the answer; None hands this call to the model (taking over, a step the model
        decides, or the confirmation at the end)."""
        assert self._path is not None
        steps = self._path.steps
        if self._asked is not None and not self._model_agreed(self._asked):
            return self._take_over("the model chose another action than the path's")
        self._asked = None
        if self.taken and not self.taken[-1].ok:
            return self._take_over("the last action did not work")
        while self._position < len(steps):
            step = steps[self._position]
            reason = self._differs(step, listing, previous, events)
            if reason:
                return self._take_over(reason)
            if step.ask_model:
                self._asked = step
                self._position += 1
                return None
            found = find_target(step, listing, self._values) if step.target is not None else []
            if step.target is not None and len(found) != 1:
                where = "not on the page" if not found else "on the page more than once"
                return self._take_over(f"the element the path acts on next is {where}")
            self._position += 1
            if step.toggle_column is not None:
                wanted = truth(self._values.get(step.toggle_column, ""))
                if wanted is None:
                    self._asked = step
                    return None
                if is_checked(found[0]) == (wanted == step.checked_when):
                    continue  # already as this row wants it
            self.replayed_steps += 1
            return self._answer(step, found[0] if found else None, tool)
        self._path = None
        self._note = self._told(CONFIRM)
        return None

    def _differs(self, step: PathStep, listing: list[ListedElement], previous: list[ListedElement], events: int) -> str:
        if events > step.events:
            return "the page reported something the path did not meet (a dialog, a new tab or an error)"
        if self._position == 0 or not previous:
            return ""
        learned = {identity for identity in _keys(step.seen)}
        before = {e.identity().model_dump_json() for e in previous}
        appeared = [e for e in listing if e.identity().model_dump_json() not in before]
        # An element that shows this row's own value (a list button now reading "Starter") is the row's doing.
        own = {value.strip().casefold() for value in self._values.values() if len(value.strip()) >= 2}
        unexpected = [
            e
            for e in appeared
            if e.identity().model_dump_json() not in learned
            and not {e.name.strip().casefold(), e.text.strip().casefold()} & own
        ]
        if unexpected:
            return (
                f"something new appeared on the page ({unexpected[0].name or unexpected[0].text or unexpected[0].tag})"
            )
        return ""

    def _model_agreed(self, step: PathStep) -> bool:
        """The model, asked to decide a path step, did that step."""
        return bool(self.taken) and self._is(step, self.taken[-1])

    def _is(self, step: PathStep, taken: Taken) -> bool:
        """``taken`` is the path's ``step`` for this row: the same action, on the element the path acts on."""
        if taken.action != step.action:
            return False
        index = taken.input.get("index")
        if step.target is None:
            return index is None
        chosen = [e for e in taken.listing if e.index == index]
        return bool(chosen) and chosen[0] in find_target(step, taken.listing, self._values)

    def _take_over(self, reason: str) -> LLMReply | None:
        self.took_over = reason
        self._path = None
        self._note = self._told(TAKE_OVER.format(reason=reason))
        return None

    def _told(self, note: str) -> str:
        """A note to the model, saying so when the row has been sent already."""
        return f"{note} {SENT}" if self.submitted else note

    def _answer(self, step: PathStep, element: ListedElement | None, tool: ToolSpec) -> LLMReply:
        params = dict(step.input)
        for name in step.templated:
            params[name] = fill(str(params[name]), self._values, url=url_field(step.action) == name)
        if element is not None:
            params["index"] = element.index
        assert self._path is not None
        arguments = {
            "evaluation_previous_goal": "",
            "memory": "",
            "next_goal": REPLAYED_GOAL.format(step=self._position, steps=len(self._path.steps)),
            "action": {step.action: params},
        }
        return LLMReply(tool_calls=[ToolCall(name=tool.name, arguments=json.dumps(arguments, ensure_ascii=False))])


def _keys(identities: list[Any]) -> set[str]:
    return {identity.model_dump_json() for identity in identities}
