"""The first-run greeting at the top of the Settings dialog: what the app needs (a model endpoint), and the offline
demo as the way to look first. When a key typed earlier could not be kept (no system keyring), it says so instead:
the key is asked for again rather than the model being called without it."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.text.i18n import tr
from app.ui.dialog_widgets import small_label
from app.ui.icons import icon
from app.ui.style import Theme


class WelcomeFrame(QFrame):
    def __init__(self, parent: QWidget, *, key_unkept: bool = False) -> None:
        super().__init__(parent)
        self.setObjectName("Welcome")
        self._icon = QLabel(self)
        if key_unkept:
            title = QLabel(tr("Your API key was not kept"), self)
            words = tr(
                "There is no system keyring on this computer, so the key you typed last time was kept only until "
                "Page Agent closed. Type it again below (it is kept until you quit), or try the offline demo."
            )
        else:
            title = QLabel(tr("Welcome to Page Agent"), self)
            words = tr(
                "Page Agent needs an AI model endpoint to work: any OpenAI-compatible service (OpenAI, OpenRouter, "
                "DeepSeek, Qwen) or a model on this computer (Ollama, LM Studio). Pick a provider, paste your API key "
                "and test the connection — or try the offline demo first, no key needed."
            )
        title.setObjectName("DialogTitle")
        self.text = small_label(self, words, "Body")
        self.demo_button = QPushButton(tr("Try the demo"), self)
        self.demo_button.setCursor(Qt.CursorShape.PointingHandCursor)
        head = QHBoxLayout()
        head.setSpacing(8)
        head.addWidget(self._icon)
        head.addWidget(title, 1)
        demo_row = QHBoxLayout()
        demo_row.addWidget(self.demo_button)
        demo_row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 14, 16, 14)
        layout.setSpacing(8)
        layout.addLayout(head)
        layout.addWidget(self.text)
        layout.addLayout(demo_row)

    def restyle(self, t: Theme) -> None:
        self._icon.setPixmap(icon("sparkle", t.accent).pixmap(QSize(22, 22), self.devicePixelRatioF()))
