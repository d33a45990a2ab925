"""Crash reports: an error nobody caught (main thread, another thread, the event loop) and a hard crash of the
interpreter each leave a report in the log folder, masked like the log and the owner's only, and the person is told
where it is."""

from __future__ import annotations

import asyncio
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.safety.secrets import hide_everywhere
from app.crash_report import (
    FAULTS_FILE,
    MAX_REPORTS,
    CrashReport,
    CrashReports,
    crash_message,
    install_crash_reports,
)

API_KEY = "sk-crash-report-secret-0123456789"


@pytest.fixture
def reports(tmp_path: Path) -> Iterator[tuple[CrashReports, list[CrashReport]]]:
    told: list[CrashReport] = []
    installed = install_crash_reports(tmp_path / "logs", told.append)
    yield installed, told
    installed.uninstall()


def _raise(message: str) -> None:
    raise RuntimeError(message)


def test_an_uncaught_error_writes_a_masked_private_report_and_says_where(
    reports: tuple[CrashReports, list[CrashReport]],
) -> None:
    installed, told = reports
    hide_everywhere(API_KEY)
    try:
        _raise(f"the request with {API_KEY} failed")
    except RuntimeError:
        sys.excepthook(*sys.exc_info())  # type: ignore[arg-type]
    assert len(told) == 1
    report = told[0].path
    text = report.read_text(encoding="utf-8")
    assert "RuntimeError: the request with •••• failed" in text
    assert "_raise" in text  # the traceback, not only the message
    assert API_KEY not in text
    assert "Page Agent Desktop" in text.splitlines()[0]
    assert stat.S_IMODE(report.stat().st_mode) == 0o600
    assert report.parent == installed.folder
    assert not told[0].last_session
    assert str(report) in crash_message(told[0]) and "went wrong" in crash_message(told[0])


def test_an_error_in_another_thread_is_reported(reports: tuple[CrashReports, list[CrashReport]]) -> None:
    _installed, told = reports
    thread = threading.Thread(target=_raise, args=("worker broke",), name="worker-7")
    thread.start()
    thread.join(timeout=10)
    assert len(told) == 1
    text = told[0].path.read_text(encoding="utf-8")
    assert "in worker-7" in text and "RuntimeError: worker broke" in text


def test_an_error_in_a_task_nobody_awaited_is_reported(tmp_path: Path) -> None:
    told: list[CrashReport] = []

    async def main() -> None:
        installed = install_crash_reports(tmp_path, told.append, asyncio.get_running_loop())
        try:
            asyncio.get_running_loop().call_soon(_raise, "a callback broke")
            await asyncio.sleep(0)  # one turn: the callback runs and fails
            await asyncio.sleep(0)
        finally:
            installed.uninstall()

    asyncio.run(main())
    assert len(told) == 1
    assert "RuntimeError: a callback broke" in told[0].path.read_text(encoding="utf-8")


def test_the_same_failure_again_and_a_storm_write_a_bounded_number_of_reports(
    reports: tuple[CrashReports, list[CrashReport]],
) -> None:
    installed, told = reports
    for _ in range(3):
        installed.write("same", "the same traceback")
    for number in range(MAX_REPORTS + 3):
        installed.write("storm", f"traceback {number}")
    assert len(told) == MAX_REPORTS
    assert len(list(installed.folder.glob("crash-*.txt"))) == MAX_REPORTS


def test_ctrl_c_is_not_a_crash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    passed_on: list[type[BaseException]] = []
    monkeypatch.setattr(sys, "excepthook", lambda kind, value, trace: passed_on.append(kind))
    told: list[CrashReport] = []
    installed = install_crash_reports(tmp_path, told.append)
    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            sys.excepthook(*sys.exc_info())  # type: ignore[arg-type]
    finally:
        installed.uninstall()
    assert told == []
    assert passed_on == [KeyboardInterrupt]  # Python's own handling of Ctrl+C, as before


CRASHING_PROGRAM = """
import faulthandler, sys
from pathlib import Path
from app.crash_report import install_crash_reports
install_crash_reports(Path(sys.argv[1]), print)
faulthandler._sigsegv()
"""


def test_a_hard_crash_is_reported_on_the_next_start(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    crashed = subprocess.run(
        [sys.executable, "-c", CRASHING_PROGRAM, str(folder)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert crashed.returncode != 0
    assert "Segmentation fault" in (folder / FAULTS_FILE).read_text(encoding="utf-8")

    told: list[CrashReport] = []
    again = install_crash_reports(folder, told.append)
    try:
        assert len(told) == 1
        text = told[0].path.read_text(encoding="utf-8")
        assert "hard crash" in text and "Segmentation fault" in text
        # The person reads that it is about the last session, not something that just went wrong.
        assert told[0].last_session and "the last time it ran" in crash_message(told[0])
        assert (folder / FAULTS_FILE).read_text(encoding="utf-8") == ""  # told once, not at every start
    finally:
        again.uninstall()
    told.clear()
    install_crash_reports(folder, told.append).uninstall()
    assert told == []


def test_a_folder_that_cannot_be_written_loses_no_error(tmp_path: Path) -> None:
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("x", encoding="utf-8")
    told: list[CrashReport] = []
    installed = install_crash_reports(blocked / "logs", told.append)
    try:
        assert installed.write("broken", "a traceback") is None
        assert told == []
    finally:
        installed.uninstall()


def test_reports_written_in_the_same_second_keep_both(reports: tuple[CrashReports, list[CrashReport]]) -> None:
    installed, told = reports
    installed.write("one", "first")
    installed.write("two", "second")
    assert len({report.path.name for report in told}) == 2
    assert [report.path.read_text(encoding="utf-8").splitlines()[3] for report in told] == ["What: one", "What: two"]
