"""Routines saved by name in the app's data folder, to run again on a new file; and where the panel keeps a
routine's pasted rows and its results. Reads and writes the disk: call these off the event loop."""

from __future__ import annotations

import csv
import hashlib
import io
import re
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from app.routine.plan import MAX_PARALLEL
from app.routine.results import RESULT_COLUMNS, result_columns
from app.routine.rows import RowTable
from app.settings.atomic import write_atomic

FOLDER = "routines"
LIBRARY = "routines.json"
LAST_SETUP = "last setup.json"


class SavedRoutine(BaseModel):
    """What the person set up, without any row: the task template and its options."""

    name: str = Field(min_length=1, max_length=120)
    template: str
    start_url: str = ""
    parallel: int = Field(default=1, ge=1, le=MAX_PARALLEL)
    retry_failed: bool = False
    secret_columns: list[str] = Field(default_factory=list)
    output_columns: list[str] = Field(default_factory=list)
    allowed_sites: list[str] = Field(default_factory=list)
    rows_file: str = ""  # the file it last ran on (offered again; a new one can be chosen)
    saved_at: datetime = Field(default_factory=lambda: datetime.now(UTC))


class _Library(BaseModel):
    routines: list[SavedRoutine] = Field(default_factory=list)


class LastSetup(BaseModel):
    """What the editor held when the app last closed (or a routine last started)."""

    routine: SavedRoutine
    named: bool  # the person named it (else its name is the editor's stand-in, not shown again)


class RoutineFolders:
    """data/routines/: routines.json, pasted/ (rows pasted into the panel), results/ (each routine's results and
    state, one pair per routine and rows file, so running it again on the same file continues it)."""

    def __init__(self, data_dir: Path) -> None:
        self.root = data_dir / FOLDER

    @property
    def library(self) -> Path:
        return self.root / LIBRARY

    def load(self) -> list[SavedRoutine]:
        """Newest first; a damaged file reads as no routines (it is replaced on the next save)."""
        try:
            text = self.library.read_text(encoding="utf-8")
        except OSError:
            return []
        try:
            routines = _Library.model_validate_json(text).routines
        except ValidationError:
            return []
        return sorted(routines, key=lambda routine: routine.saved_at, reverse=True)

    def save(self, routine: SavedRoutine) -> None:
        """Saves ``routine``, replacing the one of the same name."""
        kept = [r for r in self.load() if r.name.casefold() != routine.name.casefold()]
        write_atomic(self.library, _Library(routines=[routine, *kept]).model_dump_json(indent=1))

    def keep_last_setup(self, routine: SavedRoutine, *, named: bool) -> None:
        write_atomic(self.root / LAST_SETUP, LastSetup(routine=routine, named=named).model_dump_json(indent=1))

    def last_setup(self) -> LastSetup | None:
        """The setup ``keep_last_setup`` kept; None when there is none, or it is damaged."""
        try:
            return LastSetup.model_validate_json((self.root / LAST_SETUP).read_text(encoding="utf-8"))
        except (OSError, ValidationError):
            return None

    def delete(self, name: str) -> None:
        kept = [r for r in self.load() if r.name != name]
        write_atomic(self.library, _Library(routines=kept).model_dump_json(indent=1))

    def save_pasted(self, text: str) -> Path:
        """Rows pasted from a spreadsheet (tab-separated, or comma/semicolon text) as a CSV file of their own."""
        stamp = datetime.now().strftime("%Y-%m-%d %H-%M-%S")
        delimiter = "\t" if "\t" in text.split("\n", 1)[0] else ""
        path = self.root / "pasted" / f"pasted rows {stamp}{'.tsv' if delimiter else '.csv'}"
        write_atomic(path, text.strip("\n") + "\n")
        return path

    def results_for(self, name: str, rows_file: Path) -> Path:
        """The results file of routine ``name`` over ``rows_file``: the same pair continues, a new file starts anew."""
        digest = hashlib.sha256(str(rows_file.resolve()).encode("utf-8")).hexdigest()[:8]
        slug = re.sub(r"[^\w-]+", "-", name.casefold()).strip("-")[:40] or "routine"
        return self.root / "results" / f"{slug}-{rows_file.stem}-{digest}-results.csv"


def earlier_outcomes(results: Path, table: RowTable) -> list[tuple[str, str]]:
    """Each row's (status, result) in a results file an earlier run wrote over ``table``'s rows, in the rows' order
    (the app's own columns, which have page_agent_ in front when the rows have a column of their name); [] when
    there is none yet."""
    try:
        text = results.read_text(encoding="utf-8-sig")
    except OSError:
        return []
    sample = text.split("\n", 1)[0]
    delimiter = max((",", ";", "\t"), key=sample.count)
    rows = csv.DictReader(io.StringIO(text), delimiter=delimiter)
    names = dict(zip(RESULT_COLUMNS, result_columns(table), strict=True))
    return [(row.get(names["status"], ""), row.get(names["result"], "")) for row in rows]
