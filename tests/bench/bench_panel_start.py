"""Time to a visible panel: from starting ``python -m app --demo`` to the panel's window mapped on screen, and to
Chromium's window beside it, as a user launching the app sees it.

Needs an X display with a window manager and xdotool (the README's "Try it as a user would"):

    Xvfb :5 -screen 0 1366x768x24 & DISPLAY=:5 openbox &
    DISPLAY=:5 .venv/bin/python -m tests.bench.bench_panel_start                 (this checkout)
    DISPLAY=:5 .venv/bin/python -m tests.bench.bench_panel_start --against DIR   (and another one, side by side)
    DISPLAY=:5 .venv/bin/python -m tests.bench.bench_panel_start --frozen dist/page-agent-desktop/page-agent-desktop

``--against DIR`` runs the app from another checkout too (say ``git archive <rev> | tar -x -C DIR``), and
``--frozen APP`` the built app (bash packaging/build.sh) with a bare environment (PATH=/usr/bin:/bin), as from a
desktop menu; they alternate start by start with this checkout so that all see the same machine. Each start uses a
fresh home folder, so it is a first start of the demo (no saved settings, no profile). The figures are the median with
the fastest and slowest start, and the load average over the runs: on a shared machine they move with it.
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
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
DEADLINE = 60.0


def _visible(name: str) -> bool:
    found = subprocess.run(
        ["xdotool", "search", "--onlyvisible", "--name", name], capture_output=True, text=True, check=False
    )
    return bool(found.stdout.strip())


def one_start(app: Path, frozen: bool = False) -> tuple[float, float]:
    """Seconds to the panel's window, then to Chromium's window, for the app in the checkout ``app`` (or the built
    app ``app``, with ``frozen``)."""
    home = tempfile.mkdtemp(prefix="bench-start-")
    if frozen:
        command = [str(app), "--demo"]
        env = {"PATH": "/usr/bin:/bin", "HOME": home, "DISPLAY": os.environ["DISPLAY"], "PAGE_AGENT_HOME": home}
        cwd = Path(home)
    else:
        command = [sys.executable, "-m", "app", "--demo"]
        env = {**os.environ, "PAGE_AGENT_HOME": home, "PYTHONPATH": str(app)}
        cwd = app
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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


def _spread(values: list[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    return f"median {statistics.median(ms):,.0f} ms (fastest {ms[0]:,.0f}, slowest {ms[-1]:,.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="starts per checkout (default 7)")
    parser.add_argument("--against", type=Path, help="another checkout to start alternately with this one")
    parser.add_argument("--frozen", type=Path, metavar="APP", help="a built app to start alternately with this one")
    args = parser.parse_args()
    if not os.environ.get("DISPLAY") or shutil.which("xdotool") is None:
        sys.exit("needs DISPLAY (Xvfb with a window manager) and xdotool; see this module's docstring")
    apps: dict[str, tuple[Path, bool]] = {"this checkout": (HERE, False)}
    if args.against is not None:
        apps[f"{args.against}"] = (args.against.resolve(), False)
    if args.frozen is not None:
        apps[f"built app {args.frozen}"] = (args.frozen.resolve(), True)
    for app, frozen in apps.values():
        one_start(app, frozen)  # warm the disk cache: the first start after boot reads every module from disk
    load_before = os.getloadavg()[0]
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in apps}
    for _ in range(args.runs):
        for name, (app, frozen) in apps.items():
            results[name].append(one_start(app, frozen))
    load_after = os.getloadavg()[0]
    print(f"{args.runs} starts each, alternating; load average {load_before:.1f} before, {load_after:.1f} after")
    for name, starts in results.items():
        panels, browsers = zip(*starts, strict=True)
        print(f"{name}:\n  panel visible:    {_spread(list(panels))}\n  Chromium visible: {_spread(list(browsers))}")


if __name__ == "__main__":
    main()
