"""The person at the keyboard, as a ConfirmHandler: answers every question the same way and remembers them."""

from __future__ import annotations

import asyncio

from app.core.abort import AbortSignal
from app.core.safety.risky import ConfirmRequest


class Person:
    """Answers ``answer`` after ``delay`` s; None never answers (the question waits until it is called off)."""

    def __init__(self, answer: bool | None, delay: float = 0.0) -> None:
        self.answer = answer
        self.delay = delay
        self.requests: list[ConfirmRequest] = []
        self.asked = asyncio.Event()

    async def __call__(self, request: ConfirmRequest, signal: AbortSignal) -> bool:
        self.requests.append(request)
        self.asked.set()
        if self.answer is None:
            await signal.wait()
            signal.throw_if_aborted()
        await signal.sleep(self.delay)
        return bool(self.answer)
