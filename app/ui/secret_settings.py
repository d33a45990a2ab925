"""The Settings dialog's "Secrets" page: named secrets the agent may type as ``<secret>name</secret>``.

The names (and the sites each may be typed on) go to the settings file; the values go to the OS keyring only, on
Save. A value is asked for once, in a password field, and never shown back or logged. A secret may be a value, a
one-time code (kept as its otpauth:// link, whose codes are typed) or a password manager's reference (read when it
is typed; a KeePassXC database's password is asked for with it). Below the list, where a routine's "your turn"
goes besides this desktop (app/ui/notify_settings.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable, Collection

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.safety.navigation import parse_domains
from app.core.safety.one_time_codes import OTPAUTH, parse_totp
from app.secret_sources.password_managers import Manager, Reference, parse_reference
from app.settings import secrets
from app.settings.model import SecretEntry, Settings
from app.text.i18n import tr
from app.ui import style
from app.ui.dialog_style import apply_dialog_style
from app.ui.dialog_widgets import repolish, section, small_label
from app.ui.notify_settings import NotifyAddress
from app.ui.safety_settings import list_with_buttons, site_problem

_NAME = re.compile(r"^[a-z0-9_-]+$")
_ENTRY_ROLE = Qt.ItemDataRole.UserRole
_NAME_COLUMN, _SITES_COLUMN, _STATE_COLUMN = range(3)
VALUE, ONE_TIME_CODE, REFERENCE = "value", "totp", "reference"
# Each kind: its label in the list, the value field's placeholder, and its hint.
_KINDS = {
    VALUE: ("Password or other value", "", ""),
    ONE_TIME_CODE: (
        "One-time code",
        "Setup key or otpauth:// link",
        "The key the site shows under “Can't scan the QR code?”. The agent types the code of the moment; you never "
        "see it, nor does the model.",
    ),
    REFERENCE: (
        "Password manager",
        "op://vault/item/field, bw://item or keepassxc:///path/to/database.kdbx#entry",
        "Read from your password manager each time it is typed, and kept nowhere.",
    ),
}


def name_problem(name: str, taken: Collection[str]) -> str | None:
    if not name:
        return tr("Give the secret a name.")
    if not _NAME.match(name):
        return tr('A name may use only lowercase letters a-z, digits, "_" and "-", like crm_password.')
    if name in taken:
        return tr('There is already a secret called "{name}".', name=name)
    return None


class SecretDialog(QDialog):
    """Asks for a new secret: its name, its value and, optionally, the sites it may be typed on."""

    def __init__(self, taken: Collection[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("SecretDialog")
        self.setWindowTitle(tr("Add a secret"))
        self.setModal(True)
        self._taken = taken
        self.name_edit = QLineEdit(self)
        self.name_edit.setPlaceholderText("crm_password")
        self.kind_box = QComboBox(self)
        for kind, (label, _placeholder, _hint) in _KINDS.items():
            self.kind_box.addItem(tr(label), kind)
        self.value_edit = QLineEdit(self)
        self.value_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.hint = small_label(self, "")
        self.hint.hide()
        self.database_edit = QLineEdit(self)
        self.database_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.database_edit.setPlaceholderText(tr("Kept in your system keyring"))
        self.database_caption = QLabel(tr("Database password"), self)
        self.sites_edit = QLineEdit(self)
        self.sites_edit.setPlaceholderText(tr("Any site"))
        self.problem = small_label(self, "", "FieldError")
        self.problem.hide()
        self.cancel_button = QPushButton(tr("Cancel"), self)
        self.add_button = QPushButton(tr("Add"), self)
        self.add_button.setProperty("role", "primary")
        self.add_button.setDefault(True)

        form = QFormLayout()
        form.setHorizontalSpacing(14)
        form.setVerticalSpacing(10)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        for label, field in (
            (tr("Name"), self.name_edit),
            (tr("Kind"), self.kind_box),
            (tr("Value"), self.value_edit),
        ):
            caption = QLabel(label, self)
            caption.setBuddy(field)
            field.setAccessibleName(label)
            form.addRow(caption, field)
        form.addRow("", self.hint)
        self.database_caption.setBuddy(self.database_edit)
        self.database_edit.setAccessibleName(self.database_caption.text())
        form.addRow(self.database_caption, self.database_edit)
        sites_caption = QLabel(tr("Only on sites"), self)
        sites_caption.setBuddy(self.sites_edit)
        self.sites_edit.setAccessibleName(sites_caption.text())
        form.addRow(sites_caption, self.sites_edit)
        form.addRow(
            "",
            small_label(
                self, tr("Optional: example.com, *.example.com. The agent types the secret only on these sites.")
            ),
        )
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.add_button)
        root = QVBoxLayout(self)
        root.setContentsMargins(20, 18, 20, 16)
        root.setSpacing(12)
        root.addLayout(form)
        root.addWidget(self.problem)
        root.addLayout(buttons)
        self._restyle()
        self.resize(440, self.sizeHint().height())

        self.cancel_button.clicked.connect(self.reject)
        self.add_button.clicked.connect(self._add)
        self.kind_box.currentIndexChanged.connect(self._kind_changed)
        self.value_edit.textChanged.connect(self._show_database)
        self._kind_changed()

    def _restyle(self) -> None:
        t = apply_dialog_style(self, self._restyle)
        self.setStyleSheet(self.styleSheet() + style.settings_stylesheet(t))

    def entry(self) -> SecretEntry:
        return SecretEntry(name=self.name_edit.text().strip(), domains=parse_domains(self.sites_edit.text()))

    @property
    def kind(self) -> str:
        return str(self.kind_box.currentData())

    def take_value(self) -> str:
        """The value, once, as the keyring keeps it (a setup key as its otpauth:// link, so that it is read back as
        a one-time code): the field is emptied so it lingers nowhere in the widgets."""
        value = self.value_edit.text().strip() if self.kind != VALUE else self.value_edit.text()
        self.value_edit.clear()
        if self.kind == ONE_TIME_CODE and not value.lower().startswith(OTPAUTH):
            key = "".join(value.split()).replace("-", "").upper()
            value = f"otpauth://totp/{self.name_edit.text().strip()}?secret={key}"
        return value

    def take_database_password(self) -> tuple[str, str] | None:
        """A KeePassXC reference's database and the password typed for it, once; None when none was typed."""
        password = self.database_edit.text()
        self.database_edit.clear()
        reference = self._reference()
        return (reference.database, password) if password and reference is not None and reference.database else None

    def _reference(self) -> Reference | None:
        try:
            return parse_reference(self.value_edit.text()) if self.kind == REFERENCE else None
        except ValueError:
            return None

    def _kind_changed(self) -> None:
        _label, placeholder, hint = _KINDS[self.kind]
        self.value_edit.setPlaceholderText(tr(placeholder) if placeholder else "")
        self.value_edit.setEchoMode(
            QLineEdit.EchoMode.Normal if self.kind == REFERENCE else QLineEdit.EchoMode.Password
        )
        self.hint.setText(tr(hint) if hint else "")
        self.hint.setVisible(bool(hint))
        self._show_database()

    def _show_database(self) -> None:
        reference = self._reference()
        shown = reference is not None and reference.manager is Manager.KEEPASSXC
        self.database_caption.setVisible(shown)
        self.database_edit.setVisible(shown)

    def _value_problem(self) -> str | None:
        value = self.value_edit.text()
        if not value:
            return tr("Enter the secret's value.")
        if self.kind == ONE_TIME_CODE:
            try:
                parse_totp(value)
            except ValueError:
                return tr(
                    "This is not a setup key: copy the key (letters A-Z and digits 2-7) or the whole otpauth://totp/ "
                    "link from the site."
                )
        if self.kind == REFERENCE and self._reference() is None:
            return tr(
                "Write a reference: op://vault/item/field, bw://item or keepassxc:///path/to/database.kdbx#entry."
            )
        return None

    def _add(self) -> None:
        problem = (
            name_problem(self.name_edit.text().strip(), self._taken)
            or self._value_problem()
            or site_problem(self.sites_edit.text())
        )
        if problem:
            self.problem.setText(problem)
            self.problem.show()
            return
        self.accept()


class SecretsPage(QWidget):
    """The list of secrets with Add / Remove; ``store()`` brings the keyring in line with it on Save."""

    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._in_keyring = {entry.name for entry in settings.secrets}  # names whose value may be in the keyring
        self._unsaved: dict[str, str] = {}  # values added in this dialog, until Save writes them
        self._databases: dict[str, str] = {}  # KeePassXC databases' passwords typed here, until Save
        self.add_dialog: SecretDialog | None = None
        self.notify = NotifyAddress(self)

        root = QVBoxLayout(self)
        root.setContentsMargins(0, 0, 0, 0)
        root.setSpacing(14)
        block, _form, column = section(self, tr("Secrets"))
        column.setSpacing(6)
        self.secret_list = QTreeWidget(self)
        self.secret_list.setAccessibleName(tr("Secrets"))
        self.secret_list.setHeaderLabels([tr("Name"), tr("Sites"), tr("Value")])
        self.secret_list.setRootIsDecorated(False)
        self.secret_list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.secret_list.setColumnWidth(_NAME_COLUMN, 130)
        self.secret_list.setColumnWidth(_SITES_COLUMN, 150)
        row = self.secret_list.fontMetrics().height() + 12
        self.secret_list.setFixedHeight(row * 5 + 16)  # the header and four rows
        self.add_button = QPushButton(tr("Add…"), self)
        self.add_button.setAccessibleName(tr("Add a secret"))
        self.remove_button = QPushButton(tr("Remove"), self)
        self.remove_button.setAccessibleName(tr("Remove the secret"))
        usage = small_label(
            self,
            tr(
                "Write <secret>name</secret> in a task; the model sees only the name. The agent types the value itself."
            ),
        )
        usage.setTextFormat(Qt.TextFormat.PlainText)  # "<secret>" is text to show, not markup
        column.addLayout(list_with_buttons(self.secret_list, self.add_button, self.remove_button))
        column.addWidget(usage)
        self.keeping = small_label(
            self, tr("Values are kept in your system keyring, never in the settings file, and are never shown again.")
        )
        column.addWidget(self.keeping)
        root.addWidget(block)
        root.addWidget(self.notify)
        root.addStretch(1)

        for entry in settings.secrets:
            self._add_row(entry, "")
        self._update_buttons()
        self.add_button.clicked.connect(self.ask_for_secret)
        self.remove_button.clicked.connect(self._remove)
        self.secret_list.currentItemChanged.connect(self._update_buttons)

    # --- what the dialog reads ---------------------------------------------------------------------------------

    def entries(self) -> list[SecretEntry]:
        items = (self.secret_list.topLevelItem(i) for i in range(self.secret_list.topLevelItemCount()))
        return [item.data(_NAME_COLUMN, _ENTRY_ROLE) for item in items if item is not None]

    async def check_keyring(self) -> None:
        """Mark the listed secrets whose value the keyring holds, and those it does not (read off the loop)."""
        await self.notify.check_keyring()
        if not await asyncio.to_thread(secrets.keyring_available):
            self.keeping.setText(
                tr(
                    "No system keyring: a value added here is kept until you quit. Install one (GNOME Keyring, "
                    "KWallet) to keep them, or give each as {variable}.",
                    variable="PAGE_AGENT_SECRET_<NAME>",
                )
            )
            self.keeping.setObjectName("Warning")
            repolish(self.keeping)
        for entry in self.entries():
            found = await asyncio.to_thread(_is_saved, entry.name)
            if entry.name not in self._unsaved:
                state = tr("Until you quit") if secrets.kept_for_session(entry.name) else tr("Saved")
                self._set_state(entry.name, state if found else tr("Missing"))

    async def store(self) -> list[str]:
        """Delete the removed secrets from the keyring and write the new values; returns the names whose value no
        keyring could take: those are kept until the app quits (never in a file), and the rest is saved all the
        same."""
        listed = {entry.name for entry in self.entries()}
        for name in sorted(self._in_keyring - listed):
            secrets.keep_for_session(name, "")
            try:
                await asyncio.to_thread(secrets.set_secret, name, "")
            except secrets.KeyringUnavailable:
                pass  # no keyring: nothing of it is in one
            self._in_keyring.discard(name)
        in_memory: list[str] = []
        for name in sorted(self._unsaved):
            value = self._unsaved.pop(name)
            try:
                await asyncio.to_thread(_saver(name, value))
            except secrets.KeyringUnavailable:
                secrets.keep_for_session(name, value)
                in_memory.append(name)
                self._set_state(name, tr("Until you quit"))
            else:
                secrets.keep_for_session(name, "")
                self._in_keyring.add(name)
                self._set_state(name, tr("Saved"))
        for database in sorted(self._databases):
            with contextlib.suppress(secrets.KeyringUnavailable):  # then PAGE_AGENT_KEEPASSXC_PASSWORD (README)
                await asyncio.to_thread(_database_saver(database, self._databases.pop(database)))
        await self.notify.store()
        return in_memory

    # --- adding and removing -----------------------------------------------------------------------------------

    def ask_for_secret(self) -> None:
        # open(), not exec(): a nested event loop would stall the agent running on the qasync loop.
        dialog = SecretDialog({entry.name for entry in self.entries()}, self)
        dialog.accepted.connect(lambda: self._added(dialog))
        dialog.finished.connect(dialog.deleteLater)
        self.add_dialog = dialog
        dialog.open()

    def _added(self, dialog: SecretDialog) -> None:
        entry = dialog.entry()
        database = dialog.take_database_password()
        if database is not None:
            self._databases[database[0]] = database[1]
        self._unsaved[entry.name] = dialog.take_value()
        self._add_row(entry, tr("Not saved yet"))
        added = self._item(entry.name)
        if added is not None:
            self.secret_list.setCurrentItem(added)

    def _add_row(self, entry: SecretEntry, state: str) -> None:
        sites = ", ".join(entry.domains) or tr("any site")
        item = QTreeWidgetItem(self.secret_list, [entry.name, sites, state])
        item.setData(_NAME_COLUMN, _ENTRY_ROLE, entry)
        item.setToolTip(_SITES_COLUMN, sites)

    def _remove(self) -> None:
        item = self.secret_list.currentItem()
        if item is None:
            return
        self._unsaved.pop(item.text(_NAME_COLUMN), None)
        self.secret_list.takeTopLevelItem(self.secret_list.indexOfTopLevelItem(item))
        self._update_buttons()

    def _item(self, name: str) -> QTreeWidgetItem | None:
        found = self.secret_list.findItems(name, Qt.MatchFlag.MatchExactly, _NAME_COLUMN)
        return found[0] if found else None

    def _set_state(self, name: str, state: str) -> None:
        item = self._item(name)
        if item is not None:
            item.setText(_STATE_COLUMN, state)

    def _update_buttons(self) -> None:
        self.remove_button.setEnabled(self.secret_list.currentItem() is not None)


def _is_saved(name: str) -> bool:
    # Only whether it is there: qasync logs a worker's result at DEBUG level, and that must never be the value.
    return secrets.get_secret(name) is not None


def _database_saver(database: str, password: str) -> Callable[[], None]:
    def save() -> None:
        secrets.set_database_password(database, password)

    return save


def _saver(name: str, value: str) -> Callable[[], None]:
    # A closure, not (function, *args): qasync logs a worker's arguments at DEBUG level.
    def save() -> None:
        secrets.set_secret(name, value)

    return save
