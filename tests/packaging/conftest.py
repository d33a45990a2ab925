"""The built app, made once per test session by the project's own build command (bash packaging/build.sh).

The first session on a fresh checkout pays for the build environment and the whole freeze (a few minutes); later
sessions reuse both (PyInstaller rebuilds what changed). The .deb is compressed with gzip here (DEB_COMPRESSION),
which takes a minute instead of several; its contents are the same.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from app import __version__

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
BUILD_DEADLINE = 1500.0


@dataclass(frozen=True)
class Built:
    app: Path  # the frozen executable in dist/page-agent-desktop/
    onedir: Path
    tarball: Path
    deb: Path
    version: str
    seconds: float


@pytest.fixture(scope="session")
def built() -> Built:
    """The build, once per test run: in parallel (pytest -n) each worker is a session of its own, so the first one
    to get here builds under a lock and the others find its build, stamped with the run's id."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID", "")
    stamp = ARTIFACTS / "built-by-test-run"
    with (ARTIFACTS / "build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        seconds = _build() if not run or not stamp.exists() or stamp.read_text() != run else 0.0
        stamp.write_text(run)
    dist = ROOT / "dist"
    onedir = dist / "page-agent-desktop"
    return Built(
        app=onedir / "page-agent-desktop",
        onedir=onedir,
        tarball=dist / f"page-agent-desktop-{__version__}-linux-x86_64.tar.gz",
        deb=dist / f"page-agent-desktop_{__version__}_amd64.deb",
        version=__version__,
        seconds=seconds,
    )


def _build() -> float:
    started = time.perf_counter()
    done = subprocess.run(
        ["bash", str(ROOT / "packaging" / "build.sh")],
        env={**os.environ, "DEB_COMPRESSION": "gzip"},
        capture_output=True,
        text=True,
        timeout=BUILD_DEADLINE,
        cwd=ROOT,
    )
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "build.log").write_text(done.stdout + done.stderr, encoding="utf-8")
    assert done.returncode == 0, f"packaging/build.sh failed (tests/artifacts/build.log):\n{done.stderr[-3000:]}"
    return time.perf_counter() - started
