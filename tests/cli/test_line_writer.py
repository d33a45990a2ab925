"""--events' writer on a real pipe made non-blocking, as Playwright's driver makes the shared stderr: a reader that
stops reading holds the run up for at most a moment and still gets every line, in order, once it reads; a reader that
went away costs nothing."""

from __future__ import annotations

import os
import threading
import time

from app.cli.line_writer import BEHIND, HOLD, LineWriter

LINES = 3 * BEHIND  # many times what a pipe holds (64 KiB)
HELD_AT_MOST = 10 * HOLD  # seconds the lines may hold their writer up with nobody reading (about HOLD once)


def _pipe() -> tuple[int, int]:
    read, write = os.pipe()
    os.set_blocking(write, False)
    return read, write


def test_a_reader_that_stops_reading_holds_nothing_up_and_gets_every_line_once_it_reads() -> None:
    read, write = _pipe()
    lines = [f'{{"event": "row_finished", "row": {n}}}\n'.encode() for n in range(1, LINES + 1)]
    writer = LineWriter(write)
    began = time.monotonic()
    for line in lines:
        writer.put(line)
    held = time.monotonic() - began
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.extend(_read_all(read)))
    reader.start()
    writer.close()
    os.close(write)
    reader.join(60)
    assert held < HELD_AT_MOST, held
    assert b"".join(received) == b"".join(lines)


def test_a_reader_that_went_away_costs_nothing() -> None:
    read, write = _pipe()
    os.close(read)
    writer = LineWriter(write)
    for n in range(LINES):
        writer.put(f"line {n}\n".encode())
    writer.close()
    writer.put(b"after the end\n")
    os.close(write)


def _read_all(fd: int) -> list[bytes]:
    chunks = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    os.close(fd)
    return chunks
