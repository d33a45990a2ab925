"""One name per idea, one place per part. No class or type alias of the app has the name of another (a reader who
meets ``Slot`` knows which one it is, and an import cannot bring in the wrong one), and the parts every run is built
from (the model client, Chromium's launch options, History's recorder) are built in app/run_parts.py only, for a task
and a routine alike, so that the two never drift apart."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

APP = Path(__file__).resolve().parents[1] / "app"

# Names the app may define more than once, each with why. Keep it empty: two ideas get two names.
TWICE_ALLOWED: dict[str, str] = {}


def _defined(tree: ast.Module) -> list[tuple[str, int]]:
    """The public classes and type aliases a module defines at its top: ``class X``, ``X = ...``, ``X: TypeAlias``
    (a capitalised name not all in capitals, which is a constant)."""
    found: list[tuple[str, int]] = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            found.append((node.name, node.lineno))
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found += [(target.id, node.lineno) for target in targets if isinstance(target, ast.Name)]
    return [(name, line) for name, line in found if name[:1].isupper() and not name.isupper()]


def _twins(modules: dict[str, str]) -> dict[str, list[str]]:
    """Each name defined in more than one place of ``modules`` (a path -> its source), with where."""
    where: dict[str, list[str]] = defaultdict(list)
    for path, source in modules.items():
        for name, line in _defined(ast.parse(source)):
            where[name].append(f"{path}:{line}")
    return {name: places for name, places in sorted(where.items()) if len(places) > 1}


def _app_sources() -> dict[str, str]:
    return {str(path.relative_to(APP.parent)): path.read_text(encoding="utf-8") for path in sorted(APP.rglob("*.py"))}


def test_no_class_or_type_alias_is_defined_twice() -> None:
    twins = {name: places for name, places in _twins(_app_sources()).items() if name not in TWICE_ALLOWED}
    assert twins == {}, "two ideas with one name: give each a name that says what it is"


def test_every_name_allowed_twice_still_is() -> None:
    twins = _twins(_app_sources())
    assert all(name in twins for name in TWICE_ALLOWED), "a name no longer defined twice leaves the list"


def test_the_check_sees_twins() -> None:
    modules = {
        "a.py": "class Slot:\n    pass\nWindowRect = tuple[int, int]\nLIMIT = 3\n_Private = int\n",
        "b.py": "from typing import TypeAlias\nWindowRect: TypeAlias = int\nLIMIT = 4\n_Private = str\n",
        "c.py": "def f():\n    class Slot: ...\nclass Slot(Protocol): ...\n",
    }
    assert _twins(modules) == {"Slot": ["a.py:1", "c.py:3"], "WindowRect": ["a.py:3", "b.py:2"]}


# The part, and the only modules that build it (besides app/run_parts.py), each with why.
BUILT_ELSEWHERE: dict[str, dict[str, str]] = {
    "OpenAICompatibleClient": {},
    "RecordingClient": {},
    "LaunchOptions": {"app/self_test.py": "a throw-away profile in a temporary folder, not the user's"},
    "RunRecorder": {},
}


def _built(tree: ast.AST) -> set[str]:
    calls = [node.func for node in ast.walk(tree) if isinstance(node, ast.Call)]
    return {f.id if isinstance(f, ast.Name) else f.attr for f in calls if isinstance(f, ast.Name | ast.Attribute)}


def test_each_part_of_a_run_is_built_in_one_place() -> None:
    strays = {
        path: sorted(part for part in _built(ast.parse(source)) if part in BUILT_ELSEWHERE)
        for path, source in _app_sources().items()
        if path != "app/run_parts.py"
    }
    strays = {
        path: [part for part in parts if path not in BUILT_ELSEWHERE[part]] for path, parts in strays.items() if parts
    }
    assert {path: parts for path, parts in strays.items() if parts} == {}, "build it with app/run_parts.py"
    assert _built(ast.parse((APP / "run_parts.py").read_text(encoding="utf-8"))) >= BUILT_ELSEWHERE.keys()
