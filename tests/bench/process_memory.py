"""Memory of a process tree, read from /proc (Linux): each process's proportional set size (PSS, from smaps_rollup:
shared pages split between the processes that share them) and resident set size (RSS), grouped by what the process is
(the app, Playwright's driver, a Chromium and its kind of helper, chromedriver, the grid's Java)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

_PROC = Path("/proc")


@dataclass(frozen=True)
class Usage:
    pss_mb: float
    rss_mb: float
    processes: int


def children(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    parents: dict[int, list[int]] = {}
    for entry in _PROC.iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            parents.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        each = todo.pop()
        found.append(each)
        todo.extend(parents.get(each, []))
    return found


def kind(pid: int) -> str:
    """What the process is: "chromium renderer", "chromium gpu-process", "chromium" (the browser itself), "node",
    "python", "java", "chromedriver"."""
    try:
        arguments = (_PROC / str(pid) / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return "gone"
    program = os.path.basename(arguments[0].decode(errors="replace").split(" ")[0]) if arguments else "?"
    if "chrom" in program and "driver" not in program:
        for argument in arguments:
            if argument.startswith(b"--type="):
                return "chromium " + argument.removeprefix(b"--type=").decode()
        return "chromium"
    return program


def usage(pids: list[int]) -> dict[str, Usage]:
    """PSS and RSS (MB) per kind of process."""
    totals: dict[str, tuple[int, int, int]] = {}
    for pid in pids:
        try:
            lines = (_PROC / str(pid) / "smaps_rollup").read_text().splitlines()
        except OSError:
            continue
        fields = {line.split(":")[0]: int(line.split()[1]) for line in lines[1:] if line.endswith("kB")}
        pss, rss, count = totals.get(kind(pid), (0, 0, 0))
        totals[kind(pid)] = (pss + fields.get("Pss", 0), rss + fields.get("Rss", 0), count + 1)
    return {name: Usage(pss / 1024, rss / 1024, count) for name, (pss, rss, count) in sorted(totals.items())}
