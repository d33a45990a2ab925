"""A rows file's rows in about the file's own size of memory, whatever their number: each row's cells CSV-encoded one
after another in one text, and where each row begins. A ``Row`` (a dict of its cells) is made only when one is asked
for: half a million of them at once would take ten times the file's size.
"""

from __future__ import annotations

import csv
import re
from array import array
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import overload

# "\r\n" ends a row: a cell with either character in it is quoted (a bare "\r" would end the row when read).
_DIALECT = {"delimiter": ",", "quotechar": '"', "lineterminator": "\r\n", "quoting": csv.QUOTE_MINIMAL, "strict": True}


@dataclass(frozen=True)
class Row:
    """One data row: ``number`` counts data rows from 1 (the header is not one), as the user reads the sheet."""

    number: int
    values: Mapping[str, str]


class _Sink:
    """What csv.writer writes to: the pieces, and how long they are together."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0

    def write(self, text: str) -> int:
        self.parts.append(text)
        self.size += len(text)
        return len(text)


class RowPacker:
    """``add(cells)`` for each row, in order; ``rows()`` once at the end."""

    def __init__(self, columns: tuple[str, ...]) -> None:
        self._columns = columns
        self._sink = _Sink()
        self._writer = csv.writer(self._sink, **_DIALECT)  # type: ignore[arg-type]
        self._starts = array("Q")

    def __len__(self) -> int:
        return len(self._starts)

    def add(self, cells: Sequence[str]) -> None:
        self._starts.append(self._sink.size)
        self._writer.writerow(cells)

    def rows(self) -> PackedRows:
        text = "".join(self._sink.parts)
        self._sink.parts.clear()
        self._starts.append(len(text))  # where the row after the last would begin
        return PackedRows(self._columns, text, self._starts)


class PackedRows(Sequence[Row]):
    """The rows, numbered from 1 in the file's order (``rows[0].number == 1``)."""

    def __init__(self, columns: tuple[str, ...], text: str, starts: array[int]) -> None:
        self._columns = columns
        self._text = text
        self._starts = starts

    def __len__(self) -> int:
        return len(self._starts) - 1

    @overload
    def __getitem__(self, index: int) -> Row: ...

    @overload
    def __getitem__(self, index: slice) -> list[Row]: ...

    def __getitem__(self, index: int | slice) -> Row | list[Row]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        line = self._text[self._starts[index] : self._starts[index + 1]]
        cells = next(csv.reader([line], **_DIALECT))  # type: ignore[arg-type]
        return Row(index + 1, dict(zip(self._columns, cells, strict=True)))

    def contain(self, pattern: re.Pattern[str]) -> bool:
        """Whether ``pattern`` is found in the rows' text (cells and the separators between them): False means no
        cell holds it, a pattern without quotes and commas; True, that some cell may."""
        return pattern.search(self._text) is not None

    def __iter__(self) -> Iterator[Row]:
        columns = self._columns
        reader = csv.reader(self._lines(), **_DIALECT)  # type: ignore[arg-type]
        for number, cells in enumerate(reader, 1):
            yield Row(number, dict(zip(columns, cells, strict=True)))

    def _lines(self) -> Iterator[str]:
        starts, text = self._starts, self._text
        for index in range(len(starts) - 1):
            yield text[starts[index] : starts[index + 1]]
