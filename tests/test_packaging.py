"""The wheel ships every package and the resources, and resources load from an installed wheel as from a checkout."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_is_listed_in_pyproject() -> None:
    """Each folder of resources/ is listed too (as app.resources.<folder>): setuptools warns at length about a folder
    of data it finds importable but unlisted."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    found = {".".join(path.parent.relative_to(ROOT).parts) for path in (ROOT / "app").rglob("__init__.py")}
    resources = {
        ".".join(("app", *path.relative_to(ROOT).parts))
        for path in [ROOT / "resources", *(ROOT / "resources").rglob("*")]
        if path.is_dir() and path.name != "__pycache__"
    }
    assert listed == found | resources


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The wheel, and what building it printed (verbose, so that setuptools' warnings show). Built from a copy of the
    checkout: setuptools writes its build/ and *.egg-info there, and the app's own build (tests/packaging) may be
    writing in build/ at the same moment (the full suite once saw this build fail so)."""
    out = tmp_path_factory.mktemp("wheel")
    source = tmp_path_factory.mktemp("checkout") / "page-agent-desktop"
    skipped = shutil.ignore_patterns(".git", ".venv", ".test-tools", "build", "dist", "*.egg-info", "__pycache__")
    shutil.copytree(ROOT, source, ignore=skipped)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--verbose",
            "-w",
            str(out),
            str(source),
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=240,
    )
    return next(out.glob("page_agent_desktop-*.whl")), done.stdout + done.stderr


@pytest.fixture(scope="module")
def wheel(build: tuple[Path, str]) -> Path:
    return build[0]


def test_building_the_wheel_warns_about_no_package(build: tuple[Path, str]) -> None:
    """An install printed ~280 lines of "Package would be ignored" (folders of resources/ missing from the packages)."""
    assert "would be ignored" not in build[1], build[1][build[1].find("would be ignored") - 300 :][:1200]


def test_the_wheel_holds_the_resources(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    bundled = {
        str(path.relative_to(ROOT)).replace("resources/", "app/resources/", 1)
        for path in (ROOT / "resources").rglob("*")
        if path.is_file()
    }
    assert bundled <= names, sorted(bundled - names)[:5]


def test_the_wheel_gives_a_command_and_a_gui_entry_point(wheel: Path) -> None:
    """pipx / uv tool install: ``page-agent-desktop`` (the CLI and the panel) and ``page-agent-desktop-gui`` (the same
    without a console window on Windows), at the app's version."""
    archive = zipfile.ZipFile(wheel)
    entry_points = next(n for n in archive.namelist() if n.endswith(".dist-info/entry_points.txt"))
    text = archive.read(entry_points).decode()
    assert "[console_scripts]\npage-agent-desktop = app.main:main" in text
    assert "[gui_scripts]\npage-agent-desktop-gui = app.main:main" in text
    from app import __version__

    assert wheel.name.startswith(f"page_agent_desktop-{__version__}-")


def test_resources_load_from_an_unpacked_wheel(wheel: Path, tmp_path: Path) -> None:
    zipfile.ZipFile(wheel).extractall(tmp_path)
    probe = (
        "from app.assets import read_resource, resources_root; "
        "print(resources_root()); print(len(read_resource('prompts/system_prompt.md')))"
    )
    # -I: isolated mode, so the checkout (and its editable install) cannot be imported instead of the wheel.
    result = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(tmp_path)!r}); {probe}"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    root, size = result.stdout.split()
    assert Path(root) == tmp_path / "app" / "resources"
    assert int(size) > 500
