"""Routines from the client: one task template over the rows of a CSV/XLSX file (app/routine), run in the
server's own browser windows. Nobody can take a row's browser here: a hand-off ends that row ``needs_person`` and
the others go on; a risky moment is refused.

The client names files on this computer, so what it may name is narrow. Rows: a .csv, .tsv, .xlsx or .xlsm file,
judged by the file a link leads to, a regular file (never a pipe or a device). Results: a .csv that is not a link,
and either new or this routine's own results (its header is the one the app writes); so is the default beside the
rows. Neither is ever a hidden or key-like file, nor inside the app's own folders (its profile, its History).
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
from pathlib import Path
from typing import TYPE_CHECKING

from app.background import Background
from app.core.safety.files import sensitive
from app.core.safety.secrets import mask_everywhere
from app.instance import UntrustedPanel
from app.mcp.headless import HeadlessTasks
from app.mcp.setup import McpSetup, refuse
from app.mcp.tasks import CANCEL_WAIT, FindPanel
from app.mcp.views import RoutineStatus, RoutineView
from app.routine.files import NotAFile, kind_words, read_regular
from app.routine.plan import RoutinePlan, plan_routine
from app.routine.results import header_text
from app.routine.types import RoutineOptions, RoutineProgress

if TYPE_CHECKING:
    from app.routine.runner import RoutineRunner

log = logging.getLogger(__name__)

PANEL_OPEN = (
    "The Page Agent Desktop panel is open, and its browser uses the profile a routine's windows need: close the "
    "panel, then start the routine again."
)
CLOSED = "The MCP server was closed: the rows in flight were stopped, the others skipped."
ROWS_SUFFIXES = frozenset({".csv", ".tsv", ".xlsx", ".xlsm"})
# Enough to hold any results header; a first line longer than this is not one the app wrote.
_HEADER_LIMIT = 1 << 20


class UnknownRoutine(LookupError):
    def __init__(self, routine_id: str) -> None:
        super().__init__(f"There is no routine {routine_id!r} (ids come from run_routine; forgotten on exit).")


class RoutineRegistry:
    def __init__(self, setup: McpSetup, headless: HeadlessTasks, find_panel: FindPanel) -> None:
        self._find_panel = find_panel
        self._setup = setup
        self._headless = headless
        self._views: dict[str, RoutineView] = {}
        self._changed: dict[str, asyncio.Event] = {}  # set at a routine's next change, then replaced
        self._background = Background("mcp-routines")
        self._runs: set[asyncio.Task[None]] = set()
        self._runners: dict[str, RoutineRunner] = {}  # the routines running now
        self._closing = False

    async def start(
        self, template: str, rows_path: str, results_path: str, parallel: int, start_url: str
    ) -> RoutineView:
        """ValueError (RowsError included), in plain words, for files or a template that cannot be used."""
        try:
            panel = await self._find_panel()
        except UntrustedPanel as exc:  # not a panel of this user's: its browser is not in the way
            log.warning("the panel's socket was not used: %s", exc)
            panel = None
        if panel is not None:  # its Chromium holds the browser profile the routine's windows would open
            panel[1].close()
            raise ValueError(PANEL_OPEN)
        rows = await asyncio.to_thread(self._rows_file, rows_path)
        results = await asyncio.to_thread(self._results_file, results_path) if results_path else None
        options = RoutineOptions(
            rows_file=rows,
            template=template,
            results_file=results,
            parallel=parallel,
            start_url=start_url,
            from_client=True,
        )
        plan = await asyncio.to_thread(plan_routine, options)
        await asyncio.to_thread(_check_results_ours, plan)
        view = RoutineView(
            routine_id=secrets.token_hex(6),
            status="starting",
            rows=len(plan.table.rows),
            counts={},
            results_path=str(options.results_path()),
        )
        self._views[view.routine_id] = view
        self._changed[view.routine_id] = asyncio.Event()
        run = self._background.spawn(self._run(view.routine_id, plan))
        self._runs.add(run)
        run.add_done_callback(self._runs.discard)
        return view

    def get(self, routine_id: str) -> RoutineView:
        view = self._views.get(routine_id)
        if view is None:
            raise UnknownRoutine(routine_id)
        return view

    async def changed(self, routine_id: str, timeout: float) -> RoutineView:
        """The routine's view at its next change (a row ended, it started or ended), or after ``timeout`` seconds."""
        self.get(routine_id)
        try:
            await asyncio.wait_for(self._changed[routine_id].wait(), max(timeout, 0.0))
        except TimeoutError:
            pass
        return self.get(routine_id)

    async def close(self) -> None:
        """Stop every routine as Stop does (its rows in flight end ``stopped``, the rest ``skipped``, the results and
        each row's run in History kept) and wait for its windows to close; cancel what is not done after
        ``CANCEL_WAIT``."""
        self._closing = True
        await asyncio.gather(*(runner.stop() for runner in self._runners.values()), return_exceptions=True)
        if self._runs:
            await asyncio.wait(set(self._runs), timeout=CANCEL_WAIT)
        self._background.cancel_all()

    def _rows_file(self, given: str) -> Path:
        """The real file the client's rows path names (a link is judged by what it leads to)."""
        try:
            path = _full_path(given, "rows_path").resolve()
        except (OSError, RuntimeError) as exc:  # a link that leads to itself
            raise ValueError(f"rows_path {given!r} cannot be followed to a file: {exc}.") from None
        if path.suffix.lower() not in ROWS_SUFFIXES:
            raise ValueError(
                f"rows_path must be a {', '.join(sorted(ROWS_SUFFIXES))} file (a link is judged by the file it leads "
                "to)."
            )
        self._check_place(path, "rows_path")
        if path.exists() and not path.is_file():  # a pipe would block the read, a device never ends
            raise ValueError(f"rows_path {path} is {kind_words(path.stat().st_mode)}, not a regular file.")
        return path

    def _results_file(self, given: str) -> Path:
        """The client's results path in its real folder; the file itself is never resolved: it is written, not
        followed, and a link there is refused (``_check_results_ours``)."""
        path = _full_path(given, "results_path")
        if path.suffix.lower() != ".csv":
            raise ValueError(f"results_path must be a .csv file, not {path.name!r}.")
        path = path.parent.resolve() / path.name
        self._check_place(path, "results_path")
        return path

    def _check_place(self, path: Path, name: str) -> None:
        paths = self._setup.paths
        for own in (paths.config_dir, paths.data_dir, paths.log_dir):
            if path.is_relative_to(own.resolve()):
                raise ValueError(f"{name} {path} is inside Page Agent's own folder {own}; it is never read or written.")
        if sensitive(path):
            raise ValueError(
                f"{name} {path} is a hidden file (a name on its path starts with a dot) or one that holds keys; such "
                "files are never read or written over MCP. Copy the file to a folder that is not hidden."
            )

    def _set(self, routine_id: str, status: RoutineStatus, message: str = "", **changes: object) -> None:
        view = self._views[routine_id]
        self._views[routine_id] = view.model_copy(
            update={"status": status, "message": mask_everywhere(message), **changes}
        )
        self._changed[routine_id].set()
        self._changed[routine_id] = asyncio.Event()

    async def _run(self, routine_id: str, plan: RoutinePlan) -> None:
        from app.routine.launch import RoutineSetup, open_routine

        setup = self._setup
        routine_setup = RoutineSetup(
            settings=setup.settings,
            paths=setup.paths,
            api_key=setup.api_key,
            headless=setup.headless,
            person_present=False,
            confirm=refuse,
            risky="deny",
            allowed_domains=setup.allowed_domains,
            secrets_file=setup.secrets_file,
            upload_dirs=list(setup.upload_dirs),
            max_duration=setup.max_duration,
        )
        async with self._headless.turn:  # the routine's windows use the same profile as the tasks' browser
            await self._headless.release()
            try:
                routine = await open_routine(plan, routine_setup)
            except Exception as exc:  # RoutineBusy, a browser that will not start, a safety setting: in words
                self._set(routine_id, "error", str(exc) or type(exc).__name__)
                return
            self._runners[routine_id] = routine.runner
            try:
                if self._closing:  # the server was closed while the windows opened: every row is skipped
                    await routine.runner.stop()
                self._set(routine_id, "running")

                def on_progress(progress: RoutineProgress) -> None:
                    self._set(routine_id, "running", counts=dict(progress.counts))

                routine.runner.on("progress", on_progress)
                summary = await routine.runner.run()
                if self._closing:
                    self._set(routine_id, "stopped", CLOSED, counts=dict(summary.counts))
                else:
                    self._set(routine_id, "done", counts=dict(summary.counts))
            except asyncio.CancelledError:
                self._set(routine_id, "stopped", CLOSED)
                raise
            finally:
                del self._runners[routine_id]
                await routine.close()


def _full_path(given: str, name: str) -> Path:
    """A relative path is refused, not resolved: the server's working folder is the client's choice of the moment,
    nothing the person chose."""
    path = Path(os.path.expanduser(given))
    if not path.is_absolute():
        raise ValueError(f"{name} {given!r} is not a full path; give the file's full path, starting with / or ~/.")
    return path


def _check_results_ours(plan: RoutinePlan) -> None:
    """The results are written to a new file or over this routine's own results, never over another file: the
    existing file must start with the header the app writes for this routine. Never a link, a pipe or a device."""
    path = plan.options.results_path()
    try:
        first = read_regular(path, _HEADER_LIMIT, follow_links=False)
    except FileNotFoundError:
        return
    except NotAFile as exc:
        raise ValueError(f"results_path: {exc} The results are written only to a file of their own.") from None
    except OSError as exc:
        raise ValueError(f"results_path {path} cannot be read: {exc.strerror or exc}.") from None
    header = header_text(plan.table, plan.options.output_columns)
    if not first.startswith(("\ufeff" + header).encode()):
        raise ValueError(
            f"{path} already exists and is not this routine's results (its first line is not the header the app "
            "writes for these rows). Over MCP, results go only to a new file or to this routine's own results: "
            "name a new .csv file."
        )
