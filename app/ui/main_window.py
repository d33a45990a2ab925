"""The panel: header with the status pill, the timeline, and the composer; it drives runs through the runtime.

The window talks to the agent only through its public API (execute / stop / pause / resume) and, through the
AgentBridge, its events. Every agent call that waits runs as an asyncio task on the qasync loop, so the window
never blocks.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QEvent, QPoint, QSize, Signal
from PySide6.QtGui import QCloseEvent, QGuiApplication
from PySide6.QtWidgets import (
    QMainWindow,
    QMessageBox,
    QVBoxLayout,
    QWidget,
)

from app.background import Background
from app.browser.chromium import ChromiumNotFoundError
from app.core.errors import CannotStart
from app.core.safety.risky import ConfirmHandler
from app.core.tools.base import AskUserHandler
from app.core.types import (
    AgentActivity,
    AgentStatus,
    ExecutionResult,
    HandOffActivity,
    PausedActivity,
    ThinkingActivity,
)
from app.settings.model import Settings
from app.text.counts import steps_count
from app.text.i18n import tr
from app.text.wording import describe_activity
from app.ui import style
from app.ui.about_dialog import show_about
from app.ui.bridge import AgentBridge
from app.ui.browser_offer import BrowserOfferBar
from app.ui.confirm_bar import ConfirmBar
from app.ui.panel_bars import DemoAgainBar, DemoOfferBar, HandOffBar
from app.ui.panel_header import PanelHeader
from app.ui.panel_state import ENDED_AS, PanelState, model_unreachable
from app.ui.quit_question import ask_to_quit
from app.ui.routine.modes import PanelModes
from app.ui.shortcuts import install_shortcuts
from app.ui.task_input import Composer, ComposerMode
from app.ui.timeline.items import NoticeItem
from app.ui.timeline.model import TimelineModel
from app.ui.timeline.view import TimelineView
from app.ui.usage_line import UsageLine
from app.ui.waiting_moments import WaitingMoments

if TYPE_CHECKING:
    from app.core.agent import Agent

log = logging.getLogger(__name__)


class RuntimeLike(Protocol):
    """What the window needs from app.runtime.Runtime (tests pass a small host with the same methods)."""

    settings: Settings

    @property
    def demo(self) -> bool: ...

    async def agent(self, *, new_task: bool = False) -> Agent: ...

    def set_ask_user(self, handler: AskUserHandler | None) -> None: ...

    def set_confirm(self, handler: ConfirmHandler | None) -> None: ...

    def on_browser_closed(self, callback: Callable[[], None]) -> None: ...

    def on_stop_requested(self, callback: Callable[[], None]) -> None: ...

    def on_panel_requested(self, callback: Callable[[], None]) -> None: ...


class MainWindow(QMainWindow):
    settingsRequested = Signal()
    demoRequested = Signal()  # "Try the demo": the owner switches the runtime to the demo
    historyRequested = Signal()
    runFinished = Signal(str, object)  # (task, ExecutionResult): every run that reached the agent
    closing = Signal()  # the user closed the panel; the owner shuts the runtime down
    browserMissing = Signal()  # no browser to open: the owner offers one (browser_offer)

    def __init__(self, runtime: RuntimeLike, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._runtime = runtime
        self._bridge = AgentBridge(self)
        self._model = TimelineModel(self)
        self._run_task: asyncio.Task[ExecutionResult] | None = None
        self.state = PanelState.READY
        self._browser_lost = False
        self._background = Background("panel")
        self._demo = bool(getattr(runtime, "demo", False))
        self._demo_finished = False  # the demo replayed everything it recorded: a follow-up has nothing to replay
        self._quitting = False
        self._quit_question: QMessageBox | None = None

        self.setWindowTitle(tr("Page Agent"))
        self.setMinimumSize(QSize(340, 480))
        self._build()
        self.moments = WaitingMoments(self, self, lambda: bool(getattr(runtime.settings, "hand_off_sound", False)))
        self._connect()
        runtime.set_ask_user(self.moments.ask_user)
        # Risky moments (a page's dialog, an irreversible click) are answered in the confirm bar.
        runtime.set_confirm(self.moments.confirm)
        # Stop (Esc) in the bar drawn inside Chromium: the same stop as the panel's, whichever window has the focus.
        runtime.on_stop_requested(self.stop)
        runtime.on_panel_requested(self.moments.bring_back)
        runtime.on_browser_closed(self._on_browser_closed)
        self._restyle()
        self.resize(420, 860)

    # --- construction ------------------------------------------------------------------------------------------

    def _build(self) -> None:
        root = QWidget(self)
        root.setObjectName("Panel")
        self.setCentralWidget(root)

        header = PanelHeader(root, demo=self._demo)
        self.pill, self.demo_banner = header.pill, header.demo_banner
        self.history_button, self.settings_button = header.history_button, header.settings_button
        self._header = header

        task_page = QWidget(root)  # One task; Routine mode is the other page (app/ui/routine)
        self.timeline = TimelineView(self._model, task_page)

        self.handoff_bar = HandOffBar(task_page)
        self.demo_offer = DemoOfferBar(task_page)
        self.browser_offer = BrowserOfferBar(task_page)
        self.demo_again = DemoAgainBar(task_page)
        self.confirm_bar = ConfirmBar(task_page)
        handoff_wrap = QVBoxLayout()
        handoff_wrap.setContentsMargins(14, 8, 14, 0)
        handoff_wrap.addWidget(self.handoff_bar)
        handoff_wrap.addWidget(self.demo_offer)
        handoff_wrap.addWidget(self.browser_offer)
        handoff_wrap.addWidget(self.demo_again)
        handoff_wrap.addWidget(self.confirm_bar)

        self.footer = UsageLine(task_page)

        self.composer = Composer(task_page)

        task = QVBoxLayout(task_page)
        task.setContentsMargins(0, 0, 0, 0)
        task.setSpacing(0)
        task.addWidget(self.timeline, 1)
        task.addLayout(handoff_wrap)
        task.addWidget(self.footer)
        task.addWidget(self.composer)
        self.modes = PanelModes(task_page, root)
        self.composer.focus_default()  # the task box is the window's focus again, inside the mode's page
        layout = QVBoxLayout(root)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(header)
        layout.addWidget(self.modes, 1)

        # Tab follows the eye: the header, the mode switch, then the page on screen from top to bottom.
        QWidget.setTabOrder(self.settings_button, self.modes.task_button)
        QWidget.setTabOrder(self.modes.task_button, self.modes.routine_button)

    def _connect(self) -> None:
        self._bridge.statusChanged.connect(self._on_status)
        self._bridge.activity.connect(self._on_activity)
        self._bridge.eventAdded.connect(self._model.add_event)
        self._model.usageChanged.connect(self.footer.show_usage)
        self.composer.submitted.connect(self._on_submitted)
        self.composer.stopRequested.connect(self.stop)
        self.composer.takeOverRequested.connect(self.take_over)
        self.composer.resumeRequested.connect(self.resume)
        self.composer.newTaskRequested.connect(self.new_task)
        self.handoff_bar.continueRequested.connect(self.continue_after_handoff)
        self.handoff_bar.stopRequested.connect(self.stop)
        self.demo_offer.demoRequested.connect(self.demoRequested)
        self.demo_offer.settingsRequested.connect(self.settingsRequested)
        self.browser_offer.settingsRequested.connect(self.settingsRequested)
        self.demo_again.againRequested.connect(self.play_demo_again)
        self.demo_again.settingsRequested.connect(self.settingsRequested)
        self.composer.ownModelRequested.connect(self.settingsRequested)
        self.composer.demoRequested.connect(self.demoRequested)
        self.history_button.clicked.connect(self.historyRequested)
        self.modes.changed.connect(lambda routine: self.pill.setVisible(not routine))
        self._header.about_button.clicked.connect(lambda: show_about(self))
        self.settings_button.clicked.connect(self.settingsRequested)
        install_shortcuts(
            self,
            stop=self.stop,
            submit=lambda: self.modes.submit(self.composer.input.submitted.emit),
            history=self.historyRequested.emit,
            settings=self.settingsRequested.emit,
        )
        hints = QGuiApplication.styleHints()
        if hints is not None:
            hints.colorSchemeChanged.connect(lambda _scheme: self._restyle())

    # --- public API --------------------------------------------------------------------------------------------

    @property
    def model(self) -> TimelineModel:
        return self._model

    @property
    def bridge(self) -> AgentBridge:
        return self._bridge

    @property
    def current_run(self) -> asyncio.Task[ExecutionResult] | None:
        """The running task's asyncio task (done once the run has settled and the panel shows its outcome, which is
        its result)."""
        return self._run_task

    @property
    def busy(self) -> bool:
        return self._run_task is not None and not self._run_task.done()

    @property
    def browser_is_the_persons(self) -> bool:
        """The person acts in Chromium now (a hand-off, or they took over): other windows keep off its side."""
        return self.state in (PanelState.HANDED_OFF, PanelState.PAUSED)

    def waiting_bar_top(self) -> QPoint:
        """Where what waits for the person begins (the hand-off bar, else the task box), in the panel's own
        coordinates."""
        bar = self.handoff_bar if self.handoff_bar.isVisible() else self.composer
        return bar.mapTo(self, QPoint(0, 0))

    def browser_opened(self) -> None:
        """Chromium is up (or could not start, which the timeline says): "Starting the browser…" ends."""
        if self.state is PanelState.OPENING:
            self.enter(PanelState.READY)

    @property
    def handed_off(self) -> bool:
        """The agent handed the browser to the person and waits for "I've done it — continue" or Stop."""
        return self.state is PanelState.HANDED_OFF

    def run_task(self, text: str, *, follow_up: bool = False, source: str = "") -> asyncio.Task[ExecutionResult] | None:
        """Start ``text`` as a new task (or as a follow-up in the same browser with the previous context). ``source``
        names who sent a task the person did not type (an MCP client): said under it, and its sites get no secret."""
        text = text.strip()
        if not text or self.busy:
            return None
        if follow_up and self._demo and self._demo_finished:
            self._explain_demo_end()
            return None
        # Everything the user sees change happens now, before the first await: a click answers at once.
        if not follow_up:
            self._model.clear()
        self._model.start_run(text, follow_up=follow_up)
        if source:
            self._model.add_notice(tr("Sent by {source} over MCP.", source=source))
        self._hide_bars()
        self.enter(PanelState.STARTING)
        self._run_task = asyncio.ensure_future(self._run(text, follow_up, "" if source else None))
        return self._run_task

    def stop(self) -> None:
        """Stop now (Esc, or Stop on the hand-off bar): the pill says "Stopping…" until the agent has settled."""
        if self.modes.routine_shown:
            self.modes.stop_routine()  # Esc in Routine mode stops the routine's rows
            return
        if not self.busy or self.state is PanelState.STOPPING:
            return
        self.confirm_bar.cancel()
        self._hide_bars()
        self.enter(PanelState.STOPPING)
        agent = self._bridge.agent
        if agent is not None:
            self._background.spawn(agent.stop())

    def take_over(self) -> None:
        agent = self._bridge.agent
        if agent is not None and self.state is PanelState.RUNNING:
            agent.pause()  # answers with a PausedActivity, which switches the panel to "your turn"

    def resume(self, note: str = "") -> None:
        """Hand the browser back to the agent, after a take-over or a hand-off: the same run carries on."""
        agent = self._bridge.agent
        if agent is None or not agent.paused or self.state is PanelState.STOPPING:
            return
        agent.resume(note)
        self._hide_bars()
        self.enter(PanelState.RUNNING, tr("Resuming…"))

    def continue_after_handoff(self) -> None:
        """ "I've done it — continue": the note the user typed in the task box goes to the agent with the browser."""
        self.resume(self.composer.input.toPlainText().strip())
        if not self.handed_off:
            self.composer.input.clear()

    def new_task(self) -> None:
        """Start clean: clear the timeline; the next task does not carry the previous ones' context."""
        if self.busy:
            return
        self._model.clear()
        self._hide_bars()
        self._demo_finished = False
        self.enter(PanelState.READY)

    def show_demo_mode(self, demo: bool, task: str = "") -> None:
        """Demo mode: the banner, and the demo's task in the box, read-only (the demo replays nothing else). Into or
        out of the demo, an ended task is not followed up: the next one starts anew, with the other model."""
        settled = self.state.ended or self.state in (PanelState.DEMO_OVER, PanelState.BROWSER_CLOSED)
        if demo != self._demo and not self.busy and settled:
            self.enter(PanelState.READY)
        self._demo = demo
        self._demo_finished = False
        self.demo_banner.setVisible(demo)
        if demo:
            self.demo_offer.hide()
        else:
            self.demo_again.hide()
        self.composer.lock_task(task if demo else "")

    def play_demo_again(self) -> None:
        """ "Play the demo again": a new task, the demo's, from its sign-in page."""
        if self.busy or not self._demo:
            return
        self.new_task()
        self.run_task(self.composer.input.toPlainText())

    def _explain_demo_end(self) -> None:
        words = tr("The demo has shown everything it recorded. To give your own tasks, add a model in Settings.")
        items = self._model.items
        last = items[-1] if items else None
        if not (isinstance(last, NoticeItem) and last.text == words):  # said once, however often Run is pressed
            self._model.add_notice(words)
        self.enter(PanelState.DEMO_OVER, tr("The demo is over"))
        self.demo_again.show()

    def enter(self, state: PanelState, detail: str | None = None) -> None:
        """Move the panel to ``state``: the pill and the composer follow from the one table."""
        self.state = state
        self.modes.lock(state.composer not in (ComposerMode.NEW, ComposerMode.FOLLOW_UP))
        self.pill.set_state(state.pill, detail)
        self.composer.set_mode(state.composer)

    def _hide_bars(self) -> None:
        self.handoff_bar.hide()
        self.demo_offer.hide()
        self.demo_again.hide()
        self.moments.over()

    # --- the run -----------------------------------------------------------------------------------------------

    async def _run(self, text: str, follow_up: bool, own_words: str | None) -> ExecutionResult:
        try:
            agent = await self._runtime.agent(new_task=not follow_up)
        except Exception as exc:
            log.exception("could not prepare the agent")
            if isinstance(exc, ChromiumNotFoundError):
                self.browserMissing.emit()
            return self._show_outcome(
                self._failure(tr("Could not start: {reason}", reason=str(exc) or type(exc).__name__), AgentStatus.ERROR)
            )
        if self.state is PanelState.STOPPING:
            return self._show_outcome(self._failure(tr("Stopped before the agent started."), AgentStatus.STOPPED))
        self._bridge.attach(agent)
        self.enter(PanelState.RUNNING, tr("Thinking…"))
        try:
            result = await agent.execute(text, follow_up=follow_up, own_words=own_words)
        except CannotStart as exc:
            return self._show_outcome(self._failure(str(exc), AgentStatus.ERROR))
        except (
            Exception
        ) as exc:  # a fault of the program: the crash report's (the loop's handler), not the task's words
            asyncio.get_running_loop().call_exception_handler({"message": "the panel's run failed", "exception": exc})
            return self._show_outcome(self._failure(tr("The task stopped on a fault of the app."), AgentStatus.ERROR))
        self._show_outcome(result)
        self.runFinished.emit(text, result)
        return result

    @staticmethod
    def _failure(message: str, status: AgentStatus) -> ExecutionResult:
        return ExecutionResult(success=False, data=message, status=status)

    def _show_outcome(self, result: ExecutionResult) -> ExecutionResult:
        self._model.finish_run(result)
        self._hide_bars()
        self.enter(ENDED_AS[result.outcome])
        if result.steps:
            self.pill.set_detail(steps_count(result.steps))
        if self._browser_lost:
            # The result card says the browser was closed; nothing is left to follow up in.
            self._browser_lost = False
            self.enter(PanelState.BROWSER_CLOSED, tr("The browser was closed"))
            self._model.add_notice(tr("Your next task opens the browser again."))
        if self._demo and result.status == AgentStatus.COMPLETED:
            self._demo_finished = True
            self.demo_again.show()
        if not self._demo and model_unreachable(result):
            self.demo_offer.show()  # nothing was done, and the demo needs no model
        return result

    # --- agent events ------------------------------------------------------------------------------------------

    def _on_status(self, status: AgentStatus) -> None:
        if status == AgentStatus.RUNNING and self.state is PanelState.STARTING:
            self.enter(PanelState.RUNNING, tr("Thinking…"))

    def _on_activity(self, activity: AgentActivity) -> None:
        if isinstance(activity, HandOffActivity):
            if self.state is not PanelState.STOPPING:
                self.moments.hand_off(activity.reason)
            return
        if isinstance(activity, PausedActivity):
            if self.state not in (PanelState.STOPPING, PanelState.HANDED_OFF):
                self.enter(PanelState.PAUSED, tr("Paused — your turn"))
            return
        if isinstance(activity, ThinkingActivity):
            self.pill.set_detail(tr("Step {n} of {max}", n=activity.step_index, max=activity.max_steps))
        self.pill.set_activity(describe_activity(activity))

    def _on_submitted(self, text: str) -> None:
        if self.state is PanelState.ASKING:
            self.moments.answer(text)
            return
        if self._demo and self.state.ended and not self._demo_finished:
            self.play_demo_again()  # from its start: its recording goes on from where a Stop left it (the captcha)
            return
        self.run_task(text, follow_up=self.state.ended)

    def _on_browser_closed(self) -> None:
        # During a run the agent reports it as the run's error; the notice then follows the outcome.
        self._browser_lost = self.busy
        if not self.busy:
            self._model.add_notice(tr("The browser was closed. Your next task opens it again."))
            if self.state.ended:
                self.enter(PanelState.BROWSER_CLOSED, tr("The browser was closed"))

    # --- look and lifecycle ------------------------------------------------------------------------------------

    def _restyle(self) -> None:
        t = style.apply(self)
        self._header.restyle(t)
        self.composer.refresh_icons()
        self.handoff_bar.restyle(t)
        self.modes.restyle(t)
        self.timeline.refresh_theme()
        self.pill.update()

    def event(self, event: QEvent) -> bool:
        # The system switched light/dark (our own style sheet changes only send PaletteChange, never this).
        if event.type() == QEvent.Type.ApplicationPaletteChange:
            self._restyle()
        return super().event(event)

    def quit_now(self) -> None:
        """Close without asking (SIGTERM, a second Ctrl+C, "Stop and quit"); the owner stops the run on closing."""
        self._quitting = True
        if self._quit_question is not None:
            self._quit_question.done(0)
        self.close()

    @property
    def quit_question(self) -> QMessageBox | None:
        """The open "Stop the task and quit?" question, if any."""
        return self._quit_question

    def closeEvent(self, event: QCloseEvent) -> None:
        if (self.busy or self.modes.running) and not self._quitting:  # a task, or a routine's rows
            if self._quit_question is None:
                event.ignore()
                self._ask_to_quit()
                return
            self._quitting = True  # asked twice (a second Ctrl+C): the user means it
            self._quit_question.done(0)
        self.confirm_bar.cancel()
        self.moments.over()
        self.closing.emit()
        super().closeEvent(event)

    def _ask_to_quit(self) -> None:
        waiting = self.state in (PanelState.ASKING, PanelState.CONFIRMING, PanelState.HANDED_OFF, PanelState.PAUSED)
        box = ask_to_quit(self, waiting_for_person=waiting, quit_now=self.quit_now)
        box.finished.connect(self._forget_quit_question)
        self._quit_question = box

    def _forget_quit_question(self) -> None:
        self._quit_question = None
