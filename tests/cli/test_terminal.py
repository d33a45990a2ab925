"""The command line's terminal module loads on Windows, which has no termios (the whole CLI imports it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_terminal_module_loads_without_termios() -> None:
    # As on Windows: no termios module, and sys.platform says so (asyncio is loaded first, as Linux's).
    probe = (
        "import asyncio, sys; sys.modules['termios'] = None; sys.platform = 'win32'; "
        "from app.cli.terminal import discard_typed_ahead; discard_typed_ahead(0); print('loaded')"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, cwd=ROOT, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "loaded"
