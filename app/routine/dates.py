"""A row's date cell as a date field holds it: a field of type date keeps ``YYYY-MM-DD`` whatever the person typed or
the row wrote ("05/01/2026", "5.1.2026"), so a path that typed a date there learns the order the row writes its dates
in (``date_order``) and writes each later row's cell the field's way (``as_field_date``)."""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping

ORDERS = ("ymd", "dmy", "mdy")
_FIELD_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_CELL_DATE = re.compile(r"^\s*(\d{1,4})[./\- ](\d{1,2})[./\- ](\d{1,4})\s*$")


def as_field_date(cell: str, order: str) -> str | None:
    """``cell`` read in ``order`` as a date field's value; None when it is not such a date."""
    found = _CELL_DATE.match(cell)
    if found is None or order not in ORDERS:
        return None
    parts = dict(zip(order, (int(part) for part in found.groups()), strict=True))
    year_text = found.group(order.index("y") + 1)
    if len(year_text) != 4:
        return None  # a two-digit year could be either century
    try:
        return datetime.date(parts["y"], parts["m"], parts["d"]).isoformat()
    except ValueError:
        return None


def date_order(typed: str, values: Mapping[str, str]) -> tuple[str, str] | None:
    """The column whose cell is the date field value ``typed`` written another way, and the order it is written in;
    None unless exactly one column and one order give it."""
    if _FIELD_DATE.match(typed) is None:
        return None
    found = {
        (column, order) for column, value in values.items() for order in ORDERS if as_field_date(value, order) == typed
    }
    return found.pop() if len(found) == 1 else None
