"""A routine's "your turn" sent where the person is, away from this desktop: any address of the apprise library
(ntfy://, mailto://, tgram://, slack://, matrix://, json://…), set in Settings → Secrets or as
PAGE_AGENT_NOTIFY_URL, kept in the keyring (it often holds a token).

The message says which row and why, in the app's words, with the agent's reason quoted as everywhere else
(app/text/hand_off.py: its markup taken out), and what is left of markup escaped: a page's words are never sent as
markup to a service that could show it as such. Sending is off the event loop, within ``SEND_DEADLINE_S``; a
failure is logged, never raised: the routine goes on.
"""

from __future__ import annotations

import asyncio
import html
import logging
from collections.abc import Callable

from app.background import Background
from app.routine.types import PersonRequest
from app.text.confirm_words import allow_question
from app.text.hand_off import hand_off_line, quoted_reason, unclear_words
from app.text.i18n import tr

log = logging.getLogger(__name__)

SEND_DEADLINE_S = 20.0
# What a service shows whole: the reason is clipped to keep the app's own line after it.
REASON_MAX = 300


class NotifyUrlError(ValueError):
    """An address apprise does not know; the message says so without quoting it (it may hold a token)."""


def check_notify_url(url: str) -> None:
    """NotifyUrlError, in plain words, for an address no apprise service takes."""
    import apprise

    if not apprise.Apprise().add(url):
        raise NotifyUrlError(
            tr(
                "That address is not one Page Agent can send to. Use an apprise address, like "
                "ntfy://ntfy.sh/your-topic, mailto://user:password@example.com or tgram://bot-token/chat-id."
            )
        )


class AwayNotifier:
    """Sends a routine's requests for the person to ``url`` (an apprise address)."""

    def __init__(self, url: str, waits_minutes: int = 0) -> None:
        self._url = url
        self._waits_minutes = waits_minutes
        self._background = Background("away notifier")

    def person_needed(self, request: PersonRequest) -> None:
        """A row waits for the person (RoutineRunner's person_needed): send it, without waiting for the service."""
        title, body = away_message(request, self._waits_minutes)
        self._background.spawn(self.send(title, body))

    async def send(self, title: str, body: str) -> bool:
        """Whether the service took it (a failure is logged, never raised)."""
        try:
            sent = await asyncio.wait_for(asyncio.to_thread(_sender(self._url, title, body)), SEND_DEADLINE_S)
        except TimeoutError:
            log.warning("the notification was not sent within %g s", SEND_DEADLINE_S)
            return False
        except Exception as exc:  # apprise's own failure: the routine goes on
            log.warning("the notification was not sent: %s", type(exc).__name__)
            return False
        if not sent:
            log.warning("the notification service did not take the notification")
        return sent

    def close(self) -> None:
        """The routine is over: what is still being sent is dropped."""
        self._background.cancel_all()


def away_message(request: PersonRequest, waits_minutes: int = 0) -> tuple[str, str]:
    """The title and the body for ``request``: which row, in which window, why; escaped for any service."""
    if request.kind == "limit":
        title = tr("Page Agent: the routine needs you")
        body = f"{request.words} {tr('It is paused until you answer, in the panel or on the terminal.')}"
        return html.escape(title, quote=False), html.escape(body, quote=False)
    title = tr("Page Agent: row {number} needs you", number=request.number)
    if request.kind == "confirm":
        why = tr("It asks whether it may go ahead: {act}", act=quoted_reason(allow_question(request), REASON_MAX))
    elif request.kind == "unclear":
        why = unclear_words(request.words)
    else:
        why = hand_off_line(request.words, REASON_MAX)
    where = tr("Row {number} waits for you in its browser ({browser}).", number=request.number, browser=request.browser)
    wait = (
        tr(
            "If nobody takes it within {minutes} min, it is left for you and the routine goes on.",
            minutes=waits_minutes,
        )
        if waits_minutes and request.kind != "confirm"
        else ""
    )
    body = " ".join(part for part in (where, why, wait) if part)
    return html.escape(title, quote=False), html.escape(body, quote=False)


def _sender(url: str, title: str, body: str) -> Callable[[], bool]:
    # A closure: a worker's arguments may be logged at DEBUG level (qasync), and the address may hold a token.
    def send() -> bool:
        import apprise

        hub = apprise.Apprise()
        if not hub.add(url):
            return False
        return bool(hub.notify(title=title, body=body, body_format=apprise.NotifyFormat.TEXT))

    return send
