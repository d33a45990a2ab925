"""Time from starting `python -m app run ... --url PAGE --headless` to the first model request.

A new Python process each run, as a user's script starts it: the imports, the settings, headless Chromium, the
start page and the first observation all count. The clock starts just before the process is spawned and stops when
the fake model server receives the first request (both read CLOCK_MONOTONIC). The model then answers "done" and the
run ends; the next run starts only when the process has exited.

Run: .venv/bin/python -m tests.bench.bench_cli_start [--runs N]   (prints the median and the spread)
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.fakes.html_site import html_site
from tests.fakes.llm_server import FakeLLMServer, done_reply

ROOT = Path(__file__).resolve().parents[2]
PAGE = b"<!doctype html><title>Orders</title><h1>Orders</h1><button>Export</button><input aria-label=Search>"


def _one(server: FakeLLMServer, url: str, home: Path) -> float:
    server.add(done_reply("Read."))
    # PYTHONDONTWRITEBYTECODE (set on CI machines) would compile every module on every start; a user's Python
    # caches the bytecode from the first run on.
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "PAGE_AGENT_")) and k != "PYTHONDONTWRITEBYTECODE"
    }
    env.update(
        PAGE_AGENT_HOME=str(home),
        OPENAI_API_KEY="sk-dummy",
        OPENAI_BASE_URL=server.base_url,
        PAGE_AGENT_MODEL="fake-model",
    )
    seen = len(server.request_times)
    start = time.monotonic()
    finished = subprocess.run(
        [sys.executable, "-m", "app", "run", "Read the title", "--url", url, "--headless"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    if finished.returncode != 0 or len(server.request_times) <= seen:
        raise SystemExit(f"the run failed (exit {finished.returncode}): {finished.stderr.decode()[-2000:]}")
    return (server.request_times[seen] - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    runs = parser.parse_args().runs
    server = FakeLLMServer().start()
    try:
        with html_site(lambda path: PAGE) as origin, tempfile.TemporaryDirectory() as home:
            _one(server, origin + "/", Path(home))  # warm the disk cache and create the profile, not counted
            times = [_one(server, origin + "/", Path(home)) for _ in range(runs)]
    finally:
        server.stop()
    print(
        f"CLI start to the first model request ({runs} runs): median {statistics.median(times):,.0f} ms "
        f"(min {min(times):,.0f}, max {max(times):,.0f})"
    )


if __name__ == "__main__":
    main()
