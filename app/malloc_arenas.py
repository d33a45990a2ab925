"""One process's C heap kept to few arenas, so that its memory stays flat over a long routine.

glibc gives each new thread an arena of its own, up to eight per core, and what a thread frees stays in its arena:
over a routine of hundreds of rows the app's threads (a grid's requests, writing the results, reading files) left
freed memory in up to sixteen arenas, and the app's resident memory kept growing though its live data did not
(tests/bench/bench_routine_grid.py). Python code runs one thread at a time, so more arenas buy this app nothing.

Only on Linux with glibc; a ``MALLOC_ARENA_MAX`` the person set wins.
"""

from __future__ import annotations

import ctypes
import os
import sys

ARENAS = 2
_M_ARENA_MAX = -8  # mallopt's parameter number in glibc's malloc.h


def limit_malloc_arenas() -> bool:
    """Whether the limit was set: call it before the app starts any thread."""
    if not sys.platform.startswith("linux") or "MALLOC_ARENA_MAX" in os.environ:
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the C library the process already has: no search for it at start
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_ARENA_MAX, ARENAS))
