"""The moments a run waits for the person, in the panel: the agent's question (ask_user), an Allow/Cancel before a
risky moment, and the hand-off of the browser. Each one puts the panel in its state (the pill says the run waits for
them, never what the agent was doing before), calls them back if the panel is not in front (app/ui/attention.py:
back from the taskbar, flagged urgent, a desktop notification) and ends that call once it is answered.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol

from PySide6.QtWidgets import QWidget

from app.core.abort import AbortSignal
from app.core.safety.risky import ConfirmRequest
from app.text.confirm_words import question_words
from app.text.hand_off import hand_off_words
from app.text.i18n import tr
from app.ui.attention import NOTIFIED_REASON_MAX, Attention
from app.ui.confirm_bar import ConfirmBar
from app.ui.panel_bars import HandOffBar
from app.ui.panel_state import PanelState
from app.ui.status_pill import StatusPill
from app.ui.timeline.model import TimelineModel


class Panel(Protocol):
    """What the moments need of the main window."""

    state: PanelState
    pill: StatusPill
    confirm_bar: ConfirmBar
    handoff_bar: HandOffBar

    @property
    def model(self) -> TimelineModel: ...

    def enter(self, state: PanelState, detail: str | None = None) -> None: ...


class WaitingMoments:
    """``window`` is the panel (a QWidget and a ``Panel``); ``sound()`` says whether a sound should play too."""

    def __init__(self, window: QWidget, panel: Panel, sound: Callable[[], bool]) -> None:
        self._panel = panel
        self._sound = sound
        self.attention = Attention(window)
        self._answer: asyncio.Future[str] | None = None

    # --- the agent's question ----------------------------------------------------------------------------------

    async def ask_user(self, question: str, _signal: AbortSignal) -> str:
        """The agent's ask_user handler: the question goes into the timeline and the task box becomes the answer.

        Stop and Take over abort the step; the tool then cancels this coroutine, so the signal needs no watching
        here (cancelling ourselves as well would race the tool's own abort handling).
        """
        answer: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._answer = answer
        self._panel.model.add_question(question)
        self._panel.enter(PanelState.ASKING)
        self._call(tr("Page Agent asks you"), question)
        try:
            text = await answer
        finally:
            answer.cancel()
            self._answer = None
            self.attention.dismiss()
        self._panel.model.add_answer(text)
        self._panel.enter(PanelState.RUNNING, tr("Thanks — carrying on…"))
        return text

    def answer(self, text: str) -> bool:
        """The task box's text, as the answer to the question on show; False when no question waits."""
        if self._answer is None or self._answer.done():
            return False
        self._answer.set_result(text)
        return True

    # --- Allow / Cancel ----------------------------------------------------------------------------------------

    async def confirm(self, request: ConfirmRequest, signal: AbortSignal) -> bool:
        """The Allow/Cancel handler: while the question waits, the pill says so (not "Clicking Delete account…")."""
        panel = self._panel
        detail = panel.pill.detail()
        waiting = panel.state is PanelState.RUNNING
        if waiting:
            panel.enter(PanelState.CONFIRMING)
            panel.pill.set_detail(detail)
        self._call(tr("Page Agent: allow or cancel?"), question_words(request))
        try:
            return await panel.confirm_bar.ask(request, signal)
        finally:
            self.attention.dismiss()
            if waiting and panel.state is PanelState.CONFIRMING:
                panel.enter(PanelState.RUNNING)
                panel.pill.set_detail(detail)

    # --- the hand-off ------------------------------------------------------------------------------------------

    def hand_off(self, reason: str) -> None:
        self._panel.confirm_bar.cancel()
        self._panel.enter(PanelState.HANDED_OFF)
        self._panel.handoff_bar.show_reason(reason)
        self._call(tr("Page Agent: your turn"), hand_off_words(reason, NOTIFIED_REASON_MAX), urgent=True)

    # --- calling the person ------------------------------------------------------------------------------------

    def _call(self, title: str, message: str, *, urgent: bool = False) -> None:
        self.attention.call(title, message, sound=self._sound(), urgent=urgent)

    def over(self) -> None:
        """Nothing waits for the person any more: the call back ends."""
        self.attention.dismiss()

    def bring_back(self) -> None:
        """The person asked for the panel (the notification, or "Show the panel" in Chromium)."""
        self.attention.bring_back()
