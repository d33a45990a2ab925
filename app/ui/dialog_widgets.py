"""Building blocks shared by the settings and history dialogs: their style sheet (the panel's, plus form fields,
sections and messages), kept up to date when the theme changes; keeping a dialog inside the screen; a titled section
card, a spinner and a coloured message area."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable
from enum import StrEnum
from functools import cache
from html import escape
from pathlib import Path

from PySide6.QtCore import QEvent, QMargins, QObject, QRect, QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QGuiApplication, QPainter, QPaintEvent, QPen, QResizeEvent
from PySide6.QtWidgets import QDialog, QFormLayout, QFrame, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from app.ui import style
from app.ui.icons import icon
from app.ui.style import Theme, css_color


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


_CHEVRONS = {"down": "M6 9l6 6 6-6", "up": "M6 15l6-6 6 6"}


@cache
def _chevron(direction: str, color: str) -> str:
    """A tinted chevron as a file: style sheets take images by path only (no data: URLs)."""
    folder = Path(tempfile.gettempdir()) / "page-agent-ui"
    folder.mkdir(exist_ok=True)
    path = folder / f"chevron-{direction}-{color.lstrip('#')}.svg"
    path.write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="' + color + '" '
        'stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round"><path d="'
        + _CHEVRONS[direction]
        + '"/></svg>',
        encoding="utf-8",
    )
    return path.as_posix()


def dialog_stylesheet(t: Theme) -> str:
    c = {name: css_color(getattr(t, name)) for name in Theme.__dataclass_fields__ if name != "dark"}
    tones = {
        Tone.INFO: t.accent,
        Tone.BUSY: t.neutral,
        Tone.OK: t.success,
        Tone.WARNING: t.warning,
        Tone.ERROR: t.danger,
    }
    message_rules = "\n".join(
        f'QFrame#Message[tone="{tone}"] {{ background: {css_color(t.soft(color, 0.12))}; '
        f"border: 1px solid {css_color(t.soft(color, 0.5))}; }}"
        for tone, color in tones.items()
    )
    return (
        style.stylesheet(t)
        + f"""
    QDialog {{ background: {c["window"]}; }}
    QDialog QLabel {{ color: {c["text"]}; background: transparent; }}
    QLabel#DialogTitle {{ font-size: 17px; font-weight: 700; }}
    QLabel#SectionTitle {{ color: {c["muted"]}; font-size: 12px; font-weight: 700; padding: 0 0 0 4px; }}
    QLabel#Hint {{ color: {c["muted"]}; font-size: 12px; }}
    QLabel#Warning {{ color: {c["warning"]}; font-size: 12px; }}
    QFrame#Section {{ background: {c["surface"]}; border: 1px solid {c["border"]}; border-radius: 12px; }}
    QFrame#Welcome {{
        background: {css_color(t.soft(t.accent, 0.10))}; border: 1px solid {css_color(t.soft(t.accent, 0.4))};
        border-radius: 12px;
    }}
    QFrame#Message {{ border-radius: 10px; }}
    {message_rules}

    QLineEdit, QSpinBox, QComboBox {{
        background: {c["surface"]}; color: {c["text"]}; border: 1px solid {c["border"]}; border-radius: 7px;
        padding: 5px 8px; min-height: 20px; selection-background-color: {c["accent"]};
        selection-color: {c["on_accent"]};
    }}
    QLineEdit:focus, QSpinBox:focus, QComboBox:focus {{ border: 1px solid {c["accent"]}; }}
    QLineEdit:disabled {{ background: {c["sunken"]}; color: {c["muted"]}; }}
    QComboBox::drop-down {{ subcontrol-origin: padding; subcontrol-position: center right; border: none; width: 24px; }}
    QComboBox::down-arrow {{ image: url({_chevron("down", c["muted"])}); width: 12px; height: 12px; }}
    QSpinBox {{ padding-right: 28px; }}
    QSpinBox::up-button, QSpinBox::down-button {{
        subcontrol-origin: border; width: 24px; border: none; border-left: 1px solid {c["border"]};
    }}
    QSpinBox::up-button {{ subcontrol-position: top right; border-top-right-radius: 7px; }}
    QSpinBox::down-button {{ subcontrol-position: bottom right; border-bottom-right-radius: 7px; }}
    QSpinBox::up-button:hover, QSpinBox::down-button:hover {{ background: {css_color(t.soft(t.neutral, 0.16))}; }}
    QSpinBox::up-arrow {{ image: url({_chevron("up", c["muted"])}); width: 10px; height: 10px; }}
    QSpinBox::down-arrow {{ image: url({_chevron("down", c["muted"])}); width: 10px; height: 10px; }}
    QComboBox QAbstractItemView {{
        background: {c["surface"]}; color: {c["text"]}; border: 1px solid {c["border"]};
        selection-background-color: {css_color(t.soft(t.accent, 0.2))}; selection-color: {c["text"]};
    }}
    QCheckBox {{ color: {c["text"]}; spacing: 8px; }}

    QTreeWidget {{
        background: {c["surface"]}; color: {c["text"]}; border: 1px solid {c["border"]}; border-radius: 10px;
        outline: none; padding: 4px;
    }}
    QTreeWidget::item {{ padding: 6px 4px; border: none; }}
    QTreeWidget::item:hover {{ background: {css_color(t.soft(t.neutral, 0.10))}; }}
    QTreeWidget::item:selected {{ background: {css_color(t.soft(t.accent, 0.18))}; color: {c["text"]}; }}
    QHeaderView {{ background: transparent; }}
    QHeaderView::section {{
        background: transparent; color: {c["muted"]}; border: none; border-bottom: 1px solid {c["border"]};
        padding: 6px 8px; font-size: 12px; font-weight: 600;
    }}
    """
    )


def apply_dialog_style(widget: QWidget, restyle: Callable[[], object] | None = None) -> Theme:
    """Style ``widget`` as a dialog for the theme in use, and look after it from then on (see ``_DialogCare``):
    ``restyle`` (by default this style again) runs when the theme changes."""
    style.theme.cache_clear()
    current = style.theme()
    widget.setStyleSheet(dialog_stylesheet(current))
    if widget.findChild(_DialogCare, options=Qt.FindChildOption.FindDirectChildrenOnly) is None:
        _DialogCare(widget, restyle or (lambda: apply_dialog_style(widget)))
    return current


class _DialogCare(QObject):
    """Restyles its dialog when the theme changes (Settings → Theme, or the system's scheme), and keeps it inside
    the screen each time it is shown."""

    def __init__(self, dialog: QWidget, restyle: Callable[[], object]) -> None:
        super().__init__(dialog)
        self._dialog = dialog
        self._restyle = restyle
        dialog.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ApplicationPaletteChange:
            self._restyle()
        elif event.type() == QEvent.Type.Show and self._dialog.isWindow():
            # Once shown, the window manager's frame is known (or nearly): fit with it on the next turn.
            QTimer.singleShot(0, self._dialog, lambda: keep_on_screen(self._dialog))
        return False


# Room kept for a window manager's title bar until the real frame is known.
TITLE_BAR = 40


def frame_margins(window: QWidget) -> QMargins:
    """The window manager's frame around ``window``: measured once shown, else room for a title bar."""
    outer, inner = window.frameGeometry(), window.geometry()
    measured = QMargins(
        inner.left() - outer.left(),
        inner.top() - outer.top(),
        outer.right() - inner.right(),
        outer.bottom() - inner.bottom(),
    )
    return measured if measured.top() > 0 else QMargins(0, TITLE_BAR, 0, 0)


def screen_area(window: QWidget) -> QRect:
    """The free part of ``window``'s screen (without the desktop's panels and docks)."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry()


def cap_to_screen(window: QWidget, available: QRect | None = None) -> QRect:
    """Make ``window`` (its frame included) no bigger than ``available``, by default its screen's free area; returns
    the room left for the window's content."""
    room = (available or screen_area(window)).marginsRemoved(frame_margins(window))
    window.setMaximumSize(room.size())
    return room


def outer_geometry(window: QWidget) -> QRect:
    """``window`` with its frame: the real one once the window manager has framed it, else an assumed title bar."""
    return window.geometry().marginsAdded(frame_margins(window))


def move_frame(window: QWidget, x: int, y: int) -> None:
    """Put the top-left corner of ``window``'s frame at (x, y).

    Placed through the content's geometry: before the window manager has framed a window, Qt places its content,
    not its frame, at a ``move()``'s point, which would push the title bar above the screen."""
    margins = frame_margins(window)
    window.setGeometry(QRect(x + margins.left(), y + margins.top(), window.width(), window.height()))


_BESIDE_GAP = 8  # between the panel and a window placed beside it
# Narrower than this, a window beside the panel goes over the panel's edge rather than beside it.
_BESIDE_MIN_WIDTH = 380


def place_beside_panel(window: QWidget, panel: QWidget) -> None:
    """``window`` to the right of the panel (over the browser's side) when there is room, always on the screen:
    the panel, its Stop and its live run stay in sight."""
    screen = (panel.screen() or window.screen()).availableGeometry()
    frame = panel.frameGeometry()
    room = screen.right() - frame.right() - _BESIDE_GAP
    width = min(window.width(), room if room >= _BESIDE_MIN_WIDTH else screen.width())
    height = min(max(window.height(), frame.height() * 4 // 5), screen.height())
    x = frame.right() + _BESIDE_GAP if room >= _BESIDE_MIN_WIDTH else screen.right() - width
    y = max(screen.top(), min(frame.top(), screen.bottom() - height))
    window.resize(width, height)
    move_frame(window, x, y)


def keep_on_screen(window: QWidget, available: QRect | None = None) -> None:
    """No bigger than ``available`` (by default the screen's free area), and moved so that the whole frame, title
    bar and buttons, is inside it."""
    area = available or screen_area(window)
    cap_to_screen(window, area)
    window.resize(window.size().boundedTo(window.maximumSize()))
    outer = outer_geometry(window)
    x = max(area.left(), min(outer.x(), area.x() + area.width() - outer.width()))
    y = max(area.top(), min(outer.y(), area.y() + area.height() - outer.height()))
    if (x, y) != (outer.x(), outer.y()):
        move_frame(window, x, y)


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
