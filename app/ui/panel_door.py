"""The running panel's local socket (app/instance.py), served while the panel is open.

A second launch of the app knocks with ``show``: the panel comes to the front, and the second launch ends without
starting another Chromium. ``page-agent-desktop mcp`` knocks with ``run``: the client's task runs in the panel as
if typed (marked as the client's), with Stop, Take over and the hand-off as usual, while its progress and outcome
go back over the same connection. A risky moment is asked here, in the panel, never of the client.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from app.core.types import ExecutionResult, RunOutcome
from app.instance import (
    Cancel,
    Finished,
    Refused,
    RunRequest,
    Show,
    Shown,
    encode,
    listen,
    read_request,
    socket_path,
)
from app.run_progress import RunProgress, following, stop_when_cancelled
from app.text.i18n import tr

if TYPE_CHECKING:
    from pydantic import BaseModel

    from app.runtime import Runtime
    from app.ui.main_window import MainWindow

log = logging.getLogger(__name__)

DEMO = (
    "The Page Agent Desktop panel is in demo mode, with no model to run other tasks: add a model in its Settings, "
    "or close the panel to let tasks run in the server's own browser."
)
BUSY = "The Page Agent Desktop panel is busy with another task; try again when it has ended."
ROUTINE = (
    "The Page Agent Desktop panel is in Routine mode, whose windows use the browser: switch it to One task and try "
    "again."
)
STOPPED = "Stopped by the person in the panel."
CANCELLED = "Stopped: the client cancelled the task (cancel_task)."
CLIENT = "an app"  # a client that did not give its name: "Sent by an app over MCP."


class PanelDoor:
    def __init__(self, window: MainWindow, runtime: Runtime, run_id: Callable[[], str]) -> None:
        """``run_id()``: the id in History of the run the last task was saved to."""
        self._path = socket_path(runtime.paths)
        self._window = window
        self._runtime = runtime
        self._run_id = run_id
        self._server: asyncio.AbstractServer | None = None

    async def open(self) -> None:
        """Listen; a folder or socket that cannot be used only costs the single instance and MCP (logged)."""
        try:
            self._server = await listen(self._serve, self._path)
        except (OSError, ValueError) as exc:
            log.warning("the panel's local socket could not be opened: %s", exc)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
            with contextlib.suppress(FileNotFoundError):
                self._path.unlink()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = read_request(await reader.readline())
            if isinstance(request, Show):
                self._window.moments.bring_back()
                await _send(writer, Shown())
            elif isinstance(request, RunRequest):
                await self._run(request, reader, writer)
        except (OSError, ValueError) as exc:  # a knock that broke off, or a line that is not a message
            log.info("a knock on the panel's socket was not served: %s", exc)
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    async def _run(self, request: RunRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        window = self._window
        client = request.client or CLIENT
        refusal = self._refusal(client)
        if refusal is not None:
            await self._refuse(writer, *refusal)
            return
        if request.start_url:
            try:
                await self._runtime.agent()
                await self._runtime.open_page(request.start_url)
            except Exception as exc:  # outside the allowed sites, or a browser that will not start
                await _send(writer, Refused(reason=str(exc) or type(exc).__name__))
                return
        run = window.run_task(request.task, source=client)
        if run is None:  # the person started a task meanwhile
            await self._refuse(writer, *(self._refusal(client) or (BUSY, "")))
            return
        window.moments.bring_back()
        reporter = _Reporter(writer)
        with following(window.bridge, reporter.write):
            async with stop_when_cancelled(_cancel_asked(reader), window.stop) as cancelling:
                result: ExecutionResult = await run
        await reporter.drained()
        data, run_id = result.data, self._run_id()
        if result.outcome is RunOutcome.STOPPED:  # the agent's "Task aborted" says nothing of who stopped it
            data = CANCELLED if cancelling.came else STOPPED
        await _send(writer, Finished(outcome=result.outcome, data=data, steps=result.steps, run_id=run_id))

    def _refusal(self, client: str) -> tuple[str, str] | None:
        """Why the panel cannot take a client's task now: what the client is told, and what the person reads."""
        window = self._window
        if self._runtime.demo:  # the demo replays its recording: a client's task would get nonsense
            return DEMO, tr("{client} sent a task over MCP; it did not run: the panel is in demo mode.", client=client)
        if window.busy:
            return BUSY, tr("{client} sent a task over MCP; it did not run while this one runs.", client=client)
        if window.modes.routine_shown:  # a routine's windows hold the profile the task's browser would need
            return ROUTINE, tr(
                "{client} sent a task over MCP; it did not run: Routine mode uses the browser. Switch to One task, "
                "then send it again.",
                client=client,
            )
        return None

    async def _refuse(self, writer: asyncio.StreamWriter, reason: str, told: str) -> None:
        """The client gets ``reason``; the person reads ``told`` where they are (the timeline, or Routine mode)."""
        await _send(writer, Refused(reason=reason))
        if not told:
            return
        routine = self._window.modes.routine
        if self._window.modes.routine_shown and routine is not None:
            routine.say(told)
        else:
            self._window.model.add_notice(told)


class _Reporter:
    """The run's progress, line by line, in the order it happened."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    def write(self, progress: RunProgress) -> None:
        if not self._writer.is_closing():  # the client went away; the person's run goes on
            self._writer.write(encode(progress))

    async def drained(self) -> None:
        with contextlib.suppress(OSError):
            await self._writer.drain()


async def _send(writer: asyncio.StreamWriter, message: BaseModel) -> None:
    writer.write(encode(message))
    await writer.drain()


async def _cancel_asked(reader: asyncio.StreamReader) -> bool:
    """True once the client sends cancel_task (the person's Stop); False when the client goes away without it (the
    person may carry on)."""
    while line := await reader.readline():
        with contextlib.suppress(ValueError):
            if isinstance(read_request(line), Cancel):
                return True
    return False
