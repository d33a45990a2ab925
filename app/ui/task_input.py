"""Where the user speaks to the agent: the task box and the buttons that go with each moment of a run."""

from __future__ import annotations

from enum import Enum

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QColor, QFontMetrics, QKeyEvent, QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from app.text.i18n import tr
from app.ui.icons import icon
from app.ui.style import theme

_MIN_LINES = 2
_MAX_LINES = 7


class TaskInput(QPlainTextEdit):
    """Multi-line text; Ctrl+Enter submits, Enter starts a new line. Grows with its text up to a few lines."""

    submitted = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("TaskInput")
        self.setAccessibleName(tr("Task"))
        self.setTabChangesFocus(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # the text wraps; never needed
        # Up to its text's height, but it gives way (and scrolls) when the panel is short: a fixed height made the
        # buttons below overlap the text at the panel's minimum size.
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Maximum)
        self.document().contentsChanged.connect(self._fit)
        self._fit()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and (
            event.modifiers() & Qt.KeyboardModifier.ControlModifier
        ):
            self.submitted.emit()
            return
        super().keyPressEvent(event)

    def _height(self, lines: int) -> int:
        margins = self.contentsMargins()
        return lines * QFontMetrics(self.font()).lineSpacing() + margins.top() + margins.bottom() + 20

    def _fit(self) -> None:
        lines = max(_MIN_LINES, min(_MAX_LINES, int(self.document().documentLayout().documentSize().height())))
        self.setMinimumHeight(self._height(_MIN_LINES))
        self.setMaximumHeight(self._height(lines))
        self.updateGeometry()

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self.maximumHeight())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()  # wrapping changes with the width


class ComposerMode(Enum):
    NEW = "new"  # nothing run yet, or after "New task"
    FOLLOW_UP = "follow_up"  # a task ended: "What next?"
    STARTING = "starting"  # launching Chromium
    RUNNING = "running"
    ASKING = "asking"  # the agent asked the user a question
    PAUSED = "paused"  # the user took over the browser
    HANDED_OFF = "handed_off"  # the agent handed the browser to the user; the hand-off bar carries the buttons
    STOPPING = "stopping"


class Composer(QWidget):
    """The task box plus Run / Answer, Stop, Take over / Resume and New task, shown as the moment needs."""

    submitted = Signal(str)  # Run (NEW, FOLLOW_UP) or Answer (ASKING)
    stopRequested = Signal()
    takeOverRequested = Signal()
    resumeRequested = Signal(str)  # an optional note about what the user did
    newTaskRequested = Signal()
    ownModelRequested = Signal()  # "Use your own model" under the demo's read-only task
    demoRequested = Signal()  # "Try the demo" under the task box, outside the demo

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Composer")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground)
        self.input = TaskInput(self)
        self.new_task = self._button(tr("New task"), "ghost", tr("Clear the timeline and start a new task"))
        self.take_over = self._button(tr("Take over"), "", tr("Pause the agent and use the browser yourself"))
        self.stop = self._button(tr("Stop"), "danger", tr("Stop the agent now (Esc)"))
        self.run = self._button(tr("Run"), "primary", tr("Run the task (Ctrl+Enter)"))
        self.hint = QLabel(self)
        self.hint.setObjectName("Muted")
        self.hint.setWordWrap(True)
        # Whenever a task can be started, one way across: out of the demo, or into it.
        self.own_model = self._link(tr("Use your own model"))
        self.try_demo = self._link(tr("Try the demo"))
        self.try_demo.setToolTip(tr("Replay a recorded run on a local demo site, without a model"))
        self._locked_task = ""

        buttons = QHBoxLayout()
        buttons.setSpacing(8)
        buttons.addWidget(self.new_task)
        buttons.addStretch(1)
        for button in (self.take_over, self.stop, self.run):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 12, 14, 12)
        layout.setSpacing(8)
        layout.addWidget(self.input)
        layout.addLayout(buttons)
        hints = QHBoxLayout()
        hints.setSpacing(8)
        hints.addWidget(self.hint, 1)
        hints.addWidget(self.own_model, 0, Qt.AlignmentFlag.AlignTop)
        hints.addWidget(self.try_demo, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(hints)
        # Keyboard order follows the eye: text, then the primary action, then the others.
        for first, second in (
            (self.input, self.run),
            (self.run, self.stop),
            (self.stop, self.take_over),
            (self.take_over, self.new_task),
        ):
            QWidget.setTabOrder(first, second)

        self.input.submitted.connect(self._submit)
        self.input.textChanged.connect(self._update_run_enabled)
        self.run.clicked.connect(self._submit)
        self.stop.clicked.connect(self.stopRequested)
        self.take_over.clicked.connect(self._take_over_or_resume)
        self.new_task.clicked.connect(self.newTaskRequested)
        self.own_model.clicked.connect(self.ownModelRequested)
        self.try_demo.clicked.connect(self.demoRequested)
        self._mode = ComposerMode.NEW
        self.refresh_icons()
        self.set_mode(ComposerMode.NEW)

    def _button(self, text: str, role: str, tip: str) -> QPushButton:
        button = QPushButton(text, self)
        button.setAccessibleName(text)
        if tip:
            button.setToolTip(tip)
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.setIconSize(QSize(15, 15))
        if role:
            button.setProperty("role", role)
        return button

    def _link(self, text: str) -> QPushButton:
        """A button drawn as a link: one Tab stop that Enter or Space presses (a link in a label needs a second Tab
        before Enter works)."""
        link = self._button(text, "link", "")
        link.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        link.hide()
        return link

    @property
    def mode(self) -> ComposerMode:
        return self._mode

    def refresh_icons(self) -> None:
        t = theme()
        self.run.setIcon(icon("play", t.on_accent))
        self.stop.setIcon(icon("stop", QColor("#ffffff")))
        self.new_task.setIcon(icon("plus", t.muted))
        self._set_take_over_look()

    def set_mode(self, mode: ComposerMode) -> None:
        self._mode = mode
        placeholder, hint = {
            ComposerMode.NEW: (
                tr("Describe a task, e.g. “Create a customer named Ada Lovelace…”"),
                tr("Ctrl+Enter to run"),
            ),
            ComposerMode.FOLLOW_UP: (tr("What next?"), tr("Ctrl+Enter to continue in the same browser")),
            ComposerMode.STARTING: (tr("Starting the browser…"), tr("Esc to stop")),
            ComposerMode.RUNNING: (tr("The agent is working…"), tr("Esc to stop · Take over to use the browser")),
            ComposerMode.ASKING: (tr("Your answer…"), tr("Ctrl+Enter to answer · Esc to stop")),
            ComposerMode.PAUSED: (
                tr("Optional: tell the agent what you did…"),
                tr("The browser is yours. Resume hands it back to the agent."),
            ),
            ComposerMode.HANDED_OFF: (
                tr("Optional: tell the agent what you did…"),
                tr("Ctrl+Enter continues · Esc stops"),
            ),
            ComposerMode.STOPPING: (tr("Stopping…"), ""),
        }[mode]
        self.input.setPlaceholderText(placeholder)
        # A disabled, empty editor does not repaint for a new placeholder on its own (seen under X11).
        self.input.viewport().update()
        self.input.setAccessibleDescription(placeholder)
        self.hint.setText(hint)
        choosing = mode in (ComposerMode.NEW, ComposerMode.FOLLOW_UP)
        typing = choosing or mode in (ComposerMode.ASKING, ComposerMode.PAUSED, ComposerMode.HANDED_OFF)
        busy = mode in (
            ComposerMode.STARTING,
            ComposerMode.RUNNING,
            ComposerMode.ASKING,
            ComposerMode.PAUSED,
            ComposerMode.STOPPING,
        )
        locked = bool(self._locked_task) and choosing
        if locked:
            self.input.setPlainText(self._locked_task)
        elif typing and self._locked_task and self.input.toPlainText() == self._locked_task:
            self.input.clear()  # an answer or a note is the user's own words, not the demo's task
        self.input.setReadOnly(not typing or locked)
        self.input.setEnabled(typing)
        self.own_model.setVisible(locked)
        self.try_demo.setVisible(choosing and not self._locked_task)
        if locked:
            self.hint.setText(tr("The demo replays this recorded task only."))
        self.run.setVisible(mode in (ComposerMode.NEW, ComposerMode.FOLLOW_UP, ComposerMode.ASKING))
        self.run.setText(tr("Answer") if mode is ComposerMode.ASKING else tr("Run"))
        self.run.setAccessibleName(self.run.text())
        self.stop.setVisible(busy)
        self.stop.setEnabled(mode is not ComposerMode.STOPPING)
        self.stop.setText(tr("Stopping…") if mode is ComposerMode.STOPPING else tr("Stop"))
        self.take_over.setVisible(mode in (ComposerMode.RUNNING, ComposerMode.PAUSED))
        self.new_task.setVisible(mode is ComposerMode.FOLLOW_UP)
        self._set_take_over_look()
        self._update_run_enabled()
        self.focus_default()

    def lock_task(self, task: str) -> None:
        """The demo: ``task`` fills the box, read-only, whenever a task can be started; "" unlocks it (emptied)."""
        was_locked = bool(self._locked_task)
        self._locked_task = task
        if was_locked and not task and self._mode in (ComposerMode.NEW, ComposerMode.FOLLOW_UP):
            self.input.clear()
        self.set_mode(self._mode)

    def focus_default(self) -> None:
        """After every change of moment, keyboard focus goes where the next action is."""
        if self.input.isEnabled() and not self.input.isReadOnly():
            self.input.setFocus()
        elif self.run.isVisible() and self.run.isEnabled():
            self.run.setFocus()
        elif self.take_over.isVisible() and self._mode is ComposerMode.PAUSED:
            self.take_over.setFocus()
        elif self.stop.isVisible() and self.stop.isEnabled():
            self.stop.setFocus()

    def _set_take_over_look(self) -> None:
        paused = self._mode is ComposerMode.PAUSED
        self.take_over.setText(tr("Resume") if paused else tr("Take over"))
        self.take_over.setAccessibleName(self.take_over.text())
        self.take_over.setToolTip(
            tr("Hand the browser back to the agent") if paused else tr("Pause the agent and use the browser yourself")
        )
        self.take_over.setProperty("role", "primary" if paused else "")
        t = theme()
        self.take_over.setIcon(icon("play", t.on_accent) if paused else icon("hand", t.text))
        # A changed dynamic property only takes effect once the style sheet is re-applied to the widget.
        self.take_over.style().unpolish(self.take_over)
        self.take_over.style().polish(self.take_over)

    def _update_run_enabled(self) -> None:
        self.run.setEnabled(bool(self.input.toPlainText().strip()))

    def _submit(self) -> None:
        text = self.input.toPlainText().strip()
        if self._mode in (ComposerMode.PAUSED, ComposerMode.HANDED_OFF):
            self.input.clear()
            self.resumeRequested.emit(text)
            return
        if not text or self._mode not in (ComposerMode.NEW, ComposerMode.FOLLOW_UP, ComposerMode.ASKING):
            return
        if not self._locked_task or self._mode is ComposerMode.ASKING:
            self.input.clear()
        self.submitted.emit(text)

    def _take_over_or_resume(self) -> None:
        if self._mode is ComposerMode.PAUSED:
            self._submit()
        else:
            self.takeOverRequested.emit()
