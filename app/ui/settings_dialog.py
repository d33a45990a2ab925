"""The settings dialog: which model endpoint to use (with a real "Test connection"), the agent's limits and
language, the browser, and the safety settings (sites, upload folders, confirmations, secrets). The API key and the
secrets' values go to the OS keyring, never into the settings file.

The pages are tabs, each in a scroll area, and the dialog is never bigger than the screen's free area: it must fit a
1280x720 laptop with a window manager's title bar, and a message that appears later scrolls or squeezes the page
instead of growing the dialog off the screen. Opened from the panel, it sits over the browser's side of the screen,
so the panel stays in sight.

The dialog needs a running asyncio loop (qasync): keyring reads and writes and the connection test run off the
loop's thread or as tasks on it, so the window never freezes. On Save it stores the key (app/ui/api_key_field.py) and
the secrets' values itself; without a system keyring they are kept for this session only (``key_kept_in_memory``,
``secrets_kept_in_memory``), which the caller says in plain words, and everything else is saved all the same. The
caller persists ``result_settings()``.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlparse

from PySide6.QtCore import QRect, QSize, Qt, QTimer
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.background import Background
from app.core.safety.navigation import NavigationPolicy
from app.llm import probe
from app.llm.probe import ProbeKind, ProbeResult
from app.llm.settings import LLMSettings, ToolChoiceMode
from app.settings.model import PRESETS, Settings, ThemeChoice, preset
from app.settings.paths import AppPaths, app_paths
from app.text.i18n import LANGUAGES, language, tr
from app.ui import style
from app.ui.api_key_field import ApiKeyField
from app.ui.dialog_fit import DialogFit, Page
from app.ui.dialog_style import apply_dialog_style
from app.ui.dialog_widgets import MessageArea, Tone, section, small_label
from app.ui.icons import icon
from app.ui.safety_settings import SafetyPage
from app.ui.screen_geometry import keep_on_screen, move_frame, outer_geometry, screen_area
from app.ui.secret_settings import SecretsPage
from app.ui.welcome_frame import WelcomeFrame
from app.ui.window_placement import browser_beside

CUSTOM = "custom"
_LABEL_WIDTH = 92
# The smallest the dialog may get: a page scrolls long before this. Its layout may not set a larger minimum, which
# would push the dialog past a small screen (a wrapped text measured at a narrow width asks for a tall minimum).
_MIN_SIZE = QSize(420, 360)
# Seconds the model may take to answer one request: shorter fails slow models, longer only delays the bad news.
_TIMEOUT_MIN, _TIMEOUT_MAX = 10, 600


def _mode_labels() -> dict[ToolChoiceMode, str]:
    return {
        ToolChoiceMode.NAMED: tr("Named tool (recommended)"),
        ToolChoiceMode.REQUIRED: tr("Any tool call ('required')"),
        ToolChoiceMode.JSON_TEXT: tr("JSON in text (no tool support needed)"),
    }


def _theme_labels() -> dict[ThemeChoice, str]:
    return {"system": tr("Same as the system"), "light": tr("Light"), "dark": tr("Dark")}


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


class SettingsDialog(QDialog):
    """``exec()``/``open()`` it; ``Accepted`` means saved (key already in the keyring), ``DEMO`` that the user
    chose the offline demo on the first-run screen (``wants_demo``)."""

    DEMO = 2

    def __init__(
        self,
        settings: Settings,
        *,
        detected_browser: str = "",
        first_run: bool = False,
        paths: AppPaths | None = None,
        session_key: str | None = None,
        parent: QWidget | None = None,
    ) -> None:
        """``session_key``: the key in use though no keyring holds it (kept in memory after a failed save)."""
        super().__init__(parent)
        self.setObjectName("SettingsDialog")
        self.setWindowTitle(tr("Page Agent settings"))
        self.setModal(True)
        self._original = settings
        self._detected_browser = detected_browser
        self._first_run = first_run
        self._wants_demo = False
        self._result: Settings | None = None
        self._session_key = session_key
        self._secrets_in_memory: list[str] = []
        self._background = Background("settings dialog")
        self._test_task: asyncio.Task[None] | None = None
        self._paths = paths or app_paths()

        self._build()
        self._fill(settings)
        self._connect()
        self._restyle()
        self.api_key.load(self.provider)
        self._background.spawn(self.api_key.check_keyring(self.provider))
        self._background.spawn(self.secrets_page.check_keyring())
        self.resize(580, 100)
        self.fit_to_screen()

    # --- what the caller reads ---------------------------------------------------------------------------------

    @property
    def wants_demo(self) -> bool:
        return self._wants_demo

    def result_settings(self) -> Settings:
        """The settings as saved; before Save, the original ones."""
        return self._result or self._original

    @property
    def key_kept_in_memory(self) -> bool:
        """Save could not store the key (no system keyring): it is used until the app quits, then asked again."""
        return self.api_key.kept_in_memory

    @property
    def secrets_kept_in_memory(self) -> list[str]:
        """The secrets whose value Save could not store (no system keyring): typed only until the app quits."""
        return list(self._secrets_in_memory)

    def result_api_key(self) -> str | None:
        """The key the app should use now: the environment's when it overrides, else the one in the form."""
        return self.api_key.result()

    # --- construction ------------------------------------------------------------------------------------------

    def _build(self) -> None:
        root = self._root = QVBoxLayout(self)
        root.setContentsMargins(20, 18, 20, 16)
        root.setSpacing(14)
        root.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)
        self.setMinimumSize(_MIN_SIZE)

        self.welcome: WelcomeFrame | None = None
        self.demo_button: QPushButton | None = None
        if self._first_run:
            self.welcome = WelcomeFrame(self, key_unkept=self._original.api_access_not_kept)
            self.demo_button = self.welcome.demo_button
            root.addWidget(self.welcome)
        else:
            title = QLabel(tr("Settings"), self)
            title.setObjectName("DialogTitle")
            root.addWidget(title)

        self.tabs = QTabWidget(self)
        self._pages: list[Page] = []  # the tabs, in order
        self._fit = DialogFit(self, root, self._pages)
        self.tabs.setObjectName("SettingsTabs")
        model_page = self._new_page(tr("Model"))

        model_block, form, column = section(self, tr("Model"))
        self.provider_combo = QComboBox(self)
        for item in PRESETS:
            self.provider_combo.addItem(tr(item.label), item.key)
        self.base_url_edit = QLineEdit(self)
        self.base_url_edit.setPlaceholderText("https://api.example.com/v1")
        self.model_edit = QLineEdit(self)
        self.api_key = ApiKeyField(
            self._original.provider, self._session_key, lambda: self.provider, self._background, self
        )
        self.key_edit, self.key_hint, self.show_key_action = (
            self.api_key.edit,
            self.api_key.hint,
            self.api_key.show_action,
        )
        self.mode_combo = QComboBox(self)
        for mode, label in _mode_labels().items():
            self.mode_combo.addItem(label, mode.value)
        self.timeout_spin = QSpinBox(self)
        self.timeout_spin.setRange(_TIMEOUT_MIN, _TIMEOUT_MAX)
        self.timeout_spin.setMaximumWidth(120)
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
        self._add_row(form, tr("Provider"), self.provider_combo)
        self._add_row(form, tr("Base URL"), self.base_url_edit)
        self._add_row(form, tr("Model"), self.model_edit)
        self._add_row(form, tr("API key"), self.key_edit, self.api_key)
        self._add_row(form, tr("Tool calling"), self.mode_combo)
        self._add_row(form, tr("Model answer timeout (s)"), self.timeout_spin)
        self.vision_check = QCheckBox(tr("Show the model screenshots"), self)
        vision_column = QVBoxLayout()
        vision_column.setSpacing(4)
        vision_column.addWidget(self.vision_check)
        vision_column.addWidget(
            small_label(
                self,
                tr(
                    "For models that read images: "
                    "each step also sends a picture of the page with its elements numbered. "
                    "Test connection checks that the model takes them."
                ),
            )
        )
        column.addLayout(vision_column)
        column.addLayout(test_row)
        column.addWidget(self.message)
        model_page.addWidget(model_block)
        model_page.addStretch(1)

        agent_page = self._new_page(tr("Agent"))
        agent_block, form, _column = section(self, tr("Agent"))
        self.max_steps_spin = QSpinBox(self)
        self.max_steps_spin.setRange(1, 500)
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
        self.sound_check = QCheckBox(tr("Play a sound when the agent needs you"), self)
        self._add_row(form, tr("Max steps"), self.max_steps_spin)
        self._add_row(form, tr("Language"), self.language_combo, language_column)
        self._add_row(form, tr("Theme"), self.theme_combo)
        self._add_row(form, tr("Start page"), self.start_url_edit)
        form.addRow("", self.sound_check)
        agent_page.addWidget(agent_block)

        browser_block, form, column = section(self, tr("Browser"))
        self.browser_edit = QLineEdit(self)
        self.browser_edit.setPlaceholderText(self._detected_browser or tr("Found automatically when Page Agent starts"))
        self.browser_edit.setToolTip(tr("Leave empty to use the browser found automatically."))
        self.browse_button = QPushButton(tr("Browse…"), self)
        browser_row = QHBoxLayout()
        browser_row.setSpacing(8)
        browser_row.addWidget(self.browser_edit, 1)
        browser_row.addWidget(self.browse_button)
        self.javascript_check = QCheckBox(tr("Allow JavaScript tool"), self)
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
        self._add_row(form, tr("Program"), self.browser_edit, browser_row)
        column.addLayout(js_column)
        agent_page.addWidget(browser_block)
        agent_page.addStretch(1)

        self.safety_page = SafetyPage(self._original, self._paths, self._background.spawn)
        self.secrets_page = SecretsPage(self._original)
        self._add_tab(self.safety_page, tr("Safety"))
        self._add_tab(self.secrets_page, tr("Secrets"))
        for page in self._pages:
            self._fit.watch(page)
        root.addWidget(self.tabs, 1)

        self.error_area = MessageArea(self)
        root.addWidget(self.error_area)

        self.cancel_button = QPushButton(tr("Cancel"), self)
        self.save_button = QPushButton(tr("Save"), self)
        self.save_button.setProperty("role", "primary")
        self.save_button.setDefault(True)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.save_button)
        root.addLayout(buttons)

    def _new_page(self, title: str) -> QVBoxLayout:
        """A tab whose column of sections the caller fills."""
        content = QWidget()
        column = QVBoxLayout(content)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(14)
        self._add_tab(content, title)
        return column

    def _add_tab(self, content: QWidget, title: str) -> None:
        page = Page(content)
        self._pages.append(page)
        self.tabs.addTab(page, title)

    @staticmethod
    def _add_row(form: Any, label: str, field: QWidget, layout: Any = None) -> None:
        """A labelled row whose label names the field for screen readers and focuses it on its mnemonic."""
        caption = QLabel(label)
        caption.setMinimumWidth(_LABEL_WIDTH)  # one label column width in every section: the fields line up
        caption.setBuddy(field)
        field.setAccessibleName(label)
        form.addRow(caption, layout if layout is not None else field)

    def _fill(self, settings: Settings) -> None:
        self._select(self.provider_combo, preset(settings.provider).key)
        self.base_url_edit.setText(settings.base_url)
        self.model_edit.setText(settings.model)
        self.model_edit.setPlaceholderText(preset(settings.provider).model)
        self._select(self.mode_combo, settings.tool_choice.value)
        self.timeout_spin.setValue(round(settings.request_timeout))
        self.max_steps_spin.setValue(settings.max_steps)
        self._select(self.language_combo, settings.language)
        self._select(self.theme_combo, settings.theme)
        self.sound_check.setChecked(settings.hand_off_sound)
        self.start_url_edit.setText(settings.start_url)
        self.browser_edit.setText(settings.browser_path)
        self.javascript_check.setChecked(settings.allow_javascript)
        self.vision_check.setChecked(settings.vision)
        self.api_key.update_hint(preset(settings.provider).key)

    @staticmethod
    def _select(combo: QComboBox, data: str) -> None:
        index = combo.findData(data)
        combo.setCurrentIndex(max(index, 0))

    def _connect(self) -> None:
        self.provider_combo.activated.connect(self._on_provider_chosen)
        self.base_url_edit.textEdited.connect(self._on_url_edited)
        for edit in (self.base_url_edit, self.model_edit, self.key_edit):
            edit.textEdited.connect(self._forget_test)
        self.provider_combo.activated.connect(self._forget_test)
        self.mode_combo.activated.connect(self._forget_test)
        self.language_combo.currentIndexChanged.connect(self._show_language_hint)
        self.test_button.clicked.connect(self.test_connection)
        self.fix_button.clicked.connect(self._apply_fix)
        self.browse_button.clicked.connect(self._browse)
        self.cancel_button.clicked.connect(self.reject)
        self.save_button.clicked.connect(lambda: self._background.spawn(self.save()))
        if self.demo_button is not None:
            self.demo_button.clicked.connect(self._choose_demo)

    def _restyle(self) -> None:
        t = apply_dialog_style(self, self._restyle)
        self.setStyleSheet(self.styleSheet() + style.settings_stylesheet(t))
        self.show_key_action.setIcon(icon("eye", t.muted))
        if self.welcome is not None:
            self.welcome.restyle(t)

    # --- fitting the screen ------------------------------------------------------------------------------------

    def fit_to_screen(self, available: QRect | None = None) -> None:
        """As tall as its tallest tab needs, never bigger than ``available`` (by default the screen's free area) with
        the window's frame (app/ui/dialog_fit.py); opened from the panel, the dialog goes over the browser's side of
        the screen so that the panel stays in sight."""
        self._fit.fit(available)
        self._place(self._fit.available or screen_area(self))

    def _place(self, area: QRect) -> None:
        parent = self.parentWidget()
        if parent is not None and parent.isVisible():
            panel = parent.window().frameGeometry()
            x, y, width, height = browser_beside(area, (panel.x(), panel.y(), panel.width(), panel.height()))
            outer = outer_geometry(self)
            move_frame(self, x + max(0, (width - outer.width()) // 2), y + max(0, (height - outer.height()) // 2))
        keep_on_screen(self, area)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        # Laid out at its real width, wrapped text knows its height; and the window manager's frame is known.
        QTimer.singleShot(0, self, self.fit_to_screen)

    # --- behaviour ---------------------------------------------------------------------------------------------

    @property
    def provider(self) -> str:
        return str(self.provider_combo.currentData())

    def _on_provider_chosen(self) -> None:
        chosen = preset(self.provider)
        if chosen.key != CUSTOM:
            self.base_url_edit.setText(chosen.base_url)
            self.model_edit.setText(chosen.model)
        self.model_edit.setPlaceholderText(chosen.model)
        self.api_key.choose(self.provider)

    def _on_url_edited(self, text: str) -> None:
        if self.provider != CUSTOM and text.strip() != preset(self.provider).base_url:
            self._select(self.provider_combo, CUSTOM)
            self.api_key.update_hint(self.provider)

    def _forget_test(self) -> None:
        """A result says nothing about an address, model or key it did not test: edits clear it."""
        if self._test_task is not None and not self._test_task.done():
            self._test_task.cancel()
        self.message.hide()
        self.fix_button.hide()

    def _show_language_hint(self) -> None:
        self.language_hint.setVisible(self.language_combo.currentData() != language())

    def _form_settings(self) -> Settings:
        mode = ToolChoiceMode(self.mode_combo.currentData())
        return Settings.model_validate(
            {
                **self._original.model_dump(),
                "provider": self.provider,
                "base_url": self.base_url_edit.text().strip(),
                "model": self.model_edit.text().strip(),
                "tool_choice": mode,
                "request_timeout": float(self.timeout_spin.value()),
                "max_steps": self.max_steps_spin.value(),
                "language": self.language_combo.currentData(),
                "theme": self.theme_combo.currentData(),
                "hand_off_sound": self.sound_check.isChecked(),
                "start_url": self.start_url_edit.text().strip(),
                "allow_javascript": self.javascript_check.isChecked(),
                "vision": self.vision_check.isChecked(),
                "browser_path": self.browser_edit.text().strip(),
            }
        )

    def _llm_settings(self) -> LLMSettings:
        return self._form_settings().llm_settings(self.result_api_key())

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
            self.fix_button.setText(tr("Use {mode}", mode=_mode_labels()[fix]))
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
        self._select(self.mode_combo, str(self.fix_button.property("mode")))
        self.fix_button.hide()
        self.test_connection()

    # --- browser -----------------------------------------------------------------------------------------------

    def _browse(self) -> None:
        # open(), not getOpenFileName(): a nested event loop would stall the agent running on the qasync loop.
        chooser = QFileDialog(self, tr("Choose the Chromium or Chrome program"))
        chooser.setFileMode(QFileDialog.FileMode.ExistingFile)
        start = self.browser_edit.text().strip() or self._detected_browser
        if start:
            chooser.selectFile(start)
        chooser.fileSelected.connect(self.browser_edit.setText)
        chooser.open()

    # --- closing -----------------------------------------------------------------------------------------------

    def _problem(self, settings: Settings) -> tuple[str, QWidget] | None:
        """What is wrong with the form, and the field to fix."""
        url = urlparse(settings.base_url)
        if url.scheme not in ("http", "https") or not url.netloc:
            return tr("The base URL must start with http:// or https://."), self.base_url_edit
        if not settings.model:
            return tr("Enter the name of the model to use."), self.model_edit
        if settings.start_url:
            # The runtime refuses what the agent may not open (a local file, a site outside the allowed ones); say so
            # here, where it can be fixed. The allowed sites were checked before this.
            if NavigationPolicy().check(settings.start_url) is not None:
                return tr("The start page must be a web address (https://…)."), self.start_url_edit
            if NavigationPolicy(tuple(settings.allowed_domains)).check(settings.start_url) is not None:
                return tr(
                    "The start page is not one of the sites under Safety → Only these sites."
                ), self.start_url_edit
        return None

    def _show_field(self, field: QWidget) -> None:
        """Bring the tab holding ``field`` to the front and put the cursor in it."""
        page = next(i for i, tab in enumerate(self._pages) if tab.isAncestorOf(field))
        self.tabs.setCurrentIndex(page)
        field.setFocus()

    async def save(self) -> None:
        """Check the form, store the key and the secrets' values in the keyring if they changed, then close as
        Accepted. Whatever goes wrong keeps the dialog open with everything the user typed, and says why."""
        self.error_area.hide()
        safety = self.safety_page.values()
        if safety is None:
            self._show_field(self.safety_page.sites_edit)
            return
        settings = self._form_settings().model_copy(update={**safety, "secrets": self.secrets_page.entries()})
        problem = self._problem(settings)
        if problem:
            message, field = problem
            self._show_field(field)
            self.error_area.show_message(Tone.ERROR, tr("Not saved"), message)
            return
        self.save_button.setEnabled(False)
        try:
            await self.api_key.store(settings.provider)
            self._secrets_in_memory = await self.secrets_page.store()
        finally:
            self.save_button.setEnabled(True)
        # A key typed but not kept is asked for again at the next start, not replaced by nothing.
        unkept = self.api_key.kept_in_memory or (self._original.api_access_not_kept and not self.api_key.edited)
        self._result = settings.model_copy(update={"first_run_done": True, "api_access_not_kept": unkept})
        self.accept()

    def _choose_demo(self) -> None:
        self._wants_demo = True
        self.done(self.DEMO)

    def done(self, result: int) -> None:
        self._background.cancel_all()
        super().done(result)
