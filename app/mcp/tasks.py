"""The MCP server's tasks: each one's live view, where it runs (the open panel, else headless), waiting on it with a
deadline, and cancelling it."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Literal

from app.background import Background
from app.core.safety.secrets import mask_everywhere
from app.core.types import RunOutcome
from app.instance import UntrustedPanel
from app.mcp.views import TaskOutcome, TaskStatus, TaskView, task_status
from app.run_progress import RunProgress
from app.text.hand_off import hand_off_line

log = logging.getLogger(__name__)

# How long cancel_task waits for the run to settle (a stop is prompt: the model request is cancelled, not awaited).
CANCEL_WAIT = 15.0
# Tasks kept for get_task once ended; the oldest ended ones are forgotten beyond this.
KEEP_ENDED = 200
NOT_SENT = "Runs headless: nothing was sent to the panel's socket, which is not yours alone. {reason}"
# {said}: the agent's reason, quoted as its words, and the app's word that it never asks for passwords
# (app/text/hand_off.py).
YOUR_TURN = "Your turn in Page Agent Desktop. {said}"
NO_PANEL = (
    "A person is needed, and no Page Agent Desktop panel is open to hand the browser to. {said} Open the panel "
    "and give the task there."
)


class UnknownTask(LookupError):
    def __init__(self, task_id: str) -> None:
        super().__init__(f"There is no task {task_id!r} (ids come from run_task; this server forgets them on exit).")


class McpTask:
    """One task from the client. Its view changes as the run goes; ``changed()`` waits for the next change."""

    def __init__(
        self, text: str, start_url: str, client: str, where: Literal["panel", "headless"], note: str = ""
    ) -> None:
        self.text = text
        self.start_url = start_url
        self.client = client
        self.cancel_requested = asyncio.Event()
        self._view = TaskView(
            task_id=secrets.token_hex(6), status="queued", where=where, steps=0, now="Waiting for its turn…", note=note
        )
        self._changed = asyncio.Event()

    @property
    def view(self) -> TaskView:
        return self._view

    @property
    def task_id(self) -> str:
        return self._view.task_id

    def update(self, status: TaskStatus, now: str, *, steps: int | None = None, reason: str = "") -> None:
        self._set(
            self._view.model_copy(
                update={
                    "status": status,
                    "now": mask_everywhere(now),
                    "reason": mask_everywhere(reason),
                    "steps": self._view.steps if steps is None else steps,
                }
            )
        )

    def progress(self, progress: RunProgress) -> None:
        """The run moved on (``app/run_progress.py``'s follower, here or in the panel): what it does now, its steps,
        and while the panel's person has the browser, why."""
        if progress.needs_person:
            self.update("needs_person", progress.words, steps=progress.steps, reason=self._your_turn(progress.reason))
        else:
            self.update("running", progress.words, steps=progress.steps)

    def finish(self, outcome: RunOutcome, words: str, steps: int, run_id: str = "", *, reason: str = "") -> None:
        """The task ended so, with the agent's final ``words`` after ``steps`` steps. ``reason``: why a task that could
        not run did not (what ``fail`` was told)."""
        status = task_status(outcome)
        words = mask_everywhere(words)
        reason = mask_everywhere(reason)
        if status == "needs_person":
            reason = self._your_turn(words)
        self._set(
            self._view.model_copy(
                update={
                    "status": status,
                    "now": "Ended.",
                    "reason": reason,
                    "steps": steps,
                    "outcome": TaskOutcome(
                        success=outcome is RunOutcome.SUCCESS, final_words=words, steps=steps, run_id=run_id
                    ),
                }
            )
        )

    def _your_turn(self, said: str) -> str:
        """What the client reads when a person is needed: the agent's ``said`` words, and where the person acts."""
        line = hand_off_line(said)
        return NO_PANEL.format(said=line) if self._view.where == "headless" else YOUR_TURN.format(said=line)

    def fail(self, message: str, outcome: RunOutcome = RunOutcome.ERROR) -> None:
        """The task could not run, or not on: ``message`` is its final words and the reason the client reads."""
        self.finish(outcome, message, self._view.steps, reason=message)

    async def changed(self, timeout: float) -> None:
        """Return at the next change, or after ``timeout`` seconds."""
        waiter = self._changed
        try:
            await asyncio.wait_for(waiter.wait(), max(timeout, 0.0))
        except TimeoutError:
            pass

    def _set(self, view: TaskView) -> None:
        if self._view.ended:
            return  # an ended task's outcome is final
        self._view = view
        self._changed.set()
        self._changed = asyncio.Event()


TaskRunner = Callable[[McpTask], Awaitable[None]]
PanelConnection = tuple[asyncio.StreamReader, asyncio.StreamWriter]
FindPanel = Callable[[], Awaitable[PanelConnection | None]]
PanelRunner = Callable[[McpTask, asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


class TaskRegistry:
    """Starts each task where the person is: in the open panel, else headless (``run_headless``)."""

    def __init__(
        self,
        run_headless: TaskRunner,
        run_in_panel: PanelRunner,
        find_panel: FindPanel,
    ) -> None:
        self._find_panel = find_panel
        self._run_headless = run_headless
        self._run_in_panel = run_in_panel
        self._tasks: dict[str, McpTask] = {}
        self._background = Background("mcp-tasks")
        self._runs: set[asyncio.Task[None]] = set()

    async def start(self, text: str, start_url: str, client: str) -> McpTask:
        note = ""
        try:
            panel = await self._find_panel()
        except UntrustedPanel as exc:  # another user's process may be listening: the task stays here
            panel, note = None, NOT_SENT.format(reason=exc)
            log.warning("%s", note)
        task = McpTask(text, start_url, client, "headless" if panel is None else "panel", note)
        self._forget_old()
        self._tasks[task.task_id] = task
        if panel is None:
            run = self._background.spawn(self._guarded(task, self._run_headless(task)))
        else:
            reader, writer = panel
            run = self._background.spawn(self._guarded(task, self._run_in_panel(task, reader, writer)))
        self._runs.add(run)
        run.add_done_callback(self._runs.discard)
        return task

    def get(self, task_id: str) -> McpTask:
        task = self._tasks.get(task_id)
        if task is None:
            raise UnknownTask(task_id)
        return task

    async def cancel(self, task_id: str) -> McpTask:
        task = self.get(task_id)
        task.cancel_requested.set()
        if task.view.status == "queued":
            task.fail("Cancelled before it started.", RunOutcome.STOPPED)
        deadline = asyncio.get_running_loop().time() + CANCEL_WAIT
        while not task.view.ended and (left := deadline - asyncio.get_running_loop().time()) > 0:
            await task.changed(left)
        return task

    async def close(self) -> None:
        """Stop every task (each settles as ``stopped``), then cancel what is still not done after ``CANCEL_WAIT``."""
        for task in self._tasks.values():
            task.cancel_requested.set()
        if self._runs:
            await asyncio.wait(set(self._runs), timeout=CANCEL_WAIT)
        self._background.cancel_all()

    async def _guarded(self, task: McpTask, work: Awaitable[None]) -> None:
        try:
            await work
        except Exception as exc:  # whatever ends a run unexpectedly ends the task as an error, in words
            task.fail(f"The task could not go on: {exc or type(exc).__name__}")
            raise
        finally:
            if not task.view.ended:
                task.fail("The task ended without an outcome.")

    def _forget_old(self) -> None:
        ended = [task_id for task_id, task in self._tasks.items() if task.view.ended]
        for task_id in ended[: max(0, len(ended) - KEEP_ENDED)]:
            del self._tasks[task_id]
