"""``page-agent-desktop --self-test``: the check a support person asks a user to run.

It says in plain words whether every part of the app loads, whether a browser is found and starts without a window,
whether a page bundled with the app opens and can be read, and whether the settings, data and log folders can be
written. Exit 0 when all of that holds, 1 otherwise. Nothing of the user's is touched: Chromium runs on a throw-away
profile (the app's own may be in use by the open panel) and the folders get a scratch file that is removed.
"""

from __future__ import annotations

import asyncio
import os
import platform
import sys
import tempfile
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from app import __version__
from app.settings.paths import AppPaths, app_paths

# Resources without which a run, the panel or the demo cannot work.
_RESOURCES = (
    "prompts/system_prompt.md",
    "js/observe.js",
    "js/stop_bar.js",
    "demo/index.html",
    "demo/cassette.json",
    "icons/app.svg",
    "i18n/zh/panel.json",
)
# What the bundled page must show once read: the demo's sign-in button.
_EXPECTED_ELEMENT = "Sign in"
_BROWSER_DEADLINE = 60.0

T = TypeVar("T")


@dataclass(frozen=True)
class Check:
    passed: bool
    says: str  # one plain sentence: what was checked and what was found


async def run_checks(paths: AppPaths, report: Callable[[Check], None]) -> list[Check]:
    """The checks after ``parts_load``, in order, each handed to ``report`` as soon as it is done."""
    checks: list[Check] = []

    def add(check: Check) -> Check:
        checks.append(check)
        report(check)
        return check

    for label, folder in (("settings", paths.config_dir), ("data", paths.data_dir), ("log", paths.log_dir)):
        add(await asyncio.to_thread(_writable, label, folder))
    check, browser = await asyncio.to_thread(_browser_found, paths)
    add(check)
    if browser is not None:
        for check in await _browser_works(browser):
            add(check)
    else:
        add(Check(False, "Skipped starting the browser without a window: there is no browser to start."))
        add(Check(False, "Skipped opening and reading a page bundled with the app: no browser."))
    return checks


def main() -> int:
    # A console that cannot show a character gets "?", rather than the check dying as it prints.
    sys.stdout.reconfigure(errors="replace")  # type: ignore[union-attr]
    print(f"Page Agent Desktop {__version__} self-test ({platform.system()} {platform.machine()})")

    def report(check: Check) -> None:
        print(f"  {'ok    ' if check.passed else 'FAILED'}  {check.says}", flush=True)

    parts = parts_load()  # on the main thread, before the loop: Qt starts here
    report(parts)
    checks = [parts, *asyncio.run(run_checks(app_paths(), report))]
    failed = sum(not check.passed for check in checks)
    if failed:
        print(f"{failed} of {len(checks)} checks failed. Send this text to whoever helps you with Page Agent.")
        return 1
    print(f"All {len(checks)} checks passed.")
    return 0


# --- the checks ------------------------------------------------------------------------------------------------------


def parts_load() -> Check:
    """Every module of the app, its resources, and Qt drawing the app's icon off screen."""
    try:
        import openai
        from PySide6 import QtCore, QtSvg, QtWidgets  # noqa: F401  (loading them is the check)
        from PySide6.QtGui import QGuiApplication, QImage, QPainter

        import app.cli.task
        import app.ui.desktop  # noqa: F401
        from app.assets import resource_path

        for name in _RESOURCES:
            resource_path(name)
        # The app's icon drawn by Qt's SVG renderer, off screen: Qt's libraries and plugins load.
        if QGuiApplication.instance() is None:
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
            _qt = QGuiApplication([sys.argv[0]])  # kept alive for the drawing below
        image = QImage(64, 64, QImage.Format.Format_ARGB32)
        image.fill(0)
        renderer = QtSvg.QSvgRenderer(str(resource_path("icons/app.svg")))
        painter = QPainter(image)
        renderer.render(painter)
        painter.end()
        if not renderer.isValid() or image.pixel(32, 32) == 0:
            return Check(False, "The app's parts load, but Qt could not draw the app's icon.")
    except Exception as exc:
        return Check(False, f"A part of the app did not load: {type(exc).__name__}: {exc}")
    versions = f"Python {platform.python_version()}, Qt {QtCore.qVersion()}, openai {openai.__version__}"
    return Check(True, f"Every part of the app loads ({versions}).")


def _writable(label: str, folder: Path) -> Check:
    scratch = folder / f".self-test-{uuid.uuid4().hex}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        scratch.write_text("Page Agent self-test\n", encoding="utf-8")
        scratch.unlink()
    except OSError as exc:
        return Check(False, f"The {label} folder cannot be written: {folder} ({exc.strerror or exc}).")
    return Check(True, f"The {label} folder can be written: {folder}")


def _browser_found(paths: AppPaths) -> tuple[Check, str | None]:
    """The check, and the browser to start (None when there is none)."""
    from app.browser.chromium import ChromiumNotFoundError, locate
    from app.browser.discovery import browser_name
    from app.settings.model import SettingsUnreadable, read_settings

    try:
        configured = read_settings(paths.settings_file).settings.browser_path or None
    except SettingsUnreadable:
        configured = None
    try:
        found = locate(configured, paths.data_dir)
    except ChromiumNotFoundError as exc:
        return Check(False, str(exc)), None
    return Check(True, f"A browser was found: {browser_name(found.kind)} at {found.path}"), found.path


async def _browser_works(executable: str) -> list[Check]:
    """``executable`` started headless on a throw-away profile, and the demo's sign-in page opened and read."""
    from app.browser.controller import PlaywrightPageController
    from app.browser.session import BrowserSession, LaunchOptions
    from app.core.abort import AbortSignal
    from app.demo.bundle import DemoBundle

    checks: list[Check] = []
    demo = DemoBundle()
    with tempfile.TemporaryDirectory(prefix="page-agent-self-test-") as scratch:
        session: BrowserSession | None = None
        try:
            start_page = await demo.start_page()
            options = LaunchOptions(
                executable=executable,
                profile_dir=Path(scratch) / "profile",
                downloads_dir=Path(scratch) / "downloads",
                headless=True,
            )
            session = await _within(BrowserSession.launch(options), "The browser did not start")
            checks.append(Check(True, "The browser starts without a window."))
            controller = PlaywrightPageController(session)
            signal = AbortSignal()
            await _within(controller.open(start_page, signal), "The bundled page did not open")
            state = await _within(controller.get_browser_state(signal), "The bundled page could not be read")
            if _EXPECTED_ELEMENT not in state.content:
                checks.append(Check(False, f"The bundled page opened, but its “{_EXPECTED_ELEMENT}” was not read."))
            else:
                checks.append(
                    Check(True, f"A page bundled with the app opens and can be read ({len(state.elements)} elements).")
                )
        except Exception as exc:
            if not checks:
                checks.append(Check(False, f"The browser could not start: {_first_line(exc)}"))
                checks.append(Check(False, "Skipped opening and reading a page bundled with the app: no browser."))
            else:
                checks.append(Check(False, f"The browser could not open or read the bundled page: {_first_line(exc)}"))
        finally:
            if session is not None:
                await session.close()
            await demo.close()
    return checks


async def _within(work: Awaitable[T], what: str) -> T:
    try:
        return await asyncio.wait_for(work, _BROWSER_DEADLINE)
    except TimeoutError:
        raise RuntimeError(f"{what} within {_BROWSER_DEADLINE:g} s.") from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]
