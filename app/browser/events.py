"""Things that happen in the browser on their own (navigations, new tabs, dialogs, downloads), as sentences.

Dialogs are accepted at once so a page never hangs on one; downloads are saved to the session's downloads folder.
The agent reads the sentences through ``drain()`` at its next observation.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
from collections.abc import Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.async_api import Dialog, Download, Frame, Page
from playwright.async_api import Error as PlaywrightError

from app.browser.private_files import FILE_MODE, private_folder
from app.browser.session import BrowserSession
from app.core.page import BrowserClosedError

log = logging.getLogger(__name__)

_QUOTE_MAX = 300
# File names are limited to 255 bytes; room is left for " (12)".
_NAME_MAX = 200
_SUFFIX_MAX = 16


@dataclass
class _Entry:
    kind: str  # "navigated" | "opened" | "closed" | "note"
    page: Page | None
    text: str = ""


class PageEvents:
    def __init__(self, session: BrowserSession) -> None:
        self._session = session
        self._entries: list[_Entry] = []
        self._tasks: set[asyncio.Task[None]] = set()
        for page in session.pages:
            self._watch(page)
        session.on_page(self._opened)

    def _opened(self, page: Page) -> None:
        self._watch(page)
        self._entries.append(_Entry("opened", page))

    def _watch(self, page: Page) -> None:
        tab_id = self._session.tab_id(page)
        page.on("framenavigated", lambda frame: self._navigated(page, frame))
        page.on("dialog", lambda dialog: self._spawn(self._dialog(tab_id, dialog)))
        page.on("download", lambda download: self._spawn(self._download(download)))
        page.on("close", lambda _page: self._entries.append(_Entry("closed", page, f"Tab {tab_id} was closed.")))
        page.on("crash", lambda _page: self._entries.append(
            _Entry("note", None, f"Tab {tab_id} crashed (Chromium stopped rendering it).")))

    def _navigated(self, page: Page, frame: Frame) -> None:
        if frame.parent_frame is None:
            self._entries.append(_Entry("navigated", page))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _dialog(self, tab_id: int, dialog: Dialog) -> None:
        message = _quote(dialog.message)
        try:
            # A prompt gets its default answer; the model can change the page afterwards if that was wrong.
            await dialog.accept(dialog.default_value if dialog.type == "prompt" else None)
        except PlaywrightError as exc:
            log.debug("dialog already gone: %s", exc)
        if dialog.type == "beforeunload":
            text = f"Tab {tab_id} asked to confirm leaving the page; it was confirmed."
        else:
            article = "An" if dialog.type[:1] in "aeiou" else "A"
            text = f"{article} {dialog.type} dialog in tab {tab_id} said {message}; it was accepted automatically."
        self._entries.append(_Entry("note", None, text))

    async def _download(self, download: Download) -> None:
        name = _download_name(download.suggested_filename)
        target: Path | None = None
        try:
            target = await asyncio.to_thread(_free_path, self._session.downloads_dir, name)
            await download.save_as(target)
            # save_as copies the browser's file with that file's mode; what a page sent is for the user's eyes only.
            await asyncio.to_thread(target.chmod, FILE_MODE)
            await self._make_browser_copy_private(download)
            text = f"Downloaded {_quote(target.name)} to {target}."
        except (PlaywrightError, OSError) as exc:
            if target is not None:
                await asyncio.to_thread(target.unlink, missing_ok=True)
            text = f"The download of {_quote(name)} failed: {await _download_failure(download, exc)}."
        self._entries.append(_Entry("note", None, text))

    @staticmethod
    async def _make_browser_copy_private(download: Download) -> None:
        """Chromium keeps its own copy (named by a GUID) in the downloads folder until the browser closes."""
        try:
            copy = await download.path()
        except PlaywrightError:  # an attached browser's copy is not on this machine's disk
            return
        await asyncio.to_thread(copy.chmod, FILE_MODE)

    def forget(self, page: Page) -> None:
        """Drop pending news about ``page`` that an action's own result already told (navigation, opening, closing)."""
        told = ("navigated", "opened", "closed")
        self._entries = [e for e in self._entries if e.page is not page or e.kind not in told]

    def drain(self) -> list[str]:
        entries, self._entries = self._entries, []
        sentences: list[str] = []
        opened = {e.page for e in entries if e.kind == "opened"}
        reported: set[Page] = set()
        # Only where a tab ended up matters: a redirect chain is one navigation.
        for entry in reversed(entries):
            page = entry.page
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


def _quote(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > _QUOTE_MAX:
        text = text[: _QUOTE_MAX - 1] + "…"
    return f'"{text}"'


async def _download_failure(download: Download, exc: PlaywrightError | OSError) -> str:
    if isinstance(exc, OSError):
        return f"it could not be saved ({exc.strerror or exc})"
    try:
        failure = await download.failure()
    except PlaywrightError:
        failure = None
    return failure or exc.message.splitlines()[0]


def _download_name(suggested: str) -> str:
    """A file name for what the page suggested: its last part only, printable, without leading dots and characters
    that are not allowed in file names everywhere, so that it can neither leave the folder nor hide in it."""
    last = re.split(r"[/\\]", suggested)[-1]
    printable = "".join(ch for ch in last if ch.isprintable() or ch.isspace())
    name = " ".join(re.sub(r'[<>:"|?*]', "_", printable).split()).strip(". ") or "download"
    stem, suffix = _split(name)
    return stem.encode()[: _NAME_MAX - len(suffix.encode())].decode(errors="ignore") + suffix


def _free_path(directory: Path, name: str) -> Path:
    """A new, empty, private file in ``directory`` called ``name``, or "name (1)", "name (2)"... when that exists."""
    private_folder(directory)
    stem, suffix = _split(name)
    counter = 0
    while True:
        candidate = directory / (f"{stem} ({counter}){suffix}" if counter else name)
        try:
            # O_EXCL: never reuse (or follow a link at) a name that exists, even one taken a moment ago.
            os.close(os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
        except FileExistsError:
            counter += 1
            continue
        return candidate


def _split(name: str) -> tuple[str, str]:
    suffix = Path(name).suffix
    if len(suffix) > _SUFFIX_MAX:  # "a.<300 characters>" has no real extension
        suffix = ""
    return name[: len(name) - len(suffix)], suffix
