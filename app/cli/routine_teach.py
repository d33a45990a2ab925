"""Show me once on a terminal (``run TEMPLATE --rows FILE --teach``): the terminal says which row to do in
Chromium's window and waits for Enter (or Done in the page; "cancel" stops showing it), tells each step as it is
recorded, then shows the path in plain words and asks "Use this path? [Y/n]" ("n": the next row is the person's to
show). Reading the terminal never holds the routine up: the page's own Done or Cancel, or Ctrl+C, ends the question.
"""

from __future__ import annotations

import asyncio

from app.background import Background
from app.cli.output import EventPrinter
from app.cli.terminal import Say, TerminalUnreadable, discard_typed_ahead, read_line
from app.routine.runner import RoutineRunner
from app.routine.teach import Teaching
from app.routine.types import PathShown, TaughtStep, TeachStarted
from app.text.path_words import path_words, show_me_words
from app.text.wording import describe_action

CANCEL = "cancel"


class TerminalTeacher:
    def __init__(self, runner: RoutineRunner, fd: int, say: Say, printer: EventPrinter | None) -> None:
        self._runner = runner
        self._fd = fd
        self._say = say
        self._printer = printer
        self._background = Background("show me once")
        runner.on("teach_started", self._on_started)
        runner.on("taught_step", self._step)
        runner.on("path_shown", self._on_shown)

    async def close(self) -> None:
        self._background.cancel_all()
        await asyncio.sleep(0)

    def _on_started(self, started: TeachStarted) -> None:
        self._background.spawn(self._started(started))

    def _on_shown(self, shown: PathShown) -> None:
        self._background.spawn(self._shown(shown))

    async def _started(self, started: TeachStarted) -> None:
        teaching = self._runner.teaching
        if teaching is None:
            return
        self._event("teach_started", {"row": started.number, "browser": started.browser})
        self._say.line(show_me_words(started.number, started.cells))
        # A line, not a question on its line: the steps are told under it as the person takes them.
        self._say.line(
            f'Press Enter here when row {started.number} is done (or Done in the page), or type "{CANCEL}" and Enter '
            "to stop showing it. Each step is told as it is recorded:"
        )
        line = await self._ask(teaching, None)
        if line is None:
            return  # ended in the page, or the routine stopped
        if line.strip().lower() == CANCEL:
            teaching.cancel()
        else:
            teaching.done()

    def _step(self, step: TaughtStep) -> None:
        words = describe_action(step.action, dict(step.input), step.target)
        self._event("taught_step", {"row": step.number, "words": words})
        self._say.line(f"  {words}")

    async def _shown(self, shown: PathShown) -> None:
        teaching = self._runner.teaching
        if teaching is None:
            return
        self._event("path_shown", {"row": shown.number, "steps": path_words(shown.path)})
        self._say.line(f"The path learned from row {shown.number}, with each row's own values in braces:")
        for number, line in enumerate(path_words(shown.path), 1):
            self._say.line(f"  {number}. {line}")
        answer = await self._ask(teaching, "Use this path for the other rows? [Y/n]", answer=True)
        if answer is not None:
            accepted = answer.strip().lower() not in ("n", "no")
            if not accepted:
                self._say.line("Show me again: the next row is yours to show.")
            teaching.use(accepted)

    async def _ask(self, teaching: Teaching, question: str | None, *, answer: bool = False) -> str | None:
        """The line typed (after ``question``, on its line); None when the showing ended another way first (or the
        terminal cannot be read)."""
        discard_typed_ahead(self._fd)
        if question is not None:
            self._say.prompt(question)
        reading = asyncio.ensure_future(read_line(self._fd))
        other = asyncio.ensure_future(teaching.answered() if answer else teaching.ended())
        try:
            await asyncio.wait({reading, other}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (reading, other):
                task.cancel()
        if not reading.done() or reading.cancelled():
            if question is not None:
                self._say.end_prompt()
            return None
        try:
            return reading.result()  # None at the end of input: Done or Cancel in the page still ends it
        except TerminalUnreadable:
            self._say.line("This terminal cannot be read while the routine runs; use Done in the page.")
            return None

    def _event(self, kind: str, payload: dict[str, object]) -> None:
        if self._printer is not None:
            self._printer.event(kind, payload)
