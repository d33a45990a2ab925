"""The Settings dialog's "Agent" page: the agent's step budget, the app's language and theme, the start page, the
hand-off sound, the browser (which program, whether the agent may run scripts in a page), and when a routine stops
to ask you about its cost."""

from __future__ import annotations

from PySide6.QtWidgets import QFileDialog, QVBoxLayout, QWidget

from app.core.safety.navigation import NavigationPolicy
from app.settings.catalog import AGENT, BROWSER, ROUTINES, Scalar
from app.settings.model import Settings
from app.text.i18n import language, tr
from app.ui.dialog_widgets import small_label
from app.ui.file_dialog import file_dialog
from app.ui.settings.editors import CheckEditor, ChoiceEditor, PageEditors, ProgramEditor, TextEditor, WholeEditor


class AgentPage(QWidget):
    """Agent (Max steps / Language / Theme / Start page / sound) and Browser (Program / JavaScript tool), as the
    settings catalog lays them out."""

    def __init__(self, settings: Settings, detected_browser: str = "", parent: QWidget | None = None) -> None:
        """``detected_browser``: the browser found automatically, shown when no program is set."""
        super().__init__(parent)
        self._detected_browser = detected_browser
        root = QVBoxLayout(self)
        root.setContentsMargins(0, 0, 0, 0)
        root.setSpacing(14)
        self.editors = PageEditors(self, AGENT.page)
        agent_block, _form, _column = self.editors.section(AGENT)
        browser_block, _form, _column = self.editors.section(BROWSER)
        routines_block, _form, _column = self.editors.section(ROUTINES)
        root.addWidget(agent_block)
        root.addWidget(browser_block)
        root.addWidget(routines_block)
        root.addStretch(1)
        self.max_steps_spin = self.editors.editor("max_steps", WholeEditor).spin
        self.theme_combo = self.editors.editor("theme", ChoiceEditor).combo
        self.start_url_edit = self.editors.editor("start_url", TextEditor).edit
        self.sound_check = self.editors.editor("hand_off_sound", CheckEditor).check

        language_editor = self.editors.editor("language", ChoiceEditor)
        self.language_combo = language_editor.combo
        self.language_hint = small_label(self, tr("Applies the next time you open Page Agent."))
        self.language_hint.hide()
        language_editor.cell.addWidget(self.language_hint)

        browser = self.editors.editor("browser_path", ProgramEditor)
        self.browser_edit, self.browse_button = browser.edit, browser.browse_button
        if detected_browser:
            self.browser_edit.setPlaceholderText(detected_browser)

        javascript = self.editors.editor("allow_javascript", CheckEditor)
        self.javascript_check = javascript.check
        self.javascript_warning = small_label(
            self,
            tr(
                "Lets the agent run any script in the page, with access to everything the page can see. "
                "Turn it on only for sites you trust."
            ),
            "Warning",
        )
        javascript.cell.addWidget(self.javascript_warning)

        self.editors.fill(settings)
        self.language_combo.currentIndexChanged.connect(self._show_language_hint)
        self.browse_button.clicked.connect(self._browse)

    # --- what the dialog reads ---------------------------------------------------------------------------------

    def values(self) -> dict[str, Scalar]:
        """This page's settings, as the form has them."""
        return self.editors.values()

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
        chooser = file_dialog(self, tr("Choose the Chromium or Chrome program"))
        chooser.setFileMode(QFileDialog.FileMode.ExistingFile)
        start = self.browser_edit.text().strip() or self._detected_browser
        if start:
            chooser.selectFile(start)
        chooser.fileSelected.connect(self.browser_edit.setText)
        chooser.open()
