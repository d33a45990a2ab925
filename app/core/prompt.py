"""Builds what the model reads: the system prompt and one user message (state, history, browser).

Only the user's words (task, follow-ups, what they said on handing the browser back) and the app's own lines go in as
they are; everything from the page or from the model passes through ``inert`` (app/core/safety/untrusted.py).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

from app.assets import read_resource
from app.core.languages import LANGUAGES
from app.core.llm import Message
from app.core.page import BrowserState
from app.core.prompt_budget import PromptBudget, clip, clip_page, fold_lines, recent_tasks, split_history
from app.core.safety.untrusted import escape_blocks, inert, quoted
from app.core.types import (
    ErrorEvent,
    HistoricalEvent,
    ObservationEvent,
    RetryEvent,
    StepEvent,
    TaskRecord,
    UserTakeoverEvent,
)


def _model_note(code: str) -> str:
    known = LANGUAGES.get(code)
    return known.model_note if known is not None else ""


def system_prompt(language: str = "en", extra_instructions: str = "") -> str:
    prompt = read_resource("prompts/system_prompt.md").strip() + _model_note(language)
    if extra_instructions.strip():
        prompt += "\n\n# Instructions from the user's settings\n" + extra_instructions.strip()
    return prompt


def build_messages(
    *,
    system: str,
    task: str,
    step_index: int,
    max_steps: int,
    previous_tasks: Sequence[TaskRecord],
    history: Sequence[HistoricalEvent],
    state: BrowserState | None,
    now: datetime,
    final_note: str = "",
    budget: PromptBudget = PromptBudget(),
) -> list[Message]:
    parts = [
        _agent_state(task, step_index, max_steps, previous_tasks, now, budget),
        _agent_history(history, budget),
        _browser_state(state, budget),
    ]
    if final_note:
        parts.append(f"<sys>{final_note}</sys>")
    page = Message(role="user", content="\n\n".join(parts), elements=state.elements if state is not None else [])
    return [Message(role="system", content=system), page]


def _agent_state(
    task: str,
    step_index: int,
    max_steps: int,
    previous_tasks: Sequence[TaskRecord],
    now: datetime,
    budget: PromptBudget,
) -> str:
    lines = ["<agent_state>"]
    if previous_tasks:
        lines.append("<previous_tasks>")
        left_out, kept = recent_tasks(previous_tasks, budget)
        if left_out:
            lines.append(f"({left_out} earlier tasks left out)")
        for number, record in enumerate(kept, left_out + 1):
            outcome = "succeeded" if record.success else f"did not succeed, {record.status}"
            lines.append(f"Task {number} ({outcome}): {record.task}")
            lines.append(f"Result: {inert(clip(record.result, budget.result_chars))}")
            if record.last_memory:
                lines.append(f"Last memory: {inert(clip(record.last_memory, budget.memory_chars))}")
        lines.append("</previous_tasks>")
        lines.append("The current task is a follow-up: continue from where the previous task left the browser.")
    lines.append(f"<user_request>\n{task}\n</user_request>")
    lines.append(f"Step {step_index} of {max_steps} · {now:%Y-%m-%d %H:%M}")
    lines.append("</agent_state>")
    return "\n".join(lines)


def _agent_history(history: Sequence[HistoricalEvent], budget: PromptBudget) -> str:
    older, recent = split_history(history, budget.recent_steps)
    lines = []
    if older:
        lines.append("<earlier_steps>")
        lines += fold_lines([_fold(event, budget) for event in older], budget)
        lines.append("</earlier_steps>")
    lines += [_format_event(event, budget) for event in recent]
    return "<agent_history>\n" + "\n".join(lines) + "\n</agent_history>"


def _action(event: StepEvent, budget: PromptBudget) -> str:
    return clip(f"{event.action.name} {json.dumps(event.action.input, ensure_ascii=False)}", budget.field_chars)


def _fold(event: HistoricalEvent, budget: PromptBudget) -> str:
    """One line for an older entry, the memory first: it is what the model chose to keep."""
    if isinstance(event, StepEvent):
        memory = event.reflection.memory or "(none)"
        return inert(
            f"Step {event.step_index}: memory: {memory} | action: {_action(event, budget)} "
            f"| result: {event.action.output}"
        )
    return "App: " + _app_line(event)


def _format_event(event: HistoricalEvent, budget: PromptBudget) -> str:
    if isinstance(event, StepEvent):
        reflection = event.reflection
        return (
            f"<step_{event.step_index}>\n"
            f"Evaluation of previous step: {inert(clip(reflection.evaluation_previous_goal, budget.field_chars))}\n"
            f"Memory: {inert(clip(reflection.memory, budget.memory_chars))}\n"
            f"Next goal: {inert(clip(reflection.next_goal, budget.field_chars))}\n"
            f"Action: {inert(_action(event, budget))}\n"
            f"Result: {inert(clip(event.action.output, budget.result_chars))}\n"
            f"</step_{event.step_index}>"
        )
    return f"<sys>{clip(_app_line(event), budget.result_chars)}</sys>"


def _app_line(event: HistoricalEvent) -> str:
    """The app's own line about an event that is not a step (what the model reads inside <sys>)."""
    if isinstance(event, ObservationEvent):
        # The app's sentence, but it quotes the page (a dialog's message, a download's name, a URL).
        return inert(event.content)
    if isinstance(event, UserTakeoverEvent):
        note = f" The user said: {event.note}" if event.note else ""
        if event.after_hand_off:
            opening = "You handed the browser to the user, and they have handed it back: the same task goes on."
            check = "Check on the page that what you asked them to do is done before you go on."
        else:
            opening = "The user took over the browser and handed it back."
            check = "Look at the new page state before acting."
        return (
            f"{opening} Before: {quoted(event.before_title)} ({inert(event.before_url)}). "
            f"Now: {quoted(event.after_title)} ({inert(event.after_url)}).{note} {check}"
        )
    if isinstance(event, RetryEvent):
        return f"The model call failed and was retried ({event.attempt}/{event.max_attempts}): {inert(event.message)}"
    if isinstance(event, ErrorEvent):
        return f"Error: {inert(event.message)}"
    raise TypeError(f"unknown history event {event!r}")


def _browser_state(state: BrowserState | None, budget: PromptBudget) -> str:
    if state is None:
        return "<browser_state>\n(The page could not be read.)\n</browser_state>"
    # The page's own first line names the current tab's title and address; its tab line does not repeat them.
    tabs = "\n".join(
        f"- Tab {tab.tab_id} (current)"
        if tab.active
        else f"- Tab {tab.tab_id}: {quoted(tab.title) if tab.title else '(untitled)'} — {inert(tab.url)}"
        for tab in state.tabs
    )
    # The controller lays the page out in lines and makes each page-derived field inert; no tag of the page's may
    # still close the block, whichever controller wrote it.
    content = escape_blocks(clip_page(state.content, budget.page_chars))
    return f"<browser_state>\nTabs:\n{tabs or '- (none)'}\n\n{content}\n</browser_state>"
