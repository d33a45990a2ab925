"""--events' lines reach stderr from a thread of their own: whole, in order, and never lost to a slow reader.

Playwright's driver (Node) shares the process's stderr and, when it is a pipe, makes it non-blocking: a write to a
full pipe then fails at once (BlockingIOError) instead of waiting for the reader, and the line was lost. Here the
writer thread waits for room in the pipe (or a file, a terminal), off the event loop. The loop waits for a slow
reader only while it keeps reading: more than ``BEHIND`` lines behind, each new line waits for the reader to take
one, which slows the run to its pace; a reader that took nothing for ``HOLD`` seconds holds nothing up (the lines
wait for it in memory), so a Stop still ends the run within seconds. ``close()`` hands over what is left as the
reader takes it, and gives up only on a reader that took nothing for ``EXIT_WAIT`` seconds.
"""

from __future__ import annotations

import os
import select
import threading
import time
from collections import deque

BEHIND = 10_000  # lines written but not yet taken by the reader, before a new line waits for it
HOLD = 1.0  # seconds without the reader taking anything, after which no line waits for it
EXIT_WAIT = 30.0  # seconds without the reader taking anything, after which the last lines are given up at exit
_CHUNK = 256  # lines written at once


class LineWriter:
    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._lines: deque[bytes] = deque()
        self._changed = threading.Condition()
        self._taken = time.monotonic()  # when the reader last took something (or the writer began)
        self._closing = False
        self._drained = False  # closing, and the thread wrote every line put before: it has ended
        self._gone = False  # the reader went away (a broken pipe): nothing is written any more
        self._thread = threading.Thread(target=self._drain, name="events", daemon=True)
        self._thread.start()

    def put(self, line: bytes) -> None:
        """``line`` is written after the ones before it; waits (briefly) only for a reader far behind that reads."""
        with self._changed:
            if self._gone:
                return
            if self._drained:  # the run is over and the thread has ended: written now
                self._write(line, EXIT_WAIT)
                return
            self._lines.append(line)
            self._changed.notify_all()
            while len(self._lines) > BEHIND and not self._gone:
                idle = time.monotonic() - self._taken
                if idle >= HOLD:
                    break
                self._changed.wait(HOLD - idle)

    def close(self) -> None:
        """Every line put is written before this returns, unless the reader took nothing for ``EXIT_WAIT`` s."""
        with self._changed:
            self._closing = True
            self._changed.notify_all()
        began = time.monotonic()
        while self._thread.is_alive() and time.monotonic() - max(self._taken, began) < EXIT_WAIT:
            self._thread.join(HOLD)

    def _drain(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: bool(self._lines) or self._closing)
                if not self._lines:
                    self._drained = True
                    return
                chunk = b"".join(self._lines.popleft() for _ in range(min(_CHUNK, len(self._lines))))
            if not self._write(chunk, None):
                return

    def _write(self, data: bytes, patience: float | None) -> bool:
        """``data`` written whole, waiting for room as long as the reader takes some within ``patience`` seconds
        (None: for ever). False when the reader went away or gave none."""
        view, began = memoryview(data), time.monotonic()
        while view:
            try:
                view = view[os.write(self._fd, view) :]
            except BlockingIOError:
                select.select([], [self._fd], [], HOLD)
                if patience is not None and time.monotonic() - max(self._taken, began) >= patience:
                    return False
                continue
            except OSError:  # a broken pipe: nobody reads any more
                with self._changed:
                    self._gone = True
                    self._lines.clear()
                    self._changed.notify_all()
                return False
            self._taken = time.monotonic()
            with self._changed:
                self._changed.notify_all()
        return True
