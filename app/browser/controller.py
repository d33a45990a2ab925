"""The agent's hands and eyes in Chromium: app.core's PageController, on Playwright with real trusted input."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TypeVar, assert_never

from playwright.async_api import ElementHandle, Page
from playwright.async_api import Error as PlaywrightError

from app.browser.action_wrappers import beside_the_stop_bar, may_open_a_tab, settles
from app.browser.actions import (
    CUSTOM_OPTIONS_JS,
    SCROLL_JS,
    SELECT_OPTIONS_JS,
    SUGGESTIONS_JS,
    failure_text,
    list_choices,
    match_option,
)
from app.browser.acts import activates, element_names, is_choice, is_toggle, key_act
from app.browser.events import PageEvents
from app.browser.failures import as_tool_errors, press, race, raise_if_closed
from app.browser.file_upload import put_file
from app.browser.navigating import Navigator, RefusedLanding
from app.browser.navigation_guard import NavigationGuard
from app.browser.observer import ElementItem, ElementRef, item_now
from app.browser.page_reading import PageReader
from app.browser.playwright_errors import first_line
from app.browser.secret_typing import put_secret
from app.browser.serialize import describe
from app.browser.session import BrowserSession
from app.browser.settle import Settler
from app.browser.stop_bar import StopBar
from app.browser.typing import foreign_keys, holds, read_back, type_text
from app.core.abort import AbortSignal
from app.core.errors import ToolError
from app.core.page import BrowserState, ElementInfo, ForeignKeys, Screenshot
from app.core.safety.guardrails import Guardrails
from app.core.safety.risky import Act, ActGate
from app.core.safety.untrusted import quoted
from app.core.tools.page_tools import (
    ClickInput,
    CloseTabInput,
    GoBackInput,
    GoToUrlInput,
    HoverInput,
    InputTextInput,
    OpenTabInput,
    PageAction,
    ScriptInput,
    ScrollInput,
    SecretTextInput,
    SelectOptionInput,
    SendKeysInput,
    SwitchTabInput,
    UploadFileInput,
)

log = logging.getLogger(__name__)

T = TypeVar("T")


_RESULT_MAX = 4000
_VALUE_MAX = 200  # characters of what a field holds told in a typing's result


class PlaywrightPageController:
    """Implements app.core.page.PageController for one BrowserSession.

    ``margin``: viewport heights listed above and below the visible part. Timeouts are in seconds.
    """

    def __init__(
        self,
        session: BrowserSession,
        *,
        margin: float = 0.5,
        action_timeout: float = 5.0,
        navigation_timeout: float = 20.0,
    ) -> None:
        self.session = session
        self.margin = margin
        self.settler = Settler(prepare=self.rehearse)
        self._action_ms = action_timeout * 1000
        self._navigation_ms = navigation_timeout * 1000
        self._events = PageEvents(session, lambda: self.guardrails)
        # The running agent's policies (set by the composition root whenever it builds an agent). The navigation
        # guard reads them at every check; its route follows them before each look and each navigation.
        self.guardrails = Guardrails()
        self._guard = NavigationGuard(session, lambda: self.guardrails.navigation)
        # Installed by the composition root (it decides what Stop does); the observer leaves it out either way.
        self.stop_bar = StopBar(session)
        self.reader = PageReader(self, self._guard, self._navigation_ms)
        self.navigator = Navigator(self, self._guard, self._events, self._navigation_ms)
        self.foreign_keys: list[ForeignKeys] = []  # fields that got keys the agent did not type (typing.py)

    # --- observing (app/browser/page_reading.py) ----------------------------------------------------------------

    async def get_browser_state(self, signal: AbortSignal) -> BrowserState:
        return await self.reader.read(signal)

    async def screenshot(self, signal: AbortSignal) -> Screenshot:
        return await self.reader.screenshot(signal)

    async def rehearse(self, page: Page) -> None:
        await self.reader.rehearse(page)

    def element_info(self, index: int) -> ElementInfo | None:
        return self.reader.element_info(index)

    def drain_events(self) -> list[str]:
        return self._events.drain() + self._guard.drain()

    # --- elements ----------------------------------------------------------------------------------------------

    async def _element(self, index: int, signal: AbortSignal) -> tuple[ElementRef, ElementHandle]:
        stale = ToolError(f"Element [{index}] is no longer on the page; the page changed — look at the new state.")
        if self.reader.last is None or self.reader.last_page is not self.session.active_page:
            raise stale
        ref = self.reader.last.refs.get(index)
        if ref is None:
            raise ToolError(f"There is no element [{index}] in the current page state; use an index from it.")
        try:
            element = await self.reader.element(ref, signal)
        except PlaywrightError as exc:
            self._raise_if_closed(exc)
            raise stale from exc
        if element is None:
            raise stale
        await self._still_as_seen(index, ref, element, signal)
        return ref, element

    async def _still_as_seen(
        self, index: int, ref: ElementRef, element: ElementHandle, signal: AbortSignal
    ) -> ElementItem:
        """The check at the moment of use: a page may rename or retag an element between the look and the action
        ("Save draft" becoming "Delete account permanently"); then nothing is done and the model looks again.
        Returns the element as it reads now."""
        async with self._failures(f"Element [{index}] could not be checked"):
            now = await signal.race(item_now(element))
        if now is None:
            return ref.item
        if now.identity() == ref.item.identity():
            return now
        reads = now.reads() if now.tag == ref.item.tag else f"<{now.tag}> {now.reads()}".strip()
        raise ToolError(
            f"Refused to act on [{index}]: the element changed since you saw it (it now reads "
            f"{quoted(reads)}); look at the new state."
        )

    def _failures(self, what: str) -> AbstractAsyncContextManager[None]:
        return as_tool_errors(self.session, what)

    def _raise_if_closed(self, exc: PlaywrightError) -> None:
        raise_if_closed(self.session, exc)

    async def _race(self, signal: AbortSignal, what: str, work: Awaitable[T]) -> T:
        return await race(self.session, signal, what, work)

    async def _press(self, signal: AbortSignal, what: str, work: Awaitable[T]) -> T:
        return await press(self.session, signal, what, work)

    # --- actions -----------------------------------------------------------------------------------------------

    async def perform(self, action: PageAction, signal: AbortSignal, gate: ActGate | None = None) -> str:
        """Each page tool's input to the method that does it (mypy flags a page tool without a case here). ``gate``
        checks each irreversible act a click, a choice or a key would set off, at the moment of acting."""
        match action:
            case ClickInput():
                return await self.click(action.index, signal, gate)
            case HoverInput():
                return await self.hover(action.index, signal)
            case SecretTextInput():  # before InputTextInput, which it extends
                return await self.type_secret(action.index, action.text, signal)
            case InputTextInput():
                return await self.input_text(action.index, action.text, signal)
            case SelectOptionInput():
                return await self.select_option(action.index, action.text, signal, gate)
            case SendKeysInput():
                return await self.send_keys(action.keys, signal, gate)
            case ScrollInput():
                return await self.scroll(action.down, action.num_pages, action.index, signal)
            case GoToUrlInput():
                return await self.go_to_url(action.url, signal)
            case OpenTabInput():
                return await self.open_new_tab(action.url, signal)
            case GoBackInput():
                return await self.go_back(signal)
            case SwitchTabInput():
                return await self.switch_to_tab(action.tab_id, signal)
            case CloseTabInput():
                return await self.close_tab(action.tab_id, signal)
            case UploadFileInput():
                return await self.upload_file(action.index, action.path, signal)
            case ScriptInput():
                return await self.execute_javascript(action.script, signal)
            case _:
                assert_never(action)

    # --- actions on elements -----------------------------------------------------------------------------------

    def _where(self) -> str:
        """The page's address and title as the last look read them (for an act whose purpose is unsure)."""
        return f"{self.reader.last.url} {self.reader.last.title}" if self.reader.last is not None else ""

    @may_open_a_tab
    @beside_the_stop_bar
    async def click(self, index: int, signal: AbortSignal, gate: ActGate | None = None) -> str:
        ref, element = await self._element(index, signal)
        label = describe(index, ref.item)
        page = self.session.active_page
        self.settler.watch(page)
        url_before = page.url
        await self._race(signal, f"Could not hover {label}", element.hover(timeout=self._action_ms))
        now = await self._still_as_seen(index, ref, element, signal)  # a page may rename it on mouseover
        if gate is not None:
            names, choice, toggle = element_names(now), is_choice(now), is_toggle(now)
            act = Act(how="click", index=index, names=names, choice=choice, toggle=toggle, page=self._where())
            await gate(act)
            await self._still_as_seen(index, ref, element, signal)  # the person may have taken a while
        dialogs_before = self._events.dialogs_opened
        try:
            await self._press(signal, f"Could not click {label}", element.click(timeout=self._action_ms))
        except ToolError:
            # The click opened a confirm() that waits for the person (the frozen page timed the click out): it
            # happened; the dialog's answer is told as an event.
            if self._events.dialogs_opened == dialogs_before:
                raise
            await signal.race(self._events.dialogs_answered())
        return f"Clicked {label}" + await self._aftermath(page, url_before, signal)

    async def _aftermath(self, page: Page, url_before: str, signal: AbortSignal) -> str:
        """What the action set off: a new tab (now active) or a navigation, told once here and not as an event."""
        await self.settler.settle(page, signal)
        active = self.session.active_page
        if active is not page:
            await self._settle_load(active, signal)
            await self.settler.settle(active, signal)
            self._events.forget(active)
            return f"; it opened a new tab (tab {self.session.tab_id(active)}) — now working in it: {active.url}"
        if page.url != url_before:
            await self._settle_load(page, signal)
            self._events.forget(page)
            return f"; the page navigated to {page.url}"
        return ""

    async def _settle_load(self, page: Page, signal: AbortSignal) -> None:
        try:
            await signal.race(page.wait_for_load_state("domcontentloaded", timeout=self._navigation_ms))
        except PlaywrightError as exc:
            log.debug("page did not finish loading: %s", first_line(exc))

    @settles
    @may_open_a_tab
    @beside_the_stop_bar
    async def input_text(self, index: int, text: str, signal: AbortSignal) -> str:
        ref, element = await self._element(index, signal)
        label = describe(index, ref.item)
        info = self.element_info(index)
        shown = "••••" if info is not None and info.secret_field else json.dumps(text, ensure_ascii=False)
        editable = await self._race(
            signal,
            f"Could not type into {label}",
            element.evaluate("el => ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName) || el.isContentEditable"),
        )
        keyboard = self.session.active_page.keyboard
        async with self._failures(f"Could not type into {label}"):
            if editable:
                # Key by key, as a person types (typing.py): widgets that listen to keys react.
                text = await type_text(element, text, keyboard, self._action_ms, signal)
            else:
                # A widget wrapping its real field: focus it by clicking, then type like a person.
                async with self.session.window_focus.kept():
                    await signal.race(element.click(timeout=self._action_ms))
                await signal.race(keyboard.press("ControlOrMeta+A"))
                await signal.race(keyboard.press("Delete"))
                await signal.race(keyboard.type(text))
            value = await read_back(element, signal)
        if value is None or holds(value, text):
            return f"Typed {shown} into {label}"
        if not value.strip() and text.strip():
            raise ToolError(
                f"Typed nothing into {label}: it holds nothing after typing {shown}; something on the page took the "
                "keys (a popup or a dialog that opened when it got the focus?): look at the page."
            )
        if (foreign := foreign_keys(label, text, value, hidden=shown == "••••")) is not None:
            self.foreign_keys.append(foreign)
        if shown == "••••":
            return f"Typed •••• into {label}; it does not hold exactly what was typed"
        return f"Typed {shown} into {label}; it now reads {quoted(value[:_VALUE_MAX])}"

    @settles
    @may_open_a_tab
    async def type_secret(self, index: int, value: str, signal: AbortSignal) -> str:
        """A secret goes only into the checked element, by its own frame, never as keystrokes (secret_typing.py)."""
        ref, element = await self._element(index, signal)
        label = describe(index, ref.item)
        async with self._failures(f"Could not type into {label}"):
            await put_secret(element, value, label, signal)
        return f"Typed •••• into {label}"

    @settles
    @beside_the_stop_bar
    async def select_option(self, index: int, text: str, signal: AbortSignal, gate: ActGate | None = None) -> str:
        ref, element = await self._element(index, signal)
        label = describe(index, ref.item)
        what = f"Could not choose {json.dumps(text, ensure_ascii=False)} in {label}"

        async def choosing(option: str) -> None:
            if gate is not None:
                await gate(Act(how="choose", index=index, names=[option], page=self._where()))

        if ref.item.tag == "select":
            options = await self._race(signal, what, element.evaluate(SELECT_OPTIONS_JS))
            labels = [o["label"] for o in options]
            picked = match_option(labels, text)
            if picked is None:
                picked = match_option([o["value"] for o in options], text)
            if picked is None:
                raise ToolError(f"{what}: no such option. Options: {list_choices(labels)}")
            await choosing(labels[picked])
            await self._race(signal, what, element.select_option(index=picked, timeout=self._action_ms))
            return f"Selected {json.dumps(labels[picked], ensure_ascii=False)} in {label}"
        if ref.item.tag == "input":
            suggestions: list[str] | None = await self._race(signal, what, element.evaluate(SUGGESTIONS_JS))
            if suggestions is not None:
                return await self._pick_suggestion(element, label, suggestions, text, what, signal, choosing)
        return await self._select_custom(element, label, text, what, signal, choosing)

    async def _pick_suggestion(
        self,
        element: ElementHandle,
        label: str,
        suggestions: list[str],
        text: str,
        what: str,
        signal: AbortSignal,
        choosing: Callable[[str], Awaitable[None]],
    ) -> str:
        """A field's datalist suggestion, put in the field as picking it would (Chromium draws the list outside the
        page, where no click reaches)."""
        picked = match_option(suggestions, text)
        if picked is None:
            raise ToolError(f"{what}: no such suggestion. Suggestions: {list_choices(suggestions)}")
        await choosing(suggestions[picked])
        async with self._failures(what):
            await signal.race(element.fill(suggestions[picked], timeout=self._action_ms))
        return f"Selected {json.dumps(suggestions[picked], ensure_ascii=False)} in {label}"

    async def _select_custom(
        self,
        element: ElementHandle,
        label: str,
        text: str,
        what: str,
        signal: AbortSignal,
        choosing: Callable[[str], Awaitable[None]],
    ) -> str:
        attrs = await self._race(
            signal, what, element.evaluate("el => [el.getAttribute('role'), el.getAttribute('aria-expanded')]")
        )
        if attrs[0] != "listbox" and attrs[1] != "true":
            await self._press(signal, what, element.click(timeout=self._action_ms))
            await signal.sleep(0.15)  # menus often open on the next frame, with a transition
        choices: list[str] = await self._race(signal, what, element.evaluate(CUSTOM_OPTIONS_JS, None))
        picked = match_option(choices, text)
        if picked is None:
            available = f"Visible options: {list_choices(choices)}" if choices else "no options became visible"
            raise ToolError(f"{what}: no such option. {available}")
        await choosing(choices[picked])
        if (await self._race(signal, what, element.evaluate(CUSTOM_OPTIONS_JS, None)))[picked : picked + 1] != [
            choices[picked]
        ]:
            raise ToolError(f"{what}: the options changed while it was being chosen; look at the page again.")
        option = (await self._race(signal, what, element.evaluate_handle(CUSTOM_OPTIONS_JS, picked))).as_element()
        if option is None:
            raise ToolError(f"{what}: the option disappeared before it could be clicked.")
        await self._press(signal, what, option.click(timeout=self._action_ms))
        return f"Selected {json.dumps(choices[picked], ensure_ascii=False)} in {label}"

    @settles
    @beside_the_stop_bar
    async def hover(self, index: int, signal: AbortSignal) -> str:
        ref, element = await self._element(index, signal)
        label = describe(index, ref.item)
        await self._race(signal, f"Could not hover {label}", element.hover(timeout=self._action_ms))
        return f"Hovered {label}"

    @settles
    @beside_the_stop_bar
    async def upload_file(self, index: int, path: str, signal: AbortSignal) -> str:
        # Exactly the file given: the upload tool hands over the path its policy resolved and judged; expanding or
        # resolving it again here could name another file.
        file = Path(path)
        if not file.is_absolute() or not await asyncio.to_thread(file.is_file):
            raise ToolError(f"The file {path} does not exist (or is not a file); give the absolute path of one.")
        ref, element = await self._element(index, signal)
        label = describe(index, ref.item)
        what = f"Could not upload {file.name} through {label}"
        await put_file(self.session, element, file, what, signal, self._action_ms)
        return f"Uploaded {file} through {label}"

    # --- page-wide actions -------------------------------------------------------------------------------------

    @settles
    @may_open_a_tab
    async def send_keys(self, keys: str, signal: AbortSignal, gate: ActGate | None = None) -> str:
        combos = keys.split()
        if not combos:
            raise ToolError('No keys given; use names like "Enter", "Tab", "Escape" or "Control+A".')
        page = self.session.active_page
        with self.stop_bar.agent_keys():
            for combo in combos:
                if gate is not None and activates(combo):
                    act = await key_act(page, combo, self._where(), signal)
                    await gate(act)
                    if (await key_act(page, combo, self._where(), signal)).names != act.names:
                        raise ToolError(
                            f"Did not press {combo}: the focus moved while it was being checked; look at the page "
                            "again."
                        )
                await self._race(signal, f"Could not press {combo}", page.keyboard.press(combo))
        return f"Pressed {' '.join(combos)}"

    @settles
    async def scroll(self, down: bool, num_pages: float, index: int | None, signal: AbortSignal) -> str:
        direction = "down" if down else "up"
        fraction = num_pages if down else -num_pages
        if index is None:
            target, handle = "the page", None
        else:
            ref, handle = await self._element(index, signal)
            target = describe(index, ref.item)
        # A handle can only be used in its own frame, so an element scrolls itself.
        work = (
            handle.evaluate(f"(el, f) => ({SCROLL_JS})(el, f)", fraction)
            if handle is not None
            else self.session.active_page.evaluate(f"f => ({SCROLL_JS})(null, f)", fraction)
        )
        moved, above, below = await self._race(signal, f"Could not scroll {target}", work)
        if abs(moved) < 1:
            edge = "bottom" if down else "top"
            return f"Did not scroll {target} {direction}: it is already at the {edge}"
        return f"Scrolled {target} {direction} by {num_pages:g} page(s); now {above:.1f} pages above, {below:.1f} below"

    @settles
    async def go_to_url(self, url: str, signal: AbortSignal) -> str:
        return await self.navigator.open(url, signal)

    async def open(self, url: str, signal: AbortSignal) -> str:
        """go_to_url without waiting for the page to settle: the start page, opened before a task begins, settles
        meanwhile, and the first look at it waits for what is left of that."""
        try:
            opened = await self.navigator.open(url, signal)
        except RefusedLanding as refused:
            # The start page tried to leave for a refused address as it loaded (a script, a meta refresh): the
            # route kept it where it was, and the model reads why on its first look.
            self._guard.tell(self.session.active_page, str(refused))
            opened = str(refused)
        self.settler.settle_later(self.session.active_page)
        return opened

    @settles
    async def go_back(self, signal: AbortSignal) -> str:
        return await self.navigator.go_back(signal)

    @settles
    async def open_new_tab(self, url: str, signal: AbortSignal) -> str:
        return await self.navigator.open_in_new_tab(url, signal)

    async def switch_to_tab(self, tab_id: int, signal: AbortSignal) -> str:
        return await self.navigator.switch_to(tab_id, signal)

    async def close_tab(self, tab_id: int, signal: AbortSignal) -> str:
        return await self.navigator.close(tab_id, signal)

    @settles
    @may_open_a_tab
    async def execute_javascript(self, script: str, signal: AbortSignal) -> str:
        page = self.session.active_page
        try:
            value = await signal.race(page.evaluate(script))
        except PlaywrightError as exc:
            self._raise_if_closed(exc)
            raise ToolError(f"The script failed: {failure_text(exc)}") from exc
        text = json.dumps(value, ensure_ascii=False, default=str)
        if len(text) > _RESULT_MAX:
            text = text[:_RESULT_MAX] + f"… ({len(text) - _RESULT_MAX} more characters)"
        return f"The script returned {text}"
