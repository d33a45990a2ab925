"""Saved runs on disk: one JSON file per run, plus an index of summaries so the history list opens instantly.

The run files are the truth; the index is a cache, rebuilt from them when it is missing, damaged or out of step
(a run saved by another copy of the app, a file deleted by hand). A damaged run file is skipped, never fatal.
A run holds what the person typed and what the pages showed: the folder is the user's only (0700), its files too.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from app.browser.private_files import private_folder
from app.core.clean_text import valid_json, valid_text
from app.history.records import RunRecord, RunSummary
from app.settings.atomic import write_atomic

log = logging.getLogger(__name__)

INDEX_NAME = "index.json"
_RUN_ID = re.compile(r"^[A-Za-z0-9_-]{1,80}$")
_Index = TypeAdapter(dict[str, RunSummary])


class RunStoreError(Exception):
    pass


class RunNotFound(RunStoreError):
    pass


class DamagedRun(RunStoreError):
    pass


class RunStore:
    def __init__(self, runs_dir: Path) -> None:
        self.runs_dir = runs_dir
        # The recorder saves from a worker thread while the history dialog may delete: one index update at a time.
        self._lock = threading.Lock()
        # Damaged files stay on disk for the user to inspect; remember them so each listing does not re-read them.
        self._unreadable: set[str] = set()

    @property
    def skipped(self) -> int:
        """How many run files the last ``list()`` could not read (the history says so)."""
        return len(self._unreadable)

    def path_of(self, run_id: str) -> Path:
        if not _RUN_ID.match(run_id):
            raise RunNotFound(f"not a run id: {run_id!r}")
        return self.runs_dir / f"{run_id}.json"

    def save(self, record: RunRecord) -> None:
        private_folder(self.runs_dir)  # the user's only, as each file in it (written 0600), whatever the umask
        write_atomic(self.path_of(record.id), valid_json(record, indent=1))
        with self._lock:
            self._unreadable.discard(record.id)
            index = self._read_index()
            index[record.id] = record.summary()
            self._write_index(index)

    def load(self, run_id: str) -> RunRecord:
        path = self.path_of(run_id)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise RunNotFound(f"The run {run_id} is no longer in the history folder.") from None
        except (OSError, UnicodeDecodeError) as exc:  # not text, a folder, no permission
            raise DamagedRun(f"The saved run {run_id} cannot be read ({path}).") from exc
        try:
            return RunRecord.model_validate_json(text)
        except ValidationError as exc:
            raise DamagedRun(f"The saved run {run_id} is damaged and cannot be opened ({path}).") from exc

    def delete(self, run_id: str) -> None:
        self.path_of(run_id).unlink(missing_ok=True)
        with self._lock:
            index = self._read_index()
            if index.pop(run_id, None) is not None:
                self._write_index(index)

    def summaries(self) -> list[RunSummary]:
        """Every readable run, newest first."""
        with self._lock:
            index = self._read_index()
            on_disk = {path.stem for path in self._run_files()}
            self._unreadable &= on_disk  # a damaged file deleted by hand is no longer counted
            changed = False
            for run_id in set(index) - on_disk:
                del index[run_id]
                changed = True
            for run_id in on_disk - set(index) - self._unreadable:
                summary = self._summary_from_file(run_id)
                if summary is not None:
                    index[run_id] = summary
                    changed = True
            if changed:
                self._write_index(index)
        return sorted(index.values(), key=lambda s: (s.started_at, s.id), reverse=True)

    def _run_files(self) -> list[Path]:
        if not self.runs_dir.is_dir():
            return []
        return [p for p in self.runs_dir.glob("*.json") if p.name != INDEX_NAME and _RUN_ID.match(p.stem)]

    def _summary_from_file(self, run_id: str) -> RunSummary | None:
        try:
            return self.load(run_id).summary()
        except RunStoreError as exc:
            log.warning("skipping a saved run that cannot be read: %s", exc)
            self._unreadable.add(run_id)
            return None

    def _read_index(self) -> dict[str, RunSummary]:
        path = self.runs_dir / INDEX_NAME
        try:
            return _Index.validate_json(path.read_bytes())
        except FileNotFoundError:
            return {}
        except (ValidationError, ValueError, OSError) as exc:
            log.warning("the history index was unreadable (%s); rebuilding it from the run files", exc)
            return {}

    def _write_index(self, index: dict[str, RunSummary]) -> None:
        payload = {run_id: summary.model_dump(mode="json") for run_id, summary in index.items()}
        write_atomic(self.runs_dir / INDEX_NAME, valid_text(json.dumps(payload, ensure_ascii=False)))
