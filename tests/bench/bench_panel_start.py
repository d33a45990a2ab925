"""Time to a visible panel: from starting ``python -m app --demo`` to the panel's window mapped on screen, and to
Chromium's window beside it, as a user launching the app sees it.

Needs an X display with a window manager and xdotool (the README's "Try it as a user would"):

    Xvfb :5 -screen 0 1366x768x24 & DISPLAY=:5 openbox &
    DISPLAY=:5 .venv/bin/python -m tests.bench.bench_panel_start      (prints medians over runs)
    DISPLAY=:5 .venv/bin/python -m tests.bench.bench_panel_start --frozen dist/page-agent-desktop/page-agent-desktop

With --frozen, the built app (bash packaging/build.sh) and the venv start in turn, side by side in one session; the
frozen app runs with a bare environment (PATH=/usr/bin:/bin), as from a desktop menu.

Each run uses a fresh home folder, so it is a first start of the demo (no saved settings, no profile).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

RUNS = 5
DEADLINE = 60.0


def _visible(name: str) -> bool:
    found = subprocess.run(
        ["xdotool", "search", "--onlyvisible", "--name", name], capture_output=True, text=True, check=False
    )
    return bool(found.stdout.strip())


def one_start(frozen: str | None = None) -> tuple[float, float]:
    """Seconds to the panel's window, then to Chromium's window (of the venv's app, or the ``frozen`` one)."""
    home = tempfile.mkdtemp(prefix="bench-start-")
    if frozen is None:
        command = [sys.executable, "-m", "app", "--demo"]
        env = {**os.environ, "PAGE_AGENT_HOME": home}
    else:
        command = [frozen, "--demo"]
        env = {"PATH": "/usr/bin:/bin", "HOME": home, "DISPLAY": os.environ["DISPLAY"], "PAGE_AGENT_HOME": home}
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    panel = browser = 0.0
    try:
        while time.perf_counter() - started < DEADLINE and not browser:
            now = time.perf_counter() - started
            if not panel and _visible("^Page Agent$"):
                panel = now
            if panel and _visible("Chromium"):
                browser = now
            time.sleep(0.01)
        if not browser:
            raise RuntimeError(f"no windows within {DEADLINE:g} s")
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(home, ignore_errors=True)
    return panel, browser


def report(label: str, starts: list[tuple[float, float]]) -> None:
    panels, browsers = zip(*starts, strict=True)
    print(
        f"{label}panel visible:    median {statistics.median(panels) * 1000:.0f} ms "
        f"(min {min(panels) * 1000:.0f}, max {max(panels) * 1000:.0f}) over {len(starts)} starts"
    )
    print(
        f"{label}Chromium visible: median {statistics.median(browsers) * 1000:.0f} ms "
        f"(min {min(browsers) * 1000:.0f}, max {max(browsers) * 1000:.0f})"
    )


def main() -> None:
    if not os.environ.get("DISPLAY") or shutil.which("xdotool") is None:
        sys.exit("needs DISPLAY (Xvfb with a window manager) and xdotool; see this module's docstring")
    parser = argparse.ArgumentParser()
    parser.add_argument("--frozen", metavar="APP", help="also start this built app, in turn with the venv's")
    parser.add_argument("--runs", type=int, default=RUNS)
    args = parser.parse_args()
    frozen = os.path.abspath(args.frozen) if args.frozen else None
    one_start()  # warm the disk cache: the first start after boot reads every module from disk
    if frozen is None:
        report("", [one_start() for _ in range(args.runs)])
        return
    one_start(frozen)
    venv, built = [], []
    for _ in range(args.runs):  # in turn, so both see the same machine
        venv.append(one_start())
        built.append(one_start(frozen))
    report("venv:   ", venv)
    report("frozen: ", built)


if __name__ == "__main__":
    main()
