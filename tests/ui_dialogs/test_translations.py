"""Every string the app translates (panel, dialogs, wording, reports, the in-page Stop bar) has a Simplified Chinese
version: one check over every module that calls tr()."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from app.assets import resources_root
from app.settings.catalog import SETTINGS, Choice, Number, OnOff, Text
from app.settings.model import Settings
from app.settings.presets import preset
from app.text import i18n
from app.ui.settings.dialog import SettingsDialog
from tests.fakes.memory_keyring import MemoryKeyring
from tests.ui_dialogs.conftest import screenshot
from tests.ui_waiting import laid_out

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted(
    str(path.relative_to(ROOT)) for path in (ROOT / "app").rglob("*.py") if "tr(" in path.read_text(encoding="utf-8")
)


def literal_tr_strings(path: Path) -> set[str]:
    return {
        node.args[0].value
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", None) == "tr"
        and node.args
        and isinstance(node.args[0], ast.Constant)
    }


def zh_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for path in sorted((resources_root() / "i18n" / "zh").glob("*.json")):  # all of them, as tr() reads them
        table.update(json.loads(path.read_text(encoding="utf-8")))
    return table


@pytest.mark.parametrize("module", MODULES)
def test_every_string_has_a_translation(module: str) -> None:
    missing = literal_tr_strings(ROOT / module) - zh_table().keys()
    assert not missing


def catalog_words() -> set[str]:
    """What the Settings dialog shows of the catalog: labels, helps, places, notes, units, choices, placeholders."""
    words: set[str] = set()
    for info in SETTINGS.values():
        words |= {info.label, info.help, info.place.page, info.place.section}
        editor = info.editor
        if isinstance(editor, OnOff):
            words.add(editor.note)
        elif isinstance(editor, Number):
            words.add(editor.suffix)
        elif isinstance(editor, Choice) and editor.translated and info.name != "provider":
            # (The providers' labels are mostly names: test_preset_labels_with_words_are_translated.)
            words |= {label for _value, label in editor.options}
        elif isinstance(editor, Text) and " " in editor.placeholder:  # else an example value, shown as it is
            words.add(editor.placeholder)
    return words - {""}


def test_every_word_of_the_settings_catalog_is_translated() -> None:
    assert catalog_words() - zh_table().keys() == set()


def test_preset_labels_with_words_are_translated() -> None:
    assert {preset(key).label for key in ("qwen", "ollama", "lmstudio", "custom")} <= zh_table().keys()


async def test_chinese_settings_dialog(qapp: QApplication, memory_keyring: MemoryKeyring) -> None:
    i18n.set_language("zh")
    try:
        dlg = SettingsDialog(Settings(language="zh"), first_run=True)
        dlg.show()
        laid_out(dlg)  # at its real width
        assert dlg.model_page.test_button.text() == "测试连接"
        screenshot(dlg, "settings_first_run_zh")
        dlg.close()
    finally:
        i18n.set_language("en")
