"""What the step loop tells the model besides the page: how few steps are left, that it is going in circles."""

from __future__ import annotations

import hashlib
import json
from collections import deque
from typing import Any

from app.core.page import BrowserState

BUDGET_WARNINGS = (5, 2)
REPEATED_ACTION_LIMIT = 3
UNCHANGED_PAGE_LIMIT = 5


def budget_warning(steps_left: int) -> str | None:
    if steps_left not in BUDGET_WARNINGS:
        return None
    return (
        f"⚠️ Only {steps_left} steps left (this one included). Focus on finishing; if the task cannot be finished "
        "in time, call done with success=false and report what was done and what is left."
    )


def normalise_action(name: str, params: dict[str, Any]) -> str:
    """Tool + target + text, so trivially different spellings of the same action count as repeats."""

    def norm(value: Any) -> Any:
        return " ".join(value.lower().split()) if isinstance(value, str) else value

    return name + json.dumps({key: norm(value) for key, value in params.items()}, sort_keys=True)


class LoopDetector:
    """Notices the same action three times in a row and a page that has not changed for five steps."""

    def __init__(self) -> None:
        self._actions: deque[str] = deque(maxlen=REPEATED_ACTION_LIMIT)
        self._pages: deque[str] = deque(maxlen=UNCHANGED_PAGE_LIMIT)

    def record_action(self, name: str, params: dict[str, Any], where: str = "") -> str | None:
        """``where``: the page and the element acted on, as far as they tell two actions apart."""
        self._actions.append(normalise_action(name, params) + "\n" + where)
        if len(self._actions) == REPEATED_ACTION_LIMIT and len(set(self._actions)) == 1:
            self._actions.clear()
            return (
                f"You have done the same action {REPEATED_ACTION_LIMIT} times in a row on the same page. "
                "It is not working: "
                "try a different element or approach, or finish with done (success=false) and explain."
            )
        return None

    def record_page(self, state: BrowserState) -> str | None:
        fingerprint = hashlib.sha1(f"{state.url}\n{state.content}".encode()).hexdigest()
        self._pages.append(fingerprint)
        if len(self._pages) == UNCHANGED_PAGE_LIMIT and len(set(self._pages)) == 1:
            self._pages.clear()
            return (
                f"The page has not changed for {UNCHANGED_PAGE_LIMIT} steps. Your actions are having no effect: "
                "change approach (another element, scrolling, another page) or finish with done and explain."
            )
        return None
