"""``page-agent-desktop run``: the first second of a run, spent twice, and stoppable from its first moment.

Python needs about half a second to import what a run uses, and Playwright's driver (Node.js) about as long to
start. The stop signals are handled before either begins (``app/stop_signals.py`` remembered any that came
earlier); then the driver is started, the run's modules are imported on a worker thread meanwhile, and the run
launches Chromium on the driver that is already up. A stop before that finds nothing started, or only the driver,
which is stopped: the run ends stopped (exit 3) without launching Chromium.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import sys

from app.cli.signals import StopSignals, under_stop_signals


def run_cli(args: argparse.Namespace) -> int:
    # A terminal or pipe that cannot show a character gets "?", rather than the finished run dying as it prints.
    sys.stdout.reconfigure(errors="replace")  # type: ignore[union-attr]
    return asyncio.run(under_stop_signals(lambda signals: _run(args, signals)))


async def _run(args: argparse.Namespace, signals: StopSignals) -> int:
    from app.browser.driver import DriverStart

    # Stopped already (a signal while Python started): no driver to start and stop again.
    driver = None if signals.stop.is_set() else DriverStart()
    try:
        cli = await asyncio.to_thread(importlib.import_module, "app.cli.task")
        result: int = await cli.run(args, driver, signals)
        return result
    finally:
        if driver is not None:
            await driver.close()
