"""A routine's path: a good row's actions (the model's, or the person's own shown once), with each typed or chosen
value that is one of that row's cells turned back into its ``{column}``, so that later rows replay it with their own
values and no model call.

What the path cannot derive from a row is never guessed: a value the model typed that is not a cell makes that step
the model's (``ask_model``), unless it is a date field's value (``type=date``) that one cell writes in its own order
(``date_order``, app/routine/dates.py); a checkbox is ticked or not by the yes/no column it belongs to; a column the
path never used makes a row whose value there differs from the learning row's a row for the model (``fixed``). A step
the person must take in every row (a password no cell holds, shown once by them) is a hand-off to the person
(``Taken.kept``).
Elements are found again by their identity (``ElementIdentity``, as cassettes do); an element named by a cell (a
radio button "Pro") is found by the row's own value.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from pydantic import BaseModel, Field

from app.core.page import ElementIdentity, ListedElement
from app.core.safety.secrets import PLACEHOLDER
from app.core.tools.base import Tool
from app.core.tools.registry import ALL_TOOLS
from app.routine.dates import as_field_date, date_order
from app.routine.template import parse_template

FORMAT = 1
_YES = frozenset({"yes", "y", "true", "1", "x", "on", "✓", "✔"})
_NO = frozenset({"no", "n", "false", "0", "off", ""})
_SHORTEST_PART = 3  # a cell found inside a longer value: shorter ones would match by chance ("1" in "10")
_WORDS = re.compile(r"[^\w]+")


def declared(action: str) -> Tool[Any] | None:
    """The tool an action uses, as declared (``Tool.may_send``, ``value_field``, …); None for one that no longer
    exists (a path saved by an older version)."""
    return ALL_TOOLS.get(action)


def may_send(action: str) -> bool:
    """Whether an action may send a row's data somewhere (``Tool.may_send``; an unknown one may): once one has begun,
    a row that is stopped or breaks is ``interrupted``, never retried blindly; and once a row's path step that sends
    it has been taken, the row model refuses every other (replay.py)."""
    tool = declared(action)
    return tool is None or tool.may_send


def _replayed(action: str) -> bool:
    tool = declared(action)
    return tool is None or tool.replayed


def value_field(action: str) -> str | None:
    tool = declared(action)
    return tool.value_field if tool is not None else None


def url_field(action: str) -> str | None:
    tool = declared(action)
    return tool.url_field if tool is not None else None


def truth(value: str) -> bool | None:
    """A yes/no cell as a checkbox reads it; None for a cell that is neither."""
    folded = value.strip().casefold()
    return True if folded in _YES else False if folded in _NO else None


class PathStep(BaseModel):
    action: str
    # The action's input without its element; a value field holds a template ("{email}", "Dear {name}").
    input: dict[str, Any] = Field(default_factory=dict)
    templated: list[str] = Field(default_factory=list)  # which input fields are templates
    target: ElementIdentity | None = None
    # The element is named by this column's value (its words equal the cell, whatever its case).
    target_column: str | None = None
    # A checkbox: clicked only when its state differs from what this yes/no column wants (checked_when: the value
    # that wants it checked, as the learning row showed).
    toggle_column: str | None = None
    checked_when: bool = True
    ask_model: bool = False  # the app cannot derive this step's value: the model decides it, and the path goes on
    # The value field is a date field's: its column's cell, written in this order ("dmy"), as the field holds dates.
    date_order: str | None = None
    # What the page listed when the learning row took this step, for telling a page that differs.
    seen: list[ElementIdentity] = Field(default_factory=list)
    events: int = 0  # page events (a dialog, a new tab, an error) the learning row met just before this step


class RoutinePath(BaseModel):
    version: int = FORMAT
    learned_from: int  # the row's number
    steps: list[PathStep]
    # Columns the path never uses, with the learning row's value: a row with another value there is the model's.
    fixed: dict[str, str] = Field(default_factory=dict)

    def replays(self, values: Mapping[str, str]) -> bool:
        """Whether this row can follow the path: the columns it never uses hold what the learning row held."""
        return all(values.get(column, "") == value for column, value in self.fixed.items())

    def sending_step(self) -> PathStep | None:
        """The step that sends a row to the site: the path's last step that may send (its Save, usually); None when
        no step may."""
        return next((step for step in reversed(self.steps) if may_send(step.action)), None)


@dataclass
class Taken:
    """One action of the learning row, as the agent ran it: its input (the element by index into ``listing``), whether
    it worked, the page's elements when it was chosen, and the page events just before it."""

    action: str
    input: dict[str, Any]
    ok: bool
    listing: list[ListedElement]
    events: int
    after: list[ListedElement] = field(default_factory=list)  # the listing the next step saw
    kept: bool = False  # a moment of the person's own (a hand-off) that every row meets at this step


def learn_path(
    taken: Sequence[Taken],
    number: int,
    values: Mapping[str, str],
    used_columns: Sequence[str],
    literal: str,
) -> RoutinePath | None:
    """The path of a row that succeeded, or None when it has no step to replay. ``values``: the row's non-secret
    cells; ``used_columns``: the template's non-secret columns; ``literal``: the template's own words."""
    steps: list[PathStep] = []
    covered: set[str] = set()
    for action in taken:
        if not action.ok or (not _replayed(action.action) and not action.kept):
            continue
        step = _step(action, values, literal)
        covered.update(columns_in(step))
        if step.ask_model:
            covered.update(_reformatted(action, values))
        steps.append(step)
    if not steps:
        return None
    fixed = {column: values.get(column, "") for column in used_columns if column not in covered}
    return RoutinePath(learned_from=number, steps=steps, fixed=fixed)


def _reformatted(action: Taken, values: Mapping[str, str]) -> set[str]:
    """The columns a value the model typed is a new form of (a date, a phone number written another way): the
    model decides that step for each row, so those columns are the model's there."""
    field = value_field(action.action)
    typed = action.input.get(field) if field is not None else None
    if not isinstance(typed, str):
        return set()
    return {column for column, value in values.items() if value.strip() and _characters(value) == _characters(typed)}


def _characters(text: str) -> list[str]:
    return sorted(char for char in text.casefold() if char.isalnum())


def columns_in(step: PathStep) -> set[str]:
    """The columns a step uses: in its values, or to name or tick its element."""
    found = {step.target_column, step.toggle_column} - {None}
    for name in step.templated:
        found.update(parse_template(str(step.input[name])).columns)
    return {column for column in found if column is not None}


def _step(action: Taken, values: Mapping[str, str], literal: str) -> PathStep:
    given = dict(action.input)
    index = given.pop("index", None)
    listed = {element.index: element for element in action.listing}
    element = listed.get(index) if isinstance(index, int) else None
    step = PathStep(
        action=action.action,
        input=given,
        target=element.identity() if element is not None else None,
        seen=[e.identity() for e in action.listing],
        events=action.events,
    )
    if isinstance(index, int) and element is None:
        step.ask_model = True  # acted on an element the listing did not show: nothing to find it by again
    value = value_field(action.action)
    if value is not None and isinstance(given.get(value), str):
        template = as_template(given[value], values, literal)
        dated = date_order(given[value], values) if template is None and _is_date(element) else None
        if dated is not None:
            template, step.date_order = "{" + dated[0] + "}", dated[1]
        if template is None:
            step.ask_model = True
        else:
            step.input[value] = template
            step.templated.append(value)
    url = url_field(action.action)
    if url is not None and isinstance(given.get(url), str):
        step.input[url] = _url_template(given[url], values)
        step.templated.append(url)
    tool = declared(action.action)
    if element is not None and tool is not None and tool.picks_element:
        _bind_element(step, element, action, values)
    return step


def as_template(text: str, values: Mapping[str, str], literal: str) -> str | None:
    """``text`` with the cells in it as ``{column}`` (braces escaped), or None when it cannot be told where it came
    from: neither the row's cells, nor a secret's placeholder, nor the task's own words."""
    exact = [column for column, value in values.items() if value and value == text]
    if len(exact) == 1:
        return "{" + exact[0] + "}"
    if exact:
        return None  # two columns hold this value: which one a later row needs cannot be told
    escaped = _escape(text)
    parts = sorted(
        ((column, value) for column, value in values.items() if len(value) >= _SHORTEST_PART), key=lambda p: -len(p[1])
    )
    found = False
    for column, value in parts:
        pattern = re.compile(rf"(?<!\w){re.escape(_escape(value))}(?!\w)")
        if pattern.search(escaped):
            escaped = pattern.sub(_placeholder(column), escaped)
            found = True
    if found:
        return escaped
    bare = PLACEHOLDER.sub("", text).strip()
    if not bare or bare.casefold() in literal.casefold():
        return escaped  # empty, a secret's placeholder, or the user's own words: the same for every row
    return None


def _placeholder(column: str) -> Callable[[re.Match[str]], str]:
    return lambda _match: "{" + column + "}"


def _url_template(url: str, values: Mapping[str, str]) -> str:
    escaped = _escape(url)
    for column, value in sorted(values.items(), key=lambda p: -len(p[1])):
        if len(value) < _SHORTEST_PART:
            continue
        for form in {value, quote(value, safe="")}:
            escaped = re.sub(rf"(?<!\w){re.escape(_escape(form))}(?!\w)", "{" + column + "}", escaped)
    return escaped


def _escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _bind_element(step: PathStep, element: ListedElement, action: Taken, values: Mapping[str, str]) -> None:
    if _is_checkbox(element):
        _bind_checkbox(step, element, action, values)
        return
    named = [
        column
        for column, value in values.items()
        if len(value.strip()) >= 2 and truth(value) is None and value.strip().casefold() in _words_of(element)
    ]
    if len(named) == 1:
        step.target_column = named[0]
    elif named:
        step.ask_model = True


def _bind_checkbox(step: PathStep, element: ListedElement, action: Taken, values: Mapping[str, str]) -> None:
    yes_no = [column for column, value in values.items() if truth(value) is not None and value.strip()]
    if not yes_no:
        return  # no yes/no column: a box ticked for every row ("I agree")
    words = " ".join(_words_of(element))
    named = [c for c in yes_no if _folded(c) and (_folded(c) in _folded(words) or _folded(words) in _folded(c))]
    column = named[0] if len(named) == 1 else yes_no[0] if len(yes_no) == 1 else None
    after = next((e for e in action.after if e.identity() == element.identity()), None)
    if column is None or after is None:
        step.ask_model = True
        return
    wanted = truth(values[column])
    step.toggle_column = column
    step.checked_when = bool(wanted) == is_checked(after)


def _is_date(element: ListedElement | None) -> bool:
    """A field the browser keeps dates in its own form (``YYYY-MM-DD``), whatever the person sees or types."""
    return element is not None and element.input_type == "date"


def _is_checkbox(element: ListedElement) -> bool:
    return element.input_type == "checkbox" or element.attrs.get("role") in ("checkbox", "switch")


def is_checked(element: ListedElement) -> bool:
    if "checked" in element.attrs:
        return element.attrs["checked"] in ("", "true")
    return element.attrs.get("aria-checked") == "true"


def _words_of(element: ListedElement | ElementIdentity) -> set[str]:
    words = {element.name, element.text, *(element.attrs.get(k, "") for k in ("label", "aria-label", "title", "value"))}
    return {w.strip().casefold() for w in words if w.strip()}


def _folded(text: str) -> str:
    return _WORDS.sub(" ", text.casefold()).strip()


def fill(template: str, values: Mapping[str, str], *, url: bool = False, dates: str | None = None) -> str | None:
    """A step's value for this row: the template with each ``{column}`` replaced by the row's cell (quoted for an
    address; written as a date field holds it with ``dates``, the order the cells are in). None when a cell is not
    the date the step needs."""
    parsed = parse_template(template)
    parts = [parsed.literals[0]]
    for column, literal in zip(parsed.columns, parsed.literals[1:], strict=True):
        value = values.get(column, "")
        if dates is not None:
            converted = as_field_date(value, dates)
            if converted is None:
                return None
            value = converted
        parts += [quote(value, safe="") if url else value, literal]
    return "".join(parts)


def find_target(step: PathStep, listing: Sequence[ListedElement], values: Mapping[str, str]) -> list[ListedElement]:
    """The listed elements that are the step's element for this row."""
    target = step.target
    if target is None:
        return []
    if step.target_column is None:
        return [element for element in listing if element.identity() == target]
    wanted = values.get(step.target_column, "").strip().casefold()
    shape = target.model_copy(update={"name": "", "text": "", "attrs": _unnamed(target.attrs)})
    return [
        element
        for element in listing
        if wanted in _words_of(element)
        and element.identity().model_copy(update={"name": "", "text": "", "attrs": _unnamed(element.attrs)}) == shape
    ]


def _unnamed(attrs: Mapping[str, str]) -> dict[str, str]:
    """The attributes that say what kind of element it is, without the words that name it."""
    return {k: v for k, v in attrs.items() if k in ("type", "role")}
