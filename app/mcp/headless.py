"""Tasks with no panel open: one at a time, in a Chromium of the server's own (headless unless ``--headed``), kept
open between tasks so the next one starts at once. Each task is saved in History like a task typed in the panel.

Nobody can take the browser here: a hand-off ends the task ``needs_person``, and a risky moment is refused. After
``IDLE_CLOSE`` seconds without a task the browser is closed, so that the panel, opened later, finds the profile free.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from app.background import Background
from app.core.errors import CannotStart
from app.core.types import RunOutcome
from app.mcp.setup import McpSetup, refuse
from app.mcp.tasks import McpTask
from app.run_progress import following, stop_when_cancelled

# Seconds the server's Chromium stays open with no task: a client's next task finds it up; a panel opened later finds
# the profile (which one Chromium at a time may use) free again.
IDLE_CLOSE = 60.0

if TYPE_CHECKING:
    from app.core.agent import Agent
    from app.history.recorder import RunRecorder
    from app.runtime import Runtime


class HeadlessTasks:
    def __init__(self, setup: McpSetup) -> None:
        self._setup = setup
        self._runtime: Runtime | None = None
        self._recorder: RunRecorder | None = None
        self._background = Background("mcp-headless")
        self._idle: asyncio.TimerHandle | None = None
        # One user of the browser profile at a time: these tasks, and the routines (which open windows of their own).
        self.turn = asyncio.Lock()

    async def run(self, task: McpTask) -> None:
        async with self.turn:
            if self._idle is not None:
                self._idle.cancel()
            try:
                await self._start(task)
            finally:
                self._idle = asyncio.get_running_loop().call_later(IDLE_CLOSE, self._close_if_idle)

    async def release(self) -> None:
        """Close the browser (a routine is about to use the profile); the next task opens it again. Hold ``turn``."""
        if self._runtime is not None:
            await self._runtime.shutdown()
            self._runtime = None

    async def close(self) -> None:
        if self._idle is not None:
            self._idle.cancel()
        self._background.cancel_all()
        await self.release()
        if self._recorder is not None:
            await self._recorder.close()
            self._recorder = None

    async def _start(self, task: McpTask) -> None:
        if task.cancel_requested.is_set():
            task.fail("Cancelled before it started.", RunOutcome.STOPPED)
            return
        task.update("running", "Starting the browser…")
        runtime = self._runtime_now()
        try:
            agent = await runtime.agent(new_task=True)
            if task.start_url:
                await runtime.open_page(task.start_url)
        except Exception as exc:  # a browser that will not start, a start page outside the allowed sites
            task.fail(str(exc) or type(exc).__name__)
            return
        if task.cancel_requested.is_set():
            task.fail("Cancelled before it started.", RunOutcome.STOPPED)
            return
        await self._execute(task, agent)

    def _close_if_idle(self) -> None:
        if not self.turn.locked():
            self._background.spawn(self._release_idle())

    async def _release_idle(self) -> None:
        async with self.turn:
            await self.release()

    async def _execute(self, task: McpTask, agent: Agent) -> None:
        try:
            with following(agent, task.progress):
                async with stop_when_cancelled(task.cancel_requested.wait(), agent.stop):
                    # The client's words ask for nothing a policy guards.
                    result = await agent.execute(task.text, own_words="")
        except CannotStart as exc:
            task.fail(str(exc))
            return
        run_id = ""
        if self._recorder is not None:
            await self._recorder.flush()  # in History before the client hears it ended
            record = self._recorder.current
            run_id = record.id if record is not None else ""
        task.finish(result.outcome, result.data, result.steps, run_id)

    def _runtime_now(self) -> Runtime:
        if self._runtime is None:
            from app.runtime import Runtime

            setup = self._setup
            runtime = Runtime(setup.settings, setup.paths, setup.runtime_options(), api_key=setup.api_key)
            runtime.set_confirm(refuse)
            runtime.on_agent(self._record)
            self._runtime = runtime
        return self._runtime

    def _record(self, agent: Agent) -> None:
        from app.history.store import RunStore
        from app.run_parts import run_recorder

        setup = self._setup
        previous = self._recorder
        runs = RunStore(setup.paths.runs_dir)
        self._recorder = run_recorder(agent, runs, setup.settings, setup.api_key, setup.runtime_options())
        if previous is not None:
            self._background.spawn(previous.close())
