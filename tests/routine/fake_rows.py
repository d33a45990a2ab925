"""The routine runner without a browser or a model server: windows on a FakePage (tests/fakes/page.py), lanes that hand
them out, and a model in process that answers each row (known by its name in the task) from its own script, an answer
held until the test lets it go. The runner itself and the real agent run as they do in the app."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.core.abort import AbortSignal
from app.core.config import AgentConfig
from app.core.llm import LLMReply, Message, RetryCallback, ToolCall, ToolSpec
from app.core.page import ForeignKeys, PageController
from app.core.safety.guardrails import Guardrails
from app.routine.plan import plan_routine
from app.routine.runner import RoutineRunner
from app.routine.state import RoutineStore
from app.routine.teach import Recorder
from app.routine.types import RoutineOptions, RowActivity, RowStarted, RowStatus
from tests.fakes.page import FakePage, listed

TEMPLATE = "Add the customer {name} with the email {email}"
NAMES = ("Ana", "Bob", "Cy", "Dee")
FORM = (
    listed(1, "input", name="Name", attrs={"name": "name"}),
    listed(2, "input", name="Email", attrs={"name": "email"}),
    listed(3, "button", "Save"),
)


def rows(count: int) -> str:
    return "name,email\n" + "".join(f"{name},{name.lower()}@x.test\n" for name in NAMES[:count])


def typed(name: str) -> list[dict[str, Any]]:
    """A row's answers as a person would do it: its name and email typed, Save clicked, done."""
    return [
        {"input_text": {"index": 1, "text": name}},
        {"input_text": {"index": 2, "text": f"{name.lower()}@x.test"}},
        {"click_element_by_index": {"index": 3}},
        {"done": {"text": "Saved", "success": True}},
    ]


DONE = {"done": {"text": "Saved", "success": True}}


class Hold:
    """A point in a row's script where its model call waits until the test calls ``go()`` (or ``until`` is set: another
    row's hold reached, say)."""

    def __init__(self, until: asyncio.Event | None = None) -> None:
        self.reached = asyncio.Event()
        self._go = until or asyncio.Event()
        self.cancelled = False  # the call was abandoned (the row stopped, its task cancelled) while it waited

    def go(self) -> None:
        self._go.set()

    async def wait(self, signal: AbortSignal) -> None:
        self.reached.set()
        try:
            await signal.race(self._go.wait())
        except BaseException:
            self.cancelled = True
            raise


Answer = dict[str, Any] | Hold


class ScriptedModel:
    """Each row's answers in order (``Hold`` waits for the test first); a row with none left says done."""

    def __init__(self, scripts: dict[str, list[Answer]] | None = None) -> None:
        self.scripts = {name: list(script) for name, script in (scripts or {}).items()}
        self.calls: list[str] = []  # the row (its name) of every call, in order

    async def invoke(
        self, messages: list[Message], tool: ToolSpec, signal: AbortSignal, on_retry: RetryCallback | None = None
    ) -> LLMReply:
        name = next(name for name in NAMES if f'customer "{name}"' in messages[-1].content)
        self.calls.append(name)
        script = self.scripts.setdefault(name, [])
        while script and isinstance(script[0], Hold):
            await script.pop(0).wait(signal)
        action = script.pop(0) if script else DONE
        arguments = {"evaluation_previous_goal": "", "memory": "", "next_goal": "", "action": action}
        return LLMReply(tool_calls=[ToolCall(name=tool.name, arguments=json.dumps(arguments))])


class FakeSlot:
    """A row's window: a FakePage, never a browser."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.page = FakePage(elements=FORM)
        self.alive = True
        self.foreign_keys: Sequence[ForeignKeys] = ()
        self.opened: list[str] = []

    @property
    def controller(self) -> PageController:
        return self.page

    def use(self, guardrails: Guardrails) -> None:
        pass

    def recorder(self) -> Recorder:
        raise AssertionError("Show me once is not run on a fake slot")

    async def open(self, url: str, signal: AbortSignal) -> None:
        self.opened.append(url)

    async def bring_to_front(self) -> None:
        pass


@dataclass
class FakeLane:
    """One window, one row at a time; ``broken``: what ``row_ended`` raises (a lane's own fault)."""

    slot: FakeSlot
    broken: Exception | None = None
    ended: list[bool] = field(default_factory=list)
    ended_words: str = ""

    async def ready(self) -> FakeSlot | None:
        return self.slot

    def row_ended(self, failed: bool) -> None:
        self.ended.append(failed)
        if self.broken is not None:
            raise self.broken


@asynccontextmanager
async def fake_runner(
    tmp_path: Path,
    model: ScriptedModel,
    *,
    count: int = 3,
    lanes: int = 1,
    broken: Exception | None = None,
    **options: Any,
) -> AsyncIterator[tuple[RoutineRunner, RoutineStore]]:
    """A runner over ``count`` rows and ``lanes`` fake windows; stopped and its state closed after."""
    path = tmp_path / "customers.csv"
    path.write_text(rows(count), encoding="utf-8")
    plan = await asyncio.to_thread(plan_routine, RoutineOptions(path, TEMPLATE, **options))
    store = await asyncio.to_thread(RoutineStore.open, plan.options.results_path())
    made = [FakeLane(FakeSlot(f"window {n}"), broken) for n in range(1, lanes + 1)]
    runner = RoutineRunner(plan, store, made, model, config=AgentConfig(), guardrails=Guardrails(), person_present=True)
    try:
        yield runner, store
    finally:
        await runner.wind_down()
        await runner.stop()  # what a run that raised left running, too
        await asyncio.to_thread(store.close)


def statuses(store: RoutineStore) -> dict[int, RowStatus]:
    return {record.number: RowStatus(record.outcome.status) for record in store.records().values()}


@dataclass
class PauseWatch:
    """What a routine paused as row ``at`` started did, in order: ("started", n) for each row, ("held", n) once the
    paused row holds (``held`` is set then); a test adds ("resumed", 0) as it resumes."""

    seen: list[tuple[str, int]] = field(default_factory=list)
    held: asyncio.Event = field(default_factory=asyncio.Event)


def pause_at(runner: RoutineRunner, at: int, words: str | None = None) -> PauseWatch:
    """Pause ``runner`` as its row ``at`` starts, and watch it hold (saying ``words``, when given)."""
    watch = PauseWatch()

    def started(event: RowStarted) -> None:
        watch.seen.append(("started", event.number))
        if event.number == at:
            runner.pause()

    def activity(event: RowActivity) -> None:
        if event.paused and (words is None or event.words == words) and not watch.held.is_set():
            watch.seen.append(("held", event.number))
            watch.held.set()

    runner.on("row_started", started)
    runner.on("row_activity", activity)
    return watch
