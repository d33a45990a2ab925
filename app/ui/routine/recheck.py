"""Check and run again…: the rows that may have reached the site before anyone knew whether they did (interrupted, or
sent with an unclear answer), each with what happened. A routine never runs them again by itself (their form may be
on the site already); the person looks for each one on the site and ticks the ones to run again."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.text.element_words import clip
from app.text.i18n import tr
from app.ui.dialog_style import apply_dialog_style
from app.ui.routine.rows_table import RowLine

_LABEL_MAX = 40


class RecheckDialog(QDialog):
    chosen = Signal(list)  # the numbers of the rows ticked to run again

    def __init__(self, lines: list[RowLine], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("RecheckDialog")
        self.setWindowTitle(tr("Check and run again"))
        title = QLabel(tr("These rows may have reached the site"), self)
        title.setObjectName("DialogTitle")
        title.setWordWrap(True)
        intro = QLabel(
            tr(
                "Each one ended before it was known whether the site saved it. Look for each row on the site. Tick "
                "the ones it does not have, and they run again; the others stay as they are."
            ),
            self,
        )
        intro.setObjectName("Hint")
        intro.setWordWrap(True)
        self.boxes: dict[int, QCheckBox] = {}
        rows = QWidget(self)
        column = QVBoxLayout(rows)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        for line in lines:
            box = QCheckBox(tr("Row {n} · {label}", n=line.number, label=clip(line.label, _LABEL_MAX)), rows)
            box.toggled.connect(lambda _on: self._changed())
            words = QLabel(line.words, rows)
            words.setObjectName("Hint")
            words.setWordWrap(True)
            words.setTextFormat(Qt.TextFormat.PlainText)  # the model's words (and through it a page's)
            words.setContentsMargins(24, 0, 0, 6)
            column.addWidget(box)
            column.addWidget(words)
            self.boxes[line.number] = box
        column.addStretch(1)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setWidget(rows)
        self.run_button = QPushButton(tr("Run the ticked rows again"), self)
        self.run_button.setProperty("role", "primary")
        self.run_button.setEnabled(False)
        cancel = QPushButton(tr("Cancel"), self)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(cancel)
        buttons.addWidget(self.run_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(18, 16, 18, 14)
        layout.setSpacing(10)
        layout.addWidget(title)
        layout.addWidget(intro)
        layout.addWidget(scroll, 1)
        layout.addLayout(buttons)
        self.run_button.clicked.connect(self._run)
        cancel.clicked.connect(self.reject)
        self.resize(460, 420)
        apply_dialog_style(self)

    def ticked(self) -> list[int]:
        return [number for number, box in self.boxes.items() if box.isChecked()]

    def _changed(self) -> None:
        self.run_button.setEnabled(bool(self.ticked()))

    def _run(self) -> None:
        self.chosen.emit(self.ticked())
        self.accept()
