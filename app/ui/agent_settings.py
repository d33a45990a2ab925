"""The Settings dialog's "Agent" page: the agent's step budget, the app's language and theme, the start page, the
hand-off sound, and the browser (which program, whether the agent may run scripts in a page)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.core.limits import MAX_STEPS_LIMIT
from app.core.safety.navigation import NavigationPolicy
from app.settings.model import Settings, ThemeChoice
from app.text.i18n import LANGUAGES, language, tr
from app.ui.dialog_widgets import section, select_data, setting_check, setting_row, small_label


def _theme_labels() -> dict[ThemeChoice, str]:
    return {"system": tr("Same as the system"), "light": tr("Light"), "dark": tr("Dark")}


class AgentPage(QWidget):
    """Agent (Max steps / Language / Theme / Start page / sound) and Browser (Program / JavaScript tool)."""

    def __init__(self, settings: Settings, detected_browser: str = "", parent: QWidget | None = None) -> None:
        """``detected_browser``: the browser found automatically, shown when no program is set."""
        super().__init__(parent)
        self._detected_browser = detected_browser
        root = QVBoxLayout(self)
        root.setContentsMargins(0, 0, 0, 0)
        root.setSpacing(14)

        agent_block, form, _column = section(self, tr("Agent"))
        self.max_steps_spin = QSpinBox(self)
        self.max_steps_spin.setRange(1, MAX_STEPS_LIMIT)
        self.max_steps_spin.setMaximumWidth(120)
        self.language_combo = QComboBox(self)
        for code, name in LANGUAGES.items():
            self.language_combo.addItem(name, code)
        self.language_hint = small_label(self, tr("Applies the next time you open Page Agent."))
        self.language_hint.hide()
        language_column = QVBoxLayout()
        language_column.setSpacing(4)
        language_column.addWidget(self.language_combo)
        language_column.addWidget(self.language_hint)
        self.theme_combo = QComboBox(self)
        for choice, label in _theme_labels().items():
            self.theme_combo.addItem(label, choice)
        self.start_url_edit = QLineEdit(self)
        self.start_url_edit.setPlaceholderText(tr("https://… (optional)"))
        self.sound_check = setting_check(self, "hand_off_sound")
        setting_row(form, "max_steps", self.max_steps_spin)
        setting_row(form, "language", self.language_combo, language_column)
        setting_row(form, "theme", self.theme_combo)
        setting_row(form, "start_url", self.start_url_edit)
        form.addRow("", self.sound_check)
        root.addWidget(agent_block)

        browser_block, form, column = section(self, tr("Browser"))
        self.browser_edit = QLineEdit(self)
        self.browser_edit.setPlaceholderText(detected_browser or tr("Found automatically when Page Agent starts"))
        self.browse_button = QPushButton(tr("Browse…"), self)
        browser_row = QHBoxLayout()
        browser_row.setSpacing(8)
        browser_row.addWidget(self.browser_edit, 1)
        browser_row.addWidget(self.browse_button)
        self.javascript_check = setting_check(self, "allow_javascript")
        self.javascript_warning = small_label(
            self,
            tr(
                "Lets the agent run any script in the page, with access to everything the page can see. "
                "Turn it on only for sites you trust."
            ),
            "Warning",
        )
        js_column = QVBoxLayout()
        js_column.setSpacing(4)
        js_column.addWidget(self.javascript_check)
        js_column.addWidget(self.javascript_warning)
        setting_row(form, "browser_path", self.browser_edit, browser_row)
        column.addLayout(js_column)
        root.addWidget(browser_block)
        root.addStretch(1)

        self._fill(settings)
        self.language_combo.currentIndexChanged.connect(self._show_language_hint)
        self.browse_button.clicked.connect(self._browse)

    def _fill(self, settings: Settings) -> None:
        self.max_steps_spin.setValue(settings.max_steps)
        select_data(self.language_combo, settings.language)
        select_data(self.theme_combo, settings.theme)
        self.sound_check.setChecked(settings.hand_off_sound)
        self.start_url_edit.setText(settings.start_url)
        self.browser_edit.setText(settings.browser_path)
        self.javascript_check.setChecked(settings.allow_javascript)

    # --- what the dialog reads ---------------------------------------------------------------------------------

    def values(self) -> dict[str, Any]:
        """This page's settings, as the form has them."""
        return {
            "max_steps": self.max_steps_spin.value(),
            "language": self.language_combo.currentData(),
            "theme": self.theme_combo.currentData(),
            "hand_off_sound": self.sound_check.isChecked(),
            "start_url": self.start_url_edit.text().strip(),
            "allow_javascript": self.javascript_check.isChecked(),
            "browser_path": self.browser_edit.text().strip(),
        }

    def problem(self, settings: Settings) -> tuple[str, QWidget] | None:
        """What is wrong with this page's part of ``settings`` (the allowed sites already checked), and the field to
        fix."""
        if settings.start_url:
            # The runtime refuses what the agent may not open (a local file, a site outside the allowed ones); say so
            # here, where it can be fixed.
            if NavigationPolicy().check(settings.start_url) is not None:
                return tr("The start page must be a web address (https://…)."), self.start_url_edit
            if NavigationPolicy(tuple(settings.allowed_domains)).check(settings.start_url) is not None:
                return tr(
                    "The start page is not one of the sites under Safety → Only these sites."
                ), self.start_url_edit
        return None

    # --- behaviour ---------------------------------------------------------------------------------------------

    def _show_language_hint(self) -> None:
        self.language_hint.setVisible(self.language_combo.currentData() != language())

    def _browse(self) -> None:
        # open(), not getOpenFileName(): a nested event loop would stall the agent running on the qasync loop.
        chooser = QFileDialog(self, tr("Choose the Chromium or Chrome program"))
        chooser.setFileMode(QFileDialog.FileMode.ExistingFile)
        start = self.browser_edit.text().strip() or self._detected_browser
        if start:
            chooser.selectFile(start)
        chooser.fileSelected.connect(self.browser_edit.setText)
        chooser.open()
