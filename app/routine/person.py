"""The rows waiting for the person, in the order they came: a hand-off (a captcha, a code: act in that row's browser,
then continue) or a risky moment (allow it or not). The other rows go on meanwhile. The panel lists them ("Needs you
(2)") and serves them one at a time; the CLI asks for them one at a time on its terminal. Past the routine's limit
(app/routine/cost.py), the routine's own question waits there too: go on past it, or stop.

A risky moment may be allowed for every row of the routine: the same act (``SameAct``: the same question about the
same words, on the same site) is then allowed on the other rows without asking, for as long as the routine runs."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from app.core.abort import AbortSignal
from app.core.safety.risky import ConfirmHandler, ConfirmRequest
from app.routine.types import PersonRequest, RequestKind


@dataclass(frozen=True)
class SameAct:
    """What makes two risky moments the same act: the kind of question, the page dialog's type, the question as the
    app words it (its act and the page's words: "The agent wants to click \"Save and pay $9\"."), and the site."""

    kind: str
    dialog_type: str
    message: str
    site: str

    @classmethod
    def of(cls, request: ConfirmRequest) -> SameAct:
        return cls(request.kind, request.dialog_type, request.message, urlsplit(request.url).netloc.lower())


@dataclass
class _Waiting:
    request: PersonRequest
    act: SameAct | None = None  # a risky moment's act
    answered: asyncio.Future[tuple[bool, str]] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )
    deadline: asyncio.TimerHandle | None = None


class PersonQueue:
    def __init__(
        self,
        on_change: Callable[[PersonRequest, bool], None],
        *,
        wait_s: float | None = None,
        on_expired: Callable[[PersonRequest], None] | None = None,
    ) -> None:
        """``on_change(request, added)``: a request joined the queue (True) or left it (False). A hand-off nobody
        answers within ``wait_s`` seconds goes to ``on_expired`` (a risky moment has its own limit, risky.py)."""
        self._ids = itertools.count(1)
        self._waiting: dict[int, _Waiting] = {}
        self._on_change = on_change
        self._wait_s = wait_s
        self._on_expired = on_expired
        self._allowed: set[SameAct] = set()  # acts the person allowed for every row
        self._limit_asked: int | None = None

    @property
    def requests(self) -> list[PersonRequest]:
        """Oldest first."""
        return [waiting.request for waiting in self._waiting.values()]

    def add(
        self,
        number: int,
        kind: RequestKind,
        words: str,
        browser: str,
        act: SameAct | None = None,
        question: ConfirmRequest | None = None,
    ) -> _Waiting:
        request = PersonRequest(next(self._ids), number, kind, words, browser, question)
        waiting = _Waiting(request, act)
        self._waiting[request.id] = waiting
        if self._wait_s is not None and self._on_expired is not None and kind != "confirm":
            waiting.deadline = asyncio.get_running_loop().call_later(self._wait_s, self._expire, request.id)
        self._on_change(request, True)
        return waiting

    def _expire(self, request_id: int) -> None:
        waiting = self._waiting.get(request_id)
        if waiting is not None and self._on_expired is not None:
            self._on_expired(waiting.request)

    def answer(self, request_id: int, yes: bool, note: str = "", *, every_row: bool = False) -> bool:
        """Settle a request: yes (continue / allow) or no (give the row up / refuse). False if it is gone.
        ``every_row`` with a risky moment's yes: the same act is allowed on every row from now on, those waiting
        included."""
        waiting = self._waiting.pop(request_id, None)
        if waiting is None:
            return False
        if request_id == self._limit_asked:
            self._limit_asked = None
        if every_row and yes and waiting.act is not None:
            self._allowed.add(waiting.act)
            for other in [w for w in self._waiting.values() if w.act == waiting.act]:
                self.answer(other.request.id, True)
        if waiting.deadline is not None:
            waiting.deadline.cancel()
        if not waiting.answered.done():
            waiting.answered.set_result((yes, note))
        self._on_change(waiting.request, False)
        return True

    @property
    def limit_asked(self) -> int | None:
        """The id of the question about the routine's limit while it waits (``ask_limit``), else None."""
        return self._limit_asked

    def ask_limit(self, words: str) -> None:
        """The routine passed its limit (``words`` say which): go on past it, or stop? Not a row's: number 0."""
        self._limit_asked = self.add(0, "limit", words, "").request.id

    def settle_limit(self, go_on: bool) -> None:
        """The routine went on (Resume too) or stopped: the limit's question, if it waits, is answered so."""
        asked, self._limit_asked = self._limit_asked, None
        if asked is not None:
            self.answer(asked, go_on)

    def drop_row(self, number: int) -> None:
        """The row ended (a stop, its run finished): whatever it waited for is gone from the queue."""
        for request_id, waiting in list(self._waiting.items()):
            if waiting.request.number == number:
                self.answer(request_id, False)

    def confirm_handler(self, number: int, browser: str) -> ConfirmHandler:
        """A row's risky-moment handler that asks through this queue (risky.py bounds the wait)."""

        async def ask(request: ConfirmRequest, signal: AbortSignal) -> bool:
            act = SameAct.of(request)
            if act in self._allowed:
                return True
            where = f" ({request.url})" if request.url else ""
            waiting = self.add(number, "confirm", f"{request.message}{where}", browser, act, request)
            try:
                yes, _note = await signal.race(asyncio.shield(waiting.answered))
            finally:
                if waiting.request.id in self._waiting:
                    self.answer(waiting.request.id, False)
            return yes

        return ask
