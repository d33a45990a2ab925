"""The rows waiting for the person, in the order they came: a hand-off (a captcha, a code: act in that row's browser,
then continue) or a risky moment (allow it or not). The other rows go on meanwhile. The panel lists them ("Needs you
(2)") and serves them one at a time; the CLI asks for them one at a time on its terminal."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

from app.core.abort import AbortSignal
from app.core.safety.risky import ConfirmHandler, ConfirmRequest
from app.routine.types import PersonRequest, RequestKind


@dataclass
class _Waiting:
    request: PersonRequest
    answered: asyncio.Future[tuple[bool, str]] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


class PersonQueue:
    def __init__(self, on_change: Callable[[PersonRequest, bool], None]) -> None:
        """``on_change(request, added)``: a request joined the queue (True) or left it (False)."""
        self._ids = itertools.count(1)
        self._waiting: dict[int, _Waiting] = {}
        self._on_change = on_change

    @property
    def requests(self) -> list[PersonRequest]:
        """Oldest first."""
        return [waiting.request for waiting in self._waiting.values()]

    def add(self, number: int, kind: RequestKind, words: str, browser: str) -> _Waiting:
        request = PersonRequest(id=next(self._ids), number=number, kind=kind, words=words, browser=browser)
        waiting = _Waiting(request)
        self._waiting[request.id] = waiting
        self._on_change(request, True)
        return waiting

    def answer(self, request_id: int, yes: bool, note: str = "") -> bool:
        """Settle a request: yes (continue / allow) or no (give the row up / refuse). False if it is gone."""
        waiting = self._waiting.pop(request_id, None)
        if waiting is None:
            return False
        if not waiting.answered.done():
            waiting.answered.set_result((yes, note))
        self._on_change(waiting.request, False)
        return True

    def drop_row(self, number: int) -> None:
        """The row ended (a stop, its run finished): whatever it waited for is gone from the queue."""
        for request_id, waiting in list(self._waiting.items()):
            if waiting.request.number == number:
                self.answer(request_id, False)

    def confirm_handler(self, number: int, browser: str) -> ConfirmHandler:
        """A row's risky-moment handler that asks through this queue (risky.py bounds the wait)."""

        async def ask(request: ConfirmRequest, signal: AbortSignal) -> bool:
            where = f" ({request.url})" if request.url else ""
            waiting = self.add(number, "confirm", f"{request.message}{where}", browser)
            try:
                yes, _note = await signal.race(asyncio.shield(waiting.answered))
            finally:
                if waiting.request.id in self._waiting:
                    self.answer(waiting.request.id, False)
            return yes

        return ask
