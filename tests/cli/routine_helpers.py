"""What the routine's CLI tests share: a rows file, a run of the CLI over it, its results file read back."""

from __future__ import annotations

import csv
import io
import subprocess
from pathlib import Path

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


def routine(rows: Path, url: str, *extra: str) -> list[str]:
    return cli(TEMPLATE, "--rows", str(rows), "--url", url, *extra)


def run(args: list[str], env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )


def results(rows: Path) -> list[dict[str, str]]:
    text = rows.with_name(f"{rows.stem}-results.csv").read_bytes().decode("utf-8-sig")
    return list(csv.DictReader(io.StringIO(text, newline="")))
