"""A tiny synchronous event emitter: listeners run in order on the loop's thread, and one failing listener
cannot break the agent or the other listeners."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Literal

# status_changed(AgentStatus), activity(AgentActivity), task_started(TaskStarted), event_added(HistoricalEvent: one
# event appended to the running task's history), task_finished(TaskFinished), disposed(): each says what changed, so
# no listener compares lists or reads the agent's state to find out.
EventName = Literal["status_changed", "activity", "task_started", "event_added", "task_finished", "disposed"]
Listener = Callable[..., Any]

log = logging.getLogger(__name__)


class EventEmitter:
    def __init__(self) -> None:
        self._listeners: dict[str, list[Listener]] = {}

    def on(self, event: EventName, listener: Listener) -> Callable[[], None]:
        """Subscribe; returns a function that unsubscribes."""
        self._listeners.setdefault(event, []).append(listener)
        return lambda: self.off(event, listener)

    def off(self, event: EventName, listener: Listener) -> None:
        listeners = self._listeners.get(event, [])
        if listener in listeners:
            listeners.remove(listener)

    def emit(self, event: EventName, *args: Any) -> None:
        for listener in list(self._listeners.get(event, [])):
            try:
                listener(*args)
            except Exception:
                log.exception("listener for %s failed", event)

    def clear(self) -> None:
        self._listeners.clear()
