"""A routine's paths: one for every kind of row, each kept with the row it came from, and mended when the site changes.

A row follows the path that fits it (``PathBook.choose``): the path's unused columns hold what its row held
(``RoutinePath.replays``), and the columns that decide a row's kind (``deciding``) hold the same kind of value as its
row's: yes or no, empty or filled, or, for a column whose value picks an option or an element, that value. A row
no path fits is the model's from the start; once it succeeds, its steps become a further path for rows like it,
and the columns that set it apart become deciding ones (``learned``). A replayed row the model took over and
completed met a changed site unless a step it had taken before the page differed used a value of another kind than
the path's row had there (a choice that opened a field, an empty cell): then its steps are a further path; else they
mend that path (the old one is kept, marked with the row that replaced it). A new path takes from the one it differs
from the steps its own row had no need of (a box left as it was, a list already at the row's value:
``carried_steps``), so that the rows of its kind with other values follow it too.

What a change means is said by ``PathChange`` (typed data; the words are app/text/path_words.py's).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from app.core.page import ElementIdentity
from app.routine.path import PathStep, RoutinePath, columns_in, declared, truth
from app.routine.template import parse_template

FORMAT = 2
Origin = Literal["taught", "learned", "added", "mended"]
EMPTY, YES, NO, FILLED = "empty", "yes", "no", "filled"


class KnownPath(BaseModel):
    path: RoutinePath
    origin: Origin
    # The cells of the row it came from that the template uses (never a secret's): what its kind is read from.
    values: dict[str, str] = Field(default_factory=dict)
    replaced_by: int | None = None  # the row whose success mended it: kept, no longer followed

    @property
    def number(self) -> int:
        return self.path.learned_from


@dataclass(frozen=True)
class PathChange:
    """A path the routine learned: ``origin`` says how (the person's row, the model's first good row, a new kind of
    row, a mend), ``rows`` the rows not started yet that will follow it, ``key`` the kind of row it serves (deciding
    column -> kind), and for a mend the element that changed: ``before`` and ``after`` (None when no step pairs)."""

    origin: Origin
    number: int
    rows: tuple[int, ...]
    key: dict[str, str]
    before: ElementIdentity | None = None
    after: ElementIdentity | None = None


def kind(value: str, *, choice: bool) -> str:
    """What kind of value a cell is, as far as it may change a row's steps."""
    if not value.strip():
        return EMPTY
    said = truth(value)
    if said is not None:
        return YES if said else NO
    return value.strip().casefold() if choice else FILLED


def choice_columns(path: RoutinePath) -> set[str]:
    """The columns whose value picks something on the page: an option chosen by it, an element named by it."""
    found: set[str] = set()
    for step in path.steps:
        if step.target_column is not None:
            found.add(step.target_column)
        tool = declared(step.action)
        field = tool.value_field if tool is not None and tool.picks_option else None
        text = step.input.get(field) if field is not None and field in step.templated else None
        if isinstance(text, str):
            parsed = parse_template(text)
            if len(parsed.columns) == 1 and not "".join(parsed.literals).strip():
                found.add(parsed.columns[0])
    return found


class PathBook(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a path saved alone by an older version is not a book

    version: int = FORMAT
    paths: list[KnownPath] = Field(default_factory=list)
    deciding: list[str] = Field(default_factory=list)  # columns whose kind of value picks the path

    @classmethod
    def read(cls, body: str) -> PathBook:
        """The book saved in the state; one path saved by an older version is a book of one (ValueError: neither)."""
        try:
            return cls.model_validate_json(body)
        except ValueError:
            path = RoutinePath.model_validate_json(body)
            return cls(paths=[KnownPath(path=path, origin="learned")])

    def live(self) -> list[KnownPath]:
        return [known for known in self.paths if known.replaced_by is None]

    @property
    def newest(self) -> KnownPath | None:
        live = self.live()
        return live[-1] if live else None

    def choose(self, values: Mapping[str, str]) -> KnownPath | None:
        """The path this row follows: the newest of those that fit it; None when none does (the model's row)."""
        fitting = [known for known in self.live() if not self._mismatches(known, values)]
        return fitting[-1] if fitting else None

    def key(self, known: KnownPath) -> dict[str, str]:
        """The kind of row ``known`` serves: each deciding column's kind in its row."""
        choices = self._choices()
        return {column: kind(known.values.get(column, ""), choice=column in choices) for column in self.deciding}

    def serves(self, known: KnownPath, rows: Iterable[tuple[int, Mapping[str, str]]]) -> list[int]:
        """The numbers of ``rows`` that would follow ``known``."""
        return [number for number, values in rows if self.choose(values) is known]

    # --- learning ----------------------------------------------------------------------------------------------

    def taught(self, path: RoutinePath, values: Mapping[str, str]) -> KnownPath:
        """The person's own row: its path is followed from now on, in place of every path known before."""
        for known in self.live():
            known.replaced_by = path.learned_from
        self.deciding = []
        added = KnownPath(path=path, origin="taught", values=dict(values))
        self.paths.append(added)
        return added

    def learned(
        self, path: RoutinePath, values: Mapping[str, str], followed: KnownPath | None, at: int = 0
    ) -> tuple[KnownPath, PathChange]:
        """A row succeeded that no path fitted (``followed`` None), or that the model took over from ``followed``
        after its first ``at`` steps: its steps become a path. Returns it, and the change without its ``rows``
        (``change_for`` fills them)."""
        number = path.learned_from
        if followed is None:
            closest = min(self.live(), key=lambda known: len(self._mismatches(known, values)), default=None)
            apart = self._mismatches(closest, values) if closest is not None else []
            origin: Origin = "added" if closest is not None else "learned"
            before = after = None
            if closest is not None:
                path = carried_steps(closest.path, path)
        else:
            apart = self._apart(followed, values, at)
            origin = "added" if apart else "mended"
            before, after = changed_element(followed.path, path) if not apart else (None, None)
            if not apart:
                followed.replaced_by = number
                path = carried_steps(followed.path, path)
        self.deciding += [column for column in apart if column not in self.deciding]
        added = KnownPath(path=path, origin=origin, values=dict(values))
        self.paths.append(added)
        return added, PathChange(origin, number, (), self.key(added), before, after)

    def _mismatches(self, known: KnownPath, values: Mapping[str, str]) -> list[str]:
        """The columns that keep a row from following ``known``: an unused column with another value, a deciding
        column with another kind of value."""
        fixed = known.path.fixed
        apart = [column for column, value in fixed.items() if values.get(column, "") != value]
        choices = self._choices()
        for column in self.deciding:
            choice = column in choices
            if kind(values.get(column, ""), choice=choice) != kind(known.values.get(column, ""), choice=choice):
                apart.append(column)
        return list(dict.fromkeys(apart))

    def _apart(self, followed: KnownPath, values: Mapping[str, str], at: int) -> list[str]:
        """The columns in which a row that followed ``followed`` for ``at`` steps was another kind of row than its
        own in those steps: a value that picked something else on the page, or an empty cell where its row had one
        filled (or the other way). What the row had not used yet cannot have made the page differ."""
        choices = choice_columns(followed.path)
        used: set[str] = set()
        for step in followed.path.steps[:at]:
            used |= columns_in(step)
        apart = []
        for column, value in values.items():
            if column not in followed.values or column not in used:
                continue
            choice = column in choices
            mine, theirs = kind(value, choice=choice), kind(followed.values[column], choice=choice)
            if mine != theirs and (column in choices or EMPTY in (mine, theirs)):
                apart.append(column)
        return apart

    def _choices(self) -> set[str]:
        found: set[str] = set()
        for known in self.live():
            found |= choice_columns(known.path)
        return found


def change_for(
    change: PathChange, book: PathBook, known: KnownPath, rows: Sequence[tuple[int, Mapping[str, str]]]
) -> PathChange:
    """``change`` with the rows (of ``rows``, not started yet) that will follow the path it made."""
    return PathChange(
        change.origin, change.number, tuple(book.serves(known, rows)), change.key, change.before, change.after
    )


def carried_steps(old: RoutinePath, new: RoutinePath) -> RoutinePath:
    """``new`` with the steps of ``old`` that only set what ``new``'s row left as it was (a column ``new`` never used):
    a checkbox its yes/no column did not want changed, a list or a field that showed its value already. Each goes
    where ``old`` took it, when the page still showed its element there: a row of another value then follows ``new``
    too, rather than being the model's."""
    steps = list(new.steps)
    fixed = dict(new.fixed)
    for position, step in enumerate(old.steps):
        columns = columns_in(step)
        if not columns or not columns <= fixed.keys() or step.target is None or step.ask_model:
            continue
        later = [s for s in old.steps[position + 1 :] if s.target is not None]
        at = next((i for i, s in enumerate(steps) if any(_same(s, o) for o in later)), None)
        if at is None or step.target not in steps[at].seen:
            continue
        # The page events met before the step it goes before are now met before it.
        steps.insert(at, step.model_copy(update={"seen": steps[at].seen, "events": steps[at].events}))
        steps[at + 1] = steps[at + 1].model_copy(update={"events": 0})
        for column in columns:
            fixed.pop(column)
    return new.model_copy(update={"steps": steps, "fixed": fixed})


def _same(step: PathStep, other: PathStep) -> bool:
    return step.action == other.action and step.input == other.input and step.target == other.target


def changed_element(old: RoutinePath, new: RoutinePath) -> tuple[ElementIdentity | None, ElementIdentity | None]:
    """The element the site changed, as the two paths act on it: a step of the old path and one of the new that do
    the same (the same action with the same value, or at the same place) on elements that differ."""
    for step in old.steps:
        if step.target is None or not step.templated:
            continue
        twin = next((s for s in new.steps if s.action == step.action and s.input == step.input), None)
        if twin is not None and twin.target is not None and twin.target != step.target:
            return step.target, twin.target
    for step, twin in zip(old.steps, new.steps, strict=False):
        if step.target is not None and twin.target is not None and step.target != twin.target:
            return step.target, twin.target
    return None, None
