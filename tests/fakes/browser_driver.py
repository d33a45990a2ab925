"""A stand-in for Playwright's driver running ``install chromium``, for the "Download a browser" tests (nothing can
be downloaded on these machines). It prints progress the way the driver does when its output is not a terminal and
writes into PLAYWRIGHT_BROWSERS_PATH as the driver does: the browser's folder, its executable, and the completion
marker last.

    python tests/fakes/browser_driver.py ok|fail|hang

ok: 0 % to 100 %, then the browser (its executable runs FAKE_DRIVER_BROWSER, by default this machine's Chromium).
fail: stops at 30 % with the driver's kind of error line, exit 1.
hang: starts a download process of its own (as the driver forks one), writes both process ids to
      PLAYWRIGHT_BROWSERS_PATH/../driver-pids, and waits to be ended.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

REVISION = "chromium-1255"


def bar(percent: int) -> str:
    filled = "\u25a0" * (percent // 10 * 8)
    return f"|{filled:<80}| {percent:3}% of 170.2 MiB"


def main() -> int:
    mode = sys.argv[1]
    browsers = Path(os.environ["PLAYWRIGHT_BROWSERS_PATH"])
    folder = browsers / REVISION
    executable = folder / "chrome-linux64" / "chrome"
    print(
        f"Downloading Chrome for Testing 159.0.8154.6 (playwright chromium v1255) from https://cdn.invalid/{REVISION}"
    )
    executable.parent.mkdir(parents=True, exist_ok=True)
    executable.write_text("half written")
    for percent in range(0, 101, 10):
        print(bar(percent), flush=True)
        if mode == "fail" and percent == 30:
            print("Error: getaddrinfo ENOTFOUND cdn.invalid", flush=True)
            return 1
        if mode == "hang" and percent == 20:
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
            # Written aside, then renamed: the file appears whole, so a test that waits for it never reads it empty.
            partial = browsers.parent / "driver-pids.partial"
            partial.write_text(f"{os.getpid()} {child.pid}")
            partial.replace(browsers.parent / "driver-pids")
            time.sleep(300)
            return 1
    real = os.environ.get("FAKE_DRIVER_BROWSER", "/usr/bin/chromium")
    executable.write_text(f'#!/bin/sh\nexec "{real}" "$@"\n')
    executable.chmod(0o755)
    (folder / "INSTALLATION_COMPLETE").write_text("")
    print(f"Chrome for Testing 159.0.8154.6 (playwright chromium v1255) downloaded to {folder}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
