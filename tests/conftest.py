"""Shared fixtures: the fake model endpoint. Qt runs offscreen in every test."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from tests.fakes.llm_server import FakeLLMServer

# Chromium, the local test sites and the controller, for every folder.
BROWSER_FIXTURES = "tests.browser_fixtures"
pytest_plugins = [BROWSER_FIXTURES]

TESTS = Path(__file__).resolve().parent
# `pytest -m "not slow"` leaves out what starts Chromium, a CLI process or the whole desktop: whole folders, and
# these files elsewhere. The rest checks the engine, the model client, settings, history and the panel's widgets.
SLOW_FOLDERS = {"browser", "security", "robustness", "demo", "cli", "runtime"}
SLOW_FILES = {
    "core/test_hand_off.py",
    "core/test_navigation_policy.py",
    "test_packaging.py",
    # The built app: packaging/build.sh once per session (tests/packaging/conftest.py), then the app run bare.
    "packaging/test_frozen_app.py",
    "packaging/test_deb.py",
    "packaging/test_installers.py",
    "ui/test_closing.py",
    "ui/test_confirm.py",
    "ui/test_desktop.py",
    "ui/test_no_browser.py",
    "ui/test_desktop_x11.py",
    "ui/test_notifications.py",
    "ui/test_real_runtime.py",
    "ui/test_routine_panel.py",
    "ui/test_desktop_routine.py",
    "ui/test_tiling.py",
    "ui_dialogs/test_desktop_settings.py",
    "ui_dialogs/test_theme.py",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        where = item.path.resolve().relative_to(TESTS)
        if where.parts[0] in SLOW_FOLDERS or where.as_posix() in SLOW_FILES:
            item.add_marker(pytest.mark.slow)
        # One Chromium per module (tests/browser_fixtures.py): its tests, and their async fixtures, run on the
        # module's loop. Prepended: auto mode has already marked the test for a loop of its own.
        if _uses_the_module_browser(item) and item.get_closest_marker("asyncio") is not None:
            item.add_marker(pytest.mark.asyncio(loop_scope="module"), append=False)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A test's report travels from a worker as UTF-8 (pytest -n): what it captured may hold a lone surrogate (the
    robustness tests log and print them on purpose), which is kept as its escape rather than ending the run."""
    outcome: Any = yield
    report: pytest.TestReport = outcome.get_result()
    report.sections = [(title, _encodable(content)) for title, content in report.sections]
    if report.longrepr is not None and not _is_encodable(str(report.longrepr)):
        report.longrepr = _encodable(str(report.longrepr))


def _is_encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _encodable(text: str) -> str:
    return text if _is_encodable(text) else text.encode("utf-8", "backslashreplace").decode("utf-8")


def _uses_the_module_browser(item: pytest.Item) -> bool:
    fixtures = getattr(item, "_fixtureinfo", None)
    definitions = list(fixtures.name2fixturedefs.get("controller", [])) if fixtures is not None else []
    return bool(definitions) and definitions[-1].func.__module__ == BROWSER_FIXTURES


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection loaded (modules, classes, the test items) lives until the end: set it aside from the
    collector, so that each collection below walks only what the tests made."""
    gc.freeze()


@pytest.fixture
def llm_server() -> Iterator[FakeLLMServer]:
    server = FakeLLMServer().start()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def collect_qt_garbage_on_the_main_thread(request: pytest.FixtureRequest) -> Iterator[None]:
    """Panel and dialog tests: collect cycles here, on the main thread. A cycle collected in a worker thread
    (asyncio.to_thread) would destroy an earlier test's Qt objects (an old qasync loop's timer) there, and Qt crashes
    later on a timer it could not stop ("Timers cannot be stopped from another thread")."""
    qt = {"ui", "ui_dialogs"} & set(request.node.path.parts)
    if qt:
        gc.collect()
    yield
    if qt:
        gc.collect()
