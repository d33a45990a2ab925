"""What the routine's CLI tests share: a rows file, a run of the CLI over it (on a terminal of its own, too), its
results file read back."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.cli.test_cli import ROOT, cli
from tests.fakes.crm_model import TEMPLATE

HEADER = "name,email,plan,start,newsletter\n"
ROWS = (
    '"Ana Núñez, Jr.",ana@x.test,Pro,2026-01-05,yes\n'
    'Bob "B" Lee,bob@x.test,Free,2026-02-01,no\n'
    "Chloé Ğ,chloe@x.test,Starter,2026-03-01,yes\n"
    "Dup,ana@x.test,Free,2026-03-02,no\n"
)


def rows_file(folder: Path, rows: str = ROWS, name: str = "customers.csv") -> Path:
    path = folder / name
    path.write_text(HEADER + rows, encoding="utf-8")
    return path


def many_rows(folder: Path, count: int, line: Callable[[int], str]) -> Path:
    """A rows file of ``count`` rows, row i written ``line(i)``, written as it goes (half a million rows: 35 MB)."""
    path = folder / "customers.csv"
    with path.open("w", encoding="utf-8") as out:
        out.write(HEADER)
        for i in range(1, count + 1):
            out.write(line(i) + "\n")
    return path


def routine(rows: Path, url: str, *extra: str) -> list[str]:
    return cli(TEMPLATE, "--rows", str(rows), "--url", url, *extra)


def run(args: list[str], env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )


def started(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    """The CLI running over ``args``: what it says read as it comes (stdout and stderr are pipes)."""
    return subprocess.Popen(
        args, env=env, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def event_lines(process: subprocess.Popen[str]) -> Iterator[dict[str, Any]]:
    """The routine's --events lines (stderr) as they come."""
    assert process.stderr is not None
    for line in process.stderr:
        if line.startswith("{"):
            yield json.loads(line)


class Terminal:
    """A routine run whose stdin is a terminal, as a person runs it: read what it asks, type the answer."""

    def __init__(self, process: subprocess.Popen[str], controller: int) -> None:
        self.process = process
        self._controller = controller
        self.told = ""  # everything it said on stderr so far

    def read_until(self, ending: str) -> str:
        """What it said from here up to ``ending`` (the question is out: typing now answers it)."""
        assert self.process.stderr is not None
        start = len(self.told)
        while not self.told[start:].endswith(ending):
            character = self.process.stderr.read(1)
            assert character, self.told
            self.told += character
        return self.told[start:]

    def type(self, line: str) -> None:
        os.write(self._controller, f"{line}\n".encode())

    def finish(self, timeout: float = 90) -> str:
        """Waits for the end; everything it said."""
        _, rest = self.process.communicate(timeout=timeout)
        self.told += rest
        return self.told


@contextmanager
def on_a_terminal(args: list[str], env: dict[str, str]) -> Iterator[Terminal]:
    controller, terminal = os.openpty()  # POSIX only; os, not pty, so that Windows still collects the tests
    process = subprocess.Popen(
        args, env=env, cwd=ROOT, stdin=terminal, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        yield Terminal(process, controller)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
        os.close(controller)
        os.close(terminal)


def results(rows: Path) -> list[dict[str, str]]:
    text = rows.with_name(f"{rows.stem}-results.csv").read_bytes().decode("utf-8-sig")
    return list(csv.DictReader(io.StringIO(text, newline="")))
