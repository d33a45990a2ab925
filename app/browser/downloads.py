"""Downloads: Chromium saves each file under its own name; the app then puts it in the downloads folder.

Chromium is told over CDP to save downloads itself (not under Playwright's GUID names) into a private staging
folder, so its download list shows the real file name (and can still open the file), and no GUID-named copy is
ever left beside the user's files. A Chromium told where to save overwrites a file of the same name, so the staging
folder is never the user's: once a download is complete it is linked (or copied) into the downloads folder under a
name that takes nothing there ("name (1).csv" when "name.csv" exists), readable by the user only, and the sentence
the agent reads names the file as it was saved. The staging folder is emptied at each launch.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import secrets
import shutil
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, CDPSession
from playwright.async_api import Error as PlaywrightError

from app.background import Background
from app.browser.private_files import FILE_MODE, private_folder

log = logging.getLogger(__name__)

# File names are limited to 255 bytes; room is left for " (12)".
_NAME_MAX = 200
_SUFFIX_MAX = 16


@dataclass(frozen=True)
class FinishedDownload:
    """A download that ended: ``saved`` is where it is now (None when it failed, and ``failure`` says why)."""

    name: str
    saved: Path | None
    failure: str = ""


class Downloads:
    """Owns Chromium's download behaviour for one session; listeners hear of each finished download."""

    def __init__(self, cdp: CDPSession, staging: Path, folder: Path) -> None:
        self._cdp = cdp
        self._staging = staging.resolve()
        self.folder = folder
        self._names: dict[str, str] = {}
        # Held weakly: every window of a browser shares its downloads, and a window closed long ago (a routine's fresh
        # windows) must not be kept alive in this process by its listener.
        self._listeners: list[weakref.WeakMethod[Callable[[FinishedDownload], None]]] = []
        self._background = Background("downloads")
        cdp.on("Browser.downloadWillBegin", self._began)
        cdp.on("Browser.downloadProgress", self._progressed)

    @classmethod
    async def take_over(cls, browser: Browser, staging: Path, folder: Path) -> Downloads:
        await asyncio.to_thread(_empty_private_folder, staging)
        cdp = await browser.new_browser_cdp_session()
        downloads = cls(cdp, staging, folder)
        await cdp.send(
            "Browser.setDownloadBehavior",
            {"behavior": "allow", "downloadPath": str(downloads._staging), "eventsEnabled": True},
        )
        return downloads

    def on_finished(self, listener: Callable[[FinishedDownload], None]) -> None:
        """``listener``, a bound method, hears of each finished download while its object lives."""
        self._listeners.append(weakref.WeakMethod(listener))

    def _began(self, event: dict[str, Any]) -> None:
        self._names[event["guid"]] = event.get("suggestedFilename") or ""

    def _progressed(self, event: dict[str, Any]) -> None:
        state = event.get("state")
        if state not in ("completed", "canceled"):
            return
        suggested = self._names.pop(event["guid"], "")
        work = self._move(suggested, event.get("filePath") or "") if state == "completed" else self._failed(suggested)
        self._background.spawn(work)

    async def _move(self, suggested: str, file_path: str) -> None:
        source = Path(file_path)
        name = download_name(suggested or source.name)
        if not file_path or (await asyncio.to_thread(source.resolve)).parent != self._staging:
            self._tell(FinishedDownload(name, None, "the browser did not say where it saved it"))
            return
        try:
            target = await asyncio.to_thread(_save_in, source, self.folder, name)
        except OSError as exc:
            self._tell(FinishedDownload(name, None, f"it could not be saved ({exc.strerror or exc})"))
            return
        self._tell(FinishedDownload(name, target))

    async def _failed(self, suggested: str) -> None:
        self._tell(FinishedDownload(download_name(suggested), None, "it was cancelled or interrupted"))

    def _tell(self, finished: FinishedDownload) -> None:
        self._listeners = [each for each in self._listeners if each() is not None]
        for each in list(self._listeners):
            if (listener := each()) is not None:
                listener(finished)

    async def release(self) -> None:
        """Give Chromium back its own way of saving downloads (an attached browser that keeps running)."""
        try:
            await asyncio.wait_for(self._cdp.send("Browser.setDownloadBehavior", {"behavior": "default"}), 5.0)
            await self._cdp.detach()
        except (TimeoutError, PlaywrightError) as exc:
            log.debug("download behaviour not given back: %s", exc)


def _save_in(source: Path, folder: Path, name: str) -> Path:
    target = free_path(folder, name)  # reserved: empty, private, and nobody else's name
    try:
        try:
            # A second name for the same file costs nothing; it replaces the empty reservation at once.
            link = target.with_name(f".{target.name}.{secrets.token_hex(4)}")
            os.link(source, link)
            os.replace(link, target)
        except OSError:  # another file system, or no hard links there
            shutil.copyfile(source, target)
        os.chmod(target, FILE_MODE)
    except OSError:
        target.unlink(missing_ok=True)
        raise
    return target


def _empty_private_folder(folder: Path) -> None:
    private_folder(folder)
    for entry in folder.iterdir():
        if entry.is_file() or entry.is_symlink():
            entry.unlink(missing_ok=True)


def download_name(suggested: str) -> str:
    """A file name for what the page suggested: its last part only, printable, without leading dots and characters
    that are not allowed in file names everywhere, so that it can neither leave the folder nor hide in it."""
    last = re.split(r"[/\\]", suggested)[-1]
    printable = "".join(ch for ch in last if ch.isprintable() or ch.isspace())
    name = " ".join(re.sub(r'[<>:"|?*]', "_", printable).split()).strip(". ") or "download"
    stem, suffix = _split(name)
    return stem.encode()[: _NAME_MAX - len(suffix.encode())].decode(errors="ignore") + suffix


def free_path(directory: Path, name: str) -> Path:
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
