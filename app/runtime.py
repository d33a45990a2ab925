"""Owns what a run stands on: Chromium, the model client and the agent. Shared by the panel and the CLI.

The agent is kept across follow-ups; it is rebuilt when the settings change or Chromium had to be relaunched.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from app.background import Background
from app.browser.screen_rect import ScreenRect
from app.core.abort import AbortSignal
from app.core.agent import Agent
from app.core.errors import BrowserClosedError
from app.core.llm import LLMClient
from app.core.safety.guardrails import Guardrails
from app.core.safety.risky import ConfirmHandler, ConfirmRequest, RiskyMode
from app.core.safety.secrets import Secret
from app.core.tools.base import AskUserHandler
from app.llm.cassette import ReplayClient
from app.run_parts import close_model, launch_options, model_client, start_preparing
from app.safety_from_settings import build_guardrails, check_start_page, navigation_policy
from app.settings.model import Settings
from app.settings.paths import AppPaths

if TYPE_CHECKING:
    from playwright.async_api import Page

    from app.browser.controller import PlaywrightPageController
    from app.browser.driver import DriverStart
    from app.browser.session import BrowserSession

log = logging.getLogger(__name__)

# Builds the model client in place of the configured one (tests/demo/record_cassette.py scripts its own model).
LLMFactory = Callable[[], LLMClient]


class Demo(Protocol):
    """The bundled demo, as the entry points hand it over (app/demo/bundle.py): the runtime plays it in demo mode and
    knows nothing else of it."""

    @property
    def secret(self) -> Secret:
        """The named secret its task signs in with, in place of a saved one of the same name."""
        ...

    def model(self, cassette: Path | None = None, pace: float | None = None) -> LLMClient:
        """Its replayed model (``cassette``: another recording, played the demo's way; ``pace``: None, its own)."""
        ...

    async def start_page(self) -> str:
        """Where every demo run starts (its local site starts the first time)."""
        ...

    async def close(self) -> None:
        """Stop what ``start_page`` started."""
        ...


@dataclass
class RuntimeOptions:
    headless: bool = False
    cdp_url: str | None = None
    demo: bool = False
    replay: Path | None = None
    record: Path | None = None
    max_duration: float | None = None
    window: ScreenRect | None = None
    replay_pace: float | None = None
    # CLI safety options; None/empty: the saved settings apply.
    allowed_domains: list[str] | None = None
    secrets_file: Path | None = None
    upload_dirs: list[Path] = field(default_factory=list)
    risky: RiskyMode = "ask"
    # Someone can take the browser when the agent hands it over; False (the CLI without a terminal): a hand-off ends
    # the run as needs_person.
    person_present: bool = True
    # Playwright's driver, already starting (the CLI starts it while it imports the run); None: start one at launch.
    driver: DriverStart | None = None
    # The page to open as Chromium starts, instead of the saved start page (the CLI's --url): it loads and settles
    # while the model's SDK is still being imported.
    start_url: str = ""


class Runtime:
    def __init__(
        self,
        settings: Settings,
        paths: AppPaths,
        options: RuntimeOptions | None = None,
        *,
        api_key: str | None = None,
        llm_factory: LLMFactory | None = None,
        demo: Demo | None = None,
    ) -> None:
        self.settings = settings
        self.paths = paths
        self.options = options or RuntimeOptions()
        self._api_key = api_key
        self._llm_factory = llm_factory
        self._demo = demo  # played while options.demo is on
        self._ask_user: AskUserHandler | None = None
        self._confirm: ConfirmHandler | None = None
        self._closed_callbacks: list[Callable[[], None]] = []
        # Imported when Chromium is first launched: the panel shows before Playwright is loaded.
        self._browser: BrowserSession | None = None
        self._controller: PlaywrightPageController | None = None
        self._llm: LLMClient | None = None
        # Why the --record cassette is incomplete (a full disk), once it is; the run itself goes on.
        self.recording_failure: str | None = None
        self._llm_ready: LLMClient | None = None  # built while Chromium starts, for the agent built next
        self._agent: Agent | None = None
        self._agent_callbacks: list[Callable[[Agent], None]] = []
        self._stop_callbacks: list[Callable[[], None]] = []
        self._panel_callbacks: list[Callable[[], None]] = []
        self._maximized_callbacks: list[Callable[[], None]] = []
        self._background = Background("runtime")
        # One agent at a time: the panel opens Chromium at startup while the user may already press Run.
        self._lock = asyncio.Lock()
        self._known: asyncio.Future[None] | None = None

    @property
    def demo(self) -> bool:
        return self.options.demo

    def build_after(self, known: asyncio.Future[None]) -> None:
        """Build nothing before ``known`` is done: the panel shows before the key is read (``use_key``)."""
        self._known = known

    def use_key(self, api_key: str | None) -> None:
        """The key read after the runtime was made, for the first agent (later changes go through apply_settings)."""
        self._api_key = api_key

    def set_ask_user(self, handler: AskUserHandler | None) -> None:
        """The handler for agents built from now on (set it before the first ``agent()``)."""
        self._ask_user = handler

    def set_confirm(self, handler: ConfirmHandler | None) -> None:
        """Who answers risky moments (a page's confirm(), an irreversible click) for agents built from now on."""
        self._confirm = handler

    def on_browser_closed(self, callback: Callable[[], None]) -> None:
        self._closed_callbacks.append(callback)

    def on_agent(self, callback: Callable[[Agent], None]) -> None:
        """Call ``callback(agent)`` for every agent built from now on (run history subscribes here)."""
        self._agent_callbacks.append(callback)

    def on_stop_requested(self, callback: Callable[[], None]) -> None:
        """Call ``callback()`` when the user presses Stop or Esc inside Chromium during a run. Without any callback
        the runtime stops the agent itself (the CLI)."""
        self._stop_callbacks.append(callback)

    def on_panel_requested(self, callback: Callable[[], None]) -> None:
        """Call ``callback()`` when, while a run waits for the person, they press "Show the panel" in Chromium's bar.
        Register before Chromium opens; without any, the bar points at the terminal instead."""
        self._panel_callbacks.append(callback)

    def on_browser_maximized(self, callback: Callable[[], None]) -> None:
        """Call ``callback()`` when the person maximizes Chromium's window (the pair then fills the screen)."""
        self._maximized_callbacks.append(callback)

    async def place_browser(self, rect: ScreenRect) -> None:
        """Move and size Chromium's window (x, y, width, height); remembered for a Chromium launched later."""
        self.options.window = rect
        if self._browser is not None and self._browser.is_connected:
            await self._browser.set_window_bounds(rect)

    async def apply_settings(self, settings: Settings, api_key: str | None) -> None:
        async with self._lock:
            self.settings = settings
            self._api_key = api_key
            await self._drop_agent()

    async def set_demo(self, demo: bool) -> None:
        """Switch between the replayed demo and the real model; an open Chromium goes to the new start page."""
        if demo == self.options.demo:
            return
        async with self._lock:
            self.options.demo = demo
            await self._drop_agent()
            if self._browser is not None and self._browser.is_connected:
                await self._go_to_start_page()

    def page_url(self) -> str:
        """The address of the tab the agent works in; "" while Chromium is not open."""
        page = self.active_page
        return page.url if page is not None else ""

    @property
    def active_page(self) -> Page | None:
        """The tab the agent works in (None while Chromium is not open), for whoever plays the person at the
        keyboard: the demo cassette's generator and tests solve the captcha there."""
        if self._browser is None or not self._browser.is_connected:
            return None
        return self._browser.active_page

    async def detected_browser(self) -> str:
        """The Chromium the app would launch when no path is configured, or "" when there is none."""
        from app.browser.chromium import ChromiumNotFoundError, find_chromium

        try:
            return await find_chromium(None, self.paths.data_dir)
        except ChromiumNotFoundError:
            return ""

    async def agent(self, *, new_task: bool = False) -> Agent:
        """The agent, with Chromium open. ``new_task``: the next task is not a follow-up, so a replay starts over
        (and the demo from its sign-in page, so that "New task" runs the demo again)."""
        if self._known is not None:
            await asyncio.shield(self._known)
        async with self._lock:
            preparing: asyncio.Future[None] | None = None
            if self._browser is None or not self._browser.is_connected:
                await self._drop_agent()
                preparing = self._prepare_llm()
                try:
                    await self._launch_browser()
                finally:
                    if preparing is not None and not preparing.done():
                        await asyncio.wait({preparing})  # a worker thread's import cannot be cancelled
            if self._agent is None:
                config = self.settings.agent_config()
                if self.options.max_duration:
                    config = config.model_copy(update={"max_duration": self.options.max_duration})
                self._llm = self._llm_ready or self._build_llm()
                self._llm_ready = None
                # Off the loop: it reads the secrets file and the keyring.
                guardrails = await asyncio.to_thread(
                    build_guardrails,
                    self.settings,
                    self.paths,
                    self.options,
                    self._confirm_handler(),
                    self._the_demo().secret if self.options.demo else None,
                )
                controller = self._live_controller()
                controller.guardrails = guardrails
                self._agent = Agent(
                    self._llm,
                    controller,
                    config,
                    ask_user=self._ask_user,
                    guardrails=guardrails,
                    person_present=self.options.person_present,
                )
                controller.stop_bar.follow(self._agent)
                for callback in list(self._agent_callbacks):
                    callback(self._agent)
            elif new_task and isinstance(self._llm, ReplayClient) and self._llm.position:
                self._llm.rewind()
                if self.options.demo:
                    await self._go_to_start_page()
            return self._agent

    async def release_browser(self) -> None:
        """Close Chromium (not the demo site) so that another launch can take the profile: a routine's own
        windows. The next ``agent()`` opens it again; the browser-closed callbacks are not called."""
        async with self._lock:
            await self._drop_agent()
            if self._browser is not None:
                await self._browser.close()
                self._browser = None
                self._controller = None

    async def open_page(self, url: str) -> None:
        """Open ``url`` in the agent's tab before a task (an MCP client's start page). Refused, in plain words, outside
        the allowed sites; call it once ``agent()`` has opened Chromium."""
        check_start_page(navigation_policy(self.settings, self.options), url, "The start page")
        await self._live_controller().open(url, AbortSignal())

    async def shutdown(self) -> None:
        # Under the lock: a Chromium still starting is closed once it is up, never left behind.
        async with self._lock:
            await self._drop_agent()
            if self._browser is not None:
                await self._browser.close()
                self._browser = None
            if self._demo is not None:
                await self._demo.close()

    # --- building ----------------------------------------------------------------------------------------------

    def _prepare_llm(self) -> asyncio.Future[None] | None:
        """Build the model client now, for the agent built next, and let it get ready while Chromium starts."""
        self._llm_ready = self._build_llm()
        return start_preparing(self._llm_ready)

    def _build_llm(self) -> LLMClient:
        if self._llm_factory is not None:
            return self._llm_factory()
        if self.options.demo:
            return self._the_demo().model(self.options.replay, self.options.replay_pace)
        return model_client(self.settings, self._api_key, self.options, self._recording_failed)

    async def _launch_browser(self) -> None:
        from app.browser.controller import PlaywrightPageController
        from app.browser.session import BrowserSession

        launched_with = self.options.window
        playwright = await self.options.driver.take() if self.options.driver is not None else None
        if self.options.cdp_url:
            session = await BrowserSession.attach(
                self.options.cdp_url, downloads_dir=self.paths.downloads_dir, playwright=playwright
            )
        else:
            session = await BrowserSession.launch(
                launch_options(self.settings, self.paths, self.options), playwright=playwright
            )
        window = self.options.window
        if window is not None and window != launched_with and not self.options.cdp_url and not self.options.headless:
            # The panel moved while Chromium started: it goes where the panel now leaves room.
            await session.set_window_bounds(window)
        session.on_closed(self._browser_closed)
        self._browser = session
        self._controller = controller = PlaywrightPageController(session)
        on_panel = self._panel_requested if self._panel_callbacks else None
        await controller.stop_bar.install(self._stop_requested, on_panel)
        if self._maximized_callbacks:
            controller.stop_bar.follow_resizes(self._browser_resized)
        try:
            navigation = navigation_policy(self.settings, self.options)
        except ValueError:
            return  # allowed sites that cannot be read: no page opens, and a task says why when it starts
        # The allowed sites hold from the very first navigation: the start page's own redirects (by script, by meta
        # refresh) are routed like every later one. The agent's full guardrails replace these when it is built.
        controller.guardrails = Guardrails(navigation=navigation)
        await self._go_to_start_page()

    async def _go_to_start_page(self) -> None:
        start = await self._start_page()
        if start:
            check_start_page(navigation_policy(self.settings, self.options), start, "The start page")
            await self._live_controller().open(start, AbortSignal())

    async def _start_page(self) -> str:
        if self.options.demo:
            return await self._the_demo().start_page()
        if self.options.start_url:
            return self.options.start_url
        return "" if self.options.cdp_url else self.settings.start_url

    def _the_demo(self) -> Demo:
        if self._demo is None:
            raise RuntimeError("demo mode, but no demo was handed to the runtime")
        return self._demo

    def _confirm_handler(self) -> ConfirmHandler | None:
        """The Allow/Cancel handler, with Chromium's bar saying "Your turn" while it waits for the person."""
        handler = self._confirm
        if handler is None:
            return None

        async def asking(request: ConfirmRequest, signal: AbortSignal) -> bool:
            if self._controller is None:
                return await handler(request, signal)
            with self._controller.stop_bar.waiting_for_person():
                return await handler(request, signal)

        return asking

    def _live_controller(self) -> PlaywrightPageController:
        if self._controller is None:
            raise BrowserClosedError("Chromium is not open.")
        return self._controller

    def _stop_requested(self) -> None:
        if self._stop_callbacks:
            for callback in list(self._stop_callbacks):
                callback()
        elif self._agent is not None:
            self._background.spawn(self._agent.stop())

    def _recording_failed(self, message: str) -> None:
        self.recording_failure = message

    def _browser_resized(self) -> None:
        self._background.spawn(self._resized())

    async def _resized(self) -> None:
        browser = self._browser
        if browser is None or not browser.is_connected:
            return
        try:
            state = await browser.window_state()
        except Exception as exc:  # closing, or a window the protocol cannot reach
            log.debug("could not read Chromium's window state: %s", exc)
            return
        if state == "maximized":
            for callback in list(self._maximized_callbacks):
                callback()

    def _panel_requested(self) -> None:
        for callback in list(self._panel_callbacks):
            callback()

    def _browser_closed(self) -> None:
        log.info("Chromium was closed")
        for callback in list(self._closed_callbacks):
            callback()

    async def _drop_agent(self) -> None:
        if self._agent is not None:
            await self._agent.dispose()
            self._agent = None
        await close_model(self._llm)
        self._llm = None
        self._llm_ready = None  # built for settings that may have changed since (it has nothing open yet)
