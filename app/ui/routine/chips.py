"""The rows file's columns as chips above the task editor: a click puts ``{column}`` where the cursor is."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt, Signal
from PySide6.QtWidgets import QLayout, QLayoutItem, QPushButton, QWidget

from app.text.i18n import tr


class FlowLayout(QLayout):
    """Left to right, wrapping onto the next line when the width runs out."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 6) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._gap = spacing
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:
        return self.minimumSize()

    def minimumSize(self) -> QSize:
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        return size

    def _arrange(self, rect: QRect, *, move: bool) -> int:
        x, y, line = rect.x(), rect.y(), 0
        for item in self._items:
            hint = item.sizeHint()
            if x + hint.width() > rect.right() + 1 and line > 0:
                x, y, line = rect.x(), y + line + self._gap, 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + self._gap
            line = max(line, hint.height())
        return y + line - rect.y()


class ColumnChips(QWidget):
    """One chip per column; ``chosen(column)`` when one is clicked."""

    chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._flow = FlowLayout(self)
        self.chips: list[QPushButton] = []

    def set_columns(self, columns: tuple[str, ...]) -> None:
        for chip in self.chips:
            self._flow.removeWidget(chip)
            chip.deleteLater()
        self.chips = []
        for column in columns:
            chip = QPushButton("{" + column + "}", self)
            chip.setObjectName("ColumnChip")
            chip.setCursor(Qt.CursorShape.PointingHandCursor)
            chip.setToolTip(tr("Insert the value of “{column}” for each row", column=column))
            chip.setAccessibleName(tr("Insert column {column}", column=column))
            chip.clicked.connect(lambda _checked=False, name=column: self.chosen.emit(name))
            self._flow.addWidget(chip)
            self.chips.append(chip)
        self.setVisible(bool(columns))
        self.updateGeometry()
