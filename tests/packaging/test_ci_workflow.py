"""The tests workflow: valid against GitHub's workflow schema (check-jsonschema's bundled copy, offline), run on every
push, on Linux the README's test command in the Debian the tests expect, and on Windows and macOS the fast lane and
the desktop tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "ci.yml"


def workflow() -> dict[str, Any]:
    loaded: dict[str, Any] = YAML(typ="safe").load(WORKFLOW.read_text(encoding="utf-8"))
    return loaded


def commands(job: dict[str, Any]) -> str:
    return "\n".join(step.get("run", "") for step in job["steps"])


def test_the_workflow_is_valid_for_github() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", str(WORKFLOW)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_it_runs_on_every_push() -> None:
    # YAML 1.1 reads a bare `on` as True.
    triggers = workflow().get("on", workflow().get(True))
    assert "push" in triggers
    assert triggers["push"] is None  # every branch and tag, no filter


def test_linux_runs_the_readme_test_command_in_debian() -> None:
    linux = workflow()["jobs"]["linux"]
    assert linux["runs-on"] == "ubuntu-latest"
    assert linux["container"]["image"].startswith("debian:")
    assert "bash .ci/run" in commands(linux)
    assert "bash packaging/setup.sh --test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_windows_and_macos_run_the_fast_lane_and_the_desktop_tests() -> None:
    others = workflow()["jobs"]["other-systems"]
    assert set(others["strategy"]["matrix"]["os"]) == {"windows-latest", "macos-latest"}
    run = commands(others)
    assert "--constraint requirements.lock" in run
    assert 'python -m pytest -q -m "not slow"' in run
    assert "python -m pytest -q -m slow -n 2 --dist load tests/ui tests/ui_dialogs" in run
