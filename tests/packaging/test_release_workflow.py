"""The release workflow: valid against GitHub's workflow schema (check-jsonschema's bundled copy, offline; the
actionlint wheels on PyPI download their binary at install time, which cannot work here), and building, checking and
uploading on each of the three systems what packaging/build.sh writes there."""

from __future__ import annotations

import subprocess
import sys
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"


def workflow() -> dict[str, Any]:
    loaded: dict[str, Any] = YAML(typ="safe").load(WORKFLOW.read_text(encoding="utf-8"))
    return loaded


def test_the_workflow_is_valid_for_github() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", str(WORKFLOW)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_each_system_builds_checks_and_uploads_its_downloads() -> None:
    build = workflow()["jobs"]["build"]
    systems = {entry["os"]: entry for entry in build["strategy"]["matrix"]["include"]}
    assert set(systems) == {"ubuntu-22.04", "windows-latest", "macos-14"}
    commands = "\n".join(step.get("run", "") for step in build["steps"])
    assert "bash packaging/build.sh" in commands
    assert '"$APP" --self-test' in commands
    assert 'python -m tests.packaging.smoke "$APP"' in commands
    build_sh = (ROOT / "packaging" / "build.sh").read_text(encoding="utf-8")
    # What each system uploads is what build.sh writes there (its names, for version 1.2.3).
    written = {
        "ubuntu-22.04": ["$NAME-$VERSION-linux-x86_64.tar.gz", "${NAME}_${VERSION}_${arch}.deb"],
        "windows-latest": ["$NAME-$VERSION-windows-x86_64.zip", "$NAME-$VERSION-windows-x86_64-setup.exe"],
        "macos-14": ["$NAME-$VERSION-macos-$(uname -m).dmg"],
    }
    for system, patterns in written.items():
        names = []
        for pattern in patterns:
            assert pattern in build_sh, pattern
            names.append(
                pattern.replace("${NAME}", "page-agent-desktop").replace("$NAME", "page-agent-desktop")
                .replace("${VERSION}", "1.2.3").replace("$VERSION", "1.2.3")
                .replace("${arch}", "amd64").replace("$(uname -m)", "arm64")
            )  # fmt: skip
        globs = [Path(line.strip()).name for line in systems[system]["artefacts"].splitlines() if line.strip()]
        assert all(any(fnmatch(name, glob) for glob in globs) for name in names), (system, names, globs)
        assert all(any(fnmatch(name, glob) for name in names) for glob in globs), (system, names, globs)
    # The signing secrets reach the build only as environment variables, never into a command line.
    assert "${{ secrets." not in commands
