"""Ctrl+C, SIGTERM and SIGHUP from the process's first moment, before anything slow is imported or started.

``catch()`` is the first thing ``app.main.main`` does: a stop signal that comes while Python still imports the run's
modules is remembered (no KeyboardInterrupt, no death by SIGTERM), and ``app/cli/signals.py`` turns it into the run's
stop as soon as the event loop's handlers replace these. Any other command gives the signals back with ``release()``,
which delivers one that came meanwhile as if it had come now. Imports nothing but ``signal``: it must be cheap.
"""

from __future__ import annotations

import signal
from types import FrameType
from typing import Any

# SIGHUP does not exist on Windows.
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))

_before: dict[int, Any] = {}
_caught: list[int] = []


def catch() -> None:
    for signum in STOP_SIGNALS:
        _before[signum] = signal.signal(signum, _remember)


def take() -> int:
    """How many stop signals came since ``catch()``; the loop's handlers are in place by now, so none comes here
    again."""
    count = len(_caught)
    _caught.clear()
    _before.clear()
    return count


def release() -> None:
    """Not a run after all (the panel, MCP, --version): each signal gets its handler back, and one that came
    meanwhile is raised again now."""
    for signum, handler in _before.items():
        signal.signal(signum, handler)
    _before.clear()
    caught = list(dict.fromkeys(_caught))
    _caught.clear()
    for signum in caught:
        signal.raise_signal(signum)


def _remember(signum: int, _frame: FrameType | None) -> None:
    _caught.append(signum)
