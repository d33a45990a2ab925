"""A task that runs in the open panel: sent over the panel's local socket (app/instance.py), followed there until it
ends. The person sees it in the timeline and keeps Stop, Take over and the hand-off; the client sees its status."""

from __future__ import annotations

import asyncio
import contextlib

from app.instance import LINE_LIMIT, Cancel, Finished, Refused, RunRequest, Shown, TaskProgress, encode, read_update
from app.mcp.tasks import YOUR_TURN, McpTask
from app.text.hand_off import hand_off_line

PANEL_GONE = "The Page Agent Desktop panel closed before the task ended."


async def run_in_panel(task: McpTask, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    writer.write(encode(RunRequest(task=task.text, start_url=task.start_url, client=task.client)))
    canceller = asyncio.ensure_future(_cancel_when_asked(task, writer))
    try:
        await writer.drain()
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
            if isinstance(update, TaskProgress):
                if update.needs_person:
                    task.update(
                        "needs_person",
                        update.words,
                        steps=update.steps,
                        reason=YOUR_TURN.format(said=hand_off_line(update.reason)),
                    )
                else:
                    task.update("running", update.words, steps=update.steps)
            elif isinstance(update, Shown):
                continue
    except (OSError, ValueError) as exc:  # the connection broke, or a line that is not a message
        task.fail(f"{PANEL_GONE} ({exc})")
    finally:
        canceller.cancel()
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


async def _cancel_when_asked(task: McpTask, writer: asyncio.StreamWriter) -> None:
    await task.cancel_requested.wait()
    writer.write(encode(Cancel()))
    with contextlib.suppress(OSError):
        await writer.drain()
