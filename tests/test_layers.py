"""The one-way rule: the agent's core knows nothing of Qt, Playwright or the openai SDK, not even lazily."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[1] / "app" / "core"
FOREIGN = ("PySide6", "playwright", "qasync", "openai")


def _imported(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):  # every import, at the top of the file or inside a function
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return sorted(found)


@pytest.mark.parametrize("path", sorted(CORE.rglob("*.py")), ids=lambda p: str(p.relative_to(CORE)))
def test_core_imports_no_ui_browser_or_sdk(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    foreign = [f"line {line}: {name}" for line, name in _imported(tree) if name.split(".")[0] in FOREIGN]
    assert foreign == []


def test_the_check_sees_a_foreign_import() -> None:
    tree = ast.parse("def f():\n    from playwright.async_api import Page\nimport openai\n")
    assert [name for _, name in _imported(tree) if name.split(".")[0] in FOREIGN] == ["playwright.async_api", "openai"]
