"""The panel's answer to a risky moment: "The page asks: … Allow / Cancel" (a page's confirm(), prompt() or
beforeunload) or "The agent wants to click "Delete account". Allow / Cancel".

A bar above the composer, never a modal dialog (``exec()`` runs a nested loop that stalls asyncio). Cancel is the
default: the bar counts the time left down and answers Cancel when it runs out; Stop answers Cancel too. The page's
words are shown as plain text, never as rich text: a page cannot style or link the question it asks.
"""

from __future__ import annotations

import asyncio
import math
import time
from urllib.parse import urlsplit

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.core.abort import AbortSignal
from app.core.safety import risky
from app.core.safety.risky import ConfirmRequest
from app.text.confirm_words import question_words
from app.text.i18n import tr


class ConfirmBar(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ConfirmBar")
        self.question = QLabel(self)
        self.question.setTextFormat(Qt.TextFormat.PlainText)
        self.question.setWordWrap(True)
        self.question.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.detail = QLabel(self)
        self.detail.setObjectName("ConfirmDetail")
        self.detail.setTextFormat(Qt.TextFormat.PlainText)
        self.detail.setWordWrap(True)
        self.countdown = QLabel(self)
        self.countdown.setObjectName("ConfirmDetail")
        self.allow_button = QPushButton(tr("Allow"), self)
        self.cancel_button = QPushButton(tr("Cancel"), self)
        self.cancel_button.setProperty("role", "primary")  # the safe answer is the prominent one
        for button in (self.allow_button, self.cancel_button):
            button.setAccessibleName(button.text())
            button.setCursor(Qt.CursorShape.PointingHandCursor)
        buttons = QHBoxLayout()
        buttons.setSpacing(8)
        buttons.addWidget(self.countdown, 1)
        buttons.addWidget(self.allow_button)
        buttons.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(6)
        layout.addWidget(self.question)
        layout.addWidget(self.detail)
        layout.addLayout(buttons)
        self.hide()

        self._answer: asyncio.Future[bool] | None = None
        self._deadline = 0.0
        self._ticker = QTimer(self)
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self._tick)
        self._lock = asyncio.Lock()
        self.allow_button.clicked.connect(lambda: self._give(True))
        self.cancel_button.clicked.connect(lambda: self._give(False))

    async def ask(self, request: ConfirmRequest, signal: AbortSignal) -> bool:
        """The person's answer: True for Allow; False for Cancel, the time running out, Stop or ``signal``."""
        async with self._lock:  # one question at a time: a dialog may open while a click waits for its answer
            if signal.aborted:
                return False
            self._answer = asyncio.get_running_loop().create_future()
            self._show(request)
            self._deadline = time.monotonic() + risky.CONFIRM_TIMEOUT
            self._tick()
            self._ticker.start()
            try:
                return await signal.race(asyncio.wait_for(self._answer, risky.CONFIRM_TIMEOUT))
            except TimeoutError:
                return False
            finally:
                self._ticker.stop()
                self._answer.cancel()
                self._answer = None
                self.hide()

    def cancel(self) -> None:
        """Answer Cancel to the question on show, if any (Stop, or the panel closing)."""
        self._give(False)

    def _give(self, allowed: bool) -> None:
        if self._answer is not None and not self._answer.done():
            self._answer.set_result(allowed)

    def _show(self, request: ConfirmRequest) -> None:
        self.question.setText(question_words(request))
        if request.kind == "irreversible":
            self.detail.setText(tr("It may not be possible to undo this. Your task did not ask for it."))
        else:
            host = urlsplit(request.url).netloc
            # Chromium shows the page's own dialog too: answered there, this question goes away with that answer.
            self.detail.setText(
                tr("Asked by {site}. Answer here or in the browser; the agent will not answer it for you.", site=host)
                if host
                else tr("Answer here or in the browser; the agent will not answer it for you.")
            )
        self.setAccessibleName(self.question.text())
        self.show()
        self.cancel_button.setFocus()

    def _tick(self) -> None:
        left = max(0, math.ceil(self._deadline - time.monotonic()))
        self.countdown.setText(tr("Cancels by itself in {n} s", n=left))
