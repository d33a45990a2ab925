"""Another local user (``nobody``) at the panel's socket: a process of theirs listening where the panel's socket would
be, answering a task with a forged "success", or knocking on the panel's own socket. Each is forked from the test
process and switched to that user's id (so it needs no interpreter it could read), and reports every line it
receives to the test through a pipe. Only root can switch users: the tests that use it are skipped otherwise."""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection
from pathlib import Path

import pytest

NOBODY = 65534
TIMEOUT = 30.0
FORGED = {"kind": "finished", "outcome": "success", "data": "Forged.", "steps": 1}
needs_root = pytest.mark.skipif(
    os.name != "posix" or os.geteuid() != 0, reason="only root can run a process as another user"
)


class Stranger:
    def __init__(self, reports: Connection) -> None:
        self._reports = reports
        self._lines: list[str] = []
        self._closed = 0

    def received(self) -> list[str]:
        """Every line the stranger's process has received so far."""
        while self._reports.poll(0):
            self._take(self._reports.recv())
        return list(self._lines)

    def wait_closed(self, connections: int = 1) -> None:
        """Until ``connections`` connections to the stranger have ended (the knock came and went)."""
        while self._closed < connections:
            assert self._reports.poll(TIMEOUT), "nobody connected to the stranger's socket"
            self._take(self._reports.recv())

    def _take(self, report: str) -> None:
        if report == "closed":
            self._closed += 1
        else:
            self._lines.append(report)


@contextmanager
def stranger_listening(path: Path, folder_mode: int | None = 0o777) -> Iterator[Stranger]:
    """``nobody`` listening on ``path``; with ``folder_mode``, in a folder they make first, of that mode."""
    context = multiprocessing.get_context("fork")
    reports, child_end = context.Pipe(duplex=False)
    process = context.Process(target=_serve, args=(str(path), child_end, folder_mode), daemon=True)
    process.start()
    try:
        assert reports.poll(TIMEOUT) and reports.recv() == "listening"
        yield Stranger(reports)
    finally:
        process.kill()
        process.join(TIMEOUT)


def stranger_knocks(path: Path, line: bytes) -> bytes:
    """``nobody`` connects to ``path``, sends ``line`` and reads until the other end closes: what it was answered
    (``refused: …`` when it could not connect)."""
    context = multiprocessing.get_context("fork")
    reports, child_end = context.Pipe(duplex=False)
    process = context.Process(target=_knock, args=(str(path), line, child_end), daemon=True)
    process.start()
    try:
        assert reports.poll(TIMEOUT), "the stranger's knock did not end"
        answer = reports.recv()
        assert isinstance(answer, bytes)
        return answer
    finally:
        process.kill()
        process.join(TIMEOUT)


def _become_nobody() -> None:
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)


def _serve(path: str, reports: Connection, folder_mode: int | None) -> None:
    _become_nobody()
    if folder_mode is not None:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.chmod(os.path.dirname(path), folder_mode)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    os.chmod(path, 0o777)
    server.listen()
    reports.send("listening")
    while True:
        connection, _ = server.accept()
        with connection, connection.makefile("rb") as lines:
            for line in lines:
                reports.send(line.decode())
                op = json.loads(line).get("op")
                if op == "show":
                    connection.sendall(b'{"kind": "shown"}\n')
                elif op == "run":
                    connection.sendall(json.dumps(FORGED).encode() + b"\n")
        reports.send("closed")


def _knock(path: str, line: bytes, reports: Connection) -> None:
    _become_nobody()
    answer = b""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(TIMEOUT)
        try:
            sock.connect(path)
        except OSError as exc:
            reports.send(f"refused: {exc}".encode())
            return
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # hung up on before its line was read
            sock.sendall(line)
            while chunk := sock.recv(4096):
                answer += chunk
    reports.send(answer)
