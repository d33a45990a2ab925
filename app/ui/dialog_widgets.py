"""The dialogs' building blocks: a titled section card and its labelled rows, a wrapped label, a spinner and a coloured
message area (with its ``Tone``), and ``run_dialog`` to wait for a dialog without a nested loop. Their look is
app/ui/dialog_style.py's."""

from __future__ import annotations

import asyncio
from enum import StrEnum
from html import escape

from PySide6.QtCore import QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QPainter, QPaintEvent, QPen, QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLayout,
    QVBoxLayout,
    QWidget,
)

from app.ui import style
from app.ui.icons import icon
from app.ui.style import css_color


async def run_dialog(dialog: QDialog) -> int:
    """Show ``dialog`` and wait for its result code without ``exec()``: a nested Qt loop would stall asyncio."""
    finished: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def _finished(code: int) -> None:
        if not finished.done():
            finished.set_result(code)

    dialog.finished.connect(_finished)
    dialog.open()
    return await finished


class Tone(StrEnum):
    INFO = "info"
    BUSY = "busy"
    OK = "ok"
    WARNING = "warning"
    ERROR = "error"


def repolish(widget: QWidget) -> None:
    """Dynamic properties (tone, role) only take effect in the style sheet after a re-polish."""
    widget.style().unpolish(widget)
    widget.style().polish(widget)


def section(parent: QWidget, title: str) -> tuple[QWidget, QFormLayout, QVBoxLayout]:
    """A titled card: returns the whole block (to add to a layout), its form for labelled rows, and the card's
    column for full-width content below the form (buttons, messages)."""
    block = QWidget(parent)
    outer = QVBoxLayout(block)
    outer.setContentsMargins(0, 0, 0, 0)
    outer.setSpacing(6)
    heading = QLabel(title.upper() if title.isascii() else title, block)
    heading.setObjectName("SectionTitle")
    card = QFrame(block)
    card.setObjectName("Section")
    card.setAccessibleName(title)
    column = QVBoxLayout(card)
    column.setContentsMargins(16, 14, 16, 14)
    column.setSpacing(10)
    form = QFormLayout()
    form.setContentsMargins(0, 0, 0, 0)
    form.setHorizontalSpacing(14)
    form.setVerticalSpacing(10)
    form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
    form.setLabelAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
    column.addLayout(form)
    outer.addWidget(heading)
    outer.addWidget(card)
    return block, form, column


class WrappedLabel(QLabel):
    """A word-wrapped label that always gets the height its text needs at its width.

    Form layouts and top-level windows do not ask for height-for-width, so wrapped text gets squeezed; a minimum
    height, kept up to date, makes every layout up to the window make room.
    """

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setWordWrap(True)

    def setText(self, text: str) -> None:
        super().setText(text)
        self._hold_height()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._hold_height()

    def _hold_height(self) -> None:
        # heightForWidth() never answers less than the minimum height: measure without it.
        self.setMinimumHeight(0)
        self.setMinimumHeight(self.heightForWidth(max(self.width(), 1)))


def small_label(parent: QWidget, text: str, name: str = "Hint") -> QLabel:
    label = WrappedLabel(text, parent)
    label.setObjectName(name)
    return label


class Spinner(QWidget):
    """A small rotating arc: something is under way and the window is not frozen."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFixedSize(QSize(18, 18))
        self._angle = 0
        self._timer = QTimer(self)
        self._timer.setInterval(30)
        self._timer.timeout.connect(self._turn)

    def showEvent(self, event: object) -> None:
        self._timer.start()

    def hideEvent(self, event: object) -> None:
        self._timer.stop()

    def _turn(self) -> None:
        self._angle = (self._angle + 12) % 360
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        pen = QPen(style.theme().accent, 2.2)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(pen)
        painter.drawArc(QRectF(2, 2, 14, 14), -self._angle * 16, 270 * 16)


_TONE_ICONS = {Tone.INFO: "info", Tone.OK: "check-circle", Tone.WARNING: "warning", Tone.ERROR: "x-circle"}


class MessageArea(QFrame):
    """A coloured box with an icon (or a spinner), a bold headline and plain-words detail."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Message")
        self._icon = QLabel(self)
        self._icon.setFixedSize(QSize(18, 18))
        self.spinner = Spinner(self)
        self.label = WrappedLabel("", self)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.tone = Tone.INFO
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(10)
        layout.addWidget(self._icon, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.spinner, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.label, 1)
        self.hide()

    def show_message(self, tone: Tone, headline: str, detail: str = "", hint: str = "") -> None:
        self.tone = tone
        self.setProperty("tone", tone.value)
        repolish(self)
        t = style.theme()
        color = {Tone.OK: t.success, Tone.WARNING: t.warning, Tone.ERROR: t.danger}.get(tone, t.accent)
        busy = tone == Tone.BUSY
        self.spinner.setVisible(busy)
        self._icon.setVisible(not busy)
        if not busy:
            self._icon.setPixmap(icon(_TONE_ICONS[tone], color).pixmap(QSize(18, 18), self.devicePixelRatioF()))
        parts = [f"<b>{escape(headline)}</b>"]
        if detail:
            parts.append(escape(detail))
        if hint:
            parts.append(f"<span style='color:{css_color(t.muted)}'>{escape(hint)}</span>")
        self.label.setText("<br>".join(parts))
        self.setAccessibleName(" ".join(p for p in (headline, detail, hint) if p))
        self.show()

    def text(self) -> str:
        """What the message says, as plain text (for tests and screen readers)."""
        return self.accessibleName()


_LABEL_WIDTH = 92  # one label column width in every section: the fields line up


def labelled_row(
    form: QFormLayout, label: str, field: QWidget, layout: QLayout | QWidget | None = None, row: int = -1
) -> None:
    """A row of ``form`` (``layout``, by default ``field`` alone; at ``row``, by default the end) whose label names
    ``field`` for screen readers and focuses it on its mnemonic."""
    caption = QLabel(label)
    caption.setMinimumWidth(_LABEL_WIDTH)
    caption.setBuddy(field)
    field.setAccessibleName(label)
    if isinstance(layout, QLayout):
        form.insertRow(row, caption, layout)
    else:
        form.insertRow(row, caption, layout if layout is not None else field)


def select_data(combo: QComboBox, data: str) -> None:
    """Choose the item of ``combo`` holding ``data`` (the first when none does)."""
    combo.setCurrentIndex(max(combo.findData(data), 0))
