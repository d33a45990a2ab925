"""The command line's terminal: telling the user something on stderr and reading a line they type, while the run (and
Ctrl+C) carries on. Shared by the risky-moment question (cli_confirm) and the hand-off (cli_handoff)."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from typing import TextIO

from app.core.clean_text import printable_line

if sys.platform != "win32":  # Windows has no termios; the CLI still runs there
    import termios

log = logging.getLogger(__name__)


class TerminalUnreadable(Exception):
    """The event loop cannot watch this terminal (no reader support for it)."""


def is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # closed or replaced by something without a descriptor
        return False


class Say:
    """Lines for the user on stderr; with --events (stderr carries JSON lines only) they go through the log."""

    def __init__(self, events: bool) -> None:
        self._events = events

    def line(self, text: str) -> None:
        """One line; a page's or the model's words in it can neither move the cursor nor start another line."""
        if self._events:
            log.warning("%s", text)
        else:
            print(f"page-agent-desktop: {printable_line(text)}", file=sys.stderr, flush=True)

    def prompt(self, text: str) -> None:
        """A question whose answer is typed on the same line (a page cannot erase and rewrite it)."""
        if self._events:
            log.warning("%s", text)
        else:
            sys.stderr.write(f"{printable_line(text)} ")
            sys.stderr.flush()

    def end_prompt(self) -> None:
        """End a question's line that no answer ended (Stop), before the run's own last words."""
        if not self._events:
            print(file=sys.stderr, flush=True)


def discard_typed_ahead(fd: int) -> None:
    """Keys pressed before a question was shown must not answer it (not on Windows, where a question cannot be read
    from the terminal anyway: its event loop has no reader for it, so read_line raises TerminalUnreadable)."""
    if sys.platform == "win32":
        return
    try:
        termios.tcflush(fd, termios.TCIFLUSH)
    except (termios.error, OSError):
        pass


async def read_line(fd: int) -> str | None:
    """The next line typed on ``fd``, without its end; None at the end of input (Ctrl+D, a closed terminal). Read
    with the event loop's reader, so nothing blocks; cancel it to stop waiting."""
    loop = asyncio.get_running_loop()
    line: asyncio.Future[str | None] = loop.create_future()
    buffer = bytearray()

    def readable() -> None:
        try:
            chunk = os.read(fd, 1024)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
        buffer.extend(chunk)
        if line.done():
            return
        if b"\n" in buffer:
            line.set_result(buffer.split(b"\n", 1)[0].decode(errors="replace"))
        elif not chunk:
            line.set_result(None)

    try:
        loop.add_reader(fd, readable)
    except (NotImplementedError, OSError, ValueError) as exc:
        raise TerminalUnreadable(str(exc)) from exc
    try:
        return await line
    finally:
        loop.remove_reader(fd)
