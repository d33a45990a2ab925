"""The status pill: what the agent is doing right now, in one glance (colour, icon, words, step count)."""

from __future__ import annotations

import time
from collections.abc import Callable
from enum import Enum

from PySide6.QtCore import QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPaintEvent, QPen, QPixmap
from PySide6.QtWidgets import QSizePolicy, QWidget

from app.text.i18n import tr
from app.ui.icons import paint_icon
from app.ui.style import Theme, theme

# Live activity changes many times a second; each text stays up at least this long so it can be read.
MIN_HOLD_MS = 300


class PillState(Enum):
    IDLE = "idle"
    OPENING = "opening"  # the panel just opened and Chromium starts beside it; nothing runs yet
    STARTING = "starting"
    RUNNING = "running"
    ASKING = "asking"
    PAUSED = "paused"  # the user took over
    HANDED_OFF = "handed_off"  # the agent asked the person to act in the browser: "Your turn"
    STOPPING = "stopping"
    SUCCESS = "success"
    FAILED = "failed"  # completed, but the agent says it did not succeed
    ERROR = "error"
    STOPPED = "stopped"


_BUSY = frozenset({PillState.STARTING, PillState.RUNNING, PillState.STOPPING})
# States within a run: they keep the "Step 6 of 40" detail.
_LIVE = _BUSY | {PillState.ASKING, PillState.PAUSED, PillState.HANDED_OFF}
# States that wait for the person: drawn filled, so they stand out from everything the agent does on its own.
_FILLED = frozenset({PillState.HANDED_OFF})
# "Your turn" has a colour of its own: none of the theme's (paused, warning, danger) may be mistaken for it.
_YOUR_TURN = {False: "#0b8a84", True: "#2cc7bd"}


def your_turn_color(t: Theme) -> QColor:
    """The hand-off's colour (the pill, the hand-off bar)."""
    return QColor(_YOUR_TURN[t.dark])


def _default_text(state: PillState) -> str:
    return {
        PillState.IDLE: tr("Ready"),
        PillState.OPENING: tr("Starting the browser…"),
        PillState.STARTING: tr("Starting the browser…"),
        PillState.RUNNING: tr("Working…"),
        PillState.ASKING: tr("Waiting for your answer"),
        PillState.PAUSED: tr("Paused — your turn"),
        PillState.HANDED_OFF: tr("Your turn"),
        PillState.STOPPING: tr("Stopping…"),
        PillState.SUCCESS: tr("Done"),
        PillState.FAILED: tr("Couldn't finish"),
        PillState.ERROR: tr("Error"),
        PillState.STOPPED: tr("Stopped"),
    }[state]


def _look(state: PillState, t: Theme) -> tuple[QColor, str | None]:
    """The state's colour and icon (None: the spinner)."""
    return {
        PillState.IDLE: (t.neutral, "dot"),
        PillState.OPENING: (t.accent, "dot"),
        PillState.STARTING: (t.accent, None),
        PillState.RUNNING: (t.accent, None),
        PillState.ASKING: (t.paused, "chat"),
        PillState.PAUSED: (t.paused, "pause-circle"),
        PillState.HANDED_OFF: (your_turn_color(t), "bell"),
        PillState.STOPPING: (t.danger, None),
        PillState.SUCCESS: (t.success, "check-circle"),
        PillState.FAILED: (t.warning, "warning"),
        PillState.ERROR: (t.danger, "x-circle"),
        PillState.STOPPED: (t.neutral, "stop-circle"),
    }[state]


_ICON_SIZE = 18.0


class StatusPill(QWidget):
    stateChanged = Signal(object)  # PillState
    textChanged = Signal(str)  # every text actually shown (after coalescing)

    def __init__(self, parent: QWidget | None = None, *, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setAccessibleName(tr("Agent status"))
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._state = PillState.IDLE
        self._text = _default_text(PillState.IDLE)
        self._detail = ""
        self._pending: str | None = None
        self._clock = clock  # seconds; tests pass their own to step through the hold without waiting
        self._shown_at = clock()
        self._hold = QTimer(self)
        self._hold.setSingleShot(True)
        self._hold.timeout.connect(self._show_pending)
        # Each frame repaints the spinner's square only: a whole-pill repaint 30 times a second (its rounded,
        # translucent background pulls in the parents' painting) was the panel's largest cost during a run.
        self._spin = QTimer(self)
        self._spin.setInterval(33)
        self._spin.timeout.connect(self._spin_frame)
        self._started = clock()
        self._layer: QPixmap | None = None
        self._layer_key: tuple[object, ...] | None = None
        self._update_accessibility()

    # --- API ---------------------------------------------------------------------------------------------------

    @property
    def state(self) -> PillState:
        return self._state

    def text(self) -> str:
        return self._text

    def detail(self) -> str:
        return self._detail

    def set_state(self, state: PillState, text: str | None = None) -> None:
        """Show a state at once (state changes are never held back), dropping any pending activity text."""
        self._hold.stop()
        self._pending = None
        changed = state is not self._state
        self._state = state
        if state not in _LIVE:
            self._detail = ""
        self._spin.start() if state in _BUSY else self._spin.stop()
        self._show(text or _default_text(state))
        if changed:
            self.stateChanged.emit(state)

    def set_activity(self, text: str) -> None:
        """Live activity while running: coalesced so that each text stays readable for MIN_HOLD_MS."""
        if self._state is not PillState.RUNNING:
            return
        if text == (self._pending if self._pending is not None else self._text):
            return
        remaining = MIN_HOLD_MS - int((self._clock() - self._shown_at) * 1000)
        if remaining <= 0 and not self._hold.isActive():
            self._show(text)
        else:
            self._pending = text
            if not self._hold.isActive():
                self._hold.start(max(1, remaining))

    def set_detail(self, text: str) -> None:
        """The quiet right-hand text: "Step 6 of 40"."""
        if text != self._detail:
            self._detail = text
            self._update_accessibility()
            self.update()

    # --- internals ---------------------------------------------------------------------------------------------

    def _show_pending(self) -> None:
        if self._pending is not None:
            text, self._pending = self._pending, None
            self._show(text)

    def _show(self, text: str) -> None:
        self._text = text
        self._shown_at = self._clock()
        self._update_accessibility()
        self.update()
        self.textChanged.emit(text)

    def _update_accessibility(self) -> None:
        description = f"{self._text} — {self._detail}" if self._detail else self._text
        self.setAccessibleDescription(description)
        self.setToolTip(description)

    def sizeHint(self) -> QSize:
        return QSize(240, max(40, QFontMetrics(self._font(True)).height() + 22))

    def _font(self, bold: bool) -> QFont:
        font = QFont(self.font())
        font.setPointSizeF(font.pointSizeF() * 1.05 if bold else font.pointSizeF() * 0.95)
        font.setWeight(QFont.Weight.DemiBold if bold else QFont.Weight.Normal)
        return font

    def _outline(self) -> QRectF:
        return QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)

    def _icon_rect(self) -> QRectF:
        rect = self._outline()
        return QRectF(rect.left() + 13, rect.center().y() - _ICON_SIZE / 2, _ICON_SIZE, _ICON_SIZE)

    def _spin_frame(self) -> None:
        self.update(self._icon_rect().toAlignedRect().adjusted(-2, -2, 2, 2))

    def paintEvent(self, _event: QPaintEvent) -> None:
        t = theme()
        color, icon_name = _look(self._state, t)
        painter = QPainter(self)
        painter.drawPixmap(0, 0, self._static_layer(t))
        if icon_name is None:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            self._paint_spinner(painter, self._icon_rect(), color)
        painter.end()

    def _static_layer(self, t: Theme) -> QPixmap:
        """Everything but the spinner, drawn once per look: spinner frames only copy it."""
        ratio = self.devicePixelRatioF()
        key = (self.width(), self.height(), ratio, t.dark, self._state, self._text, self._detail, self.font().key())
        if self._layer is not None and self._layer_key == key:
            return self._layer
        layer = QPixmap(self.size() * ratio)
        layer.setDevicePixelRatio(ratio)
        layer.fill(Qt.GlobalColor.transparent)
        painter = QPainter(layer)
        self._paint_static(painter, t)
        painter.end()
        self._layer, self._layer_key = layer, key
        return layer

    def _paint_static(self, painter: QPainter, t: Theme) -> None:
        color, icon_name = _look(self._state, t)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = self._outline()
        radius = rect.height() / 2
        filled = self._state in _FILLED
        # On the filled pill: white on the light theme's deep teal, the window's dark on the dark theme's bright one.
        ink = (t.window if t.dark else QColor("#ffffff")) if filled else t.text
        painter.setPen(QPen(color if filled else t.soft(color, 0.45), 1))
        painter.setBrush(color if filled else t.soft(color, 0.13))
        painter.drawRoundedRect(rect, radius, radius)

        icon_rect = self._icon_rect()
        if icon_name is not None:
            paint_icon(painter, icon_rect, icon_name, ink if filled else color)

        left = icon_rect.right() + 9
        right = rect.right() - 14
        if self._detail:
            detail_font = self._font(False)
            metrics = QFontMetrics(detail_font)
            width = metrics.horizontalAdvance(self._detail)
            painter.setFont(detail_font)
            painter.setPen(ink if filled else t.muted)
            painter.drawText(
                QRectF(right - width, rect.top(), width, rect.height()),
                Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight,
                self._detail,
            )
            right -= width + 12
        font = self._font(True)
        painter.setFont(font)
        painter.setPen(ink)
        text = QFontMetrics(font).elidedText(self._text, Qt.TextElideMode.ElideRight, int(right - left))
        painter.drawText(
            QRectF(left, rect.top(), right - left, rect.height()),
            Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
            text,
        )

    def _paint_spinner(self, painter: QPainter, rect: QRectF, color: QColor) -> None:
        track = QColor(color)
        track.setAlphaF(0.25)
        inner = rect.adjusted(2, 2, -2, -2)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(track, 2.4))
        painter.drawEllipse(inner)
        pen = QPen(color, 2.4)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(pen)
        angle = int(((self._clock() - self._started) * 360 * 1.1) % 360)
        painter.drawArc(inner, -angle * 16, 100 * 16)
