"""Signals to the headless runner, as a shell or a service manager sends them: `python -m app run ...` in a
subprocess with real headless Chromium and the real HTTP fake model holding its answer. Every ending is exit 3 with
the report printed, and no Chromium process of the run is left behind."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.browser.chromium import find_chromium
from app.browser.processes import profile_pids
from tests.cli.test_cli import ROOT, cli, cli_env
from tests.fakes.llm_server import FakeLLMServer, done_reply
from tests.waiting import sync_until

SLOW_ANSWER = 60.0  # the model "thinks" far longer than any test waits
# How long a test waits for the run to end once signalled: half the model's answer, so a stop that waited for the
# answer (or for a slow Chromium) fails, while a loaded machine that is merely slow passes. How fast a stop is, is
# tests/bench/bench_early_stop.py's figure.
DEADLINE = 30.0


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    home = tmp_path / "home"
    yield home
    assert asyncio.run(profile_pids(profile_of(home))) == [], "a Chromium process of the run was left behind"


def profile_of(home: Path) -> Path:
    return home / "data" / "browser-profile"


def start(home: Path, llm_server: FakeLLMServer, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        cli("Say hello", "--json", *extra),
        env=cli_env(home, llm_server),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen[str]) -> tuple[str, str]:
    """What the run printed, once it has ended; AssertionError when it has not ended within DEADLINE."""
    try:
        return process.communicate(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"the run did not end within {DEADLINE} s of the signal") from None
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def waiting_for_the_model(home: Path, llm_server: FakeLLMServer) -> subprocess.Popen[str]:
    llm_server.add(done_reply("Hello.", delay=SLOW_ANSWER))
    process = start(home, llm_server)
    llm_server.wait_received(timeout=DEADLINE, alive=process)
    return process


# SIGHUP (a terminal closing) is POSIX's: on Windows, which has none, the others are still collected.
STOP_SIGNALS = [signal.SIGTERM, *([signal.SIGHUP] if hasattr(signal, "SIGHUP") else []), signal.SIGINT]


@pytest.mark.parametrize("signum", STOP_SIGNALS)
def test_a_signal_stops_the_run_like_ctrl_c_with_the_report(
    signum: signal.Signals, home: Path, llm_server: FakeLLMServer
) -> None:
    process = waiting_for_the_model(home, llm_server)

    process.send_signal(signum)
    stdout, stderr = finish(process)

    assert process.returncode == 3, stderr
    result = json.loads(stdout)
    assert result["status"] == "stopped" and result["success"] is False
    assert "Traceback" not in stderr


def test_a_second_ctrl_c_quits_at_once_without_a_traceback(home: Path, llm_server: FakeLLMServer) -> None:
    process = waiting_for_the_model(home, llm_server)

    # An impatient user: Ctrl+C again and again, through the stop and Chromium's closing, until the run ends.
    sent = time.monotonic()
    while process.poll() is None and time.monotonic() - sent < DEADLINE:
        process.send_signal(signal.SIGINT)
        time.sleep(0.02)
    stdout, stderr = finish(process)

    assert process.returncode == 3, stderr
    assert json.loads(stdout)["status"] == "stopped"
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr


def test_ctrl_c_while_chromium_starts_stops_at_once(tmp_path: Path, home: Path, llm_server: FakeLLMServer) -> None:
    # A Chromium that takes longer to start than the test waits: Ctrl+C must not wait for it.
    started = tmp_path / "chromium-started"
    slow = tmp_path / "slow-chromium"
    slow.write_text(f'#!/bin/sh\ntouch "{started}"\nsleep {SLOW_ANSWER}\nexec "{asyncio.run(find_chromium())}" "$@"\n')
    slow.chmod(0o755)
    (home / "config").mkdir(parents=True)
    (home / "config" / "settings.json").write_text(json.dumps({"browser_path": str(slow)}))
    process = start(home, llm_server)
    sync_until(started.exists, DEADLINE, "Chromium began to start", alive=process)

    process.send_signal(signal.SIGINT)
    stdout, stderr = finish(process)  # not after the slow Chromium's minute

    assert process.returncode == 3, stderr
    result = json.loads(stdout)
    assert result["status"] == "stopped" and result["data"] == "Stopped before the task started."
    assert llm_server.requests == []
    assert "Traceback" not in stderr
