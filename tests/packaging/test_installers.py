"""The Windows installer's script compiles (Debian's makensis, against the Linux onedir: a check that the script is
valid, not a Windows build)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.packaging.conftest import ROOT, Built

pytestmark = pytest.mark.timeout(1800)


def test_the_nsis_script_compiles(built: Built, tmp_path: Path) -> None:
    setup = tmp_path / "setup.exe"
    done = subprocess.run(
        [
            "makensis",
            "-V2",
            "-DNOCOMPRESS",
            f"-DVERSION={built.version}",
            f"-DAPPDIR={built.onedir}",
            f"-DOUTFILE={setup}",
            f"-DICON={ROOT / 'resources' / 'icons' / 'app.ico'}",
            str(ROOT / "packaging" / "windows" / "installer.nsi"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert setup.read_bytes()[:2] == b"MZ"  # a Windows program
    assert setup.stat().st_size > 300_000_000  # with the app inside
