"""The Routine mode's page: the setup, then the live run, over one RoutineSession. It reads files off the loop,
checks the routine before anything starts (bad rows or an unknown column are said here, in plain words), and serves
the person queue."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import shutil
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import QStandardPaths, Signal
from PySide6.QtGui import QGuiApplication, QShowEvent
from PySide6.QtWidgets import QFileDialog, QStackedWidget, QVBoxLayout, QWidget

from app.background import Background
from app.routine.cost import before_run, limit_of
from app.routine.paths import PathChange
from app.routine.plan import RoutinePlan
from app.routine.rows import RowsError, read_rows
from app.routine.template import parse_template
from app.routine.types import PersonRequest, RoutineOptions, RoutineProgress, RoutineSummary, RowFinished, RowStatus
from app.text.cost_words import before_run_words
from app.text.i18n import tr
from app.ui.dialog_style import dialog_stylesheet
from app.ui.file_dialog import file_dialog
from app.ui.routine.library import RoutineFolders, SavedRoutine, earlier_outcomes
from app.ui.routine.look import routine_stylesheet
from app.ui.routine.run_view import RunView
from app.ui.routine.session import RoutineHost, RoutineSession, check
from app.ui.routine.setup_view import ROWS_FILTER, SetupView
from app.ui.style import theme

log = logging.getLogger(__name__)

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
        self._demo_setup: SavedRoutine | None = None  # the demo routine's, while the editor shows it
        self._background = Background("routine panel")
        self._demo = host.demo_routine

        self.setup = SetupView(self)
        self.run_view = RunView(self)
        self.pages = QStackedWidget(self)
        self.pages.addWidget(self.setup)
        self.pages.addWidget(self.run_view)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.pages)
        self._connect()
        self.restyle()
        self.setup.demo_button.setVisible(host.demo())
        self._background.spawn(self._begin())

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
        setup.template.textChanged.connect(self.show_estimate)
        run.pauseToggled.connect(self.toggle_pause)
        run.stopRequested.connect(self.stop)
        run.retryRequested.connect(lambda: self._background.spawn(self.retry_failed()))
        run.rerunRequested.connect(lambda keys: self._background.spawn(self.run_again(keys)))
        run.timelineRequested.connect(session.host.open_run)
        run.copyRequested.connect(lambda: self._background.spawn(self.copy_results()))
        run.saveRequested.connect(self.choose_results_file)
        run.editRequested.connect(lambda: self.pages.setCurrentIndex(0))
        needs = run.needs_you
        needs.continueRequested.connect(session.continue_row)
        needs.giveUpRequested.connect(session.give_up)
        needs.answered.connect(session.answer)
        needs.allowedEveryRow.connect(session.allow_every_row)
        needs.showRequested.connect(session.bring_to_front)
        session.rowsPlanned.connect(run.model.planned)
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
        session.rowsFinished.connect(run.model.rest_finished)
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
        self.show_estimate()  # so may the settings

    @property
    def running(self) -> bool:
        return self.session.running

    # --- rows --------------------------------------------------------------------------------------------------

    def choose_file(self) -> None:
        chooser = file_dialog(self, tr("Open the rows"), str(self._rows_folder()))
        chooser.setFileMode(QFileDialog.FileMode.ExistingFile)
        chooser.setNameFilter(tr(ROWS_FILTER))
        chooser.fileSelected.connect(lambda path: self._background.spawn(self.open_file(Path(path))))
        chooser.open()

    async def open_file(self, path: Path) -> bool:
        """The person's own rows (opened, dropped or pasted): shown, and what the demo routine had set up goes."""
        if not await self._show_rows(path):
            return False
        if self._demo_setup is not None and path != self._demo.rows:
            self.setup.forget(self._demo_setup)
            self._demo_setup = None
        self.setup.to_the_task()
        return True

    async def _show_rows(self, path: Path) -> bool:
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
        self.show_estimate()
        return True

    async def paste_rows(self, text: str) -> bool:
        if not text.strip() or ("\t" not in text and "," not in text and ";" not in text):
            self.setup.show_problem(
                tr("Nothing to paste: copy the rows in your spreadsheet, the header row included, then press Paste.")
            )
            return False
        path = await asyncio.to_thread(self.folders.save_pasted, text)
        return await self.open_file(path)

    def show_estimate(self) -> None:
        """Above Run routine: about what the rows will cost, and the limit in Settings (none in the demo, which
        calls no model)."""
        table, host = self.setup.table, self.session.host
        if table is None or host.demo():
            self.setup.show_estimate("")
            return
        settings = host.settings()
        try:
            columns = len(set(parse_template(self.setup.template.toPlainText()).columns))
            words = before_run_words(
                len(table.rows), before_run(len(table.rows), columns, settings), limit_of(settings)
            )
        except ValueError as exc:  # a brace without its pair (said at Run); a limit of money without a price
            words = str(exc)
        self.setup.show_estimate(words)

    # --- saved routines ----------------------------------------------------------------------------------------

    async def _load_saved(self) -> None:
        self.setup.show_saved(await asyncio.to_thread(self.folders.load))

    async def _begin(self) -> None:
        """The saved routines listed, and what was set up when the app last closed, saved by name or not."""
        folders = self.folders
        routines, last = await asyncio.to_thread(lambda: (folders.load(), folders.last_setup()))
        self.setup.show_saved(routines)
        if last is not None and self.rows_file is None and not self.setup.template.toPlainText():
            await self.use_saved(last.routine)
            if not last.named:
                self.setup.name.clear()
            self.setup.tell(tr("As you left it last time."))

    async def use_saved(self, routine: SavedRoutine) -> None:
        self.setup.use(routine)
        rows = Path(routine.rows_file) if routine.rows_file else None
        if rows is not None and await asyncio.to_thread(rows.is_file):
            await self._show_rows(rows)

    async def keep_setup(self) -> None:
        """Keep what is set up now (not the demo's, whose site is gone at quit), for the next time Routine mode
        opens: a routine set up, or even run, but never saved is not lost at quit."""
        routine = self.setup.routine(self.rows_file)
        if (self.rows_file is None and not routine.template.strip()) or self._is_demo(routine):
            return
        try:
            await asyncio.to_thread(self.folders.keep_last_setup, routine, named=bool(self.setup.name.text().strip()))
        except OSError as exc:
            log.warning("the routine's setup was not kept: %s", exc)

    async def save_routine(self) -> SavedRoutine:
        routine = self.setup.routine(self.rows_file)
        await asyncio.to_thread(self.folders.save, routine)
        await self._load_saved()
        self.setup.name.setText(routine.name)
        self.setup.tell(tr("Saved as “{name}”.", name=routine.name))
        return routine

    # --- running -----------------------------------------------------------------------------------------------

    async def use_demo(self) -> None:
        """The demo routine: five customers from the bundled file into the demo CRM."""
        demo = self._demo
        self._demo_setup = SavedRoutine(
            name=demo.name, template=demo.template, start_url=await demo.start_url(), parallel=1
        )
        self.setup.use(self._demo_setup)
        await self._show_rows(demo.rows)

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
        await self.keep_setup()  # a crash during the run loses nothing of the setup either
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

    async def run_again(self, keys: frozenset[str]) -> RoutinePlan | None:
        """Check and run again…: the rows that may have reached the site which the person checked run again."""
        if self.last is None or self.session.running:
            return None
        options, routine, demo = self.last
        return await self._start(dataclasses.replace(options, rerun=keys), routine, demo, back_to_setup=False)

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
        earlier = await asyncio.to_thread(earlier_outcomes, options.results_path(), plan.table)
        self.run_view.model.earlier(earlier, options, plan.keys)
        self.pages.setCurrentIndex(1)
        model = self._demo.models() if demo else None
        self.session.start(plan, allowed_sites=routine.allowed_sites, model=model)
        self.runningChanged.emit(True)
        return plan

    def submit(self) -> None:
        """Ctrl+Enter in Routine mode: run the routine being set up."""
        if self.pages.currentIndex() == 0:
            self.setup.runRequested.emit()

    def say(self, words: str) -> None:
        """A line for the person on the page they see: beside Save, or under the run."""
        if self.pages.currentIndex() == 0:
            self.setup.tell(words)
        else:
            self.run_view.say(words)

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
        if request.kind != "limit":  # the whole routine's question is no row's
            self.run_view.model.waiting_for_person(request.number, True)
        self.run_view.needs_you.add(request)

    def _person_done(self, request: PersonRequest) -> None:
        self.run_view.needs_you.remove(request)
        if request.kind != "limit":
            self.run_view.model.waiting_for_person(request.number, False)

    def _progress(self, progress: RoutineProgress) -> None:
        self.run_view.show_progress(progress)
        if progress.path_learned and not self.run_view.path.text():  # a path saved by an earlier run
            self.run_view.show_paths(self.session.paths)

    def _finished(self, summary: RoutineSummary) -> None:
        self.runningChanged.emit(False)
        self.run_view.finish(summary)
        self.run_view.show_paths(self.session.paths)
        if self.last is not None and self.last[2]:  # its "model calls" next to the banner's "No AI model is called"
            self.run_view.say(
                tr("In the demo, a script on this computer gives the model's answers: no AI model is called.")
            )

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
        chooser = file_dialog(self, tr("Save the results"))
        chooser.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        chooser.setDefaultSuffix("csv")
        chooser.setNameFilter(tr("CSV (*.csv)"))
        chooser.selectFile(str(self._results_folder() / f"{self.last[1].name if self.last else 'routine'} results.csv"))
        chooser.fileSelected.connect(lambda path: self._background.spawn(self.save_results(Path(path))))
        chooser.open()

    def _results_folder(self) -> Path:
        """Beside the rows file; the home folder for rows the app keeps itself (pasted ones, the demo's)."""
        rows = self.last[0].rows_file if self.last is not None else None
        return rows.parent if rows is not None and self._persons_own(rows) else Path.home()

    def _rows_folder(self) -> Path:
        """Where Open a file… starts: beside the rows in use, else the person's Documents (else home); never the
        folder the app happened to be started in."""
        rows = self.rows_file
        if rows is not None and self._persons_own(rows):
            return rows.parent
        documents = Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation) or "~")
        return documents if documents.is_absolute() and documents.is_dir() else Path.home()

    def _persons_own(self, rows: Path) -> bool:
        """``rows`` is a file of the person's, not one the app keeps itself (pasted rows, the demo's)."""
        return not rows.is_relative_to(self.folders.root) and rows != self._demo.rows

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
        await self.keep_setup()
        await self.session.close()
        await self._demo.close()


def _clipboard_text() -> str:
    clipboard = QGuiApplication.clipboard()
    return clipboard.text() if clipboard is not None else ""
