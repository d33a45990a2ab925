"""One abort path per task: an AbortController whose signal reaches the model call, every tool and every wait."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


class AbortError(Exception):
    """Raised where work stops because its signal was aborted. Never retried."""

    def __init__(self, reason: str = "Task aborted") -> None:
        super().__init__(reason)
        self.reason = reason


class AbortSignal:
    def __init__(self, parent: AbortSignal | None = None) -> None:
        self._reason: str | None = None
        self._event: asyncio.Event | None = None
        self._callbacks: list[Callable[[str], None]] = []
        if parent is not None:
            if parent.aborted:
                self._abort(parent.reason)
            else:
                parent.add_callback(self._abort)

    @property
    def aborted(self) -> bool:
        return self._reason is not None

    @property
    def reason(self) -> str:
        return self._reason or ""

    def add_callback(self, callback: Callable[[str], None]) -> None:
        """Call ``callback(reason)`` on abort (at once if already aborted)."""
        if self._reason is not None:
            callback(self._reason)
        else:
            self._callbacks.append(callback)

    def remove_callback(self, callback: Callable[[str], None]) -> None:
        if callback in self._callbacks:
            self._callbacks.remove(callback)

    def throw_if_aborted(self) -> None:
        if self._reason is not None:
            raise AbortError(self._reason)

    def _abort(self, reason: str) -> None:
        if self._reason is not None:
            return
        self._reason = reason
        if self._event is not None:
            self._event.set()
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback(reason)

    async def wait(self) -> None:
        """Return once aborted."""
        if self._event is None:
            self._event = asyncio.Event()
            if self._reason is not None:
                self._event.set()
        await self._event.wait()

    async def sleep(self, seconds: float) -> None:
        """Sleep, but raise AbortError the moment the signal aborts."""
        await self.race(asyncio.sleep(max(0.0, seconds)))

    async def race(self, awaitable: Awaitable[T]) -> T:
        """Await ``awaitable``; on abort cancel it at once and raise AbortError instead of waiting for it."""
        self.throw_if_aborted()
        task = asyncio.ensure_future(awaitable)
        loop = asyncio.get_running_loop()
        aborted = loop.create_future()

        def on_abort(_reason: str) -> None:
            if not aborted.done():
                aborted.set_result(None)

        self.add_callback(on_abort)
        try:
            await asyncio.wait({task, aborted}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            task.cancel()
            raise
        finally:
            self.remove_callback(on_abort)
        if task.done():
            aborted.cancel()
            return task.result()
        task.cancel()
        # The cancelled work may still be unwinding; let it finish in the background, quietly.
        task.add_done_callback(_swallow)
        raise AbortError(self.reason)


def _swallow(task: asyncio.Future[object]) -> None:
    if not task.cancelled():
        task.exception()


class AbortController:
    def __init__(self, parent: AbortSignal | None = None) -> None:
        self.signal = AbortSignal(parent)

    def abort(self, reason: str = "Task aborted") -> None:
        self.signal._abort(reason)
