"""Every string the app translates (panel, dialogs, wording, reports, the in-page Stop bar) has a Simplified Chinese
version: one check over every module that calls tr()."""

from __future__ import annotations

import ast
import asyncio
import json
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from app.assets import resources_root
from app.settings.catalog import SETTINGS
from app.settings.model import Settings
from app.settings.presets import preset
from app.text import i18n
from app.ui.settings_dialog import SettingsDialog
from tests.fakes.memory_keyring import MemoryKeyring
from tests.ui_dialogs.conftest import screenshot

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


def test_every_setting_label_and_help_is_translated() -> None:
    assert {text for info in SETTINGS.values() for text in (info.label, info.help)} <= zh_table().keys()


def test_preset_labels_with_words_are_translated() -> None:
    assert {preset(key).label for key in ("qwen", "ollama", "lmstudio", "custom")} <= zh_table().keys()


async def test_chinese_settings_dialog(qapp: QApplication, memory_keyring: MemoryKeyring) -> None:
    i18n.set_language("zh")
    try:
        dlg = SettingsDialog(Settings(language="zh"), first_run=True)
        dlg.show()
        await asyncio.sleep(0.05)  # laid out at its real width
        assert dlg.model_page.test_button.text() == "测试连接"
        screenshot(dlg, "settings_first_run_zh")
        dlg.close()
    finally:
        i18n.set_language("en")
