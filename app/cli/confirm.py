"""``--risky``: who answers a page's confirm()/prompt()/beforeunload and an irreversible click on the command line.

``allow`` and ``deny`` answer by themselves (and say so); ``ask`` asks on the terminal, and means ``deny`` when stdin
is not one. The answer is read with the event loop's reader on stdin, so the run (and Ctrl+C) carries on while the
question waits; no answer in time is a no.
"""

from __future__ import annotations

import asyncio
import sys
from typing import TextIO

from app.cli.terminal import Say, TerminalUnreadable, discard_typed_ahead, is_terminal, read_line
from app.core.abort import AbortSignal
from app.core.safety import risky
from app.core.safety.risky import ConfirmHandler, ConfirmRequest, RiskyMode


def cli_confirm(
    mode: RiskyMode, *, stopped: asyncio.Event, events: bool, stdin: TextIO | None = None
) -> ConfirmHandler:
    """The handler for ``--risky mode``. ``stopped`` is set when the user asks the run to stop (Ctrl+C): a question
    still open is then answered no. ``events``: stderr carries JSON lines only, so lines go through the log."""
    stdin = stdin if stdin is not None else sys.stdin
    say = Say(events)
    if mode == "ask" and is_terminal(stdin):
        return _TerminalQuestion(stdin.fileno(), say, stopped)
    if mode == "allow":
        return _Fixed(True, "allowed (--risky allow)", say)
    reason = "not allowed (--risky deny)" if mode == "deny" else "not allowed (no terminal to ask on; --risky deny)"
    return _Fixed(False, reason, say)


def _question(request: ConfirmRequest) -> str:
    where = f" ({request.url})" if request.url else ""
    return f"{request.message}{where}"


class _Fixed:
    def __init__(self, answer: bool, told: str, say: Say) -> None:
        self._answer = answer
        self._told = told
        self._say = say

    async def __call__(self, request: ConfirmRequest, _signal: AbortSignal) -> bool:
        self._say.line(f"{_question(request)} — {self._told}.")
        return self._answer


class _TerminalQuestion:
    """One question at a time on the terminal: "… Allow? [y/N]"; y or yes allows, anything else refuses."""

    def __init__(self, fd: int, say: Say, stopped: asyncio.Event) -> None:
        self._fd = fd
        self._say = say
        self._stopped = stopped
        self._lock = asyncio.Lock()

    async def __call__(self, request: ConfirmRequest, signal: AbortSignal) -> bool:
        async with self._lock:
            if self._stopped.is_set() or signal.aborted:
                return False
            discard_typed_ahead(self._fd)
            self._say.prompt(f"{_question(request)} Allow? [y/N]")
            answer = await self._read_line(signal)
        if answer is None:
            self._say.line(f"No answer within {risky.CONFIRM_TIMEOUT:g} s: not allowed.")
            return False
        return answer.strip().lower() in ("y", "yes")

    async def _read_line(self, signal: AbortSignal) -> str | None:
        """The line typed, "" on end of input or Stop, None on time-out."""
        reading = asyncio.ensure_future(read_line(self._fd))
        stop = asyncio.ensure_future(self._stopped.wait())
        try:
            done, _ = await signal.race(
                asyncio.wait({reading, stop}, timeout=risky.CONFIRM_TIMEOUT, return_when=asyncio.FIRST_COMPLETED)
            )
        except BaseException:
            self._say.end_prompt()
            raise
        finally:
            reading.cancel()
            stop.cancel()
        if reading in done:
            try:
                return reading.result() or ""
            except TerminalUnreadable:
                self._say.line("This terminal cannot be read while the run goes on: not allowed.")
                return ""
        if stop in done:
            self._say.end_prompt()
            return ""
        return None
