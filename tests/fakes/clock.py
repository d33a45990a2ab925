"""A clock a test sets by hand, for one-time codes: a wait until a later time moves it there at once (and is kept in
``waits``), so a test reaches a window's edge without waiting 30 s."""

from __future__ import annotations

from app.core.abort import AbortSignal


class FakeClock:
    def __init__(self, at: float) -> None:
        self.at = at
        self.waits: list[float] = []

    def now(self) -> float:
        return self.at

    async def sleep_until(self, when: float, signal: AbortSignal) -> None:
        signal.throw_if_aborted()
        self.waits.append(when)
        self.at = max(self.at, when)
