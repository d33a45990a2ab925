"""Calling the person back when a routine's row waits for them, as a task's hand-off does (app/ui/attention.py): the
panel flagged, a desktop notification, urgent for a row handed to them (a captcha, a code, a sent row whose answer
was unclear). The notification follows the "Needs you" queue: once the request it tells of is settled it goes, and
the next one still waiting is told instead, without a sound."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from app.routine.types import PersonRequest
from app.text.confirm_words import allow_question
from app.text.hand_off import hand_off_words, unclear_words
from app.text.i18n import tr
from app.ui.attention import NOTIFIED_REASON_MAX
from app.ui.routine.panel import RoutinePanel


class Caller(Protocol):
    """What calls the person (app/ui/attention.py's Attention)."""

    def call(self, title: str, message: str, *, sound: bool, urgent: bool = False) -> None: ...

    def dismiss(self) -> None: ...


class RowCalls:
    def __init__(self, page: RoutinePanel, caller: Caller, sound: Callable[[], bool]) -> None:
        """``sound()``: whether a sound plays too (Settings: hand_off_sound)."""
        self._queue = page.run_view.needs_you
        self._caller = caller
        self._sound = sound
        # After the panel's own slots: the queue is up to date when these run.
        page.session.personNeeded.connect(lambda request: self._call(request, sound=self._sound()))
        page.session.personDone.connect(lambda _request: self._settled())

    def _settled(self) -> None:
        self._caller.dismiss()
        front = self._queue.current
        if front is not None:
            self._call(front, sound=False)

    def _call(self, request: PersonRequest, *, sound: bool) -> None:
        title = tr("Page Agent: row {n} needs you", n=request.number)
        if request.kind == "limit":
            title = tr("Page Agent: the routine needs you")
        if request.kind == "hand_off":
            words = hand_off_words(request.words, NOTIFIED_REASON_MAX)
        elif request.kind == "unclear":
            words = unclear_words(request.words)
        else:
            words = allow_question(request) if request.kind == "confirm" else request.words
        self._caller.call(title, words, sound=sound, urgent=request.kind in ("hand_off", "unclear"))
