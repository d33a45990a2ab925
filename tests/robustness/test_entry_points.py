"""Every face starts the same way: the MCP server, like the command line and the panel, keeps the log file, reports a
crash (even the last run's hard crash) and takes a stop signal from its first moment. Real subprocesses."""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from app.browser.processes import profile_pids
from app.crash_report import FAULTS_FILE, REPORT_PREFIX
from app.logging_setup import LOG_FILE, configure_logging
from app.settings.model import Settings
from tests.cli.test_cli import ROOT, cli, cli_env, run_cli
from tests.fakes.llm_server import FakeLLMServer, done_reply
from tests.robustness.test_early_signals import importing
from tests.robustness.test_signals import finish, profile_of
from tests.waiting import sync_until
from tests.x_desktop import NEEDS_X_DESKTOP, x_desktop

HARD_CRASH = (
    "Fatal Python error: Segmentation fault\n\nCurrent thread 0x00007f (most recent call first):\n  <no Python frame>\n"
)


def mcp_server(home: Path, llm_server: FakeLLMServer) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "app", "mcp"],
        env=cli_env(home, llm_server),
        cwd=ROOT,
        stdin=subprocess.PIPE,  # kept open: the server waits for a client
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def crash_reports(home: Path) -> list[Path]:
    return sorted((home / "logs").glob(f"{REPORT_PREFIX}*"))


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_the_mcp_server_stopped_while_it_starts_exits_0(
    signum: signal.Signals, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    server = mcp_server(tmp_path / "home", llm_server)
    importing(server, tmp_path)

    server.send_signal(signum)
    _, stderr = finish(server)

    assert server.returncode == 0, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr


def test_the_mcp_server_reports_the_last_runs_hard_crash_and_keeps_a_log(
    tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    home = tmp_path / "home"
    (home / "logs").mkdir(parents=True)
    (home / "logs" / FAULTS_FILE).write_text(HARD_CRASH, encoding="utf-8")
    server = mcp_server(home, llm_server)
    try:
        sync_until(lambda: crash_reports(home), 30.0, "a crash report was written", alive=server)
        sync_until(lambda: (home / "logs" / LOG_FILE).exists(), 30.0, "the log file was opened", alive=server)
    finally:
        server.send_signal(signal.SIGTERM)
        _, stderr = finish(server)

    report = crash_reports(home)[0]
    assert "Segmentation fault" in report.read_text(encoding="utf-8")
    assert f"A report was saved to {report}" in stderr
    assert server.returncode == 0, stderr


def test_a_command_line_run_keeps_the_same_log_file(tmp_path: Path, llm_server: FakeLLMServer) -> None:
    home = tmp_path / "home"
    llm_server.add(done_reply("Hello."))

    done = run_cli(cli("Say hello", "--url", "about:blank", "--headless"), cli_env(home, llm_server))

    assert done.returncode == 0, done.stderr
    assert (home / "logs" / LOG_FILE).stat().st_mode & 0o777 == 0o600


def test_setting_the_log_up_again_replaces_what_it_set_up(tmp_path: Path) -> None:
    root = logging.getLogger()
    before = list(root.handlers)
    try:
        configure_logging(tmp_path / "a")
        configure_logging(tmp_path / "b", logging.StreamHandler(sys.stderr))

        added = [handler for handler in root.handlers if handler not in before]
        assert len(added) == 2  # one console, one file: nothing left of the first set-up
        logging.getLogger("page-agent.test").warning("only once")
        assert "only once" in (tmp_path / "b" / LOG_FILE).read_text(encoding="utf-8")
        assert not (tmp_path / "a" / LOG_FILE).read_text(encoding="utf-8")
    finally:
        for handler in [handler for handler in root.handlers if handler not in before]:
            root.removeHandler(handler)
            handler.close()


@NEEDS_X_DESKTOP
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_the_panel_quits_on_a_stop_signal_and_closes_its_chromium(
    signum: signal.Signals, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    """SIGHUP is what closing the terminal the panel was started from sends: the panel quits as on a logout, and the
    Chromium it started goes with it."""
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    settings = Settings(base_url=llm_server.base_url, model="fake-model", start_url="about:blank", first_run_done=True)
    (home / "config" / "settings.json").write_text(json.dumps(settings.model_dump(mode="json")), encoding="utf-8")
    with x_desktop() as screen:
        panel = subprocess.Popen(
            [sys.executable, "-m", "app"],
            env={**cli_env(home, llm_server), **screen.env()},
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            sync_until(lambda: asyncio.run(profile_pids(profile_of(home))), 60.0, "Chromium started", alive=panel)
        finally:
            panel.send_signal(signum)
            _, stderr = finish(panel)

    assert panel.returncode == 0, stderr
    assert "Traceback" not in stderr, stderr
    assert asyncio.run(profile_pids(profile_of(home))) == [], "the panel's Chromium was left behind"
