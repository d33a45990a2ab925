"""The Settings dialog's fields, derived from the settings catalog (app/settings/catalog.py): for each entry the field
its ``Editor`` names (a check box, a spin box, a drop-down list, a line of text, a program's path with Browse…),
labelled and with its help as tooltip, filled from Settings and read back.

A page makes one ``PageEditors`` for its settings, lays out each of its sections with ``section`` and reads
``values()``; what is special about one setting (the provider filling in the address and the model, the language
hint, the JavaScript warning, what Browse… opens) is the page's own code, attached to the fields built here.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TypeVar

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLayout,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.settings.catalog import SETTINGS, Choice, Number, OnOff, Place, Program, Scalar, SettingInfo, Text
from app.settings.model import Settings
from app.text.i18n import tr
from app.ui.dialog_widgets import labelled_row, section, select_data, small_label

E = TypeVar("E", bound="SettingEditor")
NumberBox = TypeVar("NumberBox", QSpinBox, QDoubleSpinBox)

_NUMBER_WIDTH = 120  # a spin box needs no more than a few digits' width


class SettingEditor(ABC):
    """One setting's ``field`` (the widget that takes its value and the focus) in ``cell``, the layout that holds it
    (or ``row``, the field with its buttons) and whatever the page puts under it."""

    def __init__(self, info: SettingInfo, field: QWidget, row: QLayout | None = None) -> None:
        self.info = info
        self.field = field
        field.setToolTip(tr(info.help))
        self.cell = QVBoxLayout()
        self.cell.setSpacing(4)
        if row is None:
            self.cell.addWidget(field)
        else:
            self.cell.addLayout(row)

    @abstractmethod
    def fill(self, value: Scalar) -> None:
        """Show ``value``, the setting's as Settings has it."""

    @abstractmethod
    def value(self) -> Scalar:
        """The value as the field has it, for Settings to validate."""


class CheckEditor(SettingEditor):
    def __init__(self, info: SettingInfo, editor: OnOff, parent: QWidget) -> None:
        self.check = QCheckBox(tr(info.label), parent)
        super().__init__(info, self.check)
        if editor.note:
            self.cell.addWidget(small_label(parent, tr(editor.note)))

    def fill(self, value: Scalar) -> None:
        self.check.setChecked(bool(value))

    def value(self) -> bool:
        return self.check.isChecked()


def _number_box(box: NumberBox, editor: Number) -> NumberBox:
    """A spin box holding ``editor``'s range, with its unit after the number."""
    box.setRange(editor.minimum, editor.maximum)
    box.setSuffix(tr(editor.suffix) if editor.suffix else "")
    box.setMaximumWidth(_NUMBER_WIDTH)
    return box


class WholeEditor(SettingEditor):
    def __init__(self, info: SettingInfo, editor: Number, parent: QWidget) -> None:
        self.spin = _number_box(QSpinBox(parent), editor)
        super().__init__(info, self.spin)

    def fill(self, value: Scalar) -> None:
        self.spin.setValue(int(value))

    def value(self) -> int:
        return self.spin.value()


class DecimalEditor(SettingEditor):
    def __init__(self, info: SettingInfo, editor: Number, parent: QWidget) -> None:
        self.spin = QDoubleSpinBox(parent)
        self.spin.setDecimals(editor.decimals)  # before the range, which it rounds
        _number_box(self.spin, editor)
        super().__init__(info, self.spin)

    def fill(self, value: Scalar) -> None:
        self.spin.setValue(float(value))

    def value(self) -> float:
        return self.spin.value()


class ChoiceEditor(SettingEditor):
    def __init__(self, info: SettingInfo, editor: Choice, parent: QWidget) -> None:
        self.combo = QComboBox(parent)
        for value, label in editor.options:
            self.combo.addItem(tr(label) if editor.translated else label, value)
        self._otherwise = editor.otherwise or editor.options[0][0]
        super().__init__(info, self.combo)

    def fill(self, value: Scalar) -> None:
        text = str(value)  # an enum's value
        select_data(self.combo, text if self.combo.findData(text) >= 0 else self._otherwise)

    def value(self) -> str:
        return str(self.combo.currentData())


class TextEditor(SettingEditor):
    def __init__(self, info: SettingInfo, editor: Text, parent: QWidget, row: QLayout | None = None) -> None:
        self.edit = QLineEdit(parent)
        self.edit.setPlaceholderText(tr(editor.placeholder) if editor.placeholder else "")
        super().__init__(info, self.edit, row)

    def fill(self, value: Scalar) -> None:
        self.edit.setText(str(value))

    def value(self) -> str:
        return self.edit.text().strip()


class ProgramEditor(TextEditor):
    """The path beside a Browse… button (what it opens is the page's)."""

    def __init__(self, info: SettingInfo, editor: Program, parent: QWidget) -> None:
        row = QHBoxLayout()
        row.setSpacing(8)
        super().__init__(info, editor, parent, row)
        self.browse_button = QPushButton(tr("Browse…"), parent)
        row.addWidget(self.edit, 1)
        row.addWidget(self.browse_button)


def editor_for(info: SettingInfo, parent: QWidget) -> SettingEditor:
    """The field ``info.editor`` names; a number is whole for an int setting, decimal for a float one."""
    editor = info.editor
    if isinstance(editor, OnOff):
        return CheckEditor(info, editor, parent)
    if isinstance(editor, Number):
        return WholeEditor(info, editor, parent) if info.type is int else DecimalEditor(info, editor, parent)
    if isinstance(editor, Choice):
        return ChoiceEditor(info, editor, parent)
    if isinstance(editor, Program):
        return ProgramEditor(info, editor, parent)
    return TextEditor(info, editor, parent)


class PageEditors:
    """The fields of the catalog's settings on the dialog's tab ``page`` (a ``Place``'s page), in the catalog's
    order."""

    def __init__(self, parent: QWidget, page: str) -> None:
        self._parent = parent
        self._editors = {name: editor_for(info, parent) for name, info in SETTINGS.items() if info.place.page == page}

    def section(self, place: Place) -> tuple[QWidget, QFormLayout, QVBoxLayout]:
        """The titled card of ``place`` (``section`` in app/ui/dialog_widgets.py) holding its settings: a labelled
        row each in the form, and the check boxes at full width below it."""
        block, form, column = section(self._parent, tr(place.section))
        for editor in self._editors.values():
            if editor.info.place != place:
                continue
            if isinstance(editor, CheckEditor):
                column.addLayout(editor.cell)
            else:
                labelled_row(form, tr(editor.info.label), editor.field, editor.cell)
        return block, form, column

    def editor(self, name: str, kind: type[E]) -> E:
        """The editor of the setting ``name``, which is a ``kind`` (for the page's own code to attach to it)."""
        editor = self._editors[name]
        if not isinstance(editor, kind):
            raise TypeError(f"the {name} setting's editor is a {type(editor).__name__}, not a {kind.__name__}")
        return editor

    def fill(self, settings: Settings) -> None:
        for name, editor in self._editors.items():
            editor.fill(getattr(settings, name))

    def values(self) -> dict[str, Scalar]:
        """The page's settings, as the form has them."""
        return {name: editor.value() for name, editor in self._editors.items()}
