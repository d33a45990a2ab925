"""The Settings dialog's "Safety" page: the sites the agent may open, the folders it may upload from, and whether an
irreversible click waits for the user.

The runtime enforces all three (app/core/safety); this page only lets the user set them, and says what is wrong in
plain words before Save: a site name that is not one, a folder that holds the app's own files.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterable
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.safety.files import folder_clash
from app.core.safety.navigation import parse_domains
from app.settings.catalog import CONFIRMATIONS
from app.settings.model import Settings
from app.settings.paths import AppPaths
from app.text.i18n import tr
from app.ui.dialog_widgets import section, small_label
from app.ui.file_dialog import file_dialog
from app.ui.settings.editors import CheckEditor, PageEditors

Spawn = Callable[[Coroutine[Any, Any, None]], "asyncio.Task[None]"]

_LIST_ROWS = 3  # rows a list shows before it scrolls: enough to see it is a list, small enough to fit the screen


def site_problem(text: str) -> str | None:
    """The first entry of ``text`` that is not a host pattern, as a plain sentence; None when all are."""
    for entry in text.replace(",", " ").split():
        try:
            parse_domains(entry)
        except ValueError:
            return tr(
                '"{entry}" is not a site name. Write names like example.com or *.example.com (optionally with '
                ":port), without http:// or a path.",
                entry=entry,
            )
    return None


def _resolved(paths: Iterable[Path]) -> list[Path]:
    return [path.expanduser().resolve() for path in paths]


def fixed_rows_list(parent: QWidget, rows: int = _LIST_ROWS) -> QListWidget:
    """A list exactly ``rows`` rows tall (it scrolls past that), so the page's height does not depend on its content."""
    view = QListWidget(parent)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    row = view.fontMetrics().height() + 12  # the item padding of the dialog's style sheet
    view.setFixedHeight(rows * row + 12)
    return view


class SafetyPage(QWidget):
    """Only these sites / Files the agent may upload / Ask me before irreversible actions."""

    def __init__(self, settings: Settings, paths: AppPaths, spawn: Spawn, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._own_dirs = (paths.config_dir, paths.data_dir, paths.log_dir)
        self._spawn = spawn

        root = QVBoxLayout(self)
        root.setContentsMargins(0, 0, 0, 0)
        root.setSpacing(14)

        sites_block, _form, column = section(self, tr("Only these sites"))
        self.sites_edit = QPlainTextEdit(self)
        self.sites_edit.setObjectName("SitesEdit")
        self.sites_edit.setAccessibleName(tr("Only these sites"))
        self.sites_edit.setTabChangesFocus(True)
        self.sites_edit.setPlaceholderText("example.com\n*.example.com")
        self.sites_edit.setFixedHeight(self.sites_edit.fontMetrics().lineSpacing() * 3 + 18)
        self.sites_error = small_label(self, "", "FieldError")
        self.sites_error.hide()
        column.setSpacing(6)
        column.addWidget(self.sites_edit)
        column.addWidget(self.sites_error)
        column.addWidget(
            small_label(
                self,
                tr(
                    "Leave empty to allow any website. example.com allows only that site; "
                    "*.example.com that site and its subdomains. One per line or separated by commas."
                ),
            )
        )
        root.addWidget(sites_block)

        files_block, _form, column = section(self, tr("Files the agent may upload"))
        self.folder_list = fixed_rows_list(self, 2)
        self.folder_list.setAccessibleName(tr("Files the agent may upload"))
        self.add_folder_button = QPushButton(tr("Add folder…"), self)
        self.remove_folder_button = QPushButton(tr("Remove"), self)
        self.remove_folder_button.setAccessibleName(tr("Remove folder"))
        self.folder_message = small_label(self, "", "FieldError")
        self.folder_message.hide()
        column.setSpacing(6)
        column.addLayout(list_with_buttons(self.folder_list, self.add_folder_button, self.remove_folder_button))
        column.addWidget(self.folder_message)
        column.addWidget(
            small_label(self, tr("The agent uploads only files inside these folders, or a file your task names."))
        )
        root.addWidget(files_block)

        self.editors = PageEditors(self, CONFIRMATIONS.page)
        confirm_block, _form, _column = self.editors.section(CONFIRMATIONS)
        self.ask_check = self.editors.editor("ask_before_irreversible", CheckEditor).check
        root.addWidget(confirm_block)
        root.addStretch(1)

        self.sites_edit.setPlainText("\n".join(settings.allowed_domains))
        for folder in settings.upload_dirs:
            self._add_row(folder)
        self.editors.fill(settings)
        self._update_buttons()

        self.sites_edit.textChanged.connect(self.sites_error.hide)
        self.add_folder_button.clicked.connect(self.choose_folder)
        self.remove_folder_button.clicked.connect(self._remove_folder)
        self.folder_list.currentRowChanged.connect(self._update_buttons)

    # --- what the dialog reads ---------------------------------------------------------------------------------

    def values(self) -> dict[str, Any] | None:
        """The page's settings; None (with the reason shown by the field, the text kept) when one is invalid."""
        text = self.sites_edit.toPlainText()
        problem = site_problem(text)
        if problem:
            self.sites_error.setText(problem)
            self.sites_error.show()
            self.sites_edit.setFocus()
            return None
        return {
            "allowed_domains": parse_domains(text),
            "upload_dirs": self.folders(),
            **self.editors.values(),
        }

    def folders(self) -> list[str]:
        return [self.folder_list.item(row).text() for row in range(self.folder_list.count())]

    # --- upload folders ----------------------------------------------------------------------------------------

    def choose_folder(self) -> None:
        chooser = file_dialog(self, tr("Choose a folder the agent may upload from"))
        chooser.setFileMode(QFileDialog.FileMode.Directory)
        chooser.setOption(QFileDialog.Option.ShowDirsOnly, True)
        chooser.setDirectory(str(Path.home()))
        chooser.fileSelected.connect(lambda folder: self._spawn(self.add_folder(folder)))
        chooser.open()

    async def add_folder(self, folder: str) -> None:
        """Add ``folder`` (resolved: ``~``, ``..``, links), unless it holds the app's own files."""
        self.folder_message.hide()
        resolved, own = await asyncio.to_thread(lambda: (_resolved([Path(folder)])[0], _resolved(self._own_dirs)))
        if folder_clash(resolved, own) is not None:
            self.folder_message.setText(
                tr(
                    "{folder} holds Page Agent's own files "
                    "(browser profile with your sign-ins, settings, history, logs), "
                    "which are never uploaded. Choose a folder that does not contain them.",
                    folder=str(resolved),
                )
            )
            self.folder_message.show()
            return
        if str(resolved) not in self.folders():
            self._add_row(str(resolved))
        self.folder_list.setCurrentRow(self.folders().index(str(resolved)))

    def _add_row(self, folder: str) -> None:
        item = QListWidgetItem(folder, self.folder_list)
        item.setToolTip(folder)

    def _remove_folder(self) -> None:
        self.folder_list.takeItem(self.folder_list.currentRow())
        self.folder_message.hide()
        self._update_buttons()

    def _update_buttons(self) -> None:
        self.remove_folder_button.setEnabled(self.folder_list.currentRow() >= 0)


def list_with_buttons(view: QWidget, *buttons: QPushButton) -> QHBoxLayout:
    """A list with its buttons stacked on its right: one row of height instead of two."""
    column = QVBoxLayout()
    column.setSpacing(6)
    for button in buttons:
        column.addWidget(button)
    column.addStretch(1)
    row = QHBoxLayout()
    row.setSpacing(8)
    row.addWidget(view, 1)
    row.addLayout(column)
    return row
