""" "Stop the task and quit?": asked when the panel is closed during a run, in the words of the moment the run is in
(working, or waiting for the person), styled like every other dialog of the app (Light or Dark)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QMessageBox, QWidget

from app.text.i18n import tr
from app.ui.dialog_style import apply_dialog_style


def ask_to_quit(parent: QWidget, *, waiting_for_person: bool, quit_now: Callable[[], None]) -> QMessageBox:
    """Open the question (``open()``, not ``exec()``: a nested loop would stall the run while it waits) and return it;
    "Stop and quit" calls ``quit_now()``, and "Keep working" (the default, and Esc) closes it."""
    box = QMessageBox(QMessageBox.Icon.Question, tr("Page Agent"), tr("Stop the task and quit?"), parent=parent)
    box.setStandardButtons(QMessageBox.StandardButton.NoButton)
    if waiting_for_person:
        box.setInformativeText(tr("The agent is waiting for you. Quitting stops the task where it is."))
    else:
        box.setInformativeText(tr("The agent is still working on your task. Quitting stops it where it is."))
    stop = box.addButton(tr("Stop and quit"), QMessageBox.ButtonRole.DestructiveRole)
    keep = box.addButton(tr("Keep working"), QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(keep)
    box.setEscapeButton(keep)
    apply_dialog_style(box)
    box.buttonClicked.connect(lambda button: quit_now() if button is stop else None)
    box.open()
    return box
