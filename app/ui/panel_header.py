"""The top of the panel: the app's logo (About), its name with History and Settings, the status pill, and the
demo's banner."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from app.text.i18n import tr
from app.ui.icons import icon
from app.ui.status_pill import StatusPill
from app.ui.style import Theme


class PanelHeader(QWidget):
    def __init__(self, parent: QWidget, *, demo: bool) -> None:
        super().__init__(parent)
        self.about_button = _tool_button(self, tr("About Page Agent"), tr("About Page Agent"))
        title = QLabel(tr("Page Agent"), self)
        title.setObjectName("Title")
        title.setAccessibleName(tr("Page Agent"))
        self.history_button = _tool_button(self, tr("History"), tr("Past runs"))
        self.settings_button = _tool_button(self, tr("Settings"), tr("Model, language and browser settings"))
        row = QHBoxLayout()
        row.setSpacing(6)
        row.addWidget(self.about_button)
        row.addWidget(title)
        row.addStretch(1)
        row.addWidget(self.history_button)
        row.addWidget(self.settings_button)

        self.pill = StatusPill(self)

        self.demo_banner = QFrame(self)
        self.demo_banner.setObjectName("DemoBanner")
        banner_text = QLabel(
            tr("Demo — replaying a recorded run on a local demo site. No AI model is called."), self.demo_banner
        )
        banner_text.setWordWrap(True)
        self._demo_icon = QLabel(self.demo_banner)
        banner_layout = QHBoxLayout(self.demo_banner)
        banner_layout.setContentsMargins(10, 7, 10, 7)
        banner_layout.addWidget(self._demo_icon, 0, Qt.AlignmentFlag.AlignTop)
        banner_layout.addWidget(banner_text, 1)
        self.demo_banner.setAccessibleName(banner_text.text())
        self.demo_banner.setVisible(demo)

        column = QVBoxLayout(self)
        column.setContentsMargins(14, 12, 14, 10)
        column.setSpacing(10)
        column.addLayout(row)
        column.addWidget(self.pill)
        column.addWidget(self.demo_banner)

    def restyle(self, t: Theme) -> None:
        ratio = self.devicePixelRatioF()
        self.about_button.setIcon(icon("sparkle", t.accent))
        self._demo_icon.setPixmap(icon("info", t.paused).pixmap(QSize(16, 16), ratio))
        self.history_button.setIcon(icon("history", t.muted))
        self.settings_button.setIcon(icon("settings", t.muted))


def _tool_button(parent: QWidget, name: str, tip: str) -> QToolButton:
    button = QToolButton(parent)
    button.setAccessibleName(name)
    button.setToolTip(tip)
    button.setIconSize(QSize(20, 20))
    button.setCursor(Qt.CursorShape.PointingHandCursor)
    button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    return button
