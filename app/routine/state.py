"""A routine's state on disk (SQLite, beside its results file): each row's status, written before and after the row,
and the learned path. Never twice: a row that was in flight when the process died is found ``running`` on the next
open and becomes ``interrupted`` (its form may have been submitted), and a second process on the same routine is
refused while the first holds it (an OS lock on the file, released by the kernel even on SIGKILL).

It holds every row's result and the learned path, so it is the user's only (0600, its journal and lock too), and
none of its files is ever a link (refused: the app would write into whatever it points to).

A row is known by its values, not its line: sorting the file or adding rows keeps what was done. A secret column's
cells are left out of that key (a hash of a four-digit PIN would give the PIN away), and nothing here holds a secret.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from app.routine.files import NotAFile, open_private, refuse_link
from app.routine.packed import Row
from app.routine.types import RowOutcome, RowStatus

_SCHEMA = """
CREATE TABLE IF NOT EXISTS rows (
    key TEXT PRIMARY KEY, number INTEGER NOT NULL, status TEXT NOT NULL, result TEXT NOT NULL DEFAULT '',
    steps INTEGER NOT NULL DEFAULT 0, model_calls INTEGER NOT NULL DEFAULT 0, seconds REAL NOT NULL DEFAULT 0,
    browser TEXT NOT NULL DEFAULT '', run TEXT NOT NULL DEFAULT '', outputs TEXT NOT NULL DEFAULT '{}',
    replayed INTEGER NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0, updated REAL NOT NULL,
    unclear INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS path (template TEXT PRIMARY KEY, body TEXT NOT NULL, learned_from INTEGER NOT NULL);
"""
INTERRUPTED_WORDS = (
    "The routine's process ended while this row was running, so its form may already have been submitted. It is "
    "not run again unless you ask for it with --retry-interrupted; check the site first."
)


# The state's own files: the database, its lock, and what SQLite keeps beside it (SQLite gives these the database's
# mode when it creates them).
_SIDE_FILES = ("-wal", "-shm", "-journal")


class RoutineBusy(Exception):
    """Another process runs this routine now; the message says which and what to do."""


class StateUnusable(ValueError):
    """The routine's state cannot be used (a link, not a file, not a database); the message says what to do."""


@dataclass(frozen=True)
class RowRecord:
    key: str
    number: int
    outcome: RowOutcome
    attempts: int


def state_path(results: Path) -> Path:
    return results.with_name(f"{results.stem}.routine.sqlite")


def _lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


def check_state_files(results: Path) -> None:
    """StateUnusable when a file of the state beside ``results`` is a link or not a regular file."""
    path = state_path(results)
    for each in (path, _lock_path(path), *(path.with_name(path.name + side) for side in _SIDE_FILES)):
        try:
            refuse_link(each)
        except NotAFile as exc:
            raise _unusable(exc) from None


def row_keys(rows: Sequence[Row], secret_columns: Sequence[str]) -> list[str]:
    """Each row's key: a hash of its non-secret values, with a count for rows that are the same (two identical
    rows are two records to enter)."""
    seen: dict[str, int] = {}
    keys = []
    for row in rows:
        data = json.dumps(
            [[c, v] for c, v in row.values.items() if c not in secret_columns], ensure_ascii=False, sort_keys=True
        )
        digest = hashlib.sha256(data.encode()).hexdigest()[:32]
        seen[digest] = seen.get(digest, 0) + 1
        keys.append(f"{digest}:{seen[digest]}")
    return keys


class RoutineStore:
    """Open with ``RoutineStore.open(results)``; every method is synchronous and quick (call it off the event loop
    with asyncio.to_thread), safe from any thread."""

    def __init__(self, path: Path, lock: IO[bytes], db: sqlite3.Connection, interrupted: int) -> None:
        self.path = path
        self._lock_file = lock
        self._db = db
        self._mutex = threading.Lock()
        self.interrupted_on_open = interrupted

    @classmethod
    def open(cls, results: Path) -> RoutineStore:
        """StateUnusable for a state file that is a link, not a regular file, or not a database; RoutineBusy while
        another process holds the routine."""
        path = state_path(results)
        path.parent.mkdir(parents=True, exist_ok=True)
        check_state_files(results)
        lock = os.fdopen(_private(_lock_path(path)), "r+b")  # held for the store's life
        try:
            holder = _take(lock)
            if holder is not None:
                raise RoutineBusy(
                    f"This routine is already running in another process{holder}. Wait for it to end, or stop it "
                    f"(its state is {path})."
                )
            for side in _SIDE_FILES:  # left by a process that died, as an older version made them: made private
                with contextlib.suppress(FileNotFoundError):
                    os.close(_private(path.with_name(path.name + side), create=False))
            os.close(_private(path))  # created private: SQLite gives its journals the database's mode
        except BaseException:
            lock.close()
            raise
        try:
            db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")  # a row's status is on disk before the row goes on
            db.executescript(_SCHEMA)
            if "unclear" not in {column[1] for column in db.execute("PRAGMA table_info(rows)")}:  # an older state
                db.execute("ALTER TABLE rows ADD COLUMN unclear INTEGER NOT NULL DEFAULT 0")
            # Whatever was in flight belongs to a process that is gone (we hold the lock): never redone blindly.
            interrupted = db.execute(
                "UPDATE rows SET status=?, result=?, updated=? WHERE status=?",
                (RowStatus.INTERRUPTED, INTERRUPTED_WORDS, time.time(), RowStatus.RUNNING),
            ).rowcount
        except sqlite3.Error as exc:
            lock.close()
            raise StateUnusable(
                f"The routine's state {path} cannot be used: {exc}. Move it away to start over."
            ) from exc
        return cls(path, lock, db, interrupted)

    def records(self) -> dict[str, RowRecord]:
        with self._mutex:
            cursor = self._db.execute(
                "SELECT key, number, status, result, steps, model_calls, seconds, browser, run, outputs, replayed, "
                "unclear, attempts FROM rows"
            )
            return {row[0]: _record(row) for row in cursor.fetchall()}

    def start(self, key: str, number: int, browser: str) -> None:
        """Before the row: it is in flight (``running``) on disk before anything is typed."""
        with self._mutex:
            self._db.execute(
                "INSERT INTO rows (key, number, status, browser, attempts, updated) VALUES (?, ?, ?, ?, 1, ?) "
                "ON CONFLICT(key) DO UPDATE SET number=excluded.number, status=excluded.status, result='', "
                "browser=excluded.browser, unclear=0, attempts=attempts+1, updated=excluded.updated",
                (key, number, RowStatus.RUNNING, browser, time.time()),
            )

    def finish(self, key: str, number: int, outcome: RowOutcome) -> None:
        self.finish_all([(key, number)], outcome)

    def finish_all(self, rows: Sequence[tuple[str, int]], outcome: RowOutcome) -> None:
        """The same ending for every (key, number) of ``rows``, in one write (the rest of a stopped routine)."""
        outputs, now = json.dumps(outcome.outputs, ensure_ascii=False), time.time()
        with self._mutex, self._db:  # one transaction: commits at its end, or none of it
            self._db.execute("BEGIN")
            self._db.executemany(
                "INSERT INTO rows (key, number, status, result, steps, model_calls, seconds, browser, run, outputs, "
                "replayed, unclear, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(key) DO UPDATE "
                "SET number=excluded.number, status=excluded.status, result=excluded.result, steps=excluded.steps, "
                "model_calls=excluded.model_calls, seconds=excluded.seconds, browser=excluded.browser, "
                "run=excluded.run, outputs=excluded.outputs, replayed=excluded.replayed, unclear=excluded.unclear, "
                "updated=excluded.updated",
                (
                    (
                        key,
                        number,
                        outcome.status,
                        outcome.result,
                        outcome.steps,
                        outcome.model_calls,
                        outcome.seconds,
                        outcome.browser,
                        outcome.run,
                        outputs,
                        int(outcome.replayed),
                        int(outcome.unclear),
                        now,
                    )
                    for key, number in rows
                ),
            )

    def path_for(self, template: str) -> tuple[str, int] | None:
        """The learned path (its JSON) for this template, and the row it was learned on."""
        with self._mutex:
            found = self._db.execute("SELECT body, learned_from FROM path WHERE template=?", (template,)).fetchone()
        return (str(found[0]), int(found[1])) if found else None

    def save_path(self, template: str, body: str, learned_from: int) -> None:
        with self._mutex:
            self._db.execute(
                "INSERT OR REPLACE INTO path (template, body, learned_from) VALUES (?, ?, ?)",
                (template, body, learned_from),
            )

    def close(self) -> None:
        with self._mutex:
            self._db.close()
        self._lock_file.close()  # the OS lock goes with it


def _record(row: tuple[object, ...]) -> RowRecord:
    key, number, status, result, steps, calls, seconds, browser, run, outputs, replayed, unclear, attempts = row
    loaded = json.loads(str(outputs or "{}"))
    return RowRecord(
        key=str(key),
        number=int(str(number)),
        outcome=RowOutcome(
            status=RowStatus(str(status)),
            result=str(result),
            steps=int(str(steps)),
            model_calls=int(str(calls)),
            seconds=float(str(seconds)),
            browser=str(browser),
            run=str(run),
            outputs={str(k): str(v) for k, v in loaded.items()} if isinstance(loaded, dict) else {},
            replayed=bool(replayed),
            unclear=bool(unclear),
        ),
        attempts=int(str(attempts)),
    )


def _private(path: Path, *, create: bool = True) -> int:
    try:
        return open_private(path, create=create)
    except NotAFile as exc:
        raise _unusable(exc) from None


def _unusable(exc: NotAFile) -> StateUnusable:
    return StateUnusable(
        f"{exc} A routine's state is files of its own, never links: move that away, or choose another results file."
    )


def _take(lock: IO[bytes]) -> str | None:
    """Lock the file for this process; None when taken, else words naming the process that holds it."""
    if sys.platform == "win32":  # a byte-range lock does the same there
        import msvcrt

        try:
            msvcrt.locking(lock.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return ""
    else:
        import fcntl

        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.seek(0)
            pid = lock.read().decode(errors="replace").strip()
            return f" (process {pid})" if pid.isdigit() else ""
    lock.seek(0)
    lock.truncate()
    lock.write(str(os.getpid()).encode())
    lock.flush()
    return None
