"""The Routine mode's page: the setup, then the live run, over one RoutineSession. It reads files off the loop,
checks the routine before anything starts (bad rows or an unknown column are said here, in plain words), and serves
the person queue."""

from __future__ import annotations

import asyncio
import shutil
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtGui import QGuiApplication, QShowEvent
from PySide6.QtWidgets import QFileDialog, QScrollArea, QStackedWidget, QVBoxLayout, QWidget

from app.background import Background
from app.routine.paths import PathChange
from app.routine.plan import RoutinePlan
from app.routine.rows import RowsError, read_rows
from app.routine.types import PersonRequest, Progress, RoutineOptions, RoutineSummary, RowFinished, RowStatus
from app.text.i18n import tr
from app.ui.dialog_style import dialog_stylesheet
from app.ui.routine.library import RoutineFolders, SavedRoutine, earlier_outcomes
from app.ui.routine.look import routine_stylesheet
from app.ui.routine.run_view import RunView
from app.ui.routine.session import RoutineHost, RoutineSession, check
from app.ui.routine.setup_view import ROWS_FILTER, SetupView
from app.ui.style import theme

NO_MODEL = (
    "No AI model is set up, so only the demo routine can run. Add a model and its API key in Settings to run "
    "your own routines."
)

NO_MODEL_TO_FOLLOW = (
    "Show me once needs an AI model for the rows after the one you show (one short call each). Add a model and its "
    "API key in Settings."
)
NO_START = "Show me once opens the page each row starts at: fill in “Start each row at” first."


class RoutinePanel(QWidget):
    runningChanged = Signal(bool)

    def __init__(self, host: RoutineHost, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("RoutinePanel")
        self.session = RoutineSession(host, self)
        self.folders = RoutineFolders(host.paths.data_dir)
        self.rows_file: Path | None = None
        self.last: tuple[RoutineOptions, SavedRoutine, bool] | None = None  # what ran last: options, setup, demo
        self._background = Background("routine panel")
        self._demo = host.demo_routine

        self.setup = SetupView(self)
        scroll = QScrollArea(self)
        scroll.setObjectName("RoutineScroll")
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.setup)
        self.run_view = RunView(self)
        self.pages = QStackedWidget(self)
        self.pages.addWidget(scroll)
        self.pages.addWidget(self.run_view)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.pages)
        self._connect()
        self.restyle()
        self.setup.demo_button.setVisible(host.demo())
        self._background.spawn(self._load_saved())

    def _connect(self) -> None:
        setup, run, session = self.setup, self.run_view, self.session
        setup.openRequested.connect(self.choose_file)
        setup.fileDropped.connect(lambda path: self._background.spawn(self.open_file(path)))
        setup.pasteRequested.connect(lambda: self._background.spawn(self.paste_rows(_clipboard_text())))
        setup.savedChosen.connect(lambda routine: self._background.spawn(self.use_saved(routine)))
        setup.saveRequested.connect(lambda: self._background.spawn(self.save_routine()))
        setup.runRequested.connect(lambda: self._background.spawn(self.run_routine()))
        setup.teachRequested.connect(lambda: self._background.spawn(self.run_routine(teach=True)))
        setup.demoRequested.connect(lambda: self._background.spawn(self.use_demo()))
        run.pauseToggled.connect(self.toggle_pause)
        run.stopRequested.connect(self.stop)
        run.retryRequested.connect(lambda: self._background.spawn(self.retry_failed()))
        run.timelineRequested.connect(session.host.open_run)
        run.copyRequested.connect(lambda: self._background.spawn(self.copy_results()))
        run.saveRequested.connect(self.choose_results_file)
        run.editRequested.connect(lambda: self.pages.setCurrentIndex(0))
        needs = run.needs_you
        needs.continueRequested.connect(session.continue_row)
        needs.giveUpRequested.connect(session.give_up)
        needs.answered.connect(session.answer)
        needs.showRequested.connect(session.bring_to_front)
        teach = run.teach
        teach.doneRequested.connect(session.teach_done)
        teach.cancelRequested.connect(session.teach_cancel)
        teach.answered.connect(session.use_path)
        teach.showRequested.connect(session.bring_to_front)
        session.teachStarted.connect(run.teach_started)
        session.taughtStep.connect(teach.add_step)
        session.pathShown.connect(teach.show_path)
        session.pathChanged.connect(self._path_changed)
        session.rowStarted.connect(run.model.started)
        session.rowStarted.connect(run.row_started)
        session.rowActivity.connect(run.model.activity)
        session.rowFinished.connect(self._row_finished)
        session.personNeeded.connect(self._person_needed)
        session.personDone.connect(self._person_done)
        session.progress.connect(self._progress)
        session.finished.connect(self._finished)
        session.failed.connect(self._failed)

    def restyle(self) -> None:
        t = theme()
        self.setStyleSheet(dialog_stylesheet(t) + routine_stylesheet(t))

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.setup.demo_button.setVisible(self.session.host.demo())  # the demo may have begun or ended since

    @property
    def running(self) -> bool:
        return self.session.running

    # --- rows --------------------------------------------------------------------------------------------------

    def choose_file(self) -> None:
        chooser = QFileDialog(self, tr("Open the rows"))
        chooser.setFileMode(QFileDialog.FileMode.ExistingFile)
        chooser.setNameFilter(tr(ROWS_FILTER))
        chooser.fileSelected.connect(lambda path: self._background.spawn(self.open_file(Path(path))))
        chooser.open()  # never exec(): a nested loop would stall the rows in flight (the panel owns it)

    async def open_file(self, path: Path) -> bool:
        """Read ``path`` and show its preview and columns, or what is wrong with it."""
        try:
            table = await asyncio.to_thread(read_rows, path)
        except RowsError as exc:
            self.rows_file = None
            self.setup.table = None
            self.setup.show_problem(str(exc))
            return False
        self.rows_file = path
        self.setup.show_table(table)
        return True

    async def paste_rows(self, text: str) -> bool:
        if not text.strip() or ("\t" not in text and "," not in text and ";" not in text):
            self.setup.show_problem(
                tr("Nothing to paste: copy the rows in your spreadsheet, the header row included, then press Paste.")
            )
            return False
        path = await asyncio.to_thread(self.folders.save_pasted, text)
        return await self.open_file(path)

    # --- saved routines ----------------------------------------------------------------------------------------

    async def _load_saved(self) -> None:
        self.setup.show_saved(await asyncio.to_thread(self.folders.load))

    async def use_saved(self, routine: SavedRoutine) -> None:
        self.setup.use(routine)
        rows = Path(routine.rows_file) if routine.rows_file else None
        if rows is not None and await asyncio.to_thread(rows.is_file):
            await self.open_file(rows)

    async def save_routine(self) -> SavedRoutine:
        routine = self.setup.routine(self.rows_file)
        await asyncio.to_thread(self.folders.save, routine)
        await self._load_saved()
        self.setup.name.setText(routine.name)
        self.setup.file_label.setText(self.setup.file_label.text() + "\n" + tr("Saved as “{name}”.", name=routine.name))
        return routine

    # --- running -----------------------------------------------------------------------------------------------

    async def use_demo(self) -> None:
        """The demo routine: five customers from the bundled file into the demo CRM."""
        demo = self._demo
        self.setup.use(
            SavedRoutine(name=demo.name, template=demo.template, start_url=await demo.start_url(), parallel=1)
        )
        await self.open_file(demo.rows)

    def _is_demo(self, routine: SavedRoutine) -> bool:
        return self.rows_file == self._demo.rows and routine.template == self._demo.template

    async def run_routine(self, *, retry_failed: bool = False, teach: bool = False) -> RoutinePlan | None:
        """Check the routine (its problems are said in the setup, nothing starts) and run it; ``teach``: Show me
        once, the first row is the person's to do in its window."""
        if self.session.running:
            return None
        routine = self.setup.routine(self.rows_file)
        if self.rows_file is None:
            self.setup.show_problem(tr("Open a CSV or Excel file with the rows first, or paste them."))
            return None
        demo = self._is_demo(routine)
        if self.session.host.demo() and (teach or not demo):
            self.setup.show_problem(tr(NO_MODEL_TO_FOLLOW if teach else NO_MODEL))
            return None
        if teach and not routine.start_url:
            self.setup.show_problem(tr(NO_START))
            return None
        # The demo starts anew every time; a routine of yours continues where it left off on the same file.
        name = f"{routine.name} {datetime.now():%Y%m%d-%H%M%S}" if demo else routine.name
        results = self.folders.results_for(name, self.rows_file)
        await asyncio.to_thread(results.parent.mkdir, parents=True, exist_ok=True)
        options = RoutineOptions(
            rows_file=self.rows_file,
            template=routine.template,
            results_file=results,
            secret_columns=tuple(routine.secret_columns),
            output_columns=tuple(routine.output_columns),
            retry_failed=retry_failed or routine.retry_failed,
            parallel=routine.parallel,
            start_url=routine.start_url,
            teach=teach,
        )
        return await self._start(options, routine, demo)

    async def retry_failed(self) -> RoutinePlan | None:
        if self.last is None or self.session.running:
            return None
        options, routine, demo = self.last
        again = {**options.__dict__, "retry_failed": True, "teach": False}  # the path is known by now
        return await self._start(RoutineOptions(**again), routine, demo, back_to_setup=False)

    async def _start(
        self, options: RoutineOptions, routine: SavedRoutine, demo: bool, *, back_to_setup: bool = True
    ) -> RoutinePlan | None:
        try:
            plan = await check(options)
        except RowsError as exc:
            self.setup.show_problem(str(exc))
            if back_to_setup:
                self.pages.setCurrentIndex(0)
            return None
        self.setup.show_problem("")
        self.last = (options, routine, demo)
        self.run_view.begin(plan, routine.name)
        self.run_view.model.earlier(await asyncio.to_thread(earlier_outcomes, options.results_path(), plan.table))
        self.pages.setCurrentIndex(1)
        model = self._demo.models() if demo else None
        self.session.start(plan, allowed_sites=routine.allowed_sites, model=model)
        self.runningChanged.emit(True)
        return plan

    def submit(self) -> None:
        """Ctrl+Enter in Routine mode: run the routine being set up."""
        if self.pages.currentIndex() == 0:
            self.setup.runRequested.emit()

    def toggle_pause(self) -> None:
        if self.session.paused:
            self.session.resume()
        else:
            self.session.pause()

    def stop(self) -> None:
        """Stop every row (Stop, Esc in the panel, the bar inside Chromium)."""
        if self.session.running:
            self.run_view.stopping()
            self.session.stop()

    # --- the runner's events -----------------------------------------------------------------------------------

    def _row_finished(self, event: RowFinished) -> None:
        self.run_view.model.finished(event)
        teach = self.run_view.teach
        if event.number == teach.number and event.outcome.status != RowStatus.DONE:
            teach.end()  # cancelled, stopped, or nobody came: no path to show

    def _path_changed(self, change: PathChange) -> None:
        if change.origin == "taught":
            self.run_view.teach.end()  # taken: by Use this path, or as nobody answered in time
        self.run_view.path_changed(change)
        self.run_view.show_paths(self.session.paths)

    def _person_needed(self, request: PersonRequest) -> None:
        self.run_view.model.waiting_for_person(request.number, True)
        self.run_view.needs_you.add(request)

    def _person_done(self, request: PersonRequest) -> None:
        self.run_view.needs_you.remove(request)
        self.run_view.model.waiting_for_person(request.number, False)

    def _progress(self, progress: Progress) -> None:
        self.run_view.show_progress(progress)
        if progress.path_learned and not self.run_view.path.text():  # a path saved by an earlier run
            self.run_view.show_paths(self.session.paths)

    def _finished(self, summary: RoutineSummary) -> None:
        self.runningChanged.emit(False)
        self.run_view.finish(summary)
        self.run_view.show_paths(self.session.paths)

    def _failed(self, words: str) -> None:
        self.runningChanged.emit(False)
        self.run_view.fail(words)

    # --- results -----------------------------------------------------------------------------------------------

    def _results(self) -> Path | None:
        return self.last[0].results_path() if self.last is not None else None

    async def copy_results(self) -> str:
        """The results CSV on the clipboard, to paste into a spreadsheet."""
        results = self._results()
        if results is None:
            return ""
        text = await asyncio.to_thread(results.read_text, encoding="utf-8-sig")
        clipboard = QGuiApplication.clipboard()
        if clipboard is not None:
            clipboard.setText(text)
        self.run_view.say(tr("The results are on the clipboard: paste them into your spreadsheet."))
        return text

    def choose_results_file(self) -> None:
        results = self._results()
        if results is None:
            return
        chooser = QFileDialog(self, tr("Save the results"))
        chooser.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        chooser.setDefaultSuffix("csv")
        chooser.setNameFilter(tr("CSV (*.csv)"))
        chooser.selectFile(str(Path.home() / f"{self.last[1].name if self.last else 'routine'} results.csv"))
        chooser.fileSelected.connect(lambda path: self._background.spawn(self.save_results(Path(path))))
        chooser.open()

    async def save_results(self, path: Path) -> None:
        results = self._results()
        if results is None:
            return
        try:
            await asyncio.to_thread(shutil.copyfile, results, path)
        except OSError as exc:
            self.run_view.say(tr("The results were not saved: {reason}", reason=exc.strerror or str(exc)))
            return
        self.run_view.say(tr("Results saved to {path}", path=str(path)))

    # --- the end -----------------------------------------------------------------------------------------------

    async def leave(self) -> None:
        """Routine mode closes (back to a single task): the routine's windows go."""
        await self.session.leave()

    async def shutdown(self) -> None:
        await self.session.close()
        await self._demo.close()


def _clipboard_text() -> str:
    clipboard = QGuiApplication.clipboard()
    return clipboard.text() if clipboard is not None else ""
