"""Routine mode in the whole desktop: the task's Chromium lets go of the profile for the routine's windows, and One
task brings it back. Real headless Chromium, the demo routine (offline)."""

from __future__ import annotations

import asyncio

from app.routine.types import RoutineSummary, RowStatus
from app.ui.desktop import Desktop
from app.ui.routine.panel import RoutinePanel
from tests.demo_desktop import desktop  # noqa: F401  (fixture)
from tests.fakes.memory_keyring import MemoryKeyring, memory_keyring  # noqa: F401  (fixture)
from tests.waiting import until


async def test_the_demo_routine_runs_in_the_profile_and_one_task_brings_the_browser_back(desktop: Desktop) -> None:
    window = await desktop.start()
    runtime = desktop.runtime
    assert runtime is not None
    await until(lambda: runtime.page_url().startswith("http://127.0.0.1"), timeout=60, message="the task's browser")
    window.modes.routine_button.click()
    page = window.modes.routine
    assert isinstance(page, RoutinePanel) and page.setup.demo_button.isVisible()
    await page.use_demo()
    finished: asyncio.Future[RoutineSummary] = asyncio.get_running_loop().create_future()
    page.session.finished.connect(lambda summary: finished.done() or finished.set_result(summary))
    page.session.failed.connect(lambda words: finished.done() or finished.set_exception(AssertionError(words)))
    running = asyncio.Event()
    page.runningChanged.connect(lambda on: on and running.set())
    page.submit()  # Ctrl+Enter in Routine mode
    await asyncio.wait_for(running.wait(), 60)
    assert not window.modes.task_button.isEnabled()  # the switch waits while the rows run
    window.close()  # closing the panel while rows run asks first, as during a task
    question = window.quit_question
    assert question is not None and window.isVisible()
    question.done(0)  # Keep working
    summary = await asyncio.wait_for(finished, 180)
    assert summary.counts == {RowStatus.DONE: 5}
    assert runtime.active_page is None  # the task's Chromium let go of the profile for the routine's windows
    assert window.modes.task_button.isEnabled()
    window.modes.task_button.click()
    await until(lambda: runtime.page_url().startswith("http://127.0.0.1"), timeout=60, message="the browser back")
    assert page.session.paths is None  # the routine's windows are closed
