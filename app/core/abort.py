"""One abort path per task: an AbortController whose signal reaches the model call, every tool and every wait."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

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
        """Await ``awaitable``; on abort cancel it at once and raise AbortError instead of waiting for it.

        The caller's own cancellation wins over an abort: it propagates as CancelledError and cancels the work.
        """
        if self._reason is not None:
            _discard(awaitable)
            raise AbortError(self._reason)
        task = asyncio.ensure_future(awaitable)
        aborted = asyncio.get_running_loop().create_future()

        def on_abort(_reason: str) -> None:
            if not aborted.done():
                aborted.set_result(None)

        self.add_callback(on_abort)
        try:
            await asyncio.wait({task, aborted}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            _abandon(task)
            raise
        finally:
            self.remove_callback(on_abort)
            aborted.cancel()
        # Finished work keeps its result even if the abort came in the same tick: the caller's next check stops it.
        if task.done() and not task.cancelled() and task.exception() is None:
            return task.result()
        if self._reason is not None:
            # Whatever the work did in answer to the abort (cancelled, failed), the caller learns of the abort.
            _abandon(task)
            raise AbortError(self._reason)
        # The work's own error, or CancelledError if someone else cancelled it: the same as awaiting it directly.
        return task.result()


def _discard(awaitable: Awaitable[object]) -> None:
    """Dispose of work that will never be awaited, so it raises no "never awaited" warning."""
    if isinstance(awaitable, Coroutine):
        awaitable.close()
    elif asyncio.isfuture(awaitable):
        _abandon(awaitable)


def _abandon(task: asyncio.Future[Any]) -> None:
    """Cancel work nobody will await; it may still be unwinding, so read its outcome quietly once it ends."""
    task.cancel()
    task.add_done_callback(_swallow)


def _swallow(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()


class AbortController:
    def __init__(self, parent: AbortSignal | None = None) -> None:
        self.signal = AbortSignal(parent)

    def abort(self, reason: str = "Task aborted") -> None:
        self.signal._abort(reason)
