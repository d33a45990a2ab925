"""Plain words for what the agent does: actions for the timeline, activities for the status pill."""

from __future__ import annotations

import re
from enum import Enum
from typing import Any
from urllib.parse import urlparse

from app.core.tools.base import FAILURE_MARK
from app.core.types import (
    AgentActivity,
    ErrorActivity,
    ExecutedActivity,
    ExecutingActivity,
    PausedActivity,
    RetryingActivity,
    ThinkingActivity,
)
from app.text.i18n import tr

_LABEL_MAX = 32
# Results such as "Clicked [12] <button> Save": the element's words come after its index and optional tag.
_LABELLED = re.compile(r"\[(\d+)\]\s*(?:<[^>]*>\s*)?(?P<label>[^\n]*)")


def _quote(text: object, limit: int = 40) -> str:
    text = " ".join(str(text).split())
    return "“" + (text if len(text) <= limit else text[: limit - 1] + "…") + "”"


def _host(url: str) -> str:
    return urlparse(url).netloc or url


def _pages(value: Any) -> str:
    pages = float(value or 1)
    return tr("1 page") if pages == 1 else tr("{n:g} pages", n=pages)


def element_label(output: str) -> str:
    """The element's visible words from an action's result, or ''."""
    if not output or output.startswith(FAILURE_MARK):
        return ""
    match = _LABELLED.search(output)
    if not match:
        return ""
    label = match.group("label").strip().removesuffix("/>").strip()
    return label if len(label) <= _LABEL_MAX else label[: _LABEL_MAX - 1] + "…"


def describe_action(name: str, params: dict[str, Any]) -> str:
    """One short sentence for the timeline: "Click element [12]", "Type “abc” into [3]", "Go to https://…"."""
    index = params.get("index")
    match name:
        case "click_element_by_index":
            return tr("Click element [{index}]", index=index)
        case "input_text":
            return tr("Type {value} into [{index}]", value=_quote(params.get("text", "")), index=index)
        case "select_dropdown_option":
            return tr("Choose {value} in [{index}]", value=_quote(params.get("text", "")), index=index)
        case "send_keys":
            return tr("Press {keys}", keys=params.get("keys", ""))
        case "hover_element":
            return tr("Hover over [{index}]", index=index)
        case "scroll":
            pages = _pages(params.get("num_pages"))
            text = tr("Scroll down {pages}", pages=pages) if params.get("down", True) else tr(
                "Scroll up {pages}", pages=pages)
            return text if index is None else tr("{action} in [{index}]", action=text, index=index)
        case "go_to_url":
            return tr("Go to {url}", url=params.get("url", ""))
        case "go_back":
            return tr("Go back")
        case "open_new_tab":
            return tr("Open {url} in a new tab", url=params.get("url", ""))
        case "switch_to_tab":
            return tr("Switch to tab {tab}", tab=params.get("tab_id"))
        case "close_tab":
            return tr("Close tab {tab}", tab=params.get("tab_id"))
        case "upload_file":
            return tr("Upload {file} to [{index}]", file=_quote(str(params.get("path", "")).rsplit("/", 1)[-1]),
                      index=index)
        case "execute_javascript":
            return tr("Run a script on the page")
        case "wait":
            return tr("Wait {seconds:g} s", seconds=float(params.get("seconds", 3)))
        case "ask_user":
            return tr("Ask you a question")
        case "done":
            return tr("Finish: task done") if params.get("success", True) else tr("Finish: could not complete")
        case _:
            return name.replace("_", " ").capitalize()


def _doing(tool: str, params: dict[str, Any]) -> str:
    index = params.get("index")
    match tool:
        case "click_element_by_index":
            return tr("Clicking [{index}]…", index=index)
        case "input_text":
            return tr("Typing into [{index}]…", index=index)
        case "select_dropdown_option":
            return tr("Choosing {value} in [{index}]…", value=_quote(params.get("text", ""), 24), index=index)
        case "send_keys":
            return tr("Pressing {keys}…", keys=params.get("keys", ""))
        case "hover_element":
            return tr("Hovering over [{index}]…", index=index)
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
        case "done":
            return tr("Wrapping up…")
        case _:
            return tr("Working…")


def _did(activity: ExecutedActivity) -> str:
    """After an action: the same words, now with the element's label when the result names it."""
    label = element_label(activity.output)
    index = activity.input.get("index")
    if activity.output.startswith(FAILURE_MARK):
        return tr("That didn't work; rethinking…")
    if label and activity.tool == "click_element_by_index":
        return tr("Clicked [{index}] {label}", index=index, label=label)
    if label and activity.tool == "input_text":
        return tr("Typed into [{index}] {label}", index=index, label=label)
    return _doing(activity.tool, activity.input)


def describe_activity(activity: AgentActivity) -> str:
    """The pill's live text."""
    match activity:
        case ThinkingActivity():
            return tr("Thinking…")
        case ExecutingActivity():
            return _doing(activity.tool, activity.input)
        case ExecutedActivity():
            return _did(activity)
        case RetryingActivity():
            return tr("Retrying ({attempt}/{max})…", attempt=activity.attempt, max=activity.max_attempts)
        case ErrorActivity():
            return tr("Hit a problem; trying again…")
        case PausedActivity():
            return tr("Paused — your turn")
    return tr("Working…")


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
            rest = rest[len(marker):].lstrip(_PREFIX_TRIM + "\ufe0f")
            # "✅ Success - typed it": the emoji and the word both say it; show neither twice.
            word = _leading(rest, markers)
            if word:
                rest = rest[len(word):].lstrip(_PREFIX_TRIM)
            break
    return reading, rest


def _leading(text: str, markers: tuple[str, ...]) -> str | None:
    """The marker ``text`` starts with, as a whole word ("Successfully" is not "Success")."""
    lowered = text.lower()
    for marker in markers:
        if lowered.startswith(marker) and not (marker.isalpha() and text[len(marker): len(marker) + 1].isalpha()):
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
    minutes, rest = divmod(int(round(seconds)), 60)
    return tr("{m} min {s} s", m=minutes, s=rest)


HANDOFF_WORDS = ("captcha", "robot", "verify", "verification", "security check", "log in", "login", "sign in",
                 "2fa", "two-factor", "验证")


def needs_human(text: str) -> bool:
    """Whether a failed run's text says a person must act in the browser (captcha, login, 2FA)."""
    lowered = text.lower()
    return any(word in lowered for word in HANDOFF_WORDS)


_EMOJI_FALLBACK = {"✅": "✓", "❌": "✗", "❔": "?", "❓": "?", "⚠️": "⚠", "\ufe0f": ""}


def displayable(text: str, emoji_font: bool) -> str:
    """Without an emoji font the agent's ✅/❌ marks would show as empty boxes; plain symbols say the same."""
    if emoji_font:
        return text
    for emoji, plain in _EMOJI_FALLBACK.items():
        text = text.replace(emoji, plain)
    return text
