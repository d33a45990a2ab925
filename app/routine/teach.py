"""Show me once, the routine's side: the person does a row in its window as they always do, the app records it
(app/browser/recorder.py), and what they did becomes the routine's path, with each value that is one of the row's
cells turned back into its ``{column}`` (app/routine/path.py ``learn_path``, as for a row the model did).

A ``Teaching`` is that row while it is shown: the steps recorded so far, and the person's answers from any face (the
panel, the terminal, the bar inside the page): Done or Cancel, then Use this path or Show me again. ``record_row``
runs it in a slot; ``taught_path`` turns the recording into the path. A value typed into a password or code field is
never kept: it is the secret column whose cell it equals (``<secret>name</secret>``), or the person's to type in every
replayed row (a hand-off at that step).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from app.browser.recorder import BarWords, RecordedStep, ShowingEnd
from app.core.abort import AbortSignal
from app.core.page import ListedElement
from app.core.tools.control import HAND_OFF
from app.routine.path import RoutinePath, Taken, learn_path, may_send, value_field
from app.routine.plan import RoutinePlan
from app.routine.types import PathShown, RowOutcome, RowStarted, RowStatus, TaughtStep, TeachStarted
from app.text.element_words import target_words
from app.text.i18n import tr
from app.text.path_words import show_me_words

log = logging.getLogger(__name__)

Over = Literal["done", "cancel", "stopped", "nobody"]
DONE_BY_YOU = "You did this row yourself (Show me once); no model call."
CANCELLED = "You cancelled Show me once before this row was done; it is tried again next run."
NOBODY = "Nobody pressed Done for this row shown by hand, so the routine went on without it; it runs again next time."
STOPPED = "The routine was stopped while you showed this row."
STOPPED_SENT = (
    "The routine was stopped while you showed this row, after an action that may have sent it. It is not run again "
    "unless you ask for it with --retry-interrupted; check the site first."
)
HAND_OFF_REASON = "Type into {field} yourself (the routine never records what is typed there), then continue."


class Recorder(Protocol):
    """What the person does in one window (app/browser/recorder.py's PageRecorder)."""

    async def start(
        self,
        words: BarWords,
        on_step: Callable[[RecordedStep], None],
        on_end: Callable[[ShowingEnd, list[ListedElement]], None],
        secret_name: Callable[[str], str | None],
    ) -> None: ...

    async def say(self, words: BarWords | None) -> None: ...

    async def stop(self) -> list[ListedElement]: ...


class Teachable(Protocol):
    """A slot a row can be shown in (app/routine/browsers.py's Slot)."""

    @property
    def name(self) -> str: ...

    def recorder(self) -> Recorder: ...

    async def open(self, url: str, signal: AbortSignal) -> None: ...

    async def bring_to_front(self) -> None: ...


@dataclass
class Teaching:
    """The row being shown. ``done()`` / ``cancel()`` end it; once its path is shown (``path``), ``use(True)`` takes
    the path, ``use(False)`` shows the next row instead."""

    number: int
    steps: list[RecordedStep] = field(default_factory=list)
    path: RoutinePath | None = None
    final: list[ListedElement] = field(default_factory=list)  # the page's elements when Done was pressed
    _over: asyncio.Future[Over] = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    _answer: asyncio.Future[bool] = field(default_factory=lambda: asyncio.get_running_loop().create_future())

    def done(self) -> None:
        self._end("done")

    def cancel(self) -> None:
        self._end("cancel")

    def stop(self) -> None:
        self._end("stopped")
        if not self._answer.done():
            self._answer.set_result(False)

    def use(self, accepted: bool) -> None:
        if self.path is not None and not self._answer.done():
            self._answer.set_result(accepted)

    @property
    def over(self) -> bool:
        return self._over.done()

    @property
    def may_have_sent(self) -> bool:
        return any(may_send(step.action) for step in self.steps)

    def _end(self, how: Over) -> None:
        if not self._over.done():
            self._over.set_result(how)

    def _ended_in_page(self, how: ShowingEnd, listing: list[ListedElement]) -> None:
        if not self._over.done():
            self.final = listing
        self._end(how)

    async def ended(self) -> Over:
        """How the showing ended, once it has (the person's Done or Cancel, from any face; the routine's stop)."""
        return await asyncio.shield(self._over)

    async def answered(self) -> bool:
        """The person's answer to the path shown, once given."""
        return await asyncio.shield(self._answer)

    async def ending(self, wait: float | None) -> Over:
        try:
            return await asyncio.wait_for(asyncio.shield(self._over), wait)
        except TimeoutError:
            self._end("nobody")
            return await self._over

    async def answer(self, path: RoutinePath, wait: float | None) -> bool:
        """Whether the person takes ``path`` (Use this path); nobody answering within ``wait`` takes it."""
        self.path = path
        try:
            return await asyncio.wait_for(asyncio.shield(self._answer), wait)
        except TimeoutError:
            return True


async def record_row(
    teaching: Teaching,
    slot: Teachable,
    plan: RoutinePlan,
    emit: Callable[[str, object], None],
    wait: float | None,
) -> Over:
    """The person does ``teaching``'s row in ``slot``'s window (at the start page, with the keyboard) until Done,
    Cancel, the routine's stop or ``wait`` seconds."""
    number = teaching.number
    cells = tuple(value for value in plan.public_values(number).values() if value.strip())
    if plan.options.start_url:
        await slot.open(plan.options.start_url, AbortSignal())
    recorder = slot.recorder()

    def recorded(step: RecordedStep) -> None:
        teaching.steps.append(step)
        target = step.listing[step.target - 1].identity() if step.target is not None else None
        emit("taught_step", TaughtStep(number, step.action, dict(step.input), target, step.secret))

    await recorder.start(
        BarWords(say=show_me_words(number, cells), done=tr("Done"), cancel=tr("Cancel")),
        recorded,
        teaching._ended_in_page,
        _secret_cells(plan, number),
    )
    try:
        await slot.bring_to_front()  # the person's keyboard goes to this window, on purpose
        emit("teach_started", TeachStarted(number, slot.name, cells))
        over = await teaching.ending(wait)
    finally:
        final: list[ListedElement] = []
        with contextlib.suppress(Exception):  # the window closed under the person
            final = await recorder.stop()
    if not teaching.final:
        teaching.final = final
    return over


async def show_row(
    teaching: Teaching,
    slot: Teachable,
    plan: RoutinePlan,
    emit: Callable[[str, object], None],
    finish: Callable[[int, RowOutcome], Awaitable[None]],
    wait: float | None,
) -> tuple[Over, RoutinePath | None]:
    """The row the person shows, from its start to their answer: recorded (``record_row``), ended (``finish``), its
    path shown (``path_shown``) and answered. How it ended, and the path they took (None: none, or Show me again)."""
    number = teaching.number
    emit("row_started", RowStarted(number, slot.name, False))
    started = time.monotonic()
    try:
        over = await record_row(teaching, slot, plan, emit, wait)
    except Exception as exc:  # the start page could not open, the browser went away
        log.warning("row %d could not be shown: %s", number, exc)
        over = "stopped"
    await finish(number, taught_outcome(teaching, over, slot.name, time.monotonic() - started))
    path = taught_path(teaching, plan) if over == "done" else None
    if path is None:
        return over, None
    emit("path_shown", PathShown(number, path))
    return over, path if await teaching.answer(path, wait) else None


def _secret_cells(plan: RoutinePlan, number: int) -> Callable[[str], str | None]:
    """The secret (by name) whose cell in this row is the value typed; the value is never kept."""
    row = plan.table.rows[number - 1]

    def name(value: str) -> str | None:
        found = [secret for column, secret in plan.secrets.items() if value and row.values.get(column) == value]
        return found[0] if len(found) == 1 else None

    return name


def taught_outcome(teaching: Teaching, over: Over, browser: str, seconds: float) -> RowOutcome:
    status, words = RowStatus.DONE, DONE_BY_YOU
    if over == "cancel":
        status, words = RowStatus.NEEDS_PERSON, CANCELLED
    elif over == "nobody":
        status, words = RowStatus.NEEDS_PERSON, NOBODY
    elif over == "stopped":
        sent = teaching.may_have_sent
        status, words = (RowStatus.INTERRUPTED, STOPPED_SENT) if sent else (RowStatus.STOPPED, STOPPED)
    steps = len(teaching.steps)
    return RowOutcome(status=status, result=words, steps=steps, seconds=round(seconds, 1), browser=browser)


def taught_path(teaching: Teaching, plan: RoutinePlan) -> RoutinePath | None:
    """The path of what the person did in the row (None: nothing a row could replay)."""
    number = teaching.number
    values = plan.public_values(number)
    taken = as_taken(teaching.steps, teaching.final, values)
    return learn_path(taken, number, values, plan.values_for_path, plan.template.literal_text)


def as_taken(steps: Sequence[RecordedStep], final: list[ListedElement], values: dict[str, str]) -> list[Taken]:
    """The recorded steps as the agent's own (``Taken``, as a row the model did is learned from): a field's value
    typed or chosen again is its last, the start of a value a suggestion named by a cell then completed is that
    cell, and a password or code field whose value no secret cell holds is the person's in every row."""
    kept = _merged(steps)
    taken: list[Taken] = []
    for i, step in enumerate(kept):
        after = kept[i + 1].listing if i + 1 < len(kept) else final
        given = dict(step.input)
        if step.target is not None:
            given["index"] = step.target
        action, person = step.action, False
        if step.secret and not given.get("text"):
            field = step.listing[step.target - 1].identity() if step.target is not None else None
            action, person = HAND_OFF, True
            given = {"index": step.target, "reason": HAND_OFF_REASON.format(field=target_words(field))}
        elif step.action == "input_text" and i + 1 < len(kept):
            given["text"] = _completed(str(given.get("text", "")), kept[i + 1], values)
        taken.append(Taken(action, given, True, step.listing, min(step.loads, 1), after, kept=person))
    return taken


def _merged(steps: Sequence[RecordedStep]) -> list[RecordedStep]:
    """Steps that set one field or list again (a list gone through with the arrow keys) are its last setting."""
    merged: list[RecordedStep] = []
    for step in steps:
        last = merged[-1] if merged else None
        if (
            last is not None
            and step.action == last.action
            and value_field(step.action) is not None
            and _element(step) == _element(last)
        ):
            merged[-1] = step.model_copy(update={"loads": last.loads + step.loads})
        else:
            merged.append(step)
    return merged


def _element(step: RecordedStep) -> str:
    target = step.listing[step.target - 1] if step.target is not None else None
    return target.identity().model_dump_json() if target is not None else ""


def _completed(typed: str, then: RecordedStep, values: dict[str, str]) -> str:
    """What the person typed, or the cell a suggestion they then chose names, when they typed its start."""
    if not typed.strip() or then.action != "click_element_by_index" or then.target is None:
        return typed
    chosen = then.listing[then.target - 1]
    words = {chosen.name.strip().casefold(), chosen.text.strip().casefold()}
    cells = [v for v in values.values() if v.strip().casefold() in words and v.casefold().startswith(typed.casefold())]
    return cells[0] if len(cells) == 1 else typed
