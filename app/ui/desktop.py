"""The panel's composition root: settings, the runtime, the window, the dialogs, run history and a clean shutdown.

Startup decides between a real model and the offline demo: without a usable endpoint (no key, not a local
server) the panel opens in demo mode and, unless the demo was asked for, the first-run settings explain why. That
holds after a restart too: a key that no keyring could keep is gone then, and the demo is back.

The language is read once, at start: a language chosen in Settings is saved and applies, everywhere at once, the next
time the app opens (the panel says so); until then nothing switches. The theme applies at once.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QDialog

from app.background import Background
from app.browser.chromium import ChromiumNotFoundError
from app.demo.bundle import DemoBundle
from app.run_parts import run_recorder
from app.runtime import Runtime, RuntimeOptions
from app.settings.model import (
    LoadedSettings,
    Settings,
    SettingsUnreadable,
    endpoint_ready,
    read_settings,
    save_settings,
)
from app.settings.paths import AppPaths
from app.settings.secrets import get_api_key
from app.text.i18n import language, set_language, tr
from app.ui import style
from app.ui.crash_notice import CrashNotices
from app.ui.dialog_widgets import run_dialog
from app.ui.main_window import MainWindow
from app.ui.panel_door import PanelDoor
from app.ui.panel_state import PanelState
from app.ui.placement.panel import place_beside_browser, restore_geometry, save_geometry, tile_with_browser
from app.ui.placement.side_windows import SideWindows
from app.ui.placement.tiling import BrowserTiler

if TYPE_CHECKING:
    from app.core.agent import Agent
    from app.history.recorder import RunRecorder
    from app.history.store import RunStore
    from app.ui.routine.panel import RoutinePanel
    from app.ui.saved_run_window import SavedRunWindow

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LaunchChoices:
    """What the command line asked for."""

    demo: bool = False
    replay: Path | None = None
    record: Path | None = None
    headless: bool = False  # tests and benchmarks; the app always shows Chromium


class Desktop:
    def __init__(self, paths: AppPaths, choices: LaunchChoices) -> None:
        self._paths = paths
        self._choices = choices
        self._store: RunStore | None = None
        self._api_key: str | None = None
        self._recorder: RunRecorder | None = None
        self._closed: asyncio.Event | None = None
        self._settings_open = False
        self._side: SideWindows | None = None
        self._browser_opening: asyncio.Task[Any] | None = None
        self._background = Background("desktop")
        self.runtime: Runtime | None = None
        self.window: MainWindow | None = None
        self._tiler: BrowserTiler | None = None
        self._door: PanelDoor | None = None
        self._demo = DemoBundle()  # the runtime plays it in demo mode and stops its site at shutdown
        self.crash_notices = CrashNotices()  # what the crash reports' hooks tell (app/ui/app.py)

    # --- lifetime ----------------------------------------------------------------------------------------------

    async def run(self) -> int:
        """Open the panel, wait until it is closed (or ``close()`` is called), then shut everything down."""
        self._closed = asyncio.Event()
        await self.start()
        await self._closed.wait()
        await self.shutdown()
        return 0

    def close(self, *, force: bool = False) -> None:
        """Close the panel as the user would (Ctrl+C comes here): during a run the panel asks first, and a second
        Ctrl+C while it asks quits. ``force`` (SIGTERM) quits without a question."""
        if self.window is not None and self.window.isVisible():
            if force:
                self.window.quit_now()
            else:
                self.window.close()
        elif self._closed is not None:
            self._closed.set()

    async def start(self) -> MainWindow:
        """Show the panel at once ("Starting the browser…"), then read the key, then open Chromium beside it."""
        loaded, unreadable = await _read_settings(self._paths.settings_file)
        settings = loaded.settings
        set_language(settings.language)
        style.use_theme(settings.theme)
        choices = self._choices
        # The key comes from the environment or the keyring (slow to load the first time): read while the panel
        # shows; nothing is built before it is known (a task started meanwhile waits for it).
        key = asyncio.ensure_future(asyncio.to_thread(get_api_key, settings.provider))
        known: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        options = RuntimeOptions(
            headless=choices.headless, demo=choices.demo, replay=choices.replay, record=choices.record
        )
        self.runtime = Runtime(settings, self._paths, options, demo=self._demo)
        self.runtime.build_after(known)
        self.runtime.on_agent(self._record_runs)
        self.window = MainWindow(self.runtime)
        self._side = SideWindows(self.window, self._run_store)
        self._place_windows(settings)
        if not choices.headless:  # Chromium follows the panel; the two never cover each other
            tiler = self._tiler = BrowserTiler(self.window, self.runtime.place_browser)
            self.runtime.on_browser_maximized(tiler.fill_screen)
        self.window.settingsRequested.connect(lambda: self._background.spawn(self.open_settings()))
        self.window.historyRequested.connect(self.open_history)
        self.window.demoRequested.connect(lambda: self._background.spawn(self.try_demo()))
        self.window.closing.connect(self._on_closing)
        self.window.browserMissing.connect(self._offer_browser)
        self.window.modes.offer_routines(self._routine_page)
        self.window.modes.changed.connect(self._mode_changed)
        self.window.browser_offer.browserReady.connect(self._browser_downloaded)
        self.window.show_demo_mode(choices.demo, self._demo.task)
        # A second launch brings this panel forward, and MCP tasks run in it (app/ui/panel_door.py).
        self._door = PanelDoor(self.window, self.runtime, self._run_id)
        await self._door.open()
        self.window.enter(PanelState.OPENING)
        self.window.show()
        self.window.composer.focus_default()
        if unreadable or loaded.damaged:
            self.window.model.add_notice(unreadable or _damaged_settings_notice(loaded))
        try:
            self._api_key = await key
        finally:
            ready = _ready(settings, self._api_key)
            demo = choices.demo or (not ready and choices.replay is None)
            self.runtime.use_key(self._api_key)
            self.runtime.options.demo = demo
            known.set_result(None)
        self.window.show_demo_mode(demo, self._demo.task)
        # Chromium opens with the panel, so the first task starts at once.
        self._browser_opening = self._background.spawn(self._open_browser())
        # The first start without a model asks how to begin; once the demo was chosen it simply opens again (the
        # panel offers "Use your own model"), unless a key typed earlier was lost with its session.
        if not ready and not choices.demo and choices.replay is None:
            if not settings.first_run_done or settings.api_access_not_kept:
                self._background.spawn(self.open_settings(first_run=True))
        return self.window

    async def shutdown(self) -> None:
        """Stop the agent, close Chromium and the demo site, and finish writing history. Safe to call twice."""
        if self._door is not None:
            await self._door.close()
            self._door = None
        if self.window is not None:
            await self._save_geometry(save_geometry(self.window))
        routine = self.window.modes.routine if self.window is not None else None
        if routine is not None:
            await routine.shutdown()
        if self.runtime is not None:
            await self.runtime.shutdown()
        if self._recorder is not None:
            await self._recorder.close()
            self._recorder = None
        if self._side is not None:
            self._side.close_all()
        self._background.cancel_all()

    def _on_closing(self) -> None:
        if self._closed is not None:
            self._closed.set()

    # --- windows -----------------------------------------------------------------------------------------------

    def _place_windows(self, settings: Settings) -> None:
        """The panel where the user left it (else at the screen's left), snapped to a screen edge; Chromium takes the
        rest of the screen."""
        assert self.window is not None and self.runtime is not None
        browser = place_beside_browser(self.window)
        if restore_geometry(self.window, settings.panel_geometry):
            browser = tile_with_browser(self.window)
        self.runtime.options.window = browser

    async def _open_browser(self) -> None:
        assert self.runtime is not None and self.window is not None
        try:
            await self.runtime.agent()
        except ChromiumNotFoundError:
            self._offer_browser()
            return
        except Exception as exc:
            log.warning("could not open Chromium: %s", exc)
            self.window.model.add_notice(tr("Chromium did not start: {reason}", reason=str(exc) or type(exc).__name__))
            return
        finally:
            self.window.browser_opened()
            self.crash_notices.browser_opened(self.window)
        # What startup built (modules, Qt wrappers, Playwright's objects) lives until exit: frozen, it is no longer
        # walked by every full collection, which otherwise stalls the panel for 40-60 ms now and then.
        gc.freeze()

    def _offer_browser(self) -> None:
        assert self.window is not None
        self.window.browser_offer.offer(self._paths.data_dir)

    def _browser_downloaded(self) -> None:
        assert self.window is not None
        self.window.model.add_notice(tr("The browser is ready. Page Agent uses it from now on."))
        self._browser_opening = self._background.spawn(self._open_browser())

    async def _save_geometry(self, geometry: str) -> None:
        await self._keep({"panel_geometry": geometry})

    async def _remember_first_run(self) -> None:
        """The person chose the demo for now: the next start opens it again rather than the welcome."""
        assert self.runtime is not None
        if not self.runtime.settings.first_run_done:
            await self._keep({"first_run_done": True})

    async def _keep(self, changes: dict[str, object]) -> None:
        """Save ``changes`` to the settings (the panel's own bookkeeping: a failure is only logged)."""
        assert self.runtime is not None
        settings = self.runtime.settings.model_copy(update=changes)
        self.runtime.settings = settings
        try:
            await asyncio.to_thread(save_settings, self._paths.settings_file, settings)
        except OSError as exc:
            log.warning("could not save the settings: %s", exc)

    # --- routines ----------------------------------------------------------------------------------------------

    def _routine_page(self) -> RoutinePanel:
        """Routine mode, built the first time it is chosen (the panel opens without the routine engine)."""
        from app.demo.routine import DemoRoutineBundle
        from app.ui.routine.calls import RowCalls
        from app.ui.routine.panel import RoutinePanel
        from app.ui.routine.session import RoutineHost

        runtime = self.runtime
        assert runtime is not None
        host = RoutineHost(
            settings=lambda: runtime.settings,
            paths=self._paths,
            api_key=lambda: self._api_key,
            demo=lambda: runtime.demo,
            release_browser=runtime.release_browser,
            browser_back=lambda: self._background.spawn(self._open_browser()),
            window=lambda: runtime.options.window,
            open_run=lambda run_id: self._background.spawn(self._open_saved_run(run_id)),
            demo_routine=DemoRoutineBundle(),
            headless=self._choices.headless,
            bring_back=self._panel_forward,
        )
        page = RoutinePanel(host)
        assert self.window is not None
        RowCalls(page, self.window.moments.attention, lambda: runtime.settings.hand_off_sound)
        return page

    def _panel_forward(self) -> None:
        if self.window is not None:
            self.window.moments.bring_back()

    def _mode_changed(self, routine: bool) -> None:
        page = self.window.modes.routine if self.window is not None else None
        if not routine and page is not None:
            self._background.spawn(page.leave())  # its windows close; the single task's browser comes back

    async def _open_saved_run(self, run_id: str) -> None:
        """A routine row's run, from History, in a saved-run window."""
        from app.history.store import RunStoreError

        try:
            record = await asyncio.to_thread(self._run_store().load, run_id)
        except RunStoreError as exc:
            log.warning("could not open the row's run %s: %s", run_id, exc)
            return
        if self._side is not None:
            self._side.open_run(record)

    # --- settings ----------------------------------------------------------------------------------------------

    async def open_settings(self, *, first_run: bool = False) -> None:
        assert self.runtime is not None and self.window is not None
        if self._settings_open:
            return
        self._settings_open = True
        from app.ui.settings.dialog import SettingsDialog  # opened on demand: not on the way to the panel

        if first_run:
            # Nothing is chosen yet: no demo banner beside the question whether to try the demo.
            self.window.show_demo_mode(False)
        try:
            dialog = SettingsDialog(
                self.runtime.settings,
                detected_browser=await self.runtime.detected_browser(),
                first_run=first_run,
                parent=self.window,
                paths=self._paths,
                session_key=self._api_key,
            )
            if self._browser_opening is not None and not self._browser_opening.done():
                # Chromium's window comes up over the browser's side of the screen, where the dialog sits.
                self._browser_opening.add_done_callback(lambda _task: _bring_forward(dialog))
            code = await run_dialog(dialog)
        finally:
            self._settings_open = False
        if code != QDialog.DialogCode.Accepted:
            # Cancel, or "Try the demo" on the first-run screen: the panel is in demo mode (and a first run is done).
            if first_run:
                self.window.show_demo_mode(self.runtime.demo, self._demo.task)
                await self._remember_first_run()
            return
        settings = dialog.result_settings().model_copy(update={"panel_geometry": save_geometry(self.window)})
        saved_language = self.runtime.settings.language
        # Closing the panel saves the runtime's settings with the panel's place: let those be the new ones from now
        # on, even while a running task (or Chromium starting) keeps them from applying yet.
        self.runtime.settings = settings.model_copy(update={"running_language": language()})
        try:
            await asyncio.to_thread(save_settings, self._paths.settings_file, settings)
        except OSError as exc:
            self.window.model.add_notice(tr("The settings were not saved: {reason}", reason=str(exc)))
        if dialog.key_kept_in_memory:
            self.window.model.add_notice(
                tr("No system keyring: the key is kept until you quit; you'll be asked again next time.")
            )
        for name in dialog.secrets_kept_in_memory:
            self.window.model.add_notice(
                tr(
                    "No system keyring: the secret “{name}” is kept until you quit. Install a keyring (GNOME Keyring, "
                    "KWallet) to keep it, or give it as {variable}.",
                    name=name,
                    variable=f"PAGE_AGENT_SECRET_{name.upper()}",
                )
            )
        if settings.language not in (saved_language, language()):
            self.window.model.add_notice(tr("The language changes the next time you open Page Agent."))
        style.use_theme(settings.theme)
        await self.apply(settings, dialog.result_api_key())

    async def apply(self, settings: Settings, api_key: str | None) -> None:
        """Use new settings from the next task on; a running task finishes with the ones it started with."""
        assert self.runtime is not None and self.window is not None
        run = self.window.current_run
        if run is not None and not run.done():
            self.window.model.add_notice(tr("The new settings apply from your next task."))
            await asyncio.wait({run})
        self._api_key = api_key
        # The agent, like the panel, keeps the language the app started in (see the module's docstring).
        await self.runtime.apply_settings(settings.model_copy(update={"running_language": language()}), api_key)
        demo = self._choices.demo or (not _ready(settings, api_key) and self._choices.replay is None)
        await self.runtime.set_demo(demo)
        self.window.show_demo_mode(demo, self._demo.task)

    # --- history -----------------------------------------------------------------------------------------------

    def _run_store(self) -> RunStore:
        from app.history.store import RunStore  # read when History opens or a run is saved

        if self._store is None:
            self._store = RunStore(self._paths.runs_dir)
        return self._store

    def open_history(self) -> None:
        if self._side is not None:  # History is opened from the panel, which exists from start() on
            self._side.open_history()

    @property
    def saved_runs(self) -> list[SavedRunWindow]:
        """The saved runs open now, each in its own window."""
        return self._side.saved_runs if self._side is not None else []

    async def try_demo(self) -> None:
        """ "Try the demo" from the panel: the demo for this session, whatever the saved settings say."""
        assert self.runtime is not None and self.window is not None
        if self.window.busy:
            return
        # The panel answers the click at once; Chromium goes to the demo site meanwhile.
        self.window.new_task()
        self.window.show_demo_mode(True, self._demo.task)
        await self.runtime.set_demo(True)

    def _record_runs(self, agent: Agent) -> None:
        """Each new agent gets a recorder; a follow-up on the same agent joins the same saved run."""
        assert self.runtime is not None
        runtime = self.runtime
        previous, self._recorder = (
            self._recorder,
            run_recorder(
                agent, self._run_store(), runtime.settings, self._api_key, runtime.options, self._run_not_saved
            ),
        )
        if previous is not None:
            self._background.spawn(previous.close())

    def _run_id(self) -> str:
        """The id in History of the run being recorded (its last task's), "" before the first."""
        record = self._recorder.current if self._recorder is not None else None
        return record.id if record is not None else ""

    def _run_not_saved(self, reason: str) -> None:
        if self.window is not None:
            self.window.model.add_notice(
                tr("This run could not be saved to the history ({reason}). Its result is above.", reason=reason)
            )


def _ready(settings: Settings, api_key: str | None) -> bool:
    """A model can be called: an endpoint that needs no key, or its key, which a key typed but not kept (no
    keyring) is not replaced by."""
    return endpoint_ready(settings, api_key) and not (settings.api_access_not_kept and not api_key)


async def _read_settings(path: Path) -> tuple[LoadedSettings, str]:
    """The saved settings, and what to tell the user when the file cannot be read at all (the panel then starts
    with the defaults)."""
    try:
        return await asyncio.to_thread(read_settings, path), ""
    except SettingsUnreadable as exc:
        log.warning("%s", exc)
        return LoadedSettings(Settings()), tr(
            "The settings file cannot be read, so the app started with its defaults: {problem}", problem=str(exc)
        )


def _damaged_settings_notice(loaded: LoadedSettings) -> str:
    if loaded.reset:
        text = tr(
            "Some settings were damaged and are back to their defaults: {names}.",
            names=", ".join(name.replace("_", " ") for name in loaded.reset),
        )
    else:
        text = tr("The settings file was damaged; every setting is back to its default.")
    if loaded.kept_aside is not None:
        text += " " + tr("The damaged file was kept as {path}.", path=str(loaded.kept_aside))
    return text


def _bring_forward(dialog: QDialog) -> None:
    if dialog.isVisible():
        dialog.raise_()
        dialog.activateWindow()
