"""The settings dialog: its pages (Model, model_page.py; Agent, agent_page.py; Safety, safety_page.py; Secrets,
secrets_page.py, all in this folder) as tabs, fitted to the screen, and Save. The API key and the secrets' values go
to the OS keyring, never into the settings file.

The pages are tabs, each in a scroll area, and the dialog is never bigger than the screen's free area: it must fit a
1280x720 laptop with a window manager's title bar, and a message that appears later scrolls or squeezes the page
instead of growing the dialog off the screen. Opened from the panel, it sits over the browser's side of the screen,
so the panel stays in sight.

The dialog needs a running asyncio loop (qasync): keyring reads and writes and the connection test run off the
loop's thread or as tasks on it, so the window never freezes. On Save it stores the key (api_key_field.py) and the
secrets' values itself; without a system keyring they are kept for this session only (``key_kept_in_memory``,
``secrets_kept_in_memory``), which the caller says in plain words, and everything else is saved all the same. The
caller persists ``result_settings()``.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, QTimer
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QLayout, QPushButton, QTabWidget, QVBoxLayout, QWidget

from app.background import Background
from app.settings.model import Settings
from app.settings.paths import AppPaths, app_paths
from app.text.i18n import tr
from app.ui import style
from app.ui.dialog_style import apply_dialog_style
from app.ui.dialog_widgets import MessageArea, Tone
from app.ui.placement.screen_geometry import keep_on_screen, move_frame, outer_geometry, screen_area
from app.ui.placement.side_by_side import browser_beside
from app.ui.settings.agent_page import AgentPage
from app.ui.settings.dialog_fit import DialogFit, Page
from app.ui.settings.model_page import ModelPage
from app.ui.settings.safety_page import SafetyPage
from app.ui.settings.secrets_page import SecretsPage
from app.ui.welcome_frame import WelcomeFrame

# The smallest the dialog may get: a page scrolls long before this. Its layout may not set a larger minimum, which
# would push the dialog past a small screen (a wrapped text measured at a narrow width asks for a tall minimum).
_MIN_SIZE = QSize(420, 360)


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
        self._paths = paths or app_paths()

        self._build()
        self._connect()
        self._restyle()
        self.api_key = self.model_page.api_key
        self.api_key.load(self.model_page.provider)
        self._background.spawn(self.api_key.check_keyring(self.model_page.provider))
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
        self.model_page = ModelPage(self._original, self._session_key, self._background)
        self.agent_page = AgentPage(self._original, self._detected_browser)
        self.safety_page = SafetyPage(self._original, self._paths, self._background.spawn)
        self.secrets_page = SecretsPage(self._original)
        self._add_tab(self.model_page, tr("Model"))
        self._add_tab(self.agent_page, tr("Agent"))
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

    def _add_tab(self, content: QWidget, title: str) -> None:
        page = Page(content)
        self._pages.append(page)
        self.tabs.addTab(page, title)

    def _connect(self) -> None:
        self.cancel_button.clicked.connect(self.reject)
        self.save_button.clicked.connect(lambda: self._background.spawn(self.save()))
        if self.demo_button is not None:
            self.demo_button.clicked.connect(self._choose_demo)

    def _restyle(self) -> None:
        t = apply_dialog_style(self, self._restyle)
        self.setStyleSheet(self.styleSheet() + style.settings_stylesheet(t))
        self.model_page.restyle(t)
        if self.welcome is not None:
            self.welcome.restyle(t)

    # --- fitting the screen ------------------------------------------------------------------------------------

    def fit_to_screen(self, available: QRect | None = None) -> None:
        """As tall as its tallest tab needs, never bigger than ``available`` (by default the screen's free area) with
        the window's frame (app/ui/settings/dialog_fit.py); opened from the panel, the dialog goes over the browser's
        side of the screen so that the panel stays in sight."""
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

    # --- closing -----------------------------------------------------------------------------------------------

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
        form = {**self._original.model_dump(), **self.model_page.values(), **self.agent_page.values()}
        settings = Settings.model_validate(form).model_copy(update={**safety, "secrets": self.secrets_page.entries()})
        problem = self.model_page.problem(settings) or self.agent_page.problem(settings)
        if problem is None and (message := await self.secrets_page.notify.problem()):
            problem = message, self.secrets_page.notify.address_edit
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
