"""Bars above the composer that wait for the person: the agent's hand-off ("Your turn"), the demo offer, and the end of
the demo with "Play the demo again".

Bars, never modal dialogs: ``exec()`` runs a nested loop that stalls asyncio, and the run must stay stoppable.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.text.hand_off import hand_off_words
from app.text.i18n import tr
from app.ui.status_pill import your_turn_color
from app.ui.style import Theme, css_color


class _Bar(QFrame):
    """A heading, a line of plain text and a row of buttons (the last one added is the prominent one)."""

    def __init__(self, heading: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("HandoffBar")
        self.heading = QLabel(heading, self)
        font = self.heading.font()
        font.setBold(True)
        self.heading.setFont(font)
        self.text = QLabel(self)
        # The text may quote the model (and through it a page): never rich text, never a link.
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.detail = QLabel(self)
        self.detail.setWordWrap(True)
        self.detail.hide()
        self._buttons = QHBoxLayout()
        self._buttons.setSpacing(8)
        self._buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(6)
        layout.addWidget(self.heading)
        layout.addWidget(self.text)
        layout.addWidget(self.detail)
        layout.addLayout(self._buttons)
        self.hide()

    def _button(self, text: str, role: str) -> QPushButton:
        button = QPushButton(text, self)
        button.setAccessibleName(text)
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        if role:
            button.setProperty("role", role)
        self._buttons.addWidget(button)
        return button


class HandOffBar(_Bar):
    """The agent handed the browser over: why, in its words, then "I've done it — continue" or Stop."""

    continueRequested = Signal()
    stopRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(tr("The agent needs you"), parent)
        self.setObjectName("YourTurnBar")
        self.setAccessibleName(tr("Your turn"))
        self.stop_button = self._button(tr("Stop"), "ghost")
        self.continue_button = self._button(tr("I've done it — continue"), "primary")
        self.detail.setText(
            tr("Do it in the browser, then press “I've done it — continue”. You can type a note for the agent below.")
        )
        self.detail.show()
        self.stop_button.clicked.connect(self.stopRequested)
        self.continue_button.clicked.connect(self.continueRequested)

    def restyle(self, t: Theme) -> None:
        """Tinted like the "Your turn" pill, so the two read as one moment."""
        color = your_turn_color(t)
        self.setStyleSheet(
            f"#YourTurnBar {{ background: {css_color(t.soft(color, 0.14))}; "
            f"border: 1px solid {css_color(t.soft(color, 0.6))}; border-radius: 10px; }}"
            f"#YourTurnBar QLabel {{ color: {css_color(t.text)}; }}"
        )

    def show_reason(self, reason: str) -> None:
        """``reason``: the agent's own words for what the person should do, shown quoted as the agent's."""
        self.text.setText(hand_off_words(reason))
        self.setAccessibleDescription(f"{self.text.text()} {self.detail.text()}")
        self.show()
        self.continue_button.setFocus()


class DemoOfferBar(_Bar):
    """The model could not be reached: nothing was done; offer the demo (or Settings) in plain words."""

    demoRequested = Signal()
    settingsRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(tr("The model did not answer"), parent)
        self.setAccessibleName(self.heading.text())
        self.text.setText(
            tr(
                "Nothing was done on the page. Check the model's address and key in Settings, or try "
                "the demo to see how Page Agent works without a model."
            )
        )
        self.settings_button = self._button(tr("Settings"), "ghost")
        self.demo_button = self._button(tr("Try the demo"), "primary")
        self.settings_button.clicked.connect(self.settingsRequested)
        self.demo_button.clicked.connect(self.demoRequested)


class DemoAgainBar(_Bar):
    """The demo has replayed everything it recorded: play it again from the start (what a presenter wants next), or
    go on with a model of one's own."""

    againRequested = Signal()
    settingsRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(tr("That was the whole demo"), parent)
        self.setAccessibleName(self.heading.text())
        self.text.setText(tr("Play it again from the sign-in page, or give the agent tasks of your own with a model."))
        self.settings_button = self._button(tr("Use your own model"), "ghost")
        self.again_button = self._button(tr("Play the demo again"), "primary")
        self.settings_button.clicked.connect(self.settingsRequested)
        self.again_button.clicked.connect(self.againRequested)
