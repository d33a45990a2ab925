"""The hand-off on a terminal: when the agent hands the browser to the person, say what to do in plain words and wait
for Enter (the same task carries on, with whatever was typed as a note for the agent) or Ctrl+C (the run stops).

Without a terminal nobody can take the browser: the runner builds the agent with ``person_present=False`` and a
hand-off ends the run as ``needs_person`` (exit 4), so this module is not used.
"""

from __future__ import annotations

import asyncio

from app.cli.terminal import Say, TerminalUnreadable, discard_typed_ahead, read_line
from app.core.agent import Agent
from app.core.types import AgentActivity, HandOffActivity
from app.text.hand_off import agent_says, never_asks


class TerminalHandOff:
    """Subscribe ``on_activity`` to the agent's activities; ``close()`` once the run is over."""

    def __init__(self, agent: Agent, fd: int, say: Say, *, windowless: bool) -> None:
        self._agent = agent
        self._fd = fd
        self._say = say
        self._windowless = windowless
        self._waiting: asyncio.Task[None] | None = None

    def on_activity(self, activity: AgentActivity) -> None:
        if isinstance(activity, HandOffActivity) and (self._waiting is None or self._waiting.done()):
            self._waiting = asyncio.ensure_future(self._wait(activity.reason))

    async def close(self) -> None:
        if self._waiting is not None and not self._waiting.done():
            self._waiting.cancel()
            self._say.end_prompt()
            await asyncio.gather(self._waiting, return_exceptions=True)

    async def _wait(self, reason: str) -> None:
        self._say.line(f"The agent needs you in the browser. {agent_says(reason)}")
        self._say.line(never_asks())
        if self._windowless:
            self._say.line("Chromium has no window in this run (it is headless); run with --headed to act in it.")
        discard_typed_ahead(self._fd)
        self._say.prompt(
            "When you are done, press Enter to let the agent carry on (type a note first if you like), "
            "or Ctrl+C to stop:"
        )
        try:
            note = await read_line(self._fd)
        except TerminalUnreadable:
            self._say.end_prompt()
            self._say.line("This terminal cannot be read while the run waits: stopping.")
            note = None
        if note is None:  # the end of input: nobody will press Enter
            self._say.end_prompt()
            await self._agent.stop()
            return
        self._agent.resume(note)
