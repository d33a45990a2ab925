"""The app's C heap stays in a few arenas however many threads it starts (app/malloc_arenas.py), unless the person
set MALLOC_ARENA_MAX."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from app.malloc_arenas import ARENAS
from tests.fakes.ports import ROOT

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's arenas")

# Eight threads each allocate while all of them are alive; glibc then says how many arenas the process has.
_THREADS = """
import ctypes, sys, threading
from app.main import limit_malloc_arenas
print(limit_malloc_arenas())
libc = ctypes.CDLL("libc.so.6")
libc.malloc.restype = ctypes.c_void_p
together = threading.Barrier(8)
def work():
    libc.malloc(4096)
    together.wait(60)
threads = [threading.Thread(target=work) for _ in range(8)]
for thread in threads: thread.start()
for thread in threads: thread.join()
libc.malloc_stats()
"""


def _arenas(env: dict[str, str]) -> tuple[bool, int]:
    done = subprocess.run(
        [sys.executable, "-c", _THREADS], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=True
    )
    return done.stdout.strip() == "True", done.stderr.count("Arena ")


def test_eight_threads_share_the_apps_few_arenas() -> None:
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    limited, arenas = _arenas(env)
    assert limited and arenas <= ARENAS


def test_the_persons_own_setting_wins() -> None:
    limited, arenas = _arenas({**os.environ, "MALLOC_ARENA_MAX": "8"})
    assert not limited and arenas > ARENAS  # glibc's own: an arena per thread, up to eight
