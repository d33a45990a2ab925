"""Saved runs: round trip, newest first, a cheap index that heals itself, damaged files tolerated."""

from __future__ import annotations

import json
import os
import stat
from datetime import timedelta
from pathlib import Path

import pytest

from app.core.types import AgentStatus, StepEvent
from app.history.records import RunRecord, settings_snapshot
from app.history.store import INDEX_NAME, DamagedRun, RunNotFound, RunStore
from tests.history.conftest import T0, make_record


def test_round_trip(store: RunStore) -> None:
    record = make_record()
    store.save(record)
    loaded = store.load(record.id)
    assert loaded == record
    assert isinstance(loaded.tasks[0].events[0], StepEvent)
    assert loaded.steps == 2 and loaded.usage.total_tokens == 2620
    assert loaded.status == AgentStatus.COMPLETED and loaded.success


def test_list_is_newest_first_and_comes_from_the_index(store: RunStore) -> None:
    for n, run_id in enumerate(["20250314-093000-aaaaaa", "20250316-093000-cccccc", "20250315-093000-bbbbbb"]):
        store.save(make_record(run_id, started=T0 + timedelta(days=(0, 2, 1)[n]), task=f"task {n}"))
    summaries = store.summaries()
    assert [s.id for s in summaries] == ["20250316-093000-cccccc", "20250315-093000-bbbbbb", "20250314-093000-aaaaaa"]
    assert summaries[0].title == "task 1" and summaries[0].steps == 2 and summaries[0].success
    # Listing reads the index only: a run file's events are not parsed.
    run_file = store.runs_dir / "20250314-093000-aaaaaa.json"
    run_file.write_text(run_file.read_text().replace('"events"', '"evnts"'))
    assert len(store.summaries()) == 3


def test_index_is_rebuilt_when_missing_or_damaged(store: RunStore) -> None:
    store.save(make_record("20250314-093000-aaaaaa"))
    store.save(make_record("20250315-093000-bbbbbb", started=T0 + timedelta(days=1)))
    (store.runs_dir / INDEX_NAME).write_text("{not json")
    assert [s.id for s in store.summaries()] == ["20250315-093000-bbbbbb", "20250314-093000-aaaaaa"]
    (store.runs_dir / INDEX_NAME).unlink()
    assert len(store.summaries()) == 2
    assert json.loads((store.runs_dir / INDEX_NAME).read_text()).keys() == {
        "20250314-093000-aaaaaa",
        "20250315-093000-bbbbbb",
    }


def test_damaged_run_file_is_skipped_and_load_says_so(store: RunStore) -> None:
    store.save(make_record("20250314-093000-aaaaaa"))
    (store.runs_dir / "20250315-000000-dddddd.json").write_text('{"id": "20250315-000000-dddddd", "tasks": [')
    (store.runs_dir / "notes.txt").write_text("not a run")
    assert [s.id for s in store.summaries()] == ["20250314-093000-aaaaaa"]
    with pytest.raises(DamagedRun, match="damaged"):
        store.load("20250315-000000-dddddd")


def test_delete_and_missing(store: RunStore) -> None:
    record = make_record()
    store.save(record)
    store.delete(record.id)
    assert store.summaries() == []
    with pytest.raises(RunNotFound):
        store.load(record.id)
    store.delete(record.id)  # twice is fine


def test_a_file_removed_by_hand_leaves_the_list(store: RunStore) -> None:
    store.save(make_record())
    (store.runs_dir / "20250314-093000-aaaaaa.json").unlink()
    assert store.summaries() == []


def test_ids_cannot_escape_the_folder(store: RunStore) -> None:
    with pytest.raises(RunNotFound):
        store.load("../settings")


def test_no_secret_reaches_a_record() -> None:
    data = {
        "model": "m",
        "api_key": "sk-1",
        "access_token": "t",
        "client_secret": "s",
        "proxy_password": "p",
        "panel_geometry": "AdnQywAD",
        "max_steps": 40,
    }
    assert settings_snapshot(data) == {"model": "m", "max_steps": 40}
    record = RunRecord(id="x", started_at=T0, settings=data)
    assert record.settings == {"model": "m", "max_steps": 40}


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX's; Windows has the folder's ACLs")
def test_history_is_private_whatever_the_umask_and_an_older_open_folder_is_tightened(tmp_path: Path) -> None:
    previous = os.umask(0o022)
    try:
        fresh = RunStore(tmp_path / "data" / "runs")
        fresh.save(make_record())
        older = tmp_path / "older" / "runs"  # as an older version left it: readable by everyone
        older.mkdir(parents=True, mode=0o755)
        RunStore(older).save(make_record())
    finally:
        os.umask(previous)
    for runs in (fresh.runs_dir, older):
        assert stat.S_IMODE(runs.stat().st_mode) == 0o700
        assert {stat.S_IMODE(p.stat().st_mode) for p in runs.iterdir()} == {0o600}
        assert {p.name for p in runs.iterdir()} == {INDEX_NAME, "20250314-093000-aaaaaa.json"}
