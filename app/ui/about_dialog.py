"""About Page Agent: the version, the licence, the project's home, and that it is nobody else's product.

Opened from the logo in the panel's header. "Copy details" puts the version, the system and the app's folders on
the clipboard: what a support person asks for first (with ``page-agent-desktop --self-test``).
"""

from __future__ import annotations

import platform

from PySide6.QtCore import QSize, Qt, qVersion
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app import HOMEPAGE, LICENSE, __version__
from app.settings.paths import app_paths
from app.text.i18n import tr
from app.ui.app_icon import app_icon
from app.ui.dialog_style import apply_dialog_style


def details() -> str:
    """The lines "Copy details" copies: nothing private, only what identifies the build and where its files are."""
    paths = app_paths()
    return "\n".join(
        (
            f"Page Agent Desktop {__version__}",
            f"{platform.system()} {platform.release()} ({platform.machine()})",
            f"Python {platform.python_version()}, Qt {qVersion()}",
            f"Settings: {paths.config_dir}",
            f"Data: {paths.data_dir}",
            f"Logs: {paths.log_dir}",
        )
    )


class AboutDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("AboutDialog")
        self.setWindowTitle(tr("About Page Agent"))
        self.setWindowIcon(app_icon())

        logo = QLabel(self)
        logo.setPixmap(app_icon().pixmap(QSize(72, 72), self.devicePixelRatioF()))
        logo.setAlignment(Qt.AlignmentFlag.AlignCenter)
        title = QLabel("Page Agent Desktop", self)
        title.setObjectName("DialogTitle")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.version = QLabel(tr("Version {version}", version=__version__), self)
        self.version.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.version.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        summary = QLabel(tr("An AI agent does your web task step by step in your browser, in plain sight."), self)
        summary.setWordWrap(True)
        summary.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.home = QLabel(f'<a href="{HOMEPAGE}">{HOMEPAGE.removeprefix("https://")}</a>', self)
        self.home.setOpenExternalLinks(True)
        self.home.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.home.setAccessibleName(tr("The project's home page"))
        self.licence = QLabel(tr("Free software under the {license} licence.", license=LICENSE), self)
        self.licence.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.disclaimer = QLabel(tr("Not affiliated with the page-agent project or any model provider."), self)
        self.disclaimer.setObjectName("Hint")
        self.disclaimer.setWordWrap(True)
        self.disclaimer.setAlignment(Qt.AlignmentFlag.AlignCenter)

        self.copy_button = QPushButton(tr("Copy details"), self)
        self.copy_button.setProperty("role", "ghost")
        self.copy_button.setToolTip(tr("The version, the system and the app's folders, for whoever helps you"))
        self.copy_button.clicked.connect(self._copy_details)
        close = QPushButton(tr("Close"), self)
        close.setProperty("role", "primary")
        close.setDefault(True)
        close.clicked.connect(self.accept)
        buttons = QHBoxLayout()
        buttons.addWidget(self.copy_button)
        buttons.addStretch(1)
        buttons.addWidget(close)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(28, 24, 28, 18)
        layout.setSpacing(8)
        layout.addWidget(logo)
        layout.addWidget(title)
        layout.addWidget(self.version)
        layout.addSpacing(6)
        layout.addWidget(summary)
        layout.addWidget(self.home)
        layout.addWidget(self.licence)
        layout.addWidget(self.disclaimer)
        layout.addSpacing(10)
        layout.addLayout(buttons)
        apply_dialog_style(self)
        self.setFixedWidth(400)

    def _copy_details(self) -> None:
        clipboard = QGuiApplication.clipboard()
        clipboard.setText(details())
        self.copy_button.setText(tr("Copied"))


def show_about(parent: QWidget) -> AboutDialog:
    """Open the About dialog over ``parent`` (not modal: a run goes on and stays stoppable)."""
    dialog = AboutDialog(parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.show()
    dialog.raise_()
    dialog.activateWindow()
    return dialog
