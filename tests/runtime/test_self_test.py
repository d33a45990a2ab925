"""``--self-test`` when the browser is there but does not start: it says so in plain words and exits 1, and the
folders' checks still run. (The frozen app's passing self-test is in tests/packaging/test_frozen_app.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_browser_that_does_not_start_fails_the_self_test_in_plain_words(tmp_path: Path) -> None:
    broken = tmp_path / "broken-chrome"
    broken.write_text("#!/bin/sh\necho 'this browser is broken' >&2\nexit 1\n")
    broken.chmod(0o755)
    config = tmp_path / "config"
    config.mkdir()
    (config / "settings.json").write_text(json.dumps({"browser_path": str(broken)}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PAGE_AGENT_"))}
    env["PAGE_AGENT_HOME"] = str(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "app", "--self-test"], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert f"  ok      A browser was found: the browser set in Settings at {broken}" in lines
    failed = [line for line in lines if line.startswith("  FAILED")]
    assert len(failed) == 2 and failed[0].startswith("  FAILED  The browser could not start: "), lines
    assert "  ok      The log folder can be written: " + str(tmp_path / "logs") in lines
    assert lines[-1] == "2 of 7 checks failed. Send this text to whoever helps you with Page Agent."
