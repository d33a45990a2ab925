"""A scripted model: planned answers played in order, each picking the element it acts on by its fields (tag, name,
attributes) in the listing sent with each request, never by a recorded index. The demo routine's first row runs on
it (app/demo/routine.py), and so does the recording of the demo's cassette (tests/demo/record_cassette.py)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.core.abort import AbortSignal
from app.core.llm import LLMError, LLMErrorKind, LLMReply, Message, RetryCallback, ToolCall, ToolSpec
from app.core.page import ListedElement


@dataclass(frozen=True)
class Pick:
    """Which listed element a step acts on: the one whose fields match all that are given here. ``name`` is the
    name a person reads on it (ElementInfo.name); ``attrs`` are attributes it has, with these values."""

    tag: str | None = None
    name: str | None = None
    attrs: Mapping[str, str] = field(default_factory=dict)

    def matches(self, element: ListedElement) -> bool:
        return (
            (self.tag is None or element.tag == self.tag)
            and (self.name is None or element.name == self.name)
            and all(element.attrs.get(key) == value for key, value in self.attrs.items())
        )


@dataclass(frozen=True)
class Step:
    """One planned answer. ``target`` picks the acted-on element on the page the model is shown.
    ``sees`` is text the reflection talks about; it must be in what the model is shown, or the script is lying."""

    evaluation: str
    memory: str
    next_goal: str
    action: str
    params: dict[str, Any] = field(default_factory=dict)
    target: Pick | None = None
    sees: str | None = None


class ScriptedModel:
    """Plays the planned steps in order, reading each acted-on element's index off the page it is shown."""

    def __init__(self, steps: tuple[Step, ...]) -> None:
        self._steps = steps
        self._position = 0

    @property
    def finished(self) -> bool:
        return self._position == len(self._steps)

    async def invoke(
        self, messages: list[Message], tool: ToolSpec, signal: AbortSignal, on_retry: RetryCallback | None = None
    ) -> LLMReply:
        signal.throw_if_aborted()
        if self.finished:
            raise LLMError(LLMErrorKind.CONFIG, f"The demo script has only {len(self._steps)} steps.")
        step = self._steps[self._position]
        number = self._position + 1
        shown = next((m.content for m in reversed(messages) if m.role == "user"), "")
        if step.sees is not None and step.sees not in shown:
            raise LLMError(LLMErrorKind.CONFIG, f"Demo step {number} expects {step.sees!r} on the page:\n{shown}")
        params = step.params
        if step.target is not None:
            params = {"index": _index_of(step.target, messages[-1].elements, number), **params}
        arguments = {
            "evaluation_previous_goal": step.evaluation,
            "memory": step.memory,
            "next_goal": step.next_goal,
            "action": {step.action: params},
        }
        self._position += 1
        return LLMReply(tool_calls=[ToolCall(name=tool.name, arguments=json.dumps(arguments, ensure_ascii=False))])


def _index_of(target: Pick, elements: list[ListedElement], number: int) -> int:
    indices = [element.index for element in elements if target.matches(element)]
    if len(indices) != 1:
        found = "no element matches" if not indices else f"{len(indices)} elements match"
        listing = "\n".join(f"[{e.index}] <{e.tag}> {e.name!r} {e.attrs}" for e in elements)
        raise LLMError(LLMErrorKind.CONFIG, f"Demo step {number}: {found} {target} on the page:\n{listing}")
    return indices[0]
