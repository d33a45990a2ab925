"""What a Playwright failure means, where only its message says it: one named check per meaning, in one place.

Playwright raises one ``Error`` type for most failures; what went wrong is in its message (Playwright's own words,
or Chromium's). Code elsewhere asks these checks, never the message: when a Playwright or Chromium upgrade changes a
wording, tests/browser/test_playwright_errors.py (which provokes each failure on the locked versions) says which
check to update. Where Playwright offers a state instead (``page.is_closed()``, the page's "crash" event), the code
uses that first.
"""

from __future__ import annotations

import re

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

# "<div class=overlay>…</div> intercepts pointer events": the element another one covers.
_INTERCEPT = re.compile(r"(<[^>]*>.*?) intercepts pointer events")
# A server that refused the connection for now: "Unexpected status 429 when connecting to http://…/json/version/."
# (CDP over http) or "WebSocket error: ws://… 503 Service Unavailable" (CDP or a Playwright server over ws).
_BUSY_ANSWER = re.compile(r"(?:Unexpected status|WebSocket error: \S+) (429|503)\b")
# Why an element was not ready when an action's wait ran out, as Playwright's call log says it.
_NOT_READY = (
    "element is not visible",
    "element is not enabled",
    "element is not stable",
    "element is outside of the viewport",
    "element is not editable",
)


def message_of(exc: BaseException) -> str:
    """The failure's whole text (Playwright's ``message``, else the exception's string)."""
    return getattr(exc, "message", None) or str(exc)


def first_line(exc: BaseException) -> str:
    """The failure's first line (Playwright appends its call log below), or the exception's type name."""
    text = message_of(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def covering_element(exc: PlaywrightError) -> str | None:
    """The element that covers the target of a click, as Playwright prints it; None if nothing covered it."""
    blockers = _INTERCEPT.findall(message_of(exc))
    return blockers[-1] if blockers else None


def not_ready_reason(exc: PlaywrightError) -> str | None:
    """Why an action's wait for its element ran out ("element is not visible"…); None for other failures."""
    if not isinstance(exc, PlaywrightTimeoutError):
        return None
    message = message_of(exc)
    return next((reason for reason in _NOT_READY if reason in message), None)


def tab_crashed(exc: BaseException | None) -> bool:
    """The tab's renderer died during the call ("Target crashed", "Page crashed")."""
    return exc is not None and "crashed" in message_of(exc).lower()


def document_replaced(exc: PlaywrightError) -> bool:
    """The page navigated while a script ran in it: the script's document is gone, and a new one is coming."""
    message = message_of(exc)
    return "context was destroyed" in message or "navigat" in message


def profile_in_use(exc: PlaywrightError) -> bool:
    """Chromium refused the profile: another Chromium holds it (its singleton lock)."""
    message = message_of(exc)
    return "ProcessSingleton" in message or "SingletonLock" in message or "profile appears to be in use" in message


def missing_library(exc: PlaywrightError, library: str) -> bool:
    """Chromium could not start because the system lacks ``library`` (the loader names it: "libatomic.so.1")."""
    return library in message_of(exc)


def busy_answer(exc: BaseException) -> int | None:
    """The HTTP status (429 or 503) a browser endpoint refused a connection with because it is full for now (its
    queue, a rate limit): worth asking again later. None for any other failure."""
    found = _BUSY_ANSWER.search(first_line(exc))
    return int(found.group(1)) if found else None
