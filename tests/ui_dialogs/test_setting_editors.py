"""Every setting of the catalog (app/settings/catalog.py) has exactly one field in the Settings dialog, labelled with
its label and explained by its help (in English and in Chinese), and what a person sets there is what Save returns,
that setting alone changed. A new catalog entry is tested here without a line added."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QCheckBox, QComboBox, QDialog, QDoubleSpinBox, QLabel, QLineEdit, QSpinBox

from app.settings.catalog import SETTINGS, SettingInfo
from app.settings.model import Settings
from app.settings.paths import AppPaths
from app.text import i18n
from app.text.i18n import tr
from app.ui.settings.dialog import SettingsDialog
from tests.fakes.memory_keyring import MemoryKeyring

# What Save sets besides the form: not a setting's value.
_BOOKKEEPING = {"first_run_done", "api_access_not_kept"}


def fields_labelled(dialog: SettingsDialog, text: str) -> list[object]:
    """The fields a label with ``text`` names, and the check boxes that say ``text``."""
    named = [label.buddy() for label in dialog.findChildren(QLabel) if label.text() == text and label.buddy()]
    return [*named, *(box for box in dialog.findChildren(QCheckBox) if box.text() == text)]


def change(field: object) -> object:
    """Give ``field`` another valid value, as a person would, and return the value Settings should get."""
    if isinstance(field, QCheckBox):
        field.setChecked(not field.isChecked())
        return field.isChecked()
    if isinstance(field, QSpinBox | QDoubleSpinBox):
        field.setValue(field.maximum() if field.value() == field.minimum() else field.minimum())
        return field.value()
    if isinstance(field, QComboBox):
        field.setCurrentIndex(field.count() - 1 if field.currentIndex() == 0 else 0)
        return field.currentData()
    assert isinstance(field, QLineEdit), f"no way to change a {type(field).__name__}"
    field.setText("  https://changed.example/  ")  # an address passes every check; the spaces go
    return "https://changed.example/"


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("info", SETTINGS.values(), ids=list(SETTINGS))
async def test_each_setting_has_one_field_whose_value_is_saved(
    qapp: QApplication, memory_keyring: MemoryKeyring, tmp_path: Path, info: SettingInfo, language: str
) -> None:
    i18n.set_language(language)
    try:
        original = Settings()
        dialog = SettingsDialog(original, paths=AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "log"))
        fields = fields_labelled(dialog, tr(info.label))
        assert len(fields) == 1, fields
        (field,) = fields
        assert isinstance(field, QCheckBox | QComboBox | QSpinBox | QDoubleSpinBox | QLineEdit)
        assert field.toolTip() == tr(info.help)
        value = change(field)
        assert value != getattr(original, info.name)
        await dialog.save()
        assert dialog.result() == QDialog.DialogCode.Accepted, dialog.error_area.text()
        saved = dialog.result_settings()
        assert getattr(saved, info.name) == value
        others = _BOOKKEEPING | {info.name}
        assert saved.model_dump(exclude=others) == original.model_dump(exclude=others)
        dialog.deleteLater()
    finally:
        i18n.set_language("en")


async def test_a_saved_value_a_choice_does_not_offer_shows_as_its_fallback(
    qapp: QApplication, memory_keyring: MemoryKeyring
) -> None:
    dialog = SettingsDialog(Settings(provider="a-service-of-my-own", base_url="https://mine.example/v1"))
    assert dialog.model_page.provider == "custom"  # not OpenAI, whose address it is not
    assert dialog.model_page.base_url_edit.text() == "https://mine.example/v1"
    dialog.deleteLater()
