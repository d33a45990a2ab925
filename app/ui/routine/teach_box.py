"""Show me once, in the panel: what the person is to do ("Do row 1 (Ada Lovelace, …) in the browser as you always
do, then press Done"), each step as it is recorded, in plain words, with Done and Cancel; then the path learned from
it, with each row's own values as ``{column}``, and Use this path or Show me again. Tinted like the "Needs you" bar:
the routine waits for the person here.

Widgets only: the panel hands the runner's events in (``start``, ``add_step``, ``show_path``) and the answers out."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt, QTimer, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.routine.types import PathShown, TaughtStep, TeachStarted
from app.text.element_words import target_words
from app.text.i18n import tr
from app.text.path_words import path_words, show_me_words
from app.text.wording import describe_action

_LIST_HEIGHT = 168
_TEXT_MARGIN = 8  # an item's text is inset this much in all from the list's sides


def taught_step_words(step: TaughtStep) -> str:
    """One step the person took, as the timeline says the agent's; a code or password they typed is never shown."""
    if step.secret and not step.input.get("text"):
        return tr(
            "Typed into {target} (not recorded: you type it yourself in every row)", target=target_words(step.target)
        )
    return describe_action(step.action, dict(step.input), step.target)


class TeachBox(QFrame):
    doneRequested = Signal()
    cancelRequested = Signal()
    answered = Signal(bool)  # True: Use this path; False: Show me again
    showRequested = Signal(int)  # the row's number: its window to the front

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("YourTurnBar")  # tinted like "Needs you" (look.py)
        self.number = 0
        self._last = True  # the list shows its last line (the steps as they come), else its first (a path)
        self.title = QLabel(tr("Show me once"), self)
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.show_button = QPushButton(tr("Show its window"), self)
        self.show_button.setProperty("role", "ghost")
        self.say = QLabel(self)
        self.say.setWordWrap(True)
        self.say.setTextFormat(Qt.TextFormat.PlainText)  # the row's cells, as the file has them
        self.steps_hint = QLabel(self)
        self.steps_hint.setObjectName("RoutineHint")
        self.steps_hint.setWordWrap(True)
        self.steps = QListWidget(self)
        self.steps.setAccessibleName(tr("Recorded steps"))
        self.steps.setWordWrap(True)
        self.steps.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.steps.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.steps.setSpacing(1)
        self.steps.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.cancel_button = QPushButton(tr("Cancel"), self)
        self.done_button = QPushButton(tr("Done"), self)
        self.done_button.setProperty("role", "primary")
        self.again_button = QPushButton(tr("Show me again"), self)
        self.again_button.setToolTip(tr("The next row is yours to show; this path is not used"))
        self.use_button = QPushButton(tr("Use this path"), self)
        self.use_button.setProperty("role", "primary")
        self._lay_out()
        self.show_button.clicked.connect(lambda: self.showRequested.emit(self.number))
        self.done_button.clicked.connect(self.doneRequested)
        self.cancel_button.clicked.connect(self.cancelRequested)
        self.use_button.clicked.connect(lambda: self._answer(True))
        self.again_button.clicked.connect(lambda: self._answer(False))
        self.hide()

    def _lay_out(self) -> None:
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.show_button)
        buttons = QHBoxLayout()
        buttons.setSpacing(6)
        buttons.addStretch(1)
        for button in (self.cancel_button, self.done_button, self.again_button, self.use_button):
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(6)
        layout.addLayout(top)
        layout.addWidget(self.say)
        layout.addWidget(self.steps_hint)
        layout.addWidget(self.steps)
        layout.addLayout(buttons)

    def lines(self) -> list[str]:
        """What the list says now, numbered: the steps recorded, or the path's."""
        return [self.steps.item(i).text() for i in range(self.steps.count())]

    def _add(self, lines: list[str], *, last: bool) -> None:
        start = self.steps.count() + 1
        self.steps.addItems([f"{i}. {line}" for i, line in enumerate(lines, start)])
        self._fit()
        self._last = last
        QTimer.singleShot(0, self, self._fit)  # once laid out: the lines' wrapping is known then

    def _fit(self) -> None:
        """The list as tall as its lines, up to a few, showing the newest step or the path's first; none while
        nothing is in it."""
        count = self.steps.count()
        self.steps.setVisible(count > 0)
        if not count:
            return
        metrics = self.steps.fontMetrics()
        width = max(1, self.steps.viewport().width() - _TEXT_MARGIN)
        wrap = Qt.TextFlag.TextWordWrap
        lines = sum(
            metrics.boundingRect(QRect(0, 0, width, _LIST_HEIGHT), wrap, text).height() + 2 * self.steps.spacing()
            for text in self.lines()
        )
        self.steps.setFixedHeight(min(_LIST_HEIGHT, lines + 2 * self.steps.frameWidth() + 4))
        if self._last:
            self.steps.scrollToBottom()
        else:
            self.steps.scrollToTop()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    # --- the runner's events -----------------------------------------------------------------------------------

    def start(self, started: TeachStarted) -> None:
        """Row ``started.number`` is the person's to do now."""
        self.number = started.number
        self.say.setText(show_me_words(started.number, started.cells))
        self.steps.clear()
        self._fit()
        self.steps_hint.setText(tr("Nothing recorded yet."))
        self._buttons(answering=False)
        self.show()

    def add_step(self, step: TaughtStep) -> None:
        if step.number != self.number or self.use_button.isVisibleTo(self):
            return
        self.steps_hint.setText(tr("What you did so far:"))
        self._add([taught_step_words(step)], last=True)

    def show_path(self, shown: PathShown) -> None:
        """The path learned from the row, waiting for Use this path or Show me again."""
        self.number = shown.number
        self.say.setText(tr("Row {n} is done. Should the other rows do the same?", n=shown.number))
        self.steps_hint.setText(
            tr("The path learned from row {n}, with each row's own values in braces:", n=shown.number)
        )
        self.steps.clear()
        self._add(path_words(shown.path), last=False)
        self._buttons(answering=True)
        self.show()

    def end(self) -> None:
        self.number = 0
        self.steps.clear()
        self.hide()

    def _buttons(self, *, answering: bool) -> None:
        for button in (self.done_button, self.cancel_button, self.show_button):
            button.setVisible(not answering)
        for button in (self.use_button, self.again_button):
            button.setVisible(answering)

    def _answer(self, use: bool) -> None:
        self.answered.emit(use)
        self.end()
