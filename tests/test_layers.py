"""The one-way rules between the app's layers, as a table: which folder may never import what, not even lazily
inside a function. A rule broken here is a design decision to discuss, not a line to add to an exception list (the
entry points a rule names are where the app is put together, not exceptions). Inside the command line and the MCP
server no two modules import each other, however far round; and no file of the app is over 500 lines."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parents[1] / "app"


@dataclass(frozen=True)
class Rule:
    folder: str  # under app/ ("." for all of it)
    never: tuple[str, ...]  # module prefixes it must not import
    why: str
    # Files or folders under app/ the rule leaves out: the entry points, which build the parts and hand them down.
    entry_points: tuple[str, ...] = ()

    def covers(self, path: Path) -> bool:
        relative = path.relative_to(APP).as_posix()
        return not any(relative == entry or relative.startswith(entry + "/") for entry in self.entry_points)


# The entry points that build the bundled demo and hand it down (and app/demo itself).
DEMO_BUILDERS = ("demo", "main.py", "ui/app.py", "ui/desktop.py", "self_test.py", "cli")


RULES = (
    Rule(
        "core",
        ("PySide6", "playwright", "qasync", "openai", "app.ui", "app.browser", "app.llm"),
        "the agent knows nothing of the panel, the browser or the model SDK",
    ),
    Rule("browser", ("app.llm", "openai", "PySide6", "qasync", "app.ui"), "the browser never talks to the model"),
    Rule("llm", ("app.browser", "playwright", "PySide6", "qasync", "app.ui"), "the model client never sees a page"),
    Rule("settings", ("PySide6", "qasync", "app.ui"), "settings are read the same way by the CLI and the panel"),
    Rule("history", ("PySide6", "qasync", "app.ui"), "History is read the same way by the CLI and the panel"),
    Rule("text", ("PySide6", "qasync", "app.ui", "playwright"), "plain words are made the same for every view"),
    Rule("routine", ("PySide6", "qasync", "app.ui"), "the panel is one client of routines, the CLI another"),
    Rule("cli", ("PySide6", "qasync", "app.ui"), "the command line runs where there is no display"),
    Rule(
        "mcp",
        ("PySide6", "qasync", "app.ui", "app.cli"),
        "the MCP server reaches the panel over its socket, never through Qt, and shares only the engine's options "
        "with the command line (app/engine_args.py)",
    ),
    Rule(
        ".",
        ("app.demo",),
        "the demo is handed down by the entry points that build it (the runtime's Demo, Routine mode's DemoRoutine)",
        DEMO_BUILDERS,
    ),
)


def _imported(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):  # every import, at the top of the file or inside a function
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return sorted(found)


def _breaks(name: str, never: tuple[str, ...]) -> bool:
    return any(name == prefix or name.startswith(prefix + ".") for prefix in never)


def _cases() -> list[object]:
    return [
        pytest.param(rule, path, id=path.relative_to(APP).as_posix())
        for rule in RULES
        for path in sorted((APP / rule.folder).rglob("*.py"))
        if rule.covers(path)
    ]


@pytest.mark.parametrize(("rule", "path"), _cases())
def test_each_layer_imports_only_what_it_may(rule: Rule, path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    broken = [f"line {line}: {name}" for line, name in _imported(tree) if _breaks(name, rule.never)]
    assert broken == [], f"app/{rule.folder}: {rule.why}"


def test_every_rule_names_a_folder_that_exists() -> None:
    assert all((APP / rule.folder).is_dir() and any((APP / rule.folder).rglob("*.py")) for rule in RULES)
    assert all((APP / entry).exists() for rule in RULES for entry in rule.entry_points)


def test_only_the_entry_points_are_left_out() -> None:
    demo = next(rule for rule in RULES if rule.never == ("app.demo",))
    assert not demo.covers(APP / "ui" / "desktop.py") and not demo.covers(APP / "cli" / "task.py")
    assert demo.covers(APP / "runtime.py") and demo.covers(APP / "ui" / "routine" / "panel.py")
    assert demo.covers(APP / "ui" / "desktop_extra.py")  # a prefix of a name is not the entry point


def test_the_check_sees_a_foreign_import() -> None:
    tree = ast.parse("def f():\n    from playwright.async_api import Page\nimport openai\nimport app.uix\n")
    names = [name for _, name in _imported(tree)]
    assert [name for name in names if _breaks(name, ("playwright", "openai", "app.ui"))] == [
        "playwright.async_api",
        "openai",
    ]


# Folders whose modules import one another one way only. A circle there is two files that are one idea, or a piece
# both need that belongs in a third (app/cli/output.py is what the task and the routine runners share). "": the
# modules directly in app/, the composition root (the safety policies are built from settings, not from the runtime).
ONE_WAY = ("cli", "mcp", "")


def _module(path: Path) -> str:
    parts = path.relative_to(APP.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports_of(tree: ast.AST) -> set[str]:
    """Every module named by an import, lazy ones included, and ``from package import module`` as that module."""
    names = {name for _, name in _imported(tree)}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def _circle(graph: dict[str, set[str]]) -> list[str]:
    """One circle of imports in ``graph`` (module -> the modules it imports), as the modules along it; [] if none."""
    done: set[str] = set()

    def walk(module: str, path: list[str]) -> list[str]:
        if module in path:
            return [*path[path.index(module) :], module]
        if module in done:
            return []
        for imported in sorted(graph[module]):
            if found := walk(imported, [*path, module]):
                return found
        done.add(module)
        return []

    return next((found for module in sorted(graph) if (found := walk(module, []))), [])


@pytest.mark.parametrize("folder", ONE_WAY)
def test_no_circle_of_imports_inside(folder: str) -> None:
    files = (APP / folder).rglob("*.py") if folder else APP.glob("*.py")
    modules = {_module(path): path for path in sorted(files)}
    graph = {
        module: (_imports_of(ast.parse(path.read_text(encoding="utf-8"))) & modules.keys()) - {module}
        for module, path in modules.items()
    }
    assert _circle(graph) == []


def test_the_check_sees_a_circle() -> None:
    assert _circle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert _circle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []
    tree = ast.parse("def f():\n    from app.cli import routine\n")
    assert "app.cli.routine" in _imports_of(tree)


MAX_LINES = 500


def test_no_file_of_the_app_is_over_500_lines() -> None:
    """A file is single-minded and read in one sitting; one that outgrows this is split by what it does."""
    long = {
        str(path.relative_to(APP)): lines
        for path in sorted(APP.rglob("*.py"))
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}
