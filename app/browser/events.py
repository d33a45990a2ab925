"""Things that happen in the browser on their own (navigations, new tabs, dialogs, downloads), as sentences.

An alert is acknowledged at once (it offers no choice). A confirm(), prompt() or beforeunload is never answered yes
on the agent's behalf: it is held while the running agent's Guardrails ask the person, and cancelled when nobody
allows it in time. On screen Chromium shows the page's own dialog as well: one question all the same, answered once
wherever the person answers it (there, the panel's question goes away), and told as it was answered. Finished
downloads (app.browser.downloads) are told too. The agent reads the sentences through ``drain()`` at its next
observation.

Storms are cut short: a tab that opens dialog after dialog has the rest dismissed at once (nobody is asked, the model
reads one line for them all), and pop-up windows beyond a few per step, or beyond a tab count, are closed.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from playwright.async_api import Dialog, Frame, Page
from playwright.async_api import Error as PlaywrightError

from app.background import Background
from app.browser.downloads import FinishedDownload
from app.browser.session import BrowserSession
from app.core.abort import AbortController, AbortError
from app.core.errors import BrowserClosedError
from app.core.safety import risky
from app.core.safety.guardrails import Guardrails
from app.core.safety.risky import ConfirmRequest
from app.core.safety.untrusted import quoted

log = logging.getLogger(__name__)

_QUOTE_MAX = 300
_REFUSED = "refused"
_REPEATED = "repeated"
# Answered in Chromium's own copy of the dialog (the page already has that answer).
_OK_IN_BROWSER = "ok in the browser"
_CANCEL_IN_BROWSER = "cancel in the browser"
# After a dialog was not allowed, the same tab's next dialogs are cancelled without asking for this long (s), or until
# the agent itself takes the tab elsewhere: a page cannot wear the person down with one question after another.
_QUIET = 10.0
# A dialog opening within _STORM_GAP s of the tab's previous one continues a run; past _STORM in a row the tab's
# dialogs are dismissed at once, without asking anyone, until the tab shows another document.
_STORM = 3
_STORM_GAP = 3.0
_MUTE_TIMEOUT = 5.0
_POPUPS_PER_STEP = 3
_MAX_TABS = 10
# Within a storming tab, its further dialogs answer at once as dismissed ones would (no round trip to us at all).
_MUTE_JS = "() => { window.alert = () => {}; window.confirm = () => false; window.prompt = () => null; }"


@dataclass
class _Entry:
    kind: str  # "navigated" | "opened" | "closed" | "note"
    page: Page | None
    text: str = ""


class PageEvents:
    """``guardrails`` returns the running agent's policies; its ``confirm`` answers a page's dialogs."""

    def __init__(self, session: BrowserSession, guardrails: Callable[[], Guardrails] = Guardrails) -> None:
        self._session = session
        self._guardrails = guardrails
        self._entries: list[_Entry] = []
        self._background = Background("browser events")
        # While a dialog is open its page is frozen, and so is an action that set it off.
        self.dialogs_opened = 0
        self._dialogs_open = 0
        self._no_dialog = asyncio.Event()
        self._no_dialog.set()
        self._quiet_until: dict[Page, float] = {}
        self._repeats: dict[Page, int] = {}
        self._run: dict[Page, tuple[int, float]] = {}  # dialogs in a row, when the last one ended
        self._blocked: set[Page] = set()  # storming tabs, until their next document
        self._dismissed: dict[int, int] = {}  # tab id: dialogs of a storming tab dismissed since last told
        self._popups = 0  # opened by pages since the last drain
        self._popups_closed = 0
        self._unwanted: set[Page] = set()
        # On screen: the answer the person gives in Chromium's own copy of each tab's open dialog (True: OK).
        self._in_browser: dict[Page, asyncio.Future[bool]] = {}
        for page in session.pages:
            self._watch(page)
        session.on_page(self._opened)
        session.downloads.on_finished(self._downloaded)

    def _opened(self, page: Page) -> None:
        self._watch(page)
        if self._session.opened_by_page(page) and not self._is_active(page):
            self._popups += 1
            if self._popups > _POPUPS_PER_STEP or len(self._session.pages) > _MAX_TABS:
                self._popups_closed += 1
                self._unwanted.add(page)
                self._background.spawn(_settle(page.close()))
                return
        self._entries.append(_Entry("opened", page))

    def _watch(self, page: Page) -> None:
        tab_id = self._session.tab_id(page)
        page.on("framenavigated", lambda frame: self._navigated(page, frame))
        page.on("dialog", lambda dialog: self._background.spawn(self._dialog(tab_id, self._opening(dialog))))
        page.on("close", lambda _page: self._closed(page, tab_id))
        if self._session.on_screen:
            self._background.spawn(self._follow_dialogs(page))
        page.on(
            "crash",
            lambda _page: self._entries.append(
                _Entry("note", None, f"Tab {tab_id} crashed (Chromium stopped rendering it).")
            ),
        )

    async def _follow_dialogs(self, page: Page) -> None:
        """Listen for the tab's dialogs closing in Chromium (Playwright does not say how they were answered)."""
        try:
            cdp = await self._session.context.new_cdp_session(page)
            cdp.on("Page.javascriptDialogClosed", lambda event: self._answered_in_browser(page, event))
            await cdp.send("Page.enable")
        except PlaywrightError as exc:  # the tab closed meanwhile
            log.debug("not following a tab's dialogs: %s", exc)

    def _opening(self, dialog: Dialog) -> Dialog:
        """The tab's dialog is open: from now on until it is answered, its closing in Chromium is its answer."""
        page = dialog.page
        if page is not None and self._session.on_screen:
            self._in_browser[page] = asyncio.get_running_loop().create_future()
        return dialog

    def _answered_in_browser(self, page: Page, event: dict[str, Any]) -> None:
        answer = self._in_browser.get(page)
        if answer is not None and not answer.done():
            answer.set_result(bool(event.get("result")))

    def _closed(self, page: Page, tab_id: int) -> None:
        if page not in self._unwanted:
            self._entries.append(_Entry("closed", page, f"Tab {tab_id} was closed."))
        self._unwanted.discard(page)
        self._quiet_until.pop(page, None)
        self._run.pop(page, None)
        self._blocked.discard(page)

    def _navigated(self, page: Page, frame: Frame) -> None:
        if frame.parent_frame is None:
            self._entries.append(_Entry("navigated", page))
            # A new document starts with a clean slate (the old one's storm is still told at the next drain).
            self._run.pop(page, None)
            self._blocked.discard(page)

    async def _dialog(self, tab_id: int, dialog: Dialog) -> None:
        self.dialogs_opened += 1
        self._dialogs_open += 1
        self._no_dialog.clear()
        page = dialog.page
        storming_already = page in self._blocked
        try:
            if page is not None and self._storming(page, tab_id):
                await _settle(dialog.dismiss())
                if not storming_already:
                    self._background.spawn(self._mute(page))
                text = ""
            else:
                text = await self._answer(tab_id, dialog)
        finally:
            if page is not None:
                self._in_browser.pop(page, None)
            self._dialogs_open -= 1
            if not self._dialogs_open:
                self._no_dialog.set()
            if page is not None and page in self._run:
                self._run[page] = (self._run[page][0], time.monotonic())
        if text:
            self._entries.append(_Entry("note", None, text))

    def _storming(self, page: Page, tab_id: int) -> bool:
        """Count this dialog into the tab's run; True when the tab's dialogs are blocked (counted as dismissed)."""
        if page in self._blocked:
            self._dismissed[tab_id] = self._dismissed.get(tab_id, 0) + 1
            return True
        in_a_row, ended = self._run.get(page, (0, float("-inf")))
        in_a_row = in_a_row + 1 if time.monotonic() - ended < _STORM_GAP else 1
        self._run[page] = (in_a_row, float("inf"))  # "ended" is set when this dialog is answered
        if in_a_row <= _STORM:
            return False
        self._blocked.add(page)
        self._dismissed[tab_id] = self._dismissed.get(tab_id, 0) + 1
        return True

    async def _mute(self, page: Page) -> None:
        """Make the page's later dialog calls return at once, as dismissed ones would: each dialog costs a round trip
        to Chromium, so a storm's script (once it yields) stops costing anything."""
        try:
            await asyncio.wait_for(page.evaluate(_MUTE_JS), _MUTE_TIMEOUT)
        except (TimeoutError, PlaywrightError) as exc:
            log.debug("could not quiet a tab's dialogs: %s", exc)

    async def dialogs_answered(self) -> None:
        """Return once no dialog is waiting for an answer (each one is answered within its deadline)."""
        await self._no_dialog.wait()

    async def _answer(self, tab_id: int, dialog: Dialog) -> str:
        kind = dialog.type
        if kind == "alert":
            await _settle(dialog.accept())
            return f"An alert dialog in tab {tab_id} said {_quote(dialog.message)}; it was accepted automatically."
        why_not = await self._ask_once(dialog)
        if why_not is None:
            # A prompt gets its default answer: the person allowed the page's question, not a text of the agent's.
            await _settle(dialog.accept(dialog.default_value if kind == "prompt" else None))
        elif why_not not in (_OK_IN_BROWSER, _CANCEL_IN_BROWSER):
            await _settle(dialog.dismiss())
        if why_not == _REPEATED:
            # Told once per quiet spell; the rest would only fill the model's view with the page's words.
            if dialog.page is not None and self._repeats[dialog.page] > 1:
                return ""
            why_not = (
                f"the tab asked again right after a dialog that was not allowed, so its dialogs are cancelled "
                f"without asking for {_QUIET:g} s"
            )
        if kind == "beforeunload":
            asked = f"Tab {tab_id} asked to confirm leaving the page"
            if why_not == _OK_IN_BROWSER:
                return f"{asked}; the user allowed leaving, in the browser."
            if why_not == _CANCEL_IN_BROWSER:
                return f"{asked}; the user chose to stay, in the browser (not allowed)."
            if why_not is None:
                return f"{asked}; the user allowed leaving."
            return f"{asked}; " + (
                "the user chose to stay (not allowed)." if why_not == _REFUSED else f"it stayed on the page: {why_not}."
            )
        asked = f"A {kind} dialog in tab {tab_id} asked {_quote(dialog.message)}"
        if why_not == _OK_IN_BROWSER:
            return f"{asked}; the user answered OK in the browser (allowed)."
        if why_not == _CANCEL_IN_BROWSER:
            return f"{asked}; the user answered Cancel in the browser (not allowed)."
        if why_not == _REFUSED:
            return f"{asked}; the user answered Cancel (not allowed)."
        if why_not is not None:
            return f"{asked}; it was answered Cancel: {why_not}."
        if kind == "prompt":
            return f"{asked}; the user allowed it, so it was answered with its default {_quote(dialog.default_value)}."
        return f"{asked}; the user answered OK (allowed)."

    async def _ask_once(self, dialog: Dialog) -> str | None:
        """``_ask``, except right after a refusal in the same tab: then ``_REPEATED``, without asking."""
        page = dialog.page
        if page is not None and self._quiet_until.get(page, 0.0) > time.monotonic():
            self._repeats[page] = self._repeats.get(page, 0) + 1
            return _REPEATED
        why_not = await self._ask(dialog)
        if page is not None:
            self._repeats.pop(page, None)
            if why_not in (None, _OK_IN_BROWSER):
                self._quiet_until.pop(page, None)
            else:
                self._quiet_until[page] = time.monotonic() + _QUIET
        return why_not

    async def _ask(self, dialog: Dialog) -> str | None:
        """None when the person allowed the dialog; else why not (``_REFUSED``: the person said no)."""
        handler = self._guardrails().confirm
        if handler is None:
            return "nobody was there to allow it"
        page = dialog.page
        if dialog.type == "beforeunload":
            message = "The page asks whether to leave it (changes made on it may be lost)."
        else:
            message = f"The page asks: {_quote(dialog.message)}"
        request = ConfirmRequest(
            kind="dialog",
            dialog_type=dialog.type,
            message=message,
            quote=dialog.message,
            url=page.url if page is not None else "",
        )
        # The question ends with its tab: nobody can answer a dialog that is gone.
        gone = AbortController()

        def closed(_page: Page) -> None:
            gone.abort("The tab was closed")

        if page is not None:
            page.once("close", closed)
        question = asyncio.ensure_future(
            gone.signal.race(asyncio.wait_for(handler(request, gone.signal), risky.CONFIRM_TIMEOUT))
        )
        there = self._in_browser.get(page) if page is not None else None
        try:
            if there is not None:
                await asyncio.wait({question, there}, return_when=asyncio.FIRST_COMPLETED)
                if there.done():
                    return _OK_IN_BROWSER if there.result() else _CANCEL_IN_BROWSER
            allowed = await question
        except TimeoutError:
            return f"the user did not answer within {risky.CONFIRM_TIMEOUT:g} s"
        except AbortError:
            return "the tab was closed"
        except Exception:
            log.exception("the confirm handler failed")
            return "the user could not be asked"
        finally:
            # Answered in Chromium: the panel's question is withdrawn before the answer is told.
            question.cancel()
            await asyncio.wait({question})
            if page is not None:
                page.remove_listener("close", closed)
        return None if allowed else _REFUSED

    def _downloaded(self, finished: FinishedDownload) -> None:
        if finished.saved is not None:
            # The name it was saved under, which is what the agent reports: "name (1).csv" when "name.csv" existed.
            text = f"Downloaded {_quote(finished.saved.name)} to {finished.saved}."
        else:
            text = f"The download of {_quote(finished.name)} failed: {finished.failure}."
        self._entries.append(_Entry("note", None, text))

    def forget(self, page: Page) -> None:
        """Drop pending news about ``page`` that an action's own result already told (navigation, opening, closing).

        The agent's own action moved the tab on, so the dialogs of the page it left no longer keep it quiet.
        """
        told = ("navigated", "opened", "closed")
        self._entries = [e for e in self._entries if e.page is not page or e.kind not in told]
        self._quiet_until.pop(page, None)

    def drain(self) -> list[str]:
        entries, self._entries = self._entries, []
        sentences: list[str] = []
        opened = {e.page for e in entries if e.kind == "opened"}
        reported: set[Page] = set()
        # Only where a tab ended up matters: a redirect chain is one navigation.
        for entry in reversed(entries):
            page = entry.page
            if page in self._unwanted:
                continue
            if entry.kind == "navigated" and page is not None and page not in opened and page not in reported:
                reported.add(page)
                if not page.is_closed():
                    sentences.append(f"Tab {self._tab(page)} navigated to {page.url}")
            elif entry.kind == "opened" and page is not None and not page.is_closed():
                active = " — now working in it" if self._is_active(page) else ""
                sentences.append(f"A new tab opened (tab {self._tab(page)}): {page.url}{active}.")
            elif entry.kind in ("closed", "note"):
                sentences.append(entry.text)
        sentences.reverse()
        return sentences + self._storms()

    def _storms(self) -> list[str]:
        """One line per storm since the last drain, in place of all the dialogs and pop-ups it stood for."""
        sentences = [
            f"Tab {tab_id} kept opening dialogs: {count:,} more {_plural(count, 'was', 'were')} "
            "dismissed without being shown; its further dialogs are blocked until it goes to another page."
            for tab_id, count in self._dismissed.items()
        ]
        self._dismissed = {}
        if self._popups_closed:
            count = self._popups_closed
            sentences.append(
                f"The page opened {count:,} more {_plural(count, 'pop-up window', 'pop-up windows')}; "
                f"{'they were' if count > 1 else 'it was'} closed."
            )
        self._popups = self._popups_closed = 0
        return sentences

    def _tab(self, page: Page) -> str:
        try:
            return str(self._session.tab_id(page))
        except KeyError:
            return "?"

    def _is_active(self, page: Page) -> bool:
        try:
            return self._session.active_page is page
        except BrowserClosedError:
            return False


async def _settle(answer: Coroutine[Any, Any, None]) -> None:
    try:
        await answer
    except PlaywrightError as exc:
        log.debug("dialog already gone: %s", exc)


def _plural(count: int, one: str, many: str) -> str:
    return one if count == 1 else many


def _quote(text: str) -> str:
    """A page's words (a dialog's message, a file's name) in one of these sentences: quoted so that they cannot end
    the quotation and read on as the app's own words."""
    text = " ".join(text.split())
    if len(text) > _QUOTE_MAX:
        text = text[: _QUOTE_MAX - 1] + "…"
    return quoted(text)
