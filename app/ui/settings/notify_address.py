"""The Secrets page's "Tell me elsewhere": the apprise address a routine's "your turn" also goes to (a phone, a mail
box, a chat; app/away_notifier.py). It often holds a token, so it is a secret: kept in the keyring on Save (for this
session only when there is none), never shown back, checked before it is kept."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from PySide6.QtWidgets import QHBoxLayout, QLineEdit, QPushButton, QVBoxLayout, QWidget

from app.away_notifier import NotifyUrlError, check_notify_url
from app.settings import secrets
from app.text.i18n import tr
from app.ui.dialog_widgets import section, small_label

EXAMPLE = "ntfy://ntfy.sh/your-topic"


class NotifyAddress(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._saved = False
        self._forget = False
        block, form, column = section(self, tr("Tell me elsewhere"))
        self.address_edit = QLineEdit(self)
        self.address_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.address_edit.setPlaceholderText(EXAMPLE)
        self.address_edit.setAccessibleName(tr("Notification address"))
        self.forget_button = QPushButton(tr("Forget"), self)
        self.forget_button.setAccessibleName(tr("Forget the notification address"))
        self.forget_button.setEnabled(False)
        row = QHBoxLayout()
        row.setSpacing(8)
        row.addWidget(self.address_edit, 1)
        row.addWidget(self.forget_button)
        form.addRow(tr("Address"), row)
        self.problem_label = small_label(self, "", "FieldError")
        self.problem_label.hide()
        column.addWidget(self.problem_label)
        column.addWidget(
            small_label(
                self,
                tr(
                    "When a routine's row needs you, the message also goes to this address: an apprise address for "
                    "ntfy, mail, Telegram, Slack, Matrix and more. It says which row and why, never the page. Kept "
                    "in your system keyring."
                ),
            )
        )
        root = QVBoxLayout(self)
        root.setContentsMargins(0, 0, 0, 0)
        root.addWidget(block)
        self.forget_button.clicked.connect(self._forget_it)
        self.address_edit.textChanged.connect(self.problem_label.hide)

    async def check_keyring(self) -> None:
        """Whether an address is kept (read off the loop; only whether, never the address)."""
        self._saved = await asyncio.to_thread(_is_kept)
        self._show_state()

    async def problem(self) -> str | None:
        """Why the address typed cannot be used (shown under it), or None (apprise is read off the loop)."""
        address = self.address_edit.text().strip()
        if not address:
            return None
        try:
            await asyncio.to_thread(_checker(address))
        except NotifyUrlError as exc:
            self.problem_label.setText(str(exc))
            self.problem_label.show()
            return str(exc)
        return None

    async def store(self) -> None:
        """Keep the address typed (or forget the one kept)."""
        address = self.address_edit.text().strip()
        if not address and not self._forget:
            return
        self.address_edit.clear()
        await asyncio.to_thread(_keeper(address))
        self._saved, self._forget = bool(address), False
        self._show_state()

    def _forget_it(self) -> None:
        self.address_edit.clear()
        self._forget, self._saved = True, False
        self._show_state()

    def _show_state(self) -> None:
        self.address_edit.setPlaceholderText(
            tr("An address is kept; type another to replace it") if self._saved else EXAMPLE
        )
        self.forget_button.setEnabled(self._saved)


def _is_kept() -> bool:
    # Only whether: qasync logs a worker's result at DEBUG level, and the address may hold a token.
    return bool(secrets.get_notify_url())


def _checker(address: str) -> Callable[[], None]:
    # Closures: a worker's arguments may be logged at DEBUG level (qasync).
    def check() -> None:
        check_notify_url(address)

    return check


def _keeper(address: str) -> Callable[[], None]:
    def keep() -> None:
        secrets.set_notify_url(address)

    return keep
