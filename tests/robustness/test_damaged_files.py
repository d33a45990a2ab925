"""Damaged and unwritable files: a bad run file, a settings file that is a folder or holds bad values, a history that
cannot be saved, --record to a place that cannot be written, and who may read the logs."""

from __future__ import annotations

import json
import logging
import os
import stat
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from app.core.events import Listener
from app.core.types import AgentStatus, ExecutionResult, TaskFinished, TaskStarted
from app.history.recorder import RunRecorder
from app.history.store import RunStore
from app.logging_setup import LOG_FILE, configure_logging
from app.settings.model import Settings, SettingsUnreadable, read_settings
from app.ui.desktop import Desktop
from app.ui.history_view import HistoryDialog
from app.ui.timeline.items import NoticeItem
from tests.cli.test_cli import cli, cli_env, home, run_cli  # noqa: F401  (home: fixture, no Chromium left behind)
from tests.demo_desktop import desktop  # noqa: F401  (fixture)
from tests.fakes.llm_server import FakeLLMServer, done_reply
from tests.fakes.memory_keyring import MemoryKeyring, memory_keyring  # noqa: F401  (fixture)
from tests.history.conftest import make_record
from tests.waiting import until


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --- the history -----------------------------------------------------------------------------------------------


@pytest.fixture
def damaged_store(tmp_path: Path) -> RunStore:
    store = RunStore(tmp_path / "runs")
    store.save(make_record("20250314-093000-aaaaaa", task="Add Ada"))
    (tmp_path / "runs" / "index.json").unlink()  # rebuilt from the run files, the bad one among them
    (tmp_path / "runs" / "20250315-093000-bbbbbb.json").write_bytes(b'{"id": "\xff\xfe not text')
    return store


def test_a_run_file_that_is_not_text_is_skipped_and_counted(damaged_store: RunStore) -> None:
    assert [s.id for s in damaged_store.summaries()] == ["20250314-093000-aaaaaa"]
    assert damaged_store.skipped == 1

    (damaged_store.runs_dir / "20250315-093000-bbbbbb.json").unlink()
    damaged_store.summaries()
    assert damaged_store.skipped == 0


def test_a_folder_in_place_of_a_run_file_is_skipped(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs")
    store.save(make_record("20250314-093000-aaaaaa"))
    (tmp_path / "runs" / "20250316-093000-cccccc.json").mkdir()
    assert [s.id for s in store.summaries()] == ["20250314-093000-aaaaaa"] and store.skipped == 1


def test_the_history_dialog_lists_the_rest_and_says_one_was_skipped(
    qapp: QApplication, damaged_store: RunStore
) -> None:
    dialog = HistoryDialog(damaged_store)
    dialog.show()
    try:
        assert dialog.list.topLevelItemCount() == 1
        assert dialog.skipped_notice.isVisible()
        assert dialog.skipped_notice.text() == "1 saved run could not be read and was skipped."
    finally:
        dialog.close()
        dialog.deleteLater()


class _Agent:
    """Just what the recorder listens to."""

    def __init__(self) -> None:
        self.listeners: dict[str, Listener] = {}

    def on(self, event: str, listener: Listener) -> Callable[[], None]:
        self.listeners[event] = listener
        return lambda: None

    def finish(self, task: str) -> None:
        self.listeners["task_started"](TaskStarted(follow_up=False))
        result = ExecutionResult(success=True, data="Done.", status=AgentStatus.COMPLETED)
        self.listeners["task_finished"](TaskFinished(task=task, follow_up=False, result=result))


def test_a_history_that_cannot_be_saved_is_told(tmp_path: Path) -> None:
    blocked = tmp_path / "runs"
    blocked.write_text("a file where the history folder should be")  # as good as a read-only folder, even for root
    told: list[str] = []
    agent = _Agent()
    RunRecorder(agent, RunStore(blocked), Settings(), on_save_failed=told.append)

    agent.finish("Say hello")

    assert len(told) == 1 and told[0]


async def test_a_history_that_cannot_be_saved_is_told_on_the_event_loop(tmp_path: Path) -> None:
    blocked = tmp_path / "runs"
    blocked.write_text("not a folder")
    told: list[int] = []  # the thread each word came on: the panel's may only be touched on the loop's
    agent = _Agent()
    recorder = RunRecorder(
        agent, RunStore(blocked), Settings(), on_save_failed=lambda _reason: told.append(threading.get_ident())
    )

    agent.finish("Say hello")
    await recorder.close()
    await until(lambda: told, 5, message="the failure told")

    assert told == [threading.get_ident()]


# --- settings --------------------------------------------------------------------------------------------------


def test_a_bad_value_keeps_every_valid_one_and_the_file_aside(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    original = json.dumps(
        {"base_url": "http://127.0.0.1:9/v1", "model": "local", "max_steps": 99999, "theme": "purple", "language": "zh"}
    )
    path.write_text(original)

    loaded = read_settings(path)

    assert loaded.damaged and loaded.reset == ("max_steps", "theme")
    assert (loaded.settings.base_url, loaded.settings.model, loaded.settings.language) == (
        "http://127.0.0.1:9/v1",
        "local",
        "zh",
    )
    assert loaded.kept_aside is not None and loaded.kept_aside.name.startswith("settings.json.damaged-")
    assert loaded.kept_aside.read_text() == original
    # What could be kept is saved, so the next start reads it without a word.
    again = read_settings(path)
    assert not again.damaged and again.settings.base_url == "http://127.0.0.1:9/v1"


@pytest.mark.parametrize("content", [b"{not json", b"\xff\xfe\x00", b"[1, 2]"])
def test_a_file_that_is_not_settings_resets_everything_and_says_so(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(content)
    loaded = read_settings(path)
    assert loaded.damaged and loaded.settings == Settings()
    assert loaded.reset == ()  # nothing could be kept: everything is back to its default
    assert loaded.kept_aside is not None and loaded.kept_aside.read_bytes() == content


def test_a_settings_folder_is_a_plain_error(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.mkdir()
    with pytest.raises(SettingsUnreadable, match="cannot be read"):
        read_settings(path)


def test_cli_settings_folder_exits_2_with_a_plain_message(home: Path, llm_server: FakeLLMServer) -> None:
    (home / "config" / "settings.json").mkdir(parents=True)
    done = run_cli(cli("Say hello"), cli_env(home, llm_server))
    assert done.returncode == 2, done.stderr
    assert "settings.json cannot be read (Is a directory)" in done.stderr and "Traceback" not in done.stderr
    assert llm_server.requests == [] and not (home / "data" / "browser-profile").exists()


def test_cli_damaged_settings_keep_the_saved_endpoint_and_name_what_was_reset(
    home: Path, llm_server: FakeLLMServer
) -> None:
    settings = home / "config" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"base_url": llm_server.base_url, "max_steps": "many"}))
    env = cli_env(home, llm_server)
    del env["OPENAI_BASE_URL"]  # the endpoint comes from the damaged file, or not at all
    llm_server.add(done_reply("Hello."))

    done = run_cli(cli("Say hello"), env)

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Hello."
    assert "settings file was damaged; back to their defaults: max steps; the damaged file was kept as" in done.stderr
    assert len(llm_server.requests) == 1
    assert [p.name.startswith("settings.json.damaged-") for p in settings.parent.iterdir()].count(True) == 1


# --- --record --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("where, says", [("missing/cassette.json", "does not exist"), (".", "that is a folder")])
def test_record_to_a_bad_place_fails_before_chromium(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer, where: str, says: str
) -> None:
    done = run_cli(cli("Say hello", "--record", str(tmp_path / where)), cli_env(home, llm_server))
    assert done.returncode == 2, done.stderr
    assert says in done.stderr and "Traceback" not in done.stderr
    assert llm_server.requests == [] and not (home / "data" / "browser-profile").exists()


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="POSIX file modes, which root may ignore")
def test_record_to_a_folder_that_cannot_be_written_fails_before_chromium(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    done = run_cli(cli("Say hello", "--record", str(locked / "c.json")), cli_env(home, llm_server))
    assert done.returncode == 2 and "you cannot write there" in done.stderr
    assert llm_server.requests == []


# --- logs ------------------------------------------------------------------------------------------------------


@pytest.fixture
def root_logger() -> Iterator[logging.Logger]:
    root = logging.getLogger()
    before, level = list(root.handlers), root.level
    yield root
    for handler in set(root.handlers) - set(before):
        handler.close()
        root.removeHandler(handler)
    root.setLevel(level)


def test_logs_are_the_users_only_even_after_a_rollover(tmp_path: Path, root_logger: logging.Logger) -> None:
    logs = tmp_path / "logs"
    logs.mkdir(mode=0o755)
    (logs / LOG_FILE).write_text("an older version's log\n")
    os.chmod(logs / LOG_FILE, 0o644)

    log_file = configure_logging(logs)

    assert log_file == logs / LOG_FILE
    assert mode(logs) == 0o700 and mode(log_file) == 0o600
    handler = next(h for h in root_logger.handlers if getattr(h, "baseFilename", None) == str(log_file))
    handler.doRollover()  # type: ignore[attr-defined]
    root_logger.warning("after the rollover")
    assert {p.name: mode(p) for p in logs.iterdir()} == {LOG_FILE: 0o600, f"{LOG_FILE}.1": 0o600}


# --- the panel at start ------------------------------------------------------------------------------------------


def notices(desktop: Desktop) -> list[str]:
    assert desktop.window is not None
    return [item.text for item in desktop.window.model.items if isinstance(item, NoticeItem)]


async def test_the_panel_starts_with_defaults_when_the_settings_cannot_be_read(
    desktop: Desktop, tmp_path: Path
) -> None:
    (tmp_path / "config" / "settings.json").mkdir(parents=True)
    await desktop.start()
    assert any(
        text.startswith("The settings file cannot be read, so the app started with its defaults")
        for text in notices(desktop)
    )


async def test_the_panel_names_the_settings_that_were_reset(desktop: Desktop, tmp_path: Path) -> None:
    settings = tmp_path / "config" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"model": "kept", "max_steps": -1}))
    await desktop.start()
    assert desktop.runtime is not None and desktop.runtime.settings.model == "kept"
    assert any(
        text.startswith("Some settings were damaged and are back to their defaults: max steps.")
        for text in notices(desktop)
    )


def test_a_log_line_with_a_lone_surrogate_is_written_not_lost(tmp_path: Path, root_logger: logging.Logger) -> None:
    log_file = configure_logging(tmp_path / "logs")
    assert log_file is not None
    root_logger.warning("the page's title was %s", "Sale\ud800 now")
    root_logger.warning("the next line")
    text = log_file.read_text(encoding="utf-8")
    assert "Sale\\ud800 now" in text and "the next line" in text
