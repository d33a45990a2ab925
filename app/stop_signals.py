"""Ctrl+C, SIGTERM and SIGHUP for every face (the command line, the MCP server, the panel), in one place.

From the process's first moment: ``catch()`` is the first thing ``app.main.main`` does, so a stop signal that comes
while Python still imports a run's modules is remembered (no KeyboardInterrupt, no death by SIGTERM). Each face then
hands the signals to its event loop with ``on_stop_signals``, which delivers one that came meanwhile as if it came
now. Imports nothing but ``signal`` at first: it must be cheap.
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

# SIGHUP does not exist on Windows.
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))

OnSignal = Callable[[int], None]

_before: dict[int, Any] = {}
_caught: list[int] = []


def catch() -> None:
    for signum in STOP_SIGNALS:
        _before[signum] = signal.signal(signum, _remember)


def on_stop_signals(loop: asyncio.AbstractEventLoop, handle: OnSignal) -> None:
    """From now on each stop signal calls ``handle(signum)`` on ``loop``, in the loop's own turn; one caught before
    is handled at once. The loop's own handlers where it has them (asyncio on POSIX); elsewhere (Windows, Qt's loop)
    Python's handler hands the signal to the loop."""
    for signum in STOP_SIGNALS:
        try:
            loop.add_signal_handler(signum, handle, signum)
        except (NotImplementedError, RuntimeError):
            signal.signal(signum, lambda received, _frame: loop.call_soon_threadsafe(handle, received))
    _before.clear()
    caught = list(_caught)
    _caught.clear()
    for signum in caught:
        handle(signum)


def release() -> None:
    """Nothing for a loop to handle after all (--version, --self-test): each signal gets its handler back, and one
    that came meanwhile is raised again now."""
    for signum, handler in _before.items():
        signal.signal(signum, handler)
    _before.clear()
    caught = list(dict.fromkeys(_caught))
    _caught.clear()
    for signum in caught:
        signal.raise_signal(signum)


def _remember(signum: int, _frame: FrameType | None) -> None:
    _caught.append(signum)
