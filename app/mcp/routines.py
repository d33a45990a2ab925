"""Routines from the client: one task template over the rows of a CSV/XLSX file (app/routine), run in the
server's own browser windows. Nobody can take a row's browser here: a hand-off ends that row ``needs_person`` and
the others go on; a risky moment is refused.

The client names files on this computer, so only rows files (.csv, .tsv, .xlsx, .xlsm) are read and only a .csv is
written, never inside the app's own folders (its profile, its History).
"""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path

from app.background import Background
from app.core.safety.secrets import mask_everywhere
from app.mcp.headless import HeadlessTasks
from app.mcp.setup import McpSetup, refuse
from app.mcp.tasks import FindPanel
from app.mcp.views import RoutineStatus, RoutineView
from app.routine.plan import RoutinePlan, plan_routine
from app.routine.types import Progress, RoutineOptions

PANEL_OPEN = (
    "The Page Agent Desktop panel is open, and its browser uses the profile a routine's windows need: close the "
    "panel, then start the routine again."
)
ROWS_SUFFIXES = frozenset({".csv", ".tsv", ".xlsx", ".xlsm"})


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

    async def start(
        self, template: str, rows_path: str, results_path: str, parallel: int, start_url: str
    ) -> RoutineView:
        """ValueError (RowsError included), in plain words, for files or a template that cannot be used."""
        panel = await self._find_panel()
        if panel is not None:  # its Chromium holds the browser profile the routine's windows would open
            panel[1].close()
            raise ValueError(PANEL_OPEN)
        rows = await asyncio.to_thread(self._checked, rows_path, ROWS_SUFFIXES, "rows_path")
        results = None
        if results_path:
            results = await asyncio.to_thread(self._checked, results_path, frozenset({".csv"}), "results_path")
        options = RoutineOptions(
            rows_file=rows,
            template=template,
            results_file=results,
            parallel=parallel,
            start_url=start_url,
            from_client=True,
        )
        plan = await asyncio.to_thread(plan_routine, options)
        view = RoutineView(
            routine_id=secrets.token_hex(6),
            status="starting",
            rows=len(plan.table.rows),
            counts={},
            results_path=str(options.results_path()),
        )
        self._views[view.routine_id] = view
        self._changed[view.routine_id] = asyncio.Event()
        self._background.spawn(self._run(view.routine_id, plan))
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
        self._background.cancel_all()

    def _checked(self, given: str, suffixes: frozenset[str], name: str) -> Path:
        path = Path(given).expanduser()
        if path.suffix.lower() not in suffixes:
            raise ValueError(f"{name} must be a {', '.join(sorted(suffixes))} file, not {path.name!r}.")
        path = path.resolve()
        paths = self._setup.paths
        for own in (paths.config_dir, paths.data_dir, paths.log_dir):
            if path.is_relative_to(own.resolve()):
                raise ValueError(f"{name} {path} is inside Page Agent's own folder {own}; it is never read or written.")
        return path

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
            try:
                self._set(routine_id, "running")

                def on_progress(progress: Progress) -> None:
                    self._set(routine_id, "running", counts=dict(progress.counts))

                routine.runner.on("progress", on_progress)
                summary = await routine.runner.run()
                self._set(routine_id, "done", counts=dict(summary.counts))
            except asyncio.CancelledError:
                await routine.runner.stop()
                self._set(routine_id, "stopped", "The MCP server was closed.")
                raise
            finally:
                await routine.close()
