"""The routine's person queue on a terminal: one request at a time, in the order they came, while the other rows go
on. A hand-off brings that row's window to the front and waits for Enter (a note may be typed first) or "skip" (the
row ends needs_person and is tried again next run; a row that was sent and held back is not); a risky moment asks
"Allow? [y/N; a: yes for every row]" (a: the same act is allowed on the other rows without asking); past the limit
of model calls or money (--max-calls, --max-cost) the routine is paused and asks whether to go on (no: it stops).
Ctrl+C stops the routine.
"""

from __future__ import annotations

import asyncio
import contextlib

from app.cli.terminal import Say, TerminalUnreadable, discard_typed_ahead, read_line
from app.routine.runner import RoutineRunner
from app.routine.types import PersonRequest
from app.text.hand_off import agent_says, never_asks, unclear_words

SKIP = "skip"
EVERY_ROW = "a"


class TerminalPerson:
    def __init__(self, runner: RoutineRunner, fd: int, say: Say, *, windowless: bool) -> None:
        self._runner = runner
        self._fd = fd
        self._say = say
        self._windowless = windowless
        self._queue: asyncio.Queue[PersonRequest] = asyncio.Queue()
        self._current: PersonRequest | None = None
        self._reading: asyncio.Future[str | None] | None = None
        runner.on("person_needed", self._queue.put_nowait)
        runner.on("person_done", self._done)
        self._serving = asyncio.ensure_future(self._serve())

    async def close(self) -> None:
        self._serving.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._serving

    def _done(self, request: PersonRequest) -> None:
        """A request settled elsewhere (its row was stopped, a risky question timed out): stop asking it."""
        if self._current is not None and request.id == self._current.id and self._reading is not None:
            self._reading.cancel()

    async def _serve(self) -> None:
        while True:
            request = await self._queue.get()
            if all(r.id != request.id for r in self._runner.person_queue.requests):
                continue  # already settled
            self._current = request
            try:
                await self._ask(request)
            except asyncio.CancelledError:
                if self._serving.cancelling():
                    raise
                self._say.end_prompt()
            finally:
                self._current = None

    async def _ask(self, request: PersonRequest) -> None:
        waiting = len(self._runner.person_queue.requests)
        more = f" ({waiting - 1} more waiting)" if waiting > 1 else ""
        if request.kind == "limit":
            self._ask_line(
                f"{request.words}{more} Go on past your limit? [y/N; N stops here, the rows left run next time]"
            )
            answer = (await self._line() or "").strip().lower()
            self._runner.answer(request.id, answer in ("y", "yes"))
            return
        if request.kind == "confirm":
            self._ask_line(
                f"Row {request.number} ({request.browser}){more}: {request.words} "
                f"Allow? [y/N; {EVERY_ROW}: yes for every row]"
            )
            answer = (await self._line() or "").strip().lower()
            every_row = answer == EVERY_ROW
            self._runner.answer(request.id, every_row or answer in ("y", "yes"), every_row=every_row)
            return
        await self._runner.bring_to_front(request.number)
        unclear = request.kind == "unclear"
        said = unclear_words(request.words) if unclear else agent_says(request.words)
        self._say.line(f"Row {request.number} needs you in its browser ({request.browser}){more}. {said}")
        if not unclear:
            self._say.line(never_asks())
        if self._windowless:
            self._say.line("Chromium has no window in this run (it is headless); run with --headed to act in it.")
        later = (
            "to leave it to you (it is not run again unless you ask for it with --retry-interrupted)"
            if unclear
            else "to leave it for the next run"
        )
        self._ask_line(
            f"When you are done, press Enter to let row {request.number} carry on (type a note first if you like), "
            f'or type "{SKIP}" {later}:'
        )
        note = await self._line()
        if note is None or note.strip().lower() == SKIP:
            if note is None:
                self._say.end_prompt()
            self._runner.give_up(request.id)
        else:
            self._runner.continue_row(request.id, note)

    def _ask_line(self, question: str) -> None:
        """Keys pressed before a question shows must not answer it; once it shows, what is typed is its answer
        (dropping the keys only after printing it would lose an answer typed at once)."""
        discard_typed_ahead(self._fd)
        self._say.prompt(question)

    async def _line(self) -> str | None:
        """The line typed; None at the end of input or when the terminal cannot be read."""
        self._reading = asyncio.ensure_future(read_line(self._fd))
        try:
            return await self._reading
        except TerminalUnreadable:
            self._say.line("This terminal cannot be read while the routine runs.")
            return None
        finally:
            self._reading = None
