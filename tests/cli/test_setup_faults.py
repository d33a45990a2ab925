"""A fault of the program while a run is set up is not told to the person as if a setting were wrong: it goes on to
the crash report (a traceback), while what the person can fix is said in plain words, exit 2, as before."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from app import engine_args
from app.cli.output import EXIT_ERROR
from app.cli.routine import run_routine
from app.cli.signals import StopSignals
from app.cli.task import run_task
from app.main import build_parser
from app.mcp.main import _serve

Face = Callable[[Path], Awaitable[int]]


async def _task(tmp_path: Path) -> int:
    args = build_parser().parse_args(["run", "Say hello"])
    return await run_task(args, None, StopSignals(), None)


async def _routine(tmp_path: Path) -> int:
    rows = tmp_path / "rows.csv"
    rows.write_text("name\nAda\n", encoding="utf-8")
    args = build_parser().parse_args(["run", "Greet {name}", "--rows", str(rows)])
    return await run_routine(args, None, None, StopSignals())


async def _mcp(tmp_path: Path) -> int:
    return await _serve(build_parser().parse_args(["mcp"]))


FACES = {"run": _task, "run --rows": _routine, "mcp": _mcp}


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAGE_AGENT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


@pytest.mark.parametrize("fault", [TypeError, ValueError])
@pytest.mark.parametrize("face", FACES)
async def test_a_fault_in_the_setup_is_a_crash_not_a_message(
    face: str,
    fault: type[Exception],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def broken(*_args: object) -> dict[str, object]:
        raise fault("a fault of the program")

    monkeypatch.setattr(engine_args, "resolve_overrides", broken)
    with pytest.raises(fault, match="a fault of the program"):
        await FACES[face](tmp_path)
    assert "a fault of the program" not in capsys.readouterr().err


@pytest.mark.parametrize("face", FACES)
async def test_what_the_person_can_fix_is_still_said(
    face: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "ftp://models.example")
    assert await FACES[face](tmp_path) == EXIT_ERROR
    said = capsys.readouterr().err
    assert "is not a web address" in said and "(It came from OPENAI_BASE_URL or the saved Settings.)" in said
