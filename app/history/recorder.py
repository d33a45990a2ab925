"""Keeps every run: listens to an agent and saves the run each time a task ends (completed, error or stopped).

A new task starts a new record; a follow-up is added to the current one, so a run reads as the conversation it was.
Files are written on one worker thread, in order, so the event loop never waits for the disk.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any, Protocol

from pydantic import BaseModel

from app.core.events import EventName, Listener
from app.core.safety.secrets import mask_everywhere, masked_model
from app.core.types import TaskFinished, TaskStarted
from app.history.records import RunRecord, TaskRun, new_run_id, settings_snapshot
from app.history.store import RunStore

log = logging.getLogger(__name__)
_MASK = "•••"
_MIN_SECRET = 6  # shorter strings would mask ordinary words


class RecordableAgent(Protocol):
    """All the recorder needs: the task_started and task_finished events carry what it saves."""

    def on(self, event: EventName, listener: Listener) -> Callable[[], None]: ...


def _utcnow() -> datetime:
    return datetime.now(UTC)


class RunRecorder:
    """``secrets`` (the API key, say) are masked wherever they appear: a model or a server may echo them."""

    def __init__(
        self,
        agent: RecordableAgent,
        store: RunStore,
        settings: BaseModel | Mapping[str, Any],
        *,
        demo: bool = False,
        replay: bool = False,
        secrets: Iterable[str | None] = (),
        clock: Callable[[], datetime] = _utcnow,
        on_save_failed: Callable[[str], None] | None = None,
    ) -> None:
        self._store = store
        self._settings = settings_snapshot(settings)
        self._demo = demo
        self._replay = replay
        self._secrets = [s for s in secrets if s and len(s) >= _MIN_SECRET]
        self._clock = clock
        # Told, on the event loop, why a run could not be saved (a full disk, a read-only folder).
        self._on_save_failed = on_save_failed
        self._record: RunRecord | None = None
        self._task_started: datetime | None = None
        self._follow_up = False
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="run-recorder")
        self._last_write: Future[None] | None = None
        self._unsubscribes = [agent.on("task_started", self._on_started), agent.on("task_finished", self._on_finished)]

    @property
    def current(self) -> RunRecord | None:
        """The run being recorded (its finished tasks), or None before the first task."""
        return self._record

    def _on_started(self, started: TaskStarted) -> None:
        self._task_started = self._clock()
        # A task that is not a follow-up (the agent forgot the tasks before it) begins a new run.
        self._follow_up = started.follow_up and self._record is not None
        if not self._follow_up:
            self._record = RunRecord(
                id=new_run_id(self._task_started),
                started_at=self._task_started,
                demo=self._demo,
                replay=self._replay,
                settings=self._settings,
            )

    def _on_finished(self, finished: TaskFinished) -> None:
        if self._record is None:
            return
        self._record.tasks.append(self._task_run(finished))
        # Masked as a whole each time: a password learnt in a follow-up is masked in the earlier tasks too.
        self._record = self._masked(self._record)
        self._save(self._record)

    def _task_run(self, finished: TaskFinished) -> TaskRun:
        result = finished.result
        now = self._clock()
        return TaskRun(
            task=finished.task,
            follow_up=self._follow_up,
            started_at=self._task_started or now,
            finished_at=now,
            status=result.status,
            success=result.success,
            result=result.data,
            steps=result.steps,
            usage=result.usage,
            events=list(result.history),
        )

    def _save(self, record: RunRecord) -> None:
        snapshot = record.model_copy(deep=True)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._write(snapshot, None)
            return
        self._last_write = self._writer.submit(self._write, snapshot, loop)

    def _masked(self, record: RunRecord) -> RunRecord:
        """Without the given secrets, nor any value a live secret vault or the process's API keys hold."""

        def mask(text: str) -> str:
            for secret in self._secrets:
                text = text.replace(secret, _MASK)
            return mask_everywhere(text)

        return masked_model(record, mask)

    def _write(self, record: RunRecord, loop: asyncio.AbstractEventLoop | None) -> None:
        try:
            self._store.save(record)
        except OSError as exc:
            log.exception("could not save the run %s", record.id)
            if self._on_save_failed is None:
                return
            reason = exc.strerror or str(exc)
            if loop is None:
                self._on_save_failed(reason)
            elif not loop.is_closed():
                loop.call_soon_threadsafe(self._on_save_failed, reason)

    async def flush(self) -> None:
        """Wait until every run handed to the writer is on disk."""
        if self._last_write is not None:
            await asyncio.wrap_future(self._last_write)

    async def close(self) -> None:
        """Stop listening, finish pending writes and release the writer thread."""
        for unsubscribe in self._unsubscribes:
            unsubscribe()
        await self.flush()
        self._writer.shutdown(wait=False)
