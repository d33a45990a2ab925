"""Plain words for what the agent does: actions for the timeline and exports, activities for the status pill, the
agent's messages in the panel's language. No element numbers, no HTML, no tool names: those live in "Details"."""

from __future__ import annotations

import json
from enum import Enum
from typing import Any

from app.core.messages import TEMPLATES, Said
from app.core.tools.base import ToolWords
from app.core.tools.registry import ALL_TOOLS
from app.core.types import (
    ActionTarget,
    AgentActivity,
    ErrorActivity,
    ErrorEvent,
    ErrorKind,
    ExecutedActivity,
    ExecutingActivity,
    HandOffActivity,
    ObservationEvent,
    PausedActivity,
    RetryingActivity,
    RunOutcome,
    StepEvent,
    ThinkingActivity,
    UserTakeoverEvent,
)
from app.text.hand_off import quoted_reason
from app.text.i18n import language, tr
from app.text.tool_words import PILL_QUOTE, fill

_REASON_MAX = 60


# --- actions -------------------------------------------------------------------------------------------------


def _tool_words(tool: str) -> tuple[ToolWords, dict[str, Any]] | None:
    """A tool's words and its input's defaults (what a recorded input may leave out); None for a tool that no longer
    exists (a run saved by an older version)."""
    definition = ALL_TOOLS.get(tool)
    if definition is None:
        return None
    fields = definition.input_model.model_fields
    return definition.words, {
        name: field.get_default(call_default_factory=True) for name, field in fields.items() if not field.is_required()
    }


def describe_action(name: str, params: dict[str, Any], target: ActionTarget | None = None) -> str:
    """One short sentence for a step: "Click the Save button", "Type “Ada” into the Name field", "Go to https://…"."""
    found = _tool_words(name)
    if found is None:
        return tr("Do something on the page")
    words, defaults = found
    return fill(words.action, words, defaults | params, target)


def action_details(step: StepEvent) -> str:
    """The raw action behind a step's plain words, for "Details" only: the tool, its input and its result."""
    action = step.action
    lines = [f"{action.name} {json.dumps(action.input, ensure_ascii=False)}"]
    if action.output:
        lines.append(f"→ {action.output}")
    return "\n".join(lines)


def action_failed(step: StepEvent) -> bool:
    return not step.action.ok


def failure_words(step: StepEvent) -> str:
    """What a failed step's card says: in the person's terms when it failed because they did not allow it."""
    if step.action.declined:
        if step.action.name == "click_element_by_index":
            return tr("You didn't allow it; nothing was clicked.")
        return tr("You didn't allow it; nothing was done.")
    return tr("This action didn't work; the agent looks again.")


def _doing(tool: str, params: dict[str, Any], target: ActionTarget | None, done: bool = False) -> str:
    """The pill's words for an action while it runs, or (``done``) once it worked."""
    found = _tool_words(tool)
    if found is None:
        return tr("Working…")
    words, defaults = found
    return fill(words.done if done and words.done else words.doing, words, defaults | params, target, PILL_QUOTE)


def _did(activity: ExecutedActivity) -> str:
    """After an action: what was done, or the same words as while doing it."""
    if activity.declined:
        return tr("Not allowed; carrying on…")
    if not activity.ok:
        return tr("That didn't work; rethinking…")
    return _doing(activity.tool, activity.input, activity.target, done=True)


def describe_activity(activity: AgentActivity) -> str:
    """The pill's live text."""
    match activity:
        case ThinkingActivity():
            return tr("Thinking…")
        case ExecutingActivity():
            return _doing(activity.tool, activity.input, activity.target)
        case ExecutedActivity():
            return _did(activity)
        case RetryingActivity():
            return tr("Retrying ({attempt}/{max})…", attempt=activity.attempt, max=activity.max_attempts)
        case ErrorActivity():
            return tr("Hit a problem; trying again…")
        case PausedActivity():
            return tr("Paused — your turn")
        case HandOffActivity():
            return tr("Your turn — {reason}", reason=quoted_reason(activity.reason, _REASON_MAX))
    return tr("Working…")


def describe_outcome(outcome: RunOutcome) -> str:
    """How a run ended, in a word or two ("Success", "Needs a person"), for result cards, History and exports."""
    match outcome:
        case RunOutcome.SUCCESS:
            return tr("Success")
        case RunOutcome.FAILED:
            return tr("Not completed")
        case RunOutcome.STOPPED:
            return tr("Stopped")
        case RunOutcome.ERROR:
            return tr("Error")
        case RunOutcome.NEEDS_PERSON:
            return tr("Needs a person")


# --- the agent's messages in the panel's language ---------------------------------------------------------------


def _llm_headline(kind: ErrorKind) -> str:
    """What went wrong with the model endpoint, said first; the endpoint's own words follow as they came."""
    match kind:
        case ErrorKind.AUTH:
            return tr("The model service did not accept the API key.")
        case ErrorKind.CONFIG:
            return tr("The model service settings need a look.")
        case ErrorKind.RATE_LIMIT:
            return tr("The model service is busy (rate limited).")
        case ErrorKind.SERVER:
            return tr("The model service had a problem on its side.")
        case ErrorKind.NETWORK:
            return tr("The model service could not be reached.")
        case ErrorKind.CONTEXT_LENGTH:
            return tr("The task grew too long for this model.")
        case ErrorKind.CONTENT_FILTER:
            return tr("The model service's content filter refused.")
        case ErrorKind.INVALID_OUTPUT:
            return tr("The model's answer could not be used.")
    return ""


def said_words(said: Said) -> str:
    """One of the agent's own messages (app/core/messages.py) in the panel's language, from its id and fields."""
    return tr(TEMPLATES[said.id], **said.fields)


def plain_error(event: ErrorEvent) -> str:
    """An error in the panel's language: the agent's own message from its id; a model endpoint's failure with a
    translated headline above the endpoint's own words. A run saved before messages had ids shows its words as
    they are."""
    if event.said is not None:
        return said_words(event.said)
    if language() == "en":
        return event.message
    headline = _llm_headline(event.kind)
    return f"{headline}\n{event.message}" if headline else event.message


def plain_observation(event: ObservationEvent) -> str:
    """What the agent noted, in the panel's language when it is one of its own messages; a page's words as they
    are."""
    return said_words(event.said) if event.said is not None else event.content


def plain_retry(message: str) -> str:
    """Why a model call is tried again, in the panel's language: only passing troubles are retried (a busy or
    unreachable service, an error on its side), so one headline says it above the service's own words."""
    if language() == "en":
        return message
    return f"{tr('The model service had a passing problem.')}\n{message}"


# --- the agent's judgement of its previous goal ---------------------------------------------------------------


class Reading(Enum):
    SUCCESS = "success"
    FAILURE = "failure"
    UNKNOWN = "unknown"


_READINGS = (
    (Reading.SUCCESS, ("✅", "✔", "success", "succeeded", "成功")),
    (Reading.FAILURE, ("❌", "✖", "failure", "failed", "fail", "失败")),
    (Reading.UNKNOWN, ("❔", "❓", "unknown", "uncertain", "未知")),
)
_PREFIX_TRIM = " \t-–—:：.,;"


def evaluation_reading(text: str) -> tuple[Reading, str]:
    """How the agent judged its previous goal (✅ / ❌ / ❔), and the evaluation without that marker."""
    rest = text.strip()
    reading = Reading.UNKNOWN
    for candidate, markers in _READINGS:
        marker = _leading(rest, markers)
        if marker:
            reading = candidate
            rest = rest[len(marker) :].lstrip(_PREFIX_TRIM + "\ufe0f")
            # "✅ Success - typed it": the emoji and the word both say it; show neither twice.
            word = _leading(rest, markers)
            if word:
                rest = rest[len(word) :].lstrip(_PREFIX_TRIM)
            break
    return reading, rest


def _leading(text: str, markers: tuple[str, ...]) -> str | None:
    """The marker ``text`` starts with, as a whole word ("Successfully" is not "Success")."""
    lowered = text.lower()
    for marker in markers:
        if lowered.startswith(marker) and not (marker.isalpha() and text[len(marker) : len(marker) + 1].isalpha()):
            return marker
    return None


def format_tokens(count: int) -> str:
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.1f}k".replace(".0k", "k")
    return f"{count / 1_000_000:.1f}M".replace(".0M", "M")


def format_duration(seconds: float) -> str:
    if seconds < 10:
        return tr("{s:.1f} s", s=seconds)
    if seconds < 60:
        return tr("{s:.0f} s", s=seconds)
    minutes, rest = divmod(round(seconds), 60)
    return tr("{m} min {s} s", m=minutes, s=rest)


_EMOJI_FALLBACK = {"✅": "✓", "❌": "✗", "❔": "?", "❓": "?", "⚠️": "⚠", "\ufe0f": ""}


def displayable(text: str, emoji_font: bool) -> str:
    """Without an emoji font the agent's ✅/❌ marks would show as empty boxes; plain symbols say the same."""
    if emoji_font:
        return text
    for emoji, plain in _EMOJI_FALLBACK.items():
        text = text.replace(emoji, plain)
    return text


def takeover_title(event: UserTakeoverEvent) -> str:
    """The card's title when the person gives the browser back: after the agent's hand-off, or after Take over."""
    return tr("You handed the browser back") if event.after_hand_off else tr("You took over the browser")
