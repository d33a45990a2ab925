"""Show me once, in the browser: what the person does in one window, as the agent's own actions, and the bar inside
it that says what to do, with Done and Cancel.

resources/js/recorder.js runs in every document of the browser (an init script, so frames that load later too, and
each document already open), with observe.js beside it: each element the person acts on is named exactly as the
agent's look names it, so that a replay finds it again. Only the window being shown records, and only while
``start`` ... ``stop``. A value typed into a password or code field crosses only to ``secret_name`` (the row's secret
cells), which names the secret it is, or nothing: the step holds the secret's placeholder or no value, never the
value. An address the person typed into Chromium's own address bar is a step too (``go_to_url``: Chromium says how
each navigation came, over CDP).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Callable
from typing import Any, Literal

from playwright.async_api import CDPSession, Frame, Page
from playwright.async_api import Error as PlaywrightError
from pydantic import BaseModel, Field, ValidationError

from app.assets import read_resource
from app.browser.controller import PlaywrightPageController
from app.browser.observer import ElementItem
from app.browser.page_reading import listed_element
from app.core.page import ListedElement
from app.core.safety.secrets import placeholder

log = logging.getLogger(__name__)

SCRIPT = "js/recorder.js"
OBSERVER = "js/observe.js"
_APPLY = "([hook, answer]) => { const apply = window[hook]; return apply ? apply(answer) : null; }"
# How Chromium says a navigation came from its own address bar, a bookmark or a suggestion (not the page).
_TYPED = frozenset({"typed", "address_bar", "auto_bookmark", "generated", "keyword", "keyword_generated"})
_APPLY_TIMEOUT = 2.0

ShowingEnd = Literal["done", "cancel"]  # how the person ended showing a row: Done or Cancel on the bar


class BarWords(BaseModel):
    say: str
    done: str
    cancel: str


class RecordedStep(BaseModel):
    """One thing the person did, as a tool of the agent's would do it: ``action`` its name, ``input`` its input
    (without the element), ``target`` the element's index in ``listing`` (the document's elements then, as the
    agent's look names them), ``loads`` how many times the window's page changed since the step before."""

    action: str
    input: dict[str, Any] = Field(default_factory=dict)
    target: int | None = None
    listing: list[ListedElement] = Field(default_factory=list)
    secret: bool = False  # typed into a password or code field: ``input`` holds a placeholder or no value
    loads: int = 0


class _Message(BaseModel):
    kind: Literal["ask", "step", "done", "cancel"] = "step"
    action: str = ""
    input: dict[str, Any] = Field(default_factory=dict)
    index: int = -1
    items: list[ElementItem] = Field(default_factory=list)
    secret: bool = False


class _Finished(BaseModel):
    steps: list[_Message] = Field(default_factory=list)
    items: list[ElementItem] = Field(default_factory=list)


class PageRecorder:
    """``await start(...)`` once, ``await stop()`` at the end; ``on_step`` hears each step in order, ``on_end`` the
    person's Done or Cancel (pressed in the bar) with the page's listing then."""

    def __init__(self, controller: PlaywrightPageController) -> None:
        self._controller = controller
        self._session = controller.session
        self.tag = f"pa-{secrets.token_hex(6)}"
        self._binding = f"__pa{secrets.token_hex(8)}"
        self._hook = f"__pa{secrets.token_hex(8)}"
        self._page: Page | None = None
        self._words: BarWords | None = None
        self._loads = 0
        self._on_step: Callable[[RecordedStep], None] = lambda _step: None
        self._on_end: Callable[[ShowingEnd, list[ListedElement]], None] = lambda _end, _listing: None
        self._secret_name: Callable[[str], str | None] = lambda _value: None
        self._disposables: list[Any] = []
        self._cdp: CDPSession | None = None
        self._entry: int | None = None  # the history entry the window's tab is on (a reload or a script keeps it)
        self._bar_was_on = False
        self._order = asyncio.Lock()  # the page's messages are handled one at a time, in the order they came

    async def start(
        self,
        words: BarWords,
        on_step: Callable[[RecordedStep], None],
        on_end: Callable[[ShowingEnd, list[ListedElement]], None],
        secret_name: Callable[[str], str | None],
    ) -> None:
        """Record the window's active tab from now on, with the bar saying ``words``; the page events the agent has not
        been told of yet (the start page opened) count as the first step's."""
        self._words, self._on_step, self._on_end, self._secret_name = words, on_step, on_end, secret_name
        self._page = self._session.active_page
        self._loads = len(self._controller.drain_events())
        bar = self._controller.stop_bar
        self._bar_was_on = bar.mode != "hidden"
        await bar.hide()  # Esc is the page's while the person works: it stops nothing
        context = self._session.context
        self._disposables.append(await context.expose_binding(self._binding, self._called))
        config = json.dumps({"binding": self._binding, "hook": self._hook, "tag": self.tag})
        script = f"({read_resource(SCRIPT)})({config}, {read_resource(OBSERVER)});"
        self._disposables.append(await context.add_init_script(script))
        self._entry = (await self._history())[0]
        for frame in self._page.frames:  # the documents already open missed the init script
            with contextlib.suppress(PlaywrightError):
                await frame.evaluate(script)
        await self._apply(True)

    async def say(self, words: BarWords | None) -> None:
        """The bar's words now (None: no bar; the window still records)."""
        self._words = words
        await self._apply(True)

    async def stop(self) -> list[ListedElement]:
        """Nothing is recorded any more; the bar goes, and the Stop bar comes back if it was there. The values the
        person was still typing are their last steps; returns the page's elements at the end."""
        page = self._page
        if page is None:
            return []
        final = await self._finish(page)
        self._page, self._words = None, None
        await self._apply(False, page)
        for disposable in reversed(self._disposables):
            with contextlib.suppress(PlaywrightError):
                await disposable.close()
        self._disposables.clear()
        if self._cdp is not None:
            with contextlib.suppress(PlaywrightError):
                await self._cdp.detach()
            self._cdp = None
        if self._bar_was_on:
            await self._controller.stop_bar.show()
        return final

    async def _finish(self, page: Page) -> list[ListedElement]:
        final: list[ListedElement] = []
        for frame in page.frames:
            try:
                found = await asyncio.wait_for(frame.evaluate(_APPLY, [self._hook, "finish"]), _APPLY_TIMEOUT)
                done = _Finished.model_validate(found)
            except (TimeoutError, PlaywrightError, ValidationError) as exc:
                log.debug("no last steps from a frame: %s", exc)
                continue
            listing = [listed_element(item, i, frame.url) for i, item in enumerate(done.items, 1)]
            for message in done.steps:
                self._step(message, [listed_element(item, i, frame.url) for i, item in enumerate(message.items, 1)])
            if frame.parent_frame is None:
                final = listing
        return final

    # --- the page's side ---------------------------------------------------------------------------------------

    async def _called(self, source: dict[str, Any], payload: Any) -> dict[str, Any] | None:
        async with self._order:
            return await self._handle(source["frame"], source.get("page"), payload)

    async def _handle(self, frame: Frame, page: object, payload: Any) -> dict[str, Any] | None:
        if self._page is None or page is not self._page:
            return {"recording": False}
        try:
            message = _Message.model_validate(payload)
        except ValidationError:
            log.debug("a message the recorder does not know: %s", str(payload)[:200])
            return None
        top = frame.parent_frame is None
        if message.kind == "ask":
            if top:
                await self._arrived()
            return self._answer(top)
        listing = [listed_element(item, i, frame.url) for i, item in enumerate(message.items, 1)]
        if message.kind in ("done", "cancel"):
            if top:
                self._on_end(message.kind, listing)
            return None
        self._step(message, listing)
        return None

    def _step(self, message: _Message, listing: list[ListedElement]) -> None:
        given = dict(message.input)
        if message.secret:
            # The value is compared with the row's secret cells and dropped: the step never holds it.
            name = self._secret_name(str(given.pop("text", "")))
            given["text"] = placeholder(name) if name is not None else ""
        target = message.index + 1 if 0 <= message.index < len(listing) else None
        loads, self._loads = self._loads, 0
        self._on_step(
            RecordedStep(
                action=message.action, input=given, target=target, listing=listing, secret=message.secret, loads=loads
            )
        )

    def _answer(self, top: bool) -> dict[str, Any]:
        words = self._words.model_dump() if top and self._words is not None else None
        return {"recording": True, "words": words}

    async def _apply(self, recording: bool, page: Page | None = None) -> None:
        page = page or self._page
        if page is None:
            return
        for frame in page.frames:
            answer = self._answer(frame.parent_frame is None) if recording else None
            try:
                await asyncio.wait_for(frame.evaluate(_APPLY, [self._hook, answer]), _APPLY_TIMEOUT)
            except (TimeoutError, PlaywrightError) as exc:  # a frame going away, a page frozen by its dialog
                log.debug("recorder not updated in a frame: %s", exc)

    # --- a new page --------------------------------------------------------------------------------------------

    async def _arrived(self) -> None:
        """A new document in the window's tab: a page event for the next step, and a step of its own when the person
        opened it from Chromium's address bar (not the page)."""
        entry, how, url = await self._history()
        if entry is not None and entry != self._entry:
            self._entry = entry
            if how in _TYPED:
                loads, self._loads = self._loads, 0
                self._on_step(RecordedStep(action="go_to_url", input={"url": url}, loads=loads))
        self._loads += 1

    async def _history(self) -> tuple[int | None, str, str]:
        """The tab's current history entry: its id, how Chromium says it came, its address."""
        page = self._page
        if page is None:
            return None, "", ""
        try:
            if self._cdp is None:
                self._cdp = await self._session.context.new_cdp_session(page)
            history = await self._cdp.send("Page.getNavigationHistory")
        except PlaywrightError as exc:
            log.debug("no navigation history: %s", exc)
            return None, "", ""
        entries, index = history.get("entries", []), history.get("currentIndex", -1)
        if not 0 <= index < len(entries):
            return None, "", ""
        entry = entries[index]
        return int(entry.get("id", -1)), str(entry.get("transitionType", "")), str(entry.get("url", ""))
