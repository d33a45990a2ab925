"""What the Settings dialog costs while it is open and nobody touches it: the share of one core the app uses over a
few idle seconds (offscreen Qt on qasync's loop, as in the app). It should be close to nothing.

    QT_QPA_PLATFORM=offscreen .venv/bin/python -m tests.bench.bench_dialog_idle                 (this checkout)
    QT_QPA_PLATFORM=offscreen .venv/bin/python -m tests.bench.bench_dialog_idle --against DIR   (and another one)

``--against DIR`` measures another checkout too (say ``git archive <rev> | tar -x -C DIR``), alternating run by run
with this one so that both see the same machine. Each run is a fresh process; the figure is the median of the runs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]


def measure(idle: float) -> float:
    """Percent of one core used while the dialog sits open for ``idle`` seconds, after it has settled for one."""
    import qasync
    from PySide6.QtWidgets import QApplication

    from app.settings.model import Settings
    from app.ui.settings.dialog import SettingsDialog

    app = QApplication.instance() or QApplication([])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    dialog = SettingsDialog(Settings(), first_run=True)
    dialog.show()
    loop.run_until_complete(asyncio.sleep(1.0))
    cpu, wall = time.process_time(), time.monotonic()
    loop.run_until_complete(asyncio.sleep(idle))
    used = (time.process_time() - cpu) / (time.monotonic() - wall)
    dialog.close()
    loop.close()  # its executor's threads too
    return 100 * used


def _run(checkout: Path, idle: float) -> float:
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "PYTHONPATH": str(checkout), "PAGE_AGENT_HOME": home, "QT_QPA_PLATFORM": "offscreen"}
        done = subprocess.run(
            [sys.executable, __file__, "--measure", str(idle)],
            cwd=checkout,
            env=env,
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        )
    return float(done.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--idle", type=float, default=3.0, help="seconds the dialog sits open, measured")
    parser.add_argument("--against", type=Path, help="another checkout, measured alternately")
    parser.add_argument("--measure", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure is not None:
        print(f"{measure(args.measure):.2f}")
        return
    checkouts = {"this checkout": HERE, **({str(args.against): args.against.resolve()} if args.against else {})}
    figures: dict[str, list[float]] = {name: [] for name in checkouts}
    for _ in range(args.runs):
        for name, checkout in checkouts.items():
            figures[name].append(_run(checkout, args.idle))
    print(f"Settings dialog open and idle for {args.idle:g} s, {args.runs} runs, load {os.getloadavg()[0]:.1f}:")
    for name, values in figures.items():
        print(f"  {name}: {statistics.median(values):.1f} % of one core (median; {min(values):.1f}-{max(values):.1f})")


if __name__ == "__main__":
    main()
