"""A task that runs in the open panel: sent over the panel's local socket (app/instance.py), followed there until it
ends. The person sees it in the timeline and keeps Stop, Take over and the hand-off; the client sees its status."""

from __future__ import annotations

import asyncio
import contextlib

from app.instance import LINE_LIMIT, Cancel, Finished, Refused, RunRequest, encode, read_update
from app.mcp.tasks import McpTask
from app.run_progress import RunProgress, stop_when_cancelled

PANEL_GONE = "The Page Agent Desktop panel closed before the task ended."


async def run_in_panel(task: McpTask, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    writer.write(encode(RunRequest(task=task.text, start_url=task.start_url, client=task.client)))
    try:
        async with stop_when_cancelled(task.cancel_requested.wait(), lambda: _send_cancel(writer)):
            await writer.drain()
            await _follow(task, reader)
    except (OSError, ValueError) as exc:  # the connection broke, or a line that is not a message
        task.fail(f"{PANEL_GONE} ({exc})")
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


async def _follow(task: McpTask, reader: asyncio.StreamReader) -> None:
    """The panel's lines until the run ends: its progress as the panel's follower put it, then its outcome."""
    while True:
        line = await reader.readline()
        if not line or len(line) > LINE_LIMIT:
            task.fail(PANEL_GONE)
            return
        update = read_update(line)
        if isinstance(update, Refused):
            task.fail(update.reason)
            return
        if isinstance(update, Finished):
            task.finish(update.outcome, update.data, update.steps, update.run_id)
            return
        if isinstance(update, RunProgress):
            task.progress(update)


async def _send_cancel(writer: asyncio.StreamWriter) -> None:
    writer.write(encode(Cancel()))
    with contextlib.suppress(OSError):
        await writer.drain()
