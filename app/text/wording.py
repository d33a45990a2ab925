"""Plain words for what the agent does: actions for the timeline and exports, activities for the status pill, the
agent's messages in the panel's language. No element numbers, no HTML, no tool names: those live in "Details"."""

from __future__ import annotations

import json
import re
import string
from enum import Enum
from functools import cache
from typing import Any
from urllib.parse import urlparse

from app.core import messages
from app.core.llm import LLMErrorKind
from app.core.types import (
    ActionTarget,
    AgentActivity,
    AgentStatus,
    ErrorActivity,
    ExecutedActivity,
    ExecutingActivity,
    HandOffActivity,
    PausedActivity,
    RetryingActivity,
    StepEvent,
    ThinkingActivity,
    UserTakeoverEvent,
)
from app.text.i18n import language, tr

_NAME_MAX = 32
# How the agent writes a saved secret (app/core/safety/secrets.py); a person reads its name instead.
_SECRET = re.compile(r"<secret>\s*([^<>]{0,80}?)\s*</secret>", re.IGNORECASE)
# A form's marks beside a label, not part of its name: "Notes (optional)", "Email *".
_LABEL_MARKS = re.compile(r"(?:\s*[(（]?\s*(?:optional|required)\s*[)）]?|[\s:*：]+)+$", re.IGNORECASE)
_REASON_MAX = 60
# Input types a person calls a button, a checkbox, an option; every other input is a field.
_BUTTON_INPUTS = frozenset({"submit", "button", "reset", "image"})


def _quote(text: object, limit: int = 40) -> str:
    return "“" + _clip(text, limit) + "”"


def _clip(text: object, limit: int) -> str:
    """One line of at most ``limit`` characters, cut after a whole word where one ends near the limit."""
    text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit * 0.6:
        cut = cut[:space]
    return cut.rstrip(" ,;:-—") + "…"


def _host(url: str) -> str:
    return urlparse(url).netloc or url


def _pages(value: Any) -> str:
    pages = float(value or 1)
    return tr("1 page") if pages == 1 else tr("{n:g} pages", n=pages)


# --- the element acted on ------------------------------------------------------------------------------------


class _Role(Enum):
    FIELD = "field"
    BUTTON = "button"
    CHECKBOX = "checkbox"
    OPTION = "option"
    LIST = "list"
    LINK = "link"
    IMAGE = "image"
    ITEM = "item"


def _role(target: ActionTarget) -> _Role:
    tag, kind = target.tag.lower(), target.input_type.lower()
    if tag == "input":
        if kind in _BUTTON_INPUTS:
            return _Role.BUTTON
        if kind == "checkbox":
            return _Role.CHECKBOX
        if kind == "radio":
            return _Role.OPTION
        return _Role.FIELD
    return {
        "textarea": _Role.FIELD,
        "select": _Role.LIST,
        "button": _Role.BUTTON,
        "a": _Role.LINK,
        "img": _Role.IMAGE,
        "option": _Role.OPTION,
    }.get(tag, _Role.ITEM)


def _named(role: _Role, name: str) -> str:
    # A control's label reads as a name ("the Email field"); a link's or an item's words are quoted, since they
    # are often a phrase of the page's text.
    match role:
        case _Role.FIELD:
            return tr("the {name} field", name=name)
        case _Role.BUTTON:
            return tr("the {name} button", name=name)
        case _Role.CHECKBOX:
            return tr("the {name} checkbox", name=name)
        case _Role.OPTION:
            return tr("the {name} option", name=name)
        case _Role.LIST:
            return tr("the {name} list", name=name)
        case _Role.LINK:
            return tr("the “{name}” link", name=name)
        case _Role.IMAGE:
            return tr("the “{name}” image", name=name)
    return tr("the “{name}” item", name=name)


def _unnamed(role: _Role) -> str:
    match role:
        case _Role.FIELD:
            return tr("a text field")
        case _Role.BUTTON:
            return tr("a button")
        case _Role.CHECKBOX:
            return tr("a checkbox")
        case _Role.OPTION:
            return tr("an option")
        case _Role.LIST:
            return tr("a list")
        case _Role.LINK:
            return tr("a link")
        case _Role.IMAGE:
            return tr("an image")
    return tr("an element on the page")


def _person_name(name: str) -> str:
    """A label as a person says it: one line, without the form's "*", ":" or "(optional)", and clipped."""
    return _clip(_LABEL_MARKS.sub("", " ".join(name.split())), _NAME_MAX)


def target_words(target: ActionTarget | None, fallback: str = "") -> str:
    """The element as a person names it: "the Email field", "the Save button", "the “Pricing” link"; without a
    target, ``fallback`` (or "an element on the page")."""
    if target is None:
        return fallback or tr("an element on the page")
    role = _role(target)
    name = _person_name(target.name)
    return _named(role, name) if name else _unnamed(role)


def _list_words(target: ActionTarget | None) -> str:
    """The list an option is chosen in. A custom dropdown is a button or a div whose words are a prompt or the
    current choice ("Select a plan"), so they are quoted; a native list is named by its label."""
    if target is None:
        return tr("a list")
    name = _person_name(target.name)
    if target.tag.lower() == "select" or not name:
        return _named(_Role.LIST, name) if name else _unnamed(_Role.LIST)
    return tr("the “{name}” list", name=name)


# --- actions -------------------------------------------------------------------------------------------------


def _typed(text: str) -> str:
    """What is typed, quoted; a saved secret by its name ("your secret demo_password"), never its markup."""
    whole = _SECRET.fullmatch(text.strip())
    if whole:
        return tr("your secret {name}", name=whole.group(1))
    return _quote(_SECRET.sub("••••", text))


def describe_action(name: str, params: dict[str, Any], target: ActionTarget | None = None) -> str:
    """One short sentence for a step: "Click the Save button", "Type “Ada” into the Name field", "Go to https://…"."""
    match name:
        case "click_element_by_index":
            return tr("Click {target}", target=target_words(target))
        case "input_text":
            return tr(
                "Type {value} into {target}",
                value=_typed(str(params.get("text", ""))),
                target=target_words(target, tr("a text field")),
            )
        case "select_dropdown_option":
            return tr("Choose {value} in {target}", value=_quote(params.get("text", "")), target=_list_words(target))
        case "send_keys":
            return tr("Press {keys}", keys=params.get("keys", ""))
        case "hover_element":
            return tr("Point at {target}", target=target_words(target))
        case "scroll":
            pages = _pages(params.get("num_pages"))
            text = (
                tr("Scroll down {pages}", pages=pages)
                if params.get("down", True)
                else tr("Scroll up {pages}", pages=pages)
            )
            if params.get("index") is None:
                return text
            return tr("{action} in {target}", action=text, target=target_words(target))
        case "go_to_url":
            return tr("Go to {url}", url=params.get("url", ""))
        case "go_back":
            return tr("Go back")
        case "open_new_tab":
            return tr("Open {url} in a new tab", url=params.get("url", ""))
        case "switch_to_tab":
            return tr("Switch to another tab")
        case "close_tab":
            return tr("Close a tab")
        case "upload_file":
            return tr(
                "Upload {file} with {target}",
                file=_quote(str(params.get("path", "")).rsplit("/", 1)[-1]),
                target=target_words(target, tr("a file field")),
            )
        case "execute_javascript":
            return tr("Run a script on the page")
        case "wait":
            return tr("Wait {seconds:g} s", seconds=float(params.get("seconds", 3)))
        case "ask_user":
            return tr("Ask you a question")
        case "hand_off_to_user":
            return tr("Hand the browser to you: {reason}", reason=_clip(params.get("reason", ""), 120))
        case "done":
            return tr("Finish: task done") if params.get("success", True) else tr("Finish: could not complete")
    return tr("Do something on the page")


def action_details(step: StepEvent) -> str:
    """The raw action behind a step's plain words, for "Details" only: the tool, its input and its result."""
    action = step.action
    lines = [f"{action.name} {json.dumps(action.input, ensure_ascii=False)}"]
    if action.output:
        lines.append(f"→ {action.output}")
    return "\n".join(lines)


def action_failed(step: StepEvent) -> bool:
    return not step.action.ok


def _doing(tool: str, params: dict[str, Any], target: ActionTarget | None) -> str:
    match tool:
        case "click_element_by_index":
            return tr("Clicking {target}…", target=target_words(target))
        case "input_text":
            return tr("Typing into {target}…", target=target_words(target, tr("a text field")))
        case "select_dropdown_option":
            return tr(
                "Choosing {value} in {target}…", value=_quote(params.get("text", ""), 24), target=_list_words(target)
            )
        case "send_keys":
            return tr("Pressing {keys}…", keys=params.get("keys", ""))
        case "hover_element":
            return tr("Pointing at {target}…", target=target_words(target))
        case "scroll":
            return tr("Scrolling down…") if params.get("down", True) else tr("Scrolling up…")
        case "go_to_url" | "open_new_tab":
            return tr("Opening {host}…", host=_host(str(params.get("url", ""))))
        case "go_back":
            return tr("Going back…")
        case "switch_to_tab" | "close_tab":
            return tr("Switching tabs…")
        case "upload_file":
            return tr("Uploading a file…")
        case "execute_javascript":
            return tr("Running a script…")
        case "wait":
            return tr("Waiting for the page…")
        case "ask_user":
            return tr("Waiting for your answer…")
        case "hand_off_to_user":
            return tr("Handing the browser to you…")
        case "done":
            return tr("Wrapping up…")
    return tr("Working…")


def _did(activity: ExecutedActivity) -> str:
    """After an action: what was done to which element, or the same words as while doing it."""
    if not activity.ok:
        return tr("That didn't work; rethinking…")
    if activity.target is not None and activity.tool == "click_element_by_index":
        return tr("Clicked {target}", target=target_words(activity.target))
    if activity.target is not None and activity.tool == "input_text":
        return tr("Typed into {target}", target=target_words(activity.target))
    return _doing(activity.tool, activity.input, activity.target)


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
            return tr("Your turn — {reason}", reason=_clip(activity.reason, _REASON_MAX))
    return tr("Working…")


def describe_status(status: AgentStatus, success: bool = True) -> str:
    """How a run ended, in a word or two ("Success", "Needs a person"), for result cards, History and exports."""
    match status:
        case AgentStatus.COMPLETED:
            return tr("Success") if success else tr("Not completed")
        case AgentStatus.STOPPED:
            return tr("Stopped")
        case AgentStatus.ERROR:
            return tr("Error")
        case AgentStatus.NEEDS_PERSON:
            return tr("Needs a person")
    return tr("Unfinished")


# --- the agent's messages in the panel's language ---------------------------------------------------------------


def _llm_headline(kind: str) -> str:
    """What went wrong with the model endpoint, said first; the endpoint's own words follow as they came."""
    match kind:
        case LLMErrorKind.AUTH:
            return tr("The model service did not accept the API key.")
        case LLMErrorKind.CONFIG:
            return tr("The model service settings need a look.")
        case LLMErrorKind.RATE_LIMIT:
            return tr("The model service is busy (rate limited).")
        case LLMErrorKind.SERVER:
            return tr("The model service had a problem on its side.")
        case LLMErrorKind.NETWORK:
            return tr("The model service could not be reached.")
        case LLMErrorKind.CONTEXT_LENGTH:
            return tr("The task grew too long for this model.")
        case LLMErrorKind.CONTENT_FILTER:
            return tr("The model service's content filter refused.")
        case LLMErrorKind.INVALID_OUTPUT:
            return tr("The model's answer could not be used.")
    return ""


@cache
def _pattern(template: str) -> re.Pattern[str]:
    parts = []
    for literal, field, _spec, _conversion in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if field:
            parts.append(f"(?P<{field}>.+?)")
    return re.compile("".join(parts) + r"\Z", re.DOTALL)


def plain_message(message: str, kind: str = "") -> str:
    """The agent's message in the panel's language: its own messages (app/core/messages.py) are matched back to
    their template and translated whole; a model endpoint's failure gets a translated headline above the
    endpoint's own words. Anything else, and everything in English, is shown as it is."""
    if language() == "en":
        return message
    for template in messages.TEMPLATES:
        match = _pattern(template).match(message)
        if match:
            fields = match.groupdict()
            if "reason" in fields:  # a message inside a message ("unusable: <the model's answer…>")
                fields["reason"] = plain_message(fields["reason"])
            return tr(template, **fields) if fields else tr(template)
    headline = _llm_headline(kind)
    return f"{headline}\n{message}" if headline else message


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


# Plain symbols that every font has, for the agent's judgement marks: emoji glyphs show as empty boxes without
# an emoji font.
READING_MARK = {Reading.SUCCESS: "✓", Reading.FAILURE: "✗", Reading.UNKNOWN: "?"}


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
