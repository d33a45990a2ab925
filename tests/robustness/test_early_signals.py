"""Ctrl+C and SIGTERM in the first moments of `python -m app run ...` (a task, or a routine with --rows): while Python
still imports the run's modules, while Playwright's driver starts, while Chromium starts. Each moment is an event
seen from outside the process (asyncio's C module mapped into it, the driver or Chromium appearing among its
children), never a clock. Every one ends in exit 3, with the stop said, no traceback, and no process of the run left
behind."""

from __future__ import annotations

import asyncio
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from app.browser.processes import profile_pids
from tests.cli.routine_helpers import started
from tests.cli.test_cli import cli, cli_env
from tests.fakes.llm_server import FakeLLMServer
from tests.robustness.test_signals import DEADLINE, finish, home, profile_of  # noqa: F401 - the fixture
from tests.waiting import sync_until

Moment = Callable[[subprocess.Popen[str], Path], object]


def descendants(pid: int) -> dict[int, bytes]:
    """Every process below ``pid``, with its command line."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: dict[int, bytes] = {}
    wanted = {pid}
    while wanted:
        children = {child for child, parent in parents.items() if parent in wanted and child not in found}
        for child in children:
            try:
                found[child] = Path(f"/proc/{child}/cmdline").read_bytes()
            except OSError:
                found[child] = b""
        wanted = children
    return found


def running(pid: int) -> bool:
    """Whether ``pid`` is still a live process (an exited one nobody reaped yet is not)."""
    try:
        return (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]) != "Z"
    except OSError:
        return False


def importing(process: subprocess.Popen[str], _home: Path) -> object:
    """Python is importing what a run needs: asyncio's C module is in the process."""
    maps = Path(f"/proc/{process.pid}/maps")
    return sync_until(
        lambda: b"/_asyncio." in maps.read_bytes(), DEADLINE, "asyncio was imported", alive=process, every=0.002
    )


def driver_starting(process: subprocess.Popen[str], _home: Path) -> object:
    """Playwright's driver (Node.js) is among the run's children."""
    return sync_until(
        lambda: any(b"run-driver" in line for line in descendants(process.pid).values()),
        DEADLINE,
        "Playwright's driver started",
        alive=process,
        every=0.01,
    )


def chromium_starting(process: subprocess.Popen[str], home: Path) -> object:
    """A Chromium process of the run's profile exists (it is still starting)."""
    return sync_until(
        lambda: asyncio.run(profile_pids(profile_of(home))), DEADLINE, "Chromium started", alive=process, every=0.01
    )


MOMENTS = {"importing": importing, "driver starting": driver_starting, "chromium starting": chromium_starting}


def start(home: Path, llm_server: FakeLLMServer, *args: str) -> subprocess.Popen[str]:
    return started(cli(*args), cli_env(home, llm_server))


def stopped_cleanly(process: subprocess.Popen[str], moment: Moment, home: Path, signum: signal.Signals) -> str:
    """Sends ``signum`` at ``moment``; the run's stderr once it has ended as it should."""
    moment(process, home)
    before = descendants(process.pid)
    process.send_signal(signum)
    stdout, stderr = finish(process)
    assert process.returncode == 3, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    left = [cmdline for pid, cmdline in before.items() if running(pid)]
    assert left == [], "a process of the run was left behind"
    return stdout + stderr


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("moment", list(MOMENTS))
def test_a_task_stopped_in_its_first_moments_ends_stopped(
    moment: str, signum: signal.Signals, home: Path, llm_server: FakeLLMServer
) -> None:
    process = start(home, llm_server, "Say hello", "--json")

    said = stopped_cleanly(process, MOMENTS[moment], home, signum)

    assert '"data": "Stopped before the task started."' in said
    assert llm_server.requests == []


@pytest.mark.parametrize(
    ("moment", "signum"),
    [pytest.param(m, signal.SIGINT, id=f"{m}-SIGINT") for m in MOMENTS]
    + [pytest.param("importing", signal.SIGTERM, id="importing-SIGTERM")],
)
def test_a_routine_stopped_in_its_first_moments_ends_stopped(
    moment: str, signum: signal.Signals, tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    rows = tmp_path / "rows.csv"
    rows.write_text("name\nAna\nBo\n", encoding="utf-8")
    process = start(home, llm_server, "Add {name}", "--rows", str(rows), "--url", "http://127.0.0.1:9/")

    said = stopped_cleanly(process, MOMENTS[moment], home, signum)

    assert "Stopped before the routine started." in said
    assert llm_server.requests == []
