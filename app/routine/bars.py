"""What the bar inside each of a routine's windows says (app/browser/stop_bar.py), from the runner's events: the agent
works there; "Your turn — see the panel" (or the terminal) in the window of a row that waits for the person, a
captcha or an Allow/Deny, while the other windows still work; "Paused by you" in every other window while the
person paused the routine. Esc stops the routine only where the agent works."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.routine.types import PersonRequest, RoutineProgress

if TYPE_CHECKING:
    from app.routine.browsers import Browsers
    from app.routine.runner import RoutineRunner


class RoutineBars:
    def __init__(self, browsers: Browsers, runner: RoutineRunner) -> None:
        self._browsers = browsers
        self._waiting: dict[str, set[int]] = {}  # a window's name -> the requests waiting in it
        self._paused = False
        runner.on("person_needed", self._needed)
        runner.on("person_done", self._done)
        runner.on("progress", self._progress)

    def _needed(self, request: PersonRequest) -> None:
        self._waiting.setdefault(request.browser, set()).add(request.id)
        self._say(request.browser, waiting=True)

    def _done(self, request: PersonRequest) -> None:
        waiting = self._waiting.get(request.browser, set())
        waiting.discard(request.id)
        if not waiting:
            self._say(request.browser, waiting=False)

    def _say(self, browser: str, *, waiting: bool) -> None:
        for slot in self._browsers.slots:
            if slot.name == browser or not browser:  # no window named: the whole routine's (its limit)
                slot.controller.stop_bar.say_in_window(slot.session, "waiting" if waiting else None)

    def _progress(self, progress: RoutineProgress) -> None:
        if progress.paused != self._paused:
            self._paused = progress.paused
            for bar in self._browsers.stop_bars:
                bar.pause(progress.paused)
