"""A routine's paths in plain words, for the panel and the terminal alike: each step with the columns it fills as
``{column}``, the kind of row each path serves, what a path learned from a row changed (the site that changed, the
row that was another kind), and what the person is asked to do in Show me once. Everything comes from typed values
(RoutinePath, PathChange), never from English read back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from app.core.page import ElementIdentity
from app.core.tools.control import HAND_OFF
from app.routine.path import PathStep, RoutinePath
from app.routine.paths import EMPTY, FILLED, NO, YES, PathChange
from app.text.element_words import clip, quote, target_words
from app.text.i18n import tr
from app.text.wording import describe_action

_CELLS_SHOWN = 3
_CELL_MAX = 30


def show_me_words(number: int, cells: Sequence[str]) -> str:
    """ "Do row 1 (Ada Lovelace, ada@example.com, …) in the browser as you always do, then press Done." """
    shown = ", ".join(clip(cell, _CELL_MAX) for cell in cells[:_CELLS_SHOWN])
    if len(cells) > _CELLS_SHOWN:
        shown += ", …"
    return tr("Do row {n} ({cells}) in the browser as you always do, then press Done.", n=number, cells=shown or "…")


def step_words(step: PathStep) -> str:
    """One step of a path: "Type {name} into the Full name field", "Tick the Newsletter checkbox when {newsletter}
    says yes"."""
    if step.toggle_column is not None:
        target, column = target_words(step.target), _column(step.toggle_column)
        return tr("Tick {target} when {column} says yes", target=target, column=column)
    if step.action == HAND_OFF:
        return tr("You type into {target} yourself", target=target_words(step.target))
    words = describe_action(step.action, dict(step.input), step.target)
    for name in step.templated:  # a value that is one column reads as the column, not as a quoted text
        value = str(step.input.get(name, ""))
        words = words.replace(quote(value), value)
    if step.date_order is not None:
        words += " " + tr("(as a date)")
    if step.target_column is not None:
        words += " " + tr("(the one named {column})", column=_column(step.target_column))
    if step.ask_model:
        words = tr("The model decides: {words}", words=words)
    return words


def path_words(path: RoutinePath | None) -> list[str]:
    """The path, one plain sentence per step."""
    if path is None:
        return []
    lines = [step_words(step) for step in path.steps]
    if path.fixed:
        lines.append(
            tr(
                "Rows with another value in {columns} than row {row} are done by the model.",
                columns=", ".join(_column(c) for c in path.fixed),
                row=path.learned_from,
            )
        )
    return lines


def key_words(key: Mapping[str, str]) -> str:
    """The kind of row a path serves: "Rows where {newsletter} is yes"; "Every row" when no column decides."""
    if not key:
        return tr("Every row")
    return tr("Rows where {conditions}", conditions=conditions_words(key))


def conditions_words(key: Mapping[str, str]) -> str:
    """ "{newsletter} is yes and {plan} is “pro”"."""
    return tr(" and ").join(_kind_words(column, kind) for column, kind in key.items())


def _kind_words(column: str, kind: str) -> str:
    named = _column(column)
    if kind == YES:
        return tr("{column} is yes", column=named)
    if kind == NO:
        return tr("{column} is no", column=named)
    if kind == EMPTY:
        return tr("{column} is empty", column=named)
    if kind == FILLED:
        return tr("{column} is filled in", column=named)
    return tr("{column} is {value}", column=named, value=quote(kind))


def rows_words(numbers: Sequence[int]) -> str:
    """ "5–9", "5, 7 and 9–12"; "none" for no rows."""
    if not numbers:
        return tr("none")
    runs: list[tuple[int, int]] = []
    for number in sorted(numbers):
        if runs and number == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], number)
        else:
            runs.append((number, number))
    parts = [str(a) if a == b else f"{a}–{b}" for a, b in runs]
    return parts[0] if len(parts) == 1 else tr("{some} and {last}", some=", ".join(parts[:-1]), last=parts[-1])


def change_words(change: PathChange) -> str:
    """What a new path means for the rows to come, in one or two sentences."""
    rows = rows_words(change.rows)
    after = (
        tr("Rows {rows} use the new path.", rows=rows)
        if len(change.rows) != 1
        else tr("Row {rows} uses the new path.", rows=rows)
    )
    if not change.rows:
        after = tr("No rows are left for it.")
    if change.origin == "mended":
        if change.before is not None and change.after is not None:
            what = tr("{before} is now {after}", before=quote(_named(change.before)), after=quote(_named(change.after)))
            return tr("The site changed at row {n}: {what}.", n=change.number, what=what) + " " + after
        return tr("The site changed at row {n}; the path was learned again from it.", n=change.number) + " " + after
    if change.origin == "added":
        said = tr(
            "Row {n} was another kind of row ({conditions}): rows like it follow its steps.",
            n=change.number,
            conditions=conditions_words(change.key),
        )
        return said + " " + after
    if change.origin == "taught":
        return tr("The path was learned from row {n}, which you showed.", n=change.number) + " " + after
    return tr("The path was learned from row {n}.", n=change.number) + " " + after


def _named(target: ElementIdentity) -> str:
    return clip(target.name or target.text or target_words(target), _CELL_MAX)


def _column(column: str) -> str:
    return "{" + column + "}"
