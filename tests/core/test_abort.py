"""AbortSignal.race: an abort wins at once, the caller's own cancellation wins over everything, and nothing it
starts or is handed is left unawaited or with an unretrieved exception."""

from __future__ import annotations

import asyncio
import gc
import warnings
from collections.abc import AsyncIterator
from typing import Any

import pytest

from app.core.abort import AbortController, AbortError
from tests.waiting import finishes


@pytest.fixture
async def loop_errors() -> AsyncIterator[list[dict[str, Any]]]:
    """What the event loop reports to its exception handler (e.g. "Task exception was never retrieved")."""
    loop = asyncio.get_running_loop()
    errors: list[dict[str, Any]] = []
    previous = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, context: errors.append(context))
    yield errors
    loop.set_exception_handler(previous)


def collected_loop_errors(errors: list[dict[str, Any]]) -> list[str]:
    # Unretrieved task exceptions are only reported when the task is garbage collected.
    gc.collect()
    return [context["message"] for context in errors]


async def fails_when_cancelled(release: asyncio.Event | None = None) -> None:
    """Work that, once cancelled, unwinds with an error of its own (like a page call whose page just closed)."""
    try:
        await asyncio.sleep(30)
    except asyncio.CancelledError:
        if release is not None:
            await release.wait()
        raise RuntimeError("failed while unwinding") from None


async def test_aborted_signal_closes_the_coroutine_it_was_handed() -> None:
    controller = AbortController()
    controller.abort("stop")

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(AbortError, match="stop"):
            await controller.signal.race(asyncio.sleep(1))
        with pytest.raises(AbortError):
            await controller.signal.sleep(1)
        gc.collect()

    assert [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)] == []


async def test_aborted_signal_cancels_the_future_it_was_handed() -> None:
    controller = AbortController()
    controller.abort()
    future: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    with pytest.raises(AbortError):
        await controller.signal.race(future)

    assert future.cancelled()


async def test_result_is_returned_when_the_work_wins() -> None:
    controller = AbortController()

    async def work() -> int:
        await asyncio.sleep(0)
        return 42

    assert await controller.signal.race(work()) == 42


async def test_abort_raises_promptly_while_the_work_is_still_unwinding(loop_errors: list[dict[str, Any]]) -> None:
    controller = AbortController()
    release = asyncio.Event()
    asyncio.get_running_loop().call_later(0.05, controller.abort, "user stop")

    with pytest.raises(AbortError, match="user stop"):
        # The work cannot finish unwinding until `release` is set below: the abort does not wait for it.
        await finishes(controller.signal.race(fails_when_cancelled(release)), 10, "the abort")

    release.set()  # now the abandoned work fails; nobody is left to read its exception but race's cleanup
    for _ in range(5):
        await asyncio.sleep(0)
    assert collected_loop_errors(loop_errors) == []


async def test_work_cancelled_by_the_abort_itself_raises_abort_error() -> None:
    # The abort's own callbacks can cancel the work first (a future cancels at once): the caller still sees
    # AbortError, not a CancelledError it never asked for.
    controller = AbortController()
    future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    controller.signal.add_callback(lambda _reason: future.cancel())
    asyncio.get_running_loop().call_soon(controller.abort, "stop")

    with pytest.raises(AbortError, match="stop"):
        await controller.signal.race(future)


async def test_work_failing_because_of_the_abort_raises_abort_error(loop_errors: list[dict[str, Any]]) -> None:
    controller = AbortController()
    # Deleted at the end on purpose (the callback then finds no future): ruff reads that as undefined.
    work: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    controller.signal.add_callback(lambda _reason: work.set_exception(RuntimeError("page closed")))  # noqa: F821
    asyncio.get_running_loop().call_soon(controller.abort, "stop")

    with pytest.raises(AbortError):
        await controller.signal.race(work)

    del work
    assert collected_loop_errors(loop_errors) == []


async def test_work_cancelled_by_someone_else_is_cancellation_not_abort() -> None:
    controller = AbortController()
    future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().call_soon(future.cancel)

    with pytest.raises(asyncio.CancelledError):
        await controller.signal.race(future)
    assert not controller.signal.aborted


async def test_work_error_without_abort_is_raised_as_is() -> None:
    controller = AbortController()

    async def work() -> None:
        raise ValueError("bad input")

    with pytest.raises(ValueError, match="bad input"):
        await controller.signal.race(work())


async def test_callers_cancellation_propagates_and_cancels_the_work(loop_errors: list[dict[str, Any]]) -> None:
    controller = AbortController()
    inner_started = asyncio.Event()
    inner: list[asyncio.Task[None]] = []

    async def work() -> None:
        inner.append(asyncio.current_task())  # type: ignore[arg-type]
        inner_started.set()
        await fails_when_cancelled()

    caller = asyncio.ensure_future(controller.signal.race(work()))
    await inner_started.wait()
    caller.cancel()

    with pytest.raises(asyncio.CancelledError):
        await caller
    assert caller.cancelled()
    for _ in range(5):
        await asyncio.sleep(0)
    assert inner[0].done() and not controller.signal.aborted

    inner.clear()
    assert collected_loop_errors(loop_errors) == []


async def test_callers_cancellation_wins_over_a_simultaneous_abort() -> None:
    controller = AbortController()
    caller = asyncio.ensure_future(controller.signal.race(asyncio.sleep(30)))
    await asyncio.sleep(0)
    caller.cancel()
    controller.abort()

    with pytest.raises(asyncio.CancelledError):
        await caller
