"""Time from Ctrl+C (SIGINT) to the exit of `python -m app run "Say hello" --json`, sent at each of the first moments
of a run: while Python imports the run's modules, while Playwright's driver starts, while Chromium starts, and while
the first model request waits for its answer (the moments are the events tests/robustness/test_early_signals.py
waits for). Every run must end with exit 3; the clock starts as the signal is sent and stops at the exit.

Run: .venv/bin/python -m tests.bench.bench_early_stop [--runs N]   (prints the median and the spread per moment)
"""

from __future__ import annotations

import argparse
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.cli.test_cli import ROOT, cli_env
from tests.fakes.llm_server import FakeLLMServer, done_reply
from tests.robustness.test_early_signals import MOMENTS, Moment


def waiting_for_the_model(server: FakeLLMServer) -> Moment:
    def moment(process: subprocess.Popen[str], _home: Path) -> object:
        server.add(done_reply("Hello.", delay=60))
        server.wait_received(len(server.requests) + 1, timeout=60, alive=process)
        return True

    return moment


def _one(server: FakeLLMServer, moment: Moment) -> float:
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        process = subprocess.Popen(
            [sys.executable, "-m", "app", "run", "Say hello", "--json", "--headless"],
            cwd=ROOT,
            env=cli_env(home, server),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        moment(process, home)
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        _out, err = process.communicate(timeout=60)
        took = (time.monotonic() - sent) * 1000
        if process.returncode != 3:
            raise SystemExit(f"the run did not end stopped (exit {process.returncode}): {err[-2000:]}")
        return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    server = FakeLLMServer().start()
    try:
        moments = {**MOMENTS, "waiting for the model": waiting_for_the_model(server)}
        for name, moment in moments.items():
            times = [_one(server, moment) for _ in range(runs)]
            print(
                f"Ctrl+C {name} to exit 3 ({runs} runs): median {statistics.median(times):,.0f} ms "
                f"(min {min(times):,.0f}, max {max(times):,.0f})"
            )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
