"""``page-agent-desktop run``: the first second of a run, spent twice.

Python needs about half a second to import what a run uses, and Playwright's driver (Node.js) about as long to
start. The driver is started first, the run's modules are imported on a worker thread meanwhile, and the run then
launches Chromium on the driver that is already up.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import sys


def run_cli(args: argparse.Namespace) -> int:
    # A terminal or pipe that cannot show a character gets "?", rather than the finished run dying as it prints.
    sys.stdout.reconfigure(errors="replace")  # type: ignore[union-attr]
    return asyncio.run(_run(args))


async def _run(args: argparse.Namespace) -> int:
    from app.browser.driver import DriverStart

    driver = DriverStart()
    try:
        cli = await asyncio.to_thread(importlib.import_module, "app.cli.task")
        result: int = await cli.run(args, driver)
        return result
    finally:
        await driver.close()
