"""The app's file choosers: a Qt file dialog that is deleted once it closes.

Opened with ``open()``, never ``exec()`` or the static ``get…`` functions: a nested event loop would stall the agent
and the routine's rows running on the qasync loop. Kept after closing, each dialog would stay hidden under its window
for the rest of the session, with its folder model, its watcher and its thread; the next one is made fresh.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QWidget


def file_dialog(parent: QWidget, title: str, folder: str = "") -> QFileDialog:
    """A file dialog over ``parent``, starting in ``folder`` (Qt's default when empty), gone once closed."""
    chooser = QFileDialog(parent, title, folder)
    chooser.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    return chooser
