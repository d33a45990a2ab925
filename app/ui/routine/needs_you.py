"""The "Needs you (N)" queue: rows waiting for the person, served one at a time, oldest first. A hand-off (a
captcha, a code): that row's window comes to the front, the person acts there and presses continue (or gives the row
up). A risky moment: Allow, Deny, or Allow for every row (the same act on the other rows is then allowed without
asking). The routine past its limit of model calls or money (Settings → Agent → Routines): Go on, or Stop the routine.
The other rows go on meanwhile."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, SignalInstance
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.routine.types import PersonRequest
from app.text.confirm_words import allow_question
from app.text.hand_off import hand_off_words, unclear_words
from app.text.i18n import tr


class NeedsYouBar(QFrame):
    continueRequested = Signal(object)  # PersonRequest
    giveUpRequested = Signal(object)
    answered = Signal(object, bool)  # PersonRequest, allowed
    allowedEveryRow = Signal(object)  # PersonRequest: allowed, and the same act on every other row
    showRequested = Signal(int)  # the row's number: its window to the front

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("YourTurnBar")  # tinted like a task's "Your turn" (look.py)
        self.requests: list[PersonRequest] = []
        self.heading = QLabel(self)
        font = self.heading.font()
        font.setBold(True)
        self.heading.setFont(font)
        self.which = QLabel(self)
        self.which.setObjectName("RoutineHint")
        self.text = QLabel(self)
        self.text.setTextFormat(Qt.TextFormat.PlainText)  # the model's words (and through it a page's)
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.show_button = QPushButton(tr("Show its window"), self)
        self.give_up_button = QPushButton(tr("Give up this row"), self)
        self.continue_button = QPushButton(tr("I've done it — continue"), self)
        self.continue_button.setProperty("role", "primary")
        self.deny_button = QPushButton(tr("Deny"), self)
        self.allow_button = QPushButton(tr("Allow"), self)
        self.allow_button.setProperty("role", "primary")
        self.allow_all_button = QPushButton(tr("Allow for every row"), self)
        self.allow_all_button.setToolTip(tr("Allow it now, and on the other rows of this routine without asking"))
        self.show_button.setProperty("role", "ghost")
        which = QHBoxLayout()
        which.addWidget(self.which, 1)
        which.addWidget(self.show_button)
        buttons = QHBoxLayout()
        buttons.setSpacing(6)
        buttons.addStretch(1)
        for button in (
            self.give_up_button,
            self.continue_button,
            self.deny_button,
            self.allow_all_button,
            self.allow_button,
        ):
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(6)
        layout.addWidget(self.heading)
        layout.addLayout(which)
        layout.addWidget(self.text)
        layout.addLayout(buttons)
        self.show_button.clicked.connect(self._show_window)
        self.continue_button.clicked.connect(lambda: self._settle(self.continueRequested))
        self.give_up_button.clicked.connect(lambda: self._settle(self.giveUpRequested))
        self.allow_button.clicked.connect(lambda: self._answer(True))
        self.deny_button.clicked.connect(lambda: self._answer(False))
        self.allow_all_button.clicked.connect(lambda: self._settle(self.allowedEveryRow))
        self.hide()

    @property
    def current(self) -> PersonRequest | None:
        return self.requests[0] if self.requests else None

    def add(self, request: PersonRequest) -> None:
        self.requests.append(request)
        self._show(new_front=len(self.requests) == 1)

    def remove(self, request: PersonRequest) -> None:
        front = self.current
        self.requests = [r for r in self.requests if r.id != request.id]
        self._show(new_front=self.current is not None and self.current != front)

    def clear(self) -> None:
        self.requests = []
        self._show(new_front=False)

    def _show(self, *, new_front: bool) -> None:
        request = self.current
        if request is None:
            self.hide()
            return
        self.heading.setText(tr("Needs you ({n})", n=len(self.requests)))
        limit = request.kind == "limit"
        row = tr("Row {number} · {browser}", number=request.number, browser=request.browser)
        self.which.setText(tr("The whole routine is paused") if limit else row)
        self.show_button.setVisible(not limit)
        self.allow_button.setText(tr("Go on") if limit else tr("Allow"))
        self.deny_button.setText(tr("Stop the routine") if limit else tr("Deny"))
        hand_off = request.kind not in ("confirm", "limit")
        if limit:
            self.text.setText(
                request.words + "\n" + tr("Go on past your limit, or stop here: the rows left run next time.")
            )
        elif request.kind == "unclear":
            self.text.setText(unclear_words(request.words))
        elif hand_off:
            self.text.setText(hand_off_words(request.words) + "\n" + tr("Do it in its window, then press continue."))
        else:
            self.text.setText(tr("Allow this? {words}", words=allow_question(request)))
        for button in (self.give_up_button, self.continue_button):
            button.setVisible(hand_off)
        for button in (self.deny_button, self.allow_button):
            button.setVisible(not hand_off)
        self.allow_all_button.setVisible(request.kind == "confirm")
        self.show()
        if new_front and not limit:
            self.showRequested.emit(request.number)  # the person acts in that row's window

    def _show_window(self) -> None:
        if self.current is not None:
            self.showRequested.emit(self.current.number)

    def _settle(self, signal: SignalInstance) -> None:
        request = self.current
        if request is not None:
            signal.emit(request)

    def _answer(self, allow: bool) -> None:
        request = self.current
        if request is not None:
            self.answered.emit(request, allow)
