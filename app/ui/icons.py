"""Icons drawn as SVG (resources/icons), tinted to the theme and rendered at the screen's pixel density."""

from __future__ import annotations

from functools import cache

from PySide6.QtCore import QByteArray, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QIcon, QIconEngine, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer

from app.assets import read_resource


@cache
def _renderer(name: str, color: str) -> QSvgRenderer:
    svg = read_resource(f"icons/{name}.svg").replace("currentColor", color)
    return QSvgRenderer(QByteArray(svg.encode()))


def paint_icon(painter: QPainter, rect: QRectF, name: str, color: QColor) -> None:
    """Draw straight into ``painter``: vector all the way, so it stays crisp at any scale."""
    _renderer(name, color.name(QColor.NameFormat.HexArgb if color.alpha() < 255 else QColor.NameFormat.HexRgb)).render(
        painter, rect
    )


class _SvgIconEngine(QIconEngine):
    """Renders on demand at the requested size, so QIcon never scales a bitmap up on HiDPI screens."""

    def __init__(self, name: str, color: QColor, disabled: QColor | None) -> None:
        super().__init__()
        self._name = name
        self._color = QColor(color)
        self._disabled = QColor(disabled) if disabled is not None else None

    def _tint(self, mode: QIcon.Mode) -> QColor:
        if mode == QIcon.Mode.Disabled:
            if self._disabled is not None:
                return self._disabled
            faded = QColor(self._color)
            faded.setAlphaF(0.4)
            return faded
        return self._color

    def paint(self, painter: QPainter, rect: QRect, mode: QIcon.Mode, state: QIcon.State) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        paint_icon(painter, QRectF(rect), self._name, self._tint(mode))

    def pixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QPixmap:
        pixmap = QPixmap(size)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        self.paint(painter, pixmap.rect(), mode, state)
        painter.end()
        return pixmap

    def clone(self) -> QIconEngine:
        return _SvgIconEngine(self._name, self._color, self._disabled)


def icon(name: str, color: QColor, disabled: QColor | None = None) -> QIcon:
    return QIcon(_SvgIconEngine(name, color, disabled))
