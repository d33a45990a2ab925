"""The Settings dialog's API key field: the key as the keyring (or the environment) holds it, its hint saying where
it is kept, and storing it on Save.

Where there is no system keyring, nothing promises one: the hint says a key typed here is kept until the app quits,
Save keeps it in memory (``kept_in_memory``), and the settings remember that a key was typed but not kept, so the next
start asks for it again instead of calling the model without it.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable

from pydantic import SecretStr
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLineEdit, QVBoxLayout, QWidget

from app.background import Background
from app.settings import secrets
from app.settings.presets import preset
from app.text.i18n import tr
from app.ui.dialog_widgets import repolish, small_label


def env_key_name() -> str | None:
    """The environment variable whose key overrides the keyring, if one is set."""
    return next((name for name in secrets.ENV_KEYS if os.environ.get(name)), None)


class ApiKeyField(QWidget):
    """``provider``: the saved settings' provider; ``session_key``: its key in use though no keyring holds it (kept in
    memory after an earlier Save); ``chosen()``: the provider chosen in the dialog now."""

    def __init__(
        self,
        provider: str,
        session_key: str | None,
        chosen: Callable[[], str],
        background: Background,
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self._provider = provider
        self._chosen = chosen
        self._background = background
        self.env_key = env_key_name()
        self.loaded = ""  # the keyring's key for the chosen provider, as last read
        self.edited = False
        self._session_key = session_key or ""
        self.kept_in_memory = False
        self.keyring = True  # a system keyring is there (checked off the loop as the dialog opens)
        self.edit = QLineEdit(self)
        self.edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.edit.setClearButtonEnabled(True)
        self.show_action = QAction(tr("Show the API key"), self.edit)
        self.show_action.setCheckable(True)
        self.edit.addAction(self.show_action, QLineEdit.ActionPosition.TrailingPosition)
        self.hint = small_label(self, "")
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        column.addWidget(self.edit)
        column.addWidget(self.hint)
        self.edit.textEdited.connect(self._on_edited)
        self.show_action.toggled.connect(self._on_show)

    @property
    def text(self) -> str:
        return self.edit.text().strip()

    def _on_edited(self) -> None:
        self.edited = True

    def _on_show(self, shown: bool) -> None:
        self.edit.setEchoMode(QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password)
        self.show_action.setText(tr("Hide the API key") if shown else tr("Show the API key"))

    def update_hint(self, provider: str) -> None:
        if self.env_key:
            self.edit.setPlaceholderText(tr("Set by {name}", name=self.env_key))
            text = tr(
                "The key in the environment variable {name} is used; it overrides any key saved here.",
                name=self.env_key,
            )
            tone = "Warning"
        elif not preset(provider).needs_key:
            self.edit.setPlaceholderText(tr("Not needed"))
            text, tone = tr("Local servers usually need no key."), "Hint"
        elif not self.keyring or (self._session_key and self.edit.text() == self._session_key):
            self.edit.setPlaceholderText("sk-…")
            text = tr("No system keyring: a key typed here is kept until you quit, and asked for at the next start.")
            tone = "Warning"
        else:
            self.edit.setPlaceholderText("sk-…")
            text, tone = tr("Kept in your system keyring, never in the settings file."), "Hint"
        self.hint.setText(text)
        self.hint.setObjectName(tone)
        repolish(self.hint)

    def load(self, provider: str) -> None:
        """Read ``provider``'s key (off the loop) into the field, unless the person has typed one."""
        if not self.env_key:
            self._background.spawn(self._read(provider))

    async def _read(self, provider: str) -> None:
        # A closure and a SecretStr: qasync logs a worker's call and result at DEBUG level, and this is the key.
        found = await asyncio.to_thread(lambda: SecretStr(secrets.get_api_key(provider) or ""))
        key = found.get_secret_value()
        if not self.edited and provider == self._chosen():
            if not key and provider == self._provider:
                key = self._session_key  # kept in memory: the keyring could not store it
            self.loaded = key
            self.edit.setText(key)
            self.update_hint(provider)

    def choose(self, provider: str) -> None:
        """The dialog's provider changed: a key read for another one is not this one's."""
        self.update_hint(provider)
        if not self.edited:
            self.edit.clear()
            self.load(provider)

    async def check_keyring(self, provider: str) -> None:
        self.keyring = await asyncio.to_thread(secrets.keyring_available)
        self.update_hint(provider)

    async def store(self, provider: str) -> None:
        """Write the key to the keyring if it changed; without a keyring it is kept for this session only."""
        key = self.text
        if self.edited and key != self.loaded:
            try:
                await asyncio.to_thread(lambda: secrets.set_api_key(provider, key))  # see _read
                self.kept_in_memory = False
            except secrets.KeyringUnavailable:
                # The demo must not be lost to this: the key is used for this session and asked for again next time.
                self.kept_in_memory = True
            self.loaded = key  # a second Save need not write it again

    def result(self) -> str | None:
        """The key the app should use now: the environment's when it overrides, else the one in the field."""
        if self.env_key:
            return os.environ.get(self.env_key) or None
        return self.text or None
