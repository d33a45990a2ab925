"""observe.js's typedefs of what it returns and the pydantic models observer.py reads it into say the same fields.

TypeScript (packaging/setup.sh --test) holds the script to its typedefs; this holds the typedefs to the models: a field
renamed, added or retyped on one side only fails here rather than as a page that cannot be read."""

from __future__ import annotations

import re
import types
from inspect import isclass
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

from app.browser import observer

SCRIPT = Path(__file__).resolve().parents[2] / "resources" / "js" / "observe.js"
MODELS: list[type[BaseModel]] = [
    observer.Region,
    observer.ElementItem,
    observer.TextItem,
    observer.FrameItem,
    observer.Viewport,
    observer.Scroll,
    observer.FrameSnapshot,
]
_SCALARS = {int: "number", float: "number", str: "string", bool: "boolean"}


def typedefs() -> dict[str, str]:
    """Each typedef of the script's first JSDoc block (what Python reads): its name and its type, on one line."""
    block = SCRIPT.read_text(encoding="utf-8").split("/**", 1)[1].split("*/", 1)[0]
    text = re.sub(r"\n\s*\*\s*", " ", block)
    return {name: body.strip() for body, name in re.findall(r"@typedef \{(.+?)\} (\w+)(?= @typedef|\s*$)", text)}


def split_top_level(text: str, separator: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += char in "{[(<"
        depth -= char in "}])>"
        if depth == 0 and text.startswith(separator, i):
            parts.append(text[start:i].strip())
            start = i + len(separator)
    return [*parts, text[start:].strip()]


def script_fields(body: str) -> dict[str, tuple[str, bool]]:
    """``{{a: T, b?: U}}`` -> {a: (T, required), b: (U, optional)}."""
    assert body.startswith("{") and body.endswith("}"), body
    fields = {}
    for field in split_top_level(body[1:-1], ","):
        name, kind = (part.strip() for part in field.split(":", 1))
        fields[name.rstrip("?")] = (kind, not name.endswith("?"))
    return fields


def script_type(annotation: Any) -> str:
    """A model field's annotation as the script writes its type (``X | None`` as X: the script leaves it out)."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated and annotation == observer.Item:
        return "Item"
    if origin is Literal:
        return " | ".join(f"'{value}'" for value in args)
    if origin is list:
        return f"{script_type(args[0])}[]"
    if origin is tuple:
        return "[" + ", ".join(script_type(arg) for arg in args) + "]"
    if origin in (Union, types.UnionType):
        return " | ".join(script_type(arg) for arg in args if arg is not type(None))
    if isclass(annotation) and issubclass(annotation, BaseModel):
        return annotation.__name__
    return _SCALARS[annotation]


def model_fields(model: type[BaseModel]) -> dict[str, tuple[str, bool]]:
    return {
        field.alias or name: (script_type(field.annotation), field.is_required())
        for name, field in model.model_fields.items()
    }


def test_each_model_has_a_typedef_with_the_same_fields_and_types() -> None:
    declared = typedefs()
    for model in MODELS:
        script = script_fields(declared[model.__name__])
        python = model_fields(model)
        assert {name: kind for name, (kind, _) in script.items()} == {
            name: kind for name, (kind, _) in python.items()
        }, model.__name__
        # What the script may leave out, Python must have a default for.
        for name, (_, required_in_script) in script.items():
            assert required_in_script or not python[name][1], f"{model.__name__}.{name}"


def test_an_item_is_one_of_the_same_three_kinds() -> None:
    union = get_args(get_args(observer.Item)[0])
    assert set(split_top_level(typedefs()["Item"], "|")) == {kind.__name__ for kind in union}


def test_the_observer_returns_the_snapshot_it_declares() -> None:
    source = SCRIPT.read_text(encoding="utf-8")
    assert " * @param {Options} options\n * @returns {FrameSnapshot}\n */\n(options) => {" in source
    assert "// @ts-check" in source.splitlines()[0]
