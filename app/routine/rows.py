"""A routine's rows: a CSV (as Excel writes it) or an .xlsx file, read into named columns and plain-text cells.

Everything wrong with the file is refused here, in plain words that name the columns found, before any browser
starts: an unreadable or empty file, a header without rows, a column without a name, two columns with one name.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import zipfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from app.routine.files import NotAFile, read_regular
from app.routine.packed import PackedRows, RowPacker

CSV_SUFFIXES = frozenset({".csv", ".txt", ".tsv"})
XLSX_SUFFIXES = frozenset({".xlsx", ".xlsm"})
# Enough for the largest spreadsheet a person would hand a browser routine; a bigger file is refused, not read whole.
MAX_BYTES = 50 * 1024 * 1024
# An .xlsx is compressed: its first sheet (and the text its cells share) is counted unpacked, as it is read.
MAX_UNPACKED = 4 * MAX_BYTES
_STOP_EVERY = 1000  # rows read between looks at whether the person stopped


class RowsError(ValueError):
    """The rows file cannot be used; the message says why and what to do, in plain words."""


class ReadingStopped(RowsError):
    """The person stopped the routine while its rows file was being read."""


@dataclass(frozen=True)
class RowTable:
    path: Path
    columns: tuple[str, ...]
    rows: PackedRows  # a Row is made when one is asked for
    # The CSV's delimiter (the results file is written with the same one, as the user's Excel expects); "," for xlsx.
    delimiter: str = ","


def columns_words(columns: tuple[str, ...] | list[str]) -> str:
    """The columns as the user reads them in a message: "name", "email" and "plan"."""
    quoted = [f'"{column}"' for column in columns]
    if not quoted:
        return "no columns"
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def read_rows(path: Path, stopped: Callable[[], bool] = lambda: False) -> RowTable:
    """The file's header and rows, read as a stream; ReadingStopped as soon as ``stopped()`` says so. Reads the disk:
    call it off the event loop."""
    suffix = path.suffix.lower()
    if suffix == ".xls":
        raise RowsError(f"{path} is an old Excel file (.xls); open it in Excel and save it as .xlsx or CSV.")
    try:
        if path.is_dir():
            raise RowsError(f"{path} is a folder; give the CSV or .xlsx file that holds the rows.")
        data = read_regular(path, MAX_BYTES)  # never a pipe (it would wait for a writer) or a device (endless)
    except NotAFile as exc:
        raise RowsError(f"{exc} Give the CSV or .xlsx file that holds the rows.") from None
    except FileNotFoundError:
        raise RowsError(f"The rows file {path} does not exist.") from None
    except OSError as exc:
        raise RowsError(f"The rows file {path} cannot be read: {exc.strerror or exc}.") from None
    if len(data) > MAX_BYTES:
        raise RowsError(f"{path} is larger than {MAX_BYTES // (1024 * 1024)} MB; split it into smaller files.")
    if not data.strip():
        raise RowsError(f"The rows file {path} is empty: it needs a header row with the column names, then rows.")
    if suffix in XLSX_SUFFIXES or data[:4] == b"PK\x03\x04":
        return _xlsx(path, data, stopped)
    header, cells, delimiter = _csv(path, data)
    return _table(path, header, cells, delimiter, stopped)


def _csv(path: Path, data: bytes) -> tuple[list[str], Iterator[list[str]], str]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise RowsError(
            f'{path} is not UTF-8 text. In Excel, save it as "CSV UTF-8 (Comma delimited)", or save it as .xlsx.'
        ) from None
    delimiter = _delimiter(text, path.suffix.lower())
    records = _csv_records(path, csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True))
    header = next(records, None)
    if header is None:
        raise RowsError(f"The rows file {path} is empty: it needs a header row with the column names, then rows.")
    return header, records, delimiter


def _csv_records(path: Path, reader: Iterator[list[str]]) -> Iterator[list[str]]:
    try:
        yield from reader
    except csv.Error as exc:
        raise RowsError(f"{path} is not a CSV file that can be read: {exc}.") from None


def _delimiter(text: str, suffix: str) -> str:
    """Excel writes ";" where the decimal comma is used: the header line says which one this file has."""
    if suffix == ".tsv":
        return "\t"
    first = text.split("\n", 1)[0]
    counts = {d: _outside_quotes(first).count(d) for d in (",", ";", "\t")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else ","


def _outside_quotes(line: str) -> str:
    return "".join(part for i, part in enumerate(line.split('"')) if i % 2 == 0)


def _xlsx(path: Path, data: bytes, stopped: Callable[[], bool]) -> RowTable:
    import openpyxl  # only for .xlsx files
    from openpyxl.utils.exceptions import InvalidFileException

    try:
        _check_unpacked(path, data)
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except (InvalidFileException, zipfile.BadZipFile, OSError, KeyError, ValueError) as exc:
        if isinstance(exc, RowsError):
            raise
        raise RowsError(f"{path} is not an Excel workbook that can be read ({exc}); save it again as .xlsx.") from None
    try:
        if not book.worksheets:
            raise RowsError(f"{path} has no sheet.")
        records = ([_cell(value) for value in row] for row in book.worksheets[0].iter_rows(values_only=True))
        header = next((record for record in records if any(record)), None)  # blank lines above the header go
        if header is None:
            raise RowsError(
                f"The first sheet of {path} is empty: it needs a header row with the column names, then rows."
            )
        return _table(path, header, records, ",", stopped)
    finally:
        book.close()


def _check_unpacked(path: Path, data: bytes) -> None:
    """RowsError for a workbook whose sheets and shared text unpack to more than MAX_UNPACKED (a small file can hold
    a sheet of hundreds of MB): the zip's own directory says, before anything is unpacked."""
    with zipfile.ZipFile(io.BytesIO(data)) as book:
        unpacked = sum(
            info.file_size
            for info in book.infolist()
            if info.filename.startswith("xl/worksheets/") or info.filename == "xl/sharedStrings.xml"
        )
    if unpacked > MAX_UNPACKED:
        raise RowsError(
            f"{path} unpacks to {unpacked // (1024 * 1024)} MB of sheets (more than {MAX_UNPACKED // (1024 * 1024)} "
            "MB); split it into smaller files, or save its rows as CSV."
        )


def _cell(value: object) -> str:
    """A cell as the user reads it: a computed value (never its formula), a whole number without ".0", a date
    without a midnight time."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time() else value.isoformat(sep=" ")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    return str(value)


def _table(
    path: Path, header: list[str], records: Iterable[list[str]], delimiter: str, stopped: Callable[[], bool]
) -> RowTable:
    names, found = _columns(path, header)
    rows = RowPacker(tuple(names))
    for line, record in enumerate(records, 2):
        if line % _STOP_EVERY == 0 and stopped():
            raise ReadingStopped(f"Stopped while reading {path}.")
        if any(cell.strip() for cell in record):  # not a blank line (Excel often ends a file with some)
            rows.add(_fitted(path, line, record, names, found))
    if not len(rows):
        raise RowsError(f"{path} has a header ({found}) but no rows below it: add the rows the routine should run.")
    return RowTable(path=path, columns=tuple(names), rows=rows.rows(), delimiter=delimiter)


def _columns(path: Path, header: list[str]) -> tuple[list[str], str]:
    """The header's column names, each with a name of its own, and how they are listed in a message."""
    names = [name.strip() for name in header]
    while names and not names[-1]:
        names.pop()  # empty cells after the last column (Excel leaves them)
    found = columns_words(tuple(name for name in names if name))
    if not names:
        raise RowsError(f"{path} has no column names in its first row: it needs a header row, then rows.")
    blank = [str(i) for i, name in enumerate(names, 1) if not name]
    if blank:
        raise RowsError(f"{path}: column {', '.join(blank)} of the header has no name (columns found: {found}).")
    folded = [name.casefold() for name in names]
    twice = sorted({name for name in names if folded.count(name.casefold()) > 1})
    if twice:
        raise RowsError(
            f"{path} has more than one column named {columns_words(twice)}; give every column its own name "
            f"(columns found: {found})."
        )
    return names, found


def _fitted(path: Path, line: int, cells: list[str], names: list[str], found: str) -> list[str]:
    """A record's cells, one per column (missing ones empty); more cells than columns is refused."""
    extra = [cell for cell in cells[len(names) :] if cell.strip()]
    if extra:
        raise RowsError(
            f"{path}, line {line}, has more cells than the header has columns ({len(names)}: {found}); check "
            "for a missing column name or an unquoted separator."
        )
    return (cells + [""] * (len(names) - len(cells)))[: len(names)]
