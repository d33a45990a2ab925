"""The only door between the agent and the widgets: the agent's events, re-emitted as Qt signals."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

if TYPE_CHECKING:
    from app.core.agent import Agent
    from app.core.events import EventName, Listener


def _unsubscribe_all(unsubscribes: list[Callable[[], None]]) -> None:
    for unsubscribe in unsubscribes:
        unsubscribe()
    unsubscribes.clear()


class AgentBridge(QObject):
    statusChanged = Signal(object)  # AgentStatus
    activity = Signal(object)  # AgentActivity
    eventAdded = Signal(object)  # HistoricalEvent: one more event in the running task's history
    disposed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._agent: Agent | None = None
        self._unsubscribe: list[Callable[[], None]] = []
        # An agent may outlive the window: stop forwarding to a deleted QObject. The slot holds only the list, so
        # it can run while this object is being destroyed.
        unsubscribes = self._unsubscribe
        self.destroyed.connect(lambda: _unsubscribe_all(unsubscribes))

    @property
    def agent(self) -> Agent | None:
        return self._agent

    def attach(self, agent: Agent) -> None:
        """Follow ``agent`` from now on (a new one replaces the old: settings changed, Chromium relaunched)."""
        if agent is self._agent:
            return
        self.detach()
        self._agent = agent
        self._unsubscribe.extend(
            [
                agent.on("status_changed", self.statusChanged.emit),
                agent.on("activity", self.activity.emit),
                agent.on("event_added", self.eventAdded.emit),
                agent.on("disposed", self._on_disposed),
            ]
        )

    def on(self, event: EventName, listener: Listener) -> Callable[[], None]:
        """The agent's ``on`` for whichever agent is attached, now or later (the panel's run may build a new one):
        ``listener`` follows this bridge's signal for ``event``; returns a function that stops it."""
        signal = {
            "status_changed": self.statusChanged,
            "activity": self.activity,
            "event_added": self.eventAdded,
            "disposed": self.disposed,
        }[event]
        signal.connect(listener)

        def stop() -> None:
            signal.disconnect(listener)

        return stop

    def detach(self) -> None:
        _unsubscribe_all(self._unsubscribe)
        self._agent = None

    def _on_disposed(self) -> None:
        # The agent drops its listeners itself once disposed; forget it so a later attach starts clean.
        self._unsubscribe.clear()
        self._agent = None
        self.disposed.emit()
