"""The Settings dialog's "Model" page: which endpoint, model and key to use, how the model calls tools, how long it
may take, whether it sees screenshots, and a real "Test connection" whose result says what is wrong in plain words
(and offers the tool-calling mode that works when the model does not call tools the way asked).

The key goes to the OS keyring through app/ui/api_key_field.py; the connection test runs as a task on the asyncio
loop, so the window never freezes, and an edit to what it tested clears its result."""

from __future__ import annotations

import asyncio
from urllib.parse import urlparse

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from app.background import Background
from app.llm import probe
from app.llm.probe import ProbeKind, ProbeResult
from app.llm.settings import LLMSettings, ToolChoiceMode
from app.settings.catalog import MODEL, Scalar
from app.settings.model import Settings
from app.settings.presets import CUSTOM, preset
from app.text.i18n import tr
from app.ui.api_key_field import ApiKeyField
from app.ui.dialog_widgets import MessageArea, Tone, labelled_row, select_data
from app.ui.icons import icon
from app.ui.setting_editors import CheckEditor, ChoiceEditor, PageEditors, TextEditor
from app.ui.style import Theme


def _headline(kind: ProbeKind) -> str:
    return {
        ProbeKind.OK: tr("Connection works"),
        ProbeKind.INVALID: tr("Check the form"),
        ProbeKind.UNREACHABLE: tr("Can't reach the server"),
        ProbeKind.TIMEOUT: tr("No answer in time"),
        ProbeKind.AUTH: tr("API key problem"),
        ProbeKind.NOT_FOUND: tr("Model or address not found"),
        ProbeKind.NO_TOOLS: tr("The model doesn't call tools"),
        ProbeKind.NO_IMAGES: tr("The model doesn't take images"),
        ProbeKind.RATE_LIMIT: tr("Rate limited"),
        ProbeKind.SERVER: tr("Server error"),
        ProbeKind.REFUSED: tr("Request refused"),
    }[kind]


_WARNING_KINDS = frozenset({ProbeKind.TIMEOUT, ProbeKind.RATE_LIMIT, ProbeKind.SERVER, ProbeKind.NO_TOOLS})


class ModelPage(QWidget):
    """Provider / Base URL / Model / API key / Tool calling / Model answer timeout / screenshots / Test connection."""

    def __init__(
        self,
        settings: Settings,
        session_key: str | None,
        background: Background,
        parent: QWidget | None = None,
    ) -> None:
        """``session_key``: the key in use though no keyring holds it (kept in memory after a failed save)."""
        super().__init__(parent)
        self._settings = settings
        self._background = background
        self._test_task: asyncio.Task[None] | None = None

        root = QVBoxLayout(self)
        root.setContentsMargins(0, 0, 0, 0)
        root.setSpacing(14)
        self.editors = PageEditors(self, MODEL.page)
        model_block, form, _column = self.editors.section(MODEL)
        self.provider_combo = self.editors.editor("provider", ChoiceEditor).combo
        self.base_url_edit = self.editors.editor("base_url", TextEditor).edit
        model = self.editors.editor("model", TextEditor)
        self.model_edit = model.edit
        self.mode_combo = self.editors.editor("tool_choice", ChoiceEditor).combo
        self.vision_check = self.editors.editor("vision", CheckEditor).check
        self.api_key = ApiKeyField(settings.provider, session_key, lambda: self.provider, background, self)
        self.key_edit, self.key_hint, self.show_key_action = (
            self.api_key.edit,
            self.api_key.hint,
            self.api_key.show_action,
        )
        model_row, _role = form.getLayoutPosition(model.cell)
        labelled_row(form, tr("API key"), self.key_edit, self.api_key, row=model_row + 1)
        self.test_button = QPushButton(tr("Test connection"), self)
        self.test_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.fix_button = QPushButton(self)
        self.fix_button.setProperty("role", "ghost")
        self.fix_button.hide()
        test_row = QHBoxLayout()
        test_row.setContentsMargins(0, 0, 0, 0)
        test_row.addWidget(self.test_button)
        test_row.addWidget(self.fix_button)
        test_row.addStretch(1)
        self.message = MessageArea(self)
        # Right below the key it tests, in sight on a 1280x720 screen (below the page's other fields, it was cut).
        form.insertRow(model_row + 2, "", test_row)
        form.insertRow(model_row + 3, self.message)  # its outcome beside it, across the form
        root.addWidget(model_block)
        root.addStretch(1)

        self.editors.fill(settings)
        self.model_edit.setPlaceholderText(preset(settings.provider).model)
        self.api_key.update_hint(preset(settings.provider).key)
        self._connect()

    def _connect(self) -> None:
        self.provider_combo.activated.connect(self._on_provider_chosen)
        self.base_url_edit.textEdited.connect(self._on_url_edited)
        for edit in (self.base_url_edit, self.model_edit, self.key_edit):
            edit.textEdited.connect(self._forget_test)
        self.provider_combo.activated.connect(self._forget_test)
        self.mode_combo.activated.connect(self._forget_test)
        self.test_button.clicked.connect(self.test_connection)
        self.fix_button.clicked.connect(self._apply_fix)

    def restyle(self, t: Theme) -> None:
        self.show_key_action.setIcon(icon("eye", t.muted))

    # --- what the dialog reads ---------------------------------------------------------------------------------

    @property
    def provider(self) -> str:
        return str(self.provider_combo.currentData())

    def values(self) -> dict[str, Scalar]:
        """This page's settings, as the form has them."""
        return self.editors.values()

    def problem(self, settings: Settings) -> tuple[str, QWidget] | None:
        """What is wrong with this page's part of ``settings``, and the field to fix."""
        url = urlparse(settings.base_url)
        if url.scheme not in ("http", "https") or not url.netloc:
            return tr("The base URL must start with http:// or https://."), self.base_url_edit
        if not settings.model:
            return tr("Enter the name of the model to use."), self.model_edit
        return None

    # --- behaviour ---------------------------------------------------------------------------------------------

    def _on_provider_chosen(self) -> None:
        chosen = preset(self.provider)
        if chosen != CUSTOM:
            self.base_url_edit.setText(chosen.base_url)
            self.model_edit.setText(chosen.model)
        self.model_edit.setPlaceholderText(chosen.model)
        self.api_key.choose(self.provider)

    def _on_url_edited(self, text: str) -> None:
        if self.provider != CUSTOM.key and text.strip() != preset(self.provider).base_url:
            select_data(self.provider_combo, CUSTOM.key)
            self.api_key.update_hint(self.provider)

    def _forget_test(self) -> None:
        """A result says nothing about an address, model or key it did not test: edits clear it."""
        if self._test_task is not None and not self._test_task.done():
            self._test_task.cancel()
        self.message.hide()
        self.fix_button.hide()

    def _llm_settings(self) -> LLMSettings:
        form = Settings.model_validate({**self._settings.model_dump(), **self.values()})
        return form.llm_settings(self.api_key.result())

    # --- test connection ---------------------------------------------------------------------------------------

    @property
    def testing(self) -> bool:
        return self._test_task is not None and not self._test_task.done()

    def test_connection(self) -> asyncio.Task[None]:
        """Start the probe (a second click while one runs is ignored); the result shows in the message area."""
        if self._test_task is None or self._test_task.done():
            self._test_task = self._background.spawn(self._run_test())
        return self._test_task

    async def _run_test(self) -> None:
        self.fix_button.hide()
        # Disabling the focused button sends the focus on down the form; it comes back when the test ends.
        had_focus = self.test_button.hasFocus()
        self.test_button.setEnabled(False)
        self.test_button.setText(tr("Testing…"))
        self.message.show_message(
            Tone.BUSY,
            tr("Testing the connection…"),
            tr("Sending one small request to {url}.", url=self.base_url_edit.text().strip()),
        )
        try:
            result = await probe.test_connection(self._llm_settings(), images=self.vision_check.isChecked())
        finally:
            self.test_button.setEnabled(True)
            self.test_button.setText(tr("Test connection"))
            if had_focus:
                self.test_button.setFocus()
        self._show_probe(result)

    def _show_probe(self, result: ProbeResult) -> None:
        tone = Tone.OK if result.ok else Tone.WARNING if result.kind in _WARNING_KINDS else Tone.ERROR
        self.message.show_message(tone, _headline(result.kind), result.message, result.suggestion or "")
        fix = self._fix_for(result)
        if fix is not None:
            label = self.mode_combo.itemText(self.mode_combo.findData(fix.value))  # as Tool calling lists it
            self.fix_button.setText(tr("Use {mode}", mode=label))
            self.fix_button.setProperty("mode", fix.value)
            self.fix_button.show()

    def _fix_for(self, result: ProbeResult) -> ToolChoiceMode | None:
        if result.kind != ProbeKind.NO_TOOLS:
            return None
        current = ToolChoiceMode(self.mode_combo.currentData())
        return {ToolChoiceMode.NAMED: ToolChoiceMode.REQUIRED, ToolChoiceMode.REQUIRED: ToolChoiceMode.JSON_TEXT}.get(
            current
        )

    def _apply_fix(self) -> None:
        select_data(self.mode_combo, str(self.fix_button.property("mode")))
        self.fix_button.hide()
        self.test_connection()
