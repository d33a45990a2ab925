"""What a routine stands on, built in one place for the CLI and the panel: its state (refused while another process
holds it), the model client, the browsers (local windows or remote endpoints), the safety policies, History, and
the runner over them. ``async with await open_routine(plan, setup) as routine: await routine.runner.run()``."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from app.away_notifier import AwayNotifier
from app.browser.screen_rect import ScreenRect
from app.core.agent import Agent
from app.core.llm import LLMClient
from app.core.safety.risky import ConfirmHandler, RiskyMode
from app.history.store import RunStore
from app.routine.cost import limit_of, token_price
from app.routine.plan import RoutinePlan
from app.routine.runner import RoutineRunner
from app.routine.state import RoutineStore
from app.safety_from_settings import build_guardrails, check_start_page, navigation_policy
from app.settings.model import Settings
from app.settings.paths import AppPaths
from app.settings.secrets import get_notify_url

if TYPE_CHECKING:
    from app.browser.driver import DriverStart
    from app.routine.browsers import Browsers
    from app.run_parts import RunChoices


@dataclass
class RoutineSetup:
    settings: Settings
    paths: AppPaths
    api_key: str | None = None
    headless: bool = False
    # Someone can take a row's browser (a terminal, the panel): a hand-off waits in the person queue; else the row
    # ends needs_person.
    person_present: bool = True
    # Risky moments: None asks the person through the queue; a handler answers them itself (--risky allow/deny).
    confirm: ConfirmHandler | None = None
    risky: RiskyMode = "ask"
    allowed_domains: list[str] | None = None
    secrets_file: Path | None = None
    upload_dirs: list[Path] = field(default_factory=list)
    max_duration: float | None = None
    driver: DriverStart | None = None
    llm_factory: Callable[[], LLMClient] | None = None  # in place of the configured model (tests, the demo)
    demo: bool = False  # llm_factory is the bundled demo's scripted model: History saves the rows as the demo's
    on_stop_pressed: Callable[[], None] | None = None  # Esc or the bar's Stop inside Chromium
    # The bar's "Show the panel" in a window that waits for the person (None: they are at a terminal).
    on_panel_pressed: Callable[[], None] | None = None
    window: ScreenRect | None = None  # the local Chromium's window: x, y, width, height (the panel)
    # Seconds a row waits at a hand-off before it is left for the person (0: until answered); None takes Settings'
    # hand_off_timeout (the CLI's --hand-off-timeout gives it).
    hand_off_wait: float | None = None


class OpenRoutine:
    def __init__(
        self,
        runner: RoutineRunner,
        store: RoutineStore,
        browsers: Browsers,
        model: LLMClient,
        away: AwayNotifier | None = None,
    ) -> None:
        self.runner = runner
        self._store = store
        self._browsers = browsers
        self._model = model
        self._away = away

    @property
    def says_working(self) -> bool:
        """Whether a window's bar tells the person the agent works there."""
        return any(bar.mode != "hidden" for bar in self._browsers.stop_bars)

    async def ended(self) -> None:
        """The routine is over: its windows stay for the person to look at, and no longer say the agent works in
        them (the bar inside each Chromium goes)."""
        for bar in self._browsers.stop_bars:
            with contextlib.suppress(Exception):  # a window the person closed, an endpoint that went away
                await bar.hide()

    async def close(self) -> None:
        """Close what this process started (a launched Chromium, the pages it opened elsewhere), keep the rest. A
        routine that still runs is stopped first, and its rows' endings are saved before its state closes."""
        try:
            await self.runner.wind_down()
            if self._away is not None:
                self._away.close()
            await self._browsers.close()
            from app.run_parts import close_model

            await close_model(self._model)
        finally:
            await asyncio.to_thread(self._store.close)

    async def __aenter__(self) -> OpenRoutine:
        return self

    async def __aexit__(
        self, _type: type[BaseException] | None, _exc: BaseException | None, _tb: TracebackType | None
    ) -> None:
        await self.close()


class _History:
    """A row's run in History; ``finish()`` waits for the save and says its id ("" when it could not be saved: the
    results never name an entry History does not have)."""

    def __init__(
        self, agent: Agent, runs: RunStore, settings: Settings, api_key: str | None, choices: RunChoices
    ) -> None:
        from app.run_parts import run_recorder

        self._saved = True
        self._recorder = run_recorder(agent, runs, settings, api_key, choices, self._not_saved)

    def _not_saved(self, _reason: str) -> None:
        """Told on the loop before ``flush()`` returns (the writer tells it before its save is done)."""
        self._saved = False

    async def finish(self) -> str:
        try:
            await self._recorder.flush()
        finally:
            await self._recorder.close()
        current = self._recorder.current
        return current.id if current is not None and current.tasks and self._saved else ""


async def open_routine(plan: RoutinePlan, setup: RoutineSetup) -> OpenRoutine:
    """RoutineBusy when another process runs this routine; CannotStart (plain words) for a Chromium that will not
    launch, RuntimeError for an endpoint that cannot be reached; ValueError for a safety setting that cannot be used."""
    from app.routine.browsers import local_browsers, remote_browsers
    from app.run_parts import launch_options, model_client, start_preparing
    from app.runtime import RuntimeOptions

    options = RuntimeOptions(
        headless=setup.headless,
        window=setup.window,
        # The routine's start page is a site its secrets may go to, unless an MCP client named it.
        start_url="" if plan.options.from_client else plan.options.start_url,
        allowed_domains=setup.allowed_domains,
        secrets_file=setup.secrets_file,
        upload_dirs=setup.upload_dirs,
        risky=setup.risky,
        person_present=setup.person_present,
    )
    settings, paths = setup.settings, setup.paths
    limit = limit_of(settings)
    if plan.options.start_url:
        check_start_page(navigation_policy(settings, options), plan.options.start_url, "--url")
    guardrails = await asyncio.to_thread(build_guardrails, settings, paths, options, setup.confirm)
    notify_url = await asyncio.to_thread(get_notify_url) if setup.person_present else ""
    store = await asyncio.to_thread(RoutineStore.open, plan.options.results_path())
    try:
        model = setup.llm_factory() if setup.llm_factory is not None else model_client(settings, setup.api_key, options)
        preparing = start_preparing(model)
        try:
            if plan.options.endpoints:
                browsers = await remote_browsers(
                    list(plan.options.endpoints), plan.options.parallel, paths.downloads_dir
                )
            else:
                browsers = await local_browsers(
                    launch_options(settings, paths, options),
                    plan.options.parallel,
                    await setup.driver.take() if setup.driver is not None else None,
                )
        finally:
            if preparing is not None:
                await asyncio.wait({preparing})
    except BaseException:
        await asyncio.to_thread(store.close)
        raise
    if setup.on_stop_pressed is not None:  # Esc or Stop in any of the routine's windows, in every browser
        await browsers.stop_with(setup.on_stop_pressed, setup.on_panel_pressed)
    config = settings.agent_config()
    if setup.max_duration:
        config = config.model_copy(update={"max_duration": setup.max_duration})
    runs = RunStore(paths.runs_dir)
    # The demo's rows are saved as the demo's (no model was called); its safety stays the routine's own.
    saved_as = dataclasses.replace(options, demo=setup.demo)
    wait = setup.hand_off_wait if setup.hand_off_wait is not None else settings.hand_off_timeout * 60
    runner = RoutineRunner(
        plan,
        store,
        browsers.lanes,
        model,
        config=config,
        guardrails=guardrails,
        person_present=setup.person_present,
        confirm=setup.confirm,
        history=lambda agent: _History(agent, runs, settings, setup.api_key, saved_as),
        hand_off_wait=wait or None,
        price=token_price(settings),
        limit=limit,
    )
    browsers.tell(runner.browser_note)
    if setup.on_stop_pressed is not None:
        from app.routine.bars import RoutineBars

        RoutineBars(browsers, runner)  # held by the runner's listeners
    away = AwayNotifier(notify_url, round(wait / 60)) if notify_url else None
    if away is not None:
        runner.on("person_needed", away.person_needed)
    return OpenRoutine(runner, store, browsers, model, away)
