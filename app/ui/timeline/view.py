"""The timeline's list view: follows new items unless the user scrolled up, then offers "Jump to latest"."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QModelIndex, QPoint, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QContextMenuEvent,
    QFocusEvent,
    QGuiApplication,
    QKeyEvent,
    QKeySequence,
    QPainter,
    QPaintEvent,
    QPen,
    QResizeEvent,
)
from PySide6.QtWidgets import QAbstractItemView, QGraphicsDropShadowEffect, QListView, QMenu, QPushButton, QWidget

from app.text.i18n import tr
from app.ui.icons import icon, paint_icon
from app.ui.style import theme
from app.ui.timeline.card import MARGIN_X, MARGIN_Y
from app.ui.timeline.delegate import TimelineDelegate
from app.ui.timeline.items import StepItem
from app.ui.timeline.model import TimelineModel

# Within this many pixels of the end counts as "at the bottom" (so a stray wheel tick doesn't stop following).
_BOTTOM_SLACK = 24


class TimelineView(QListView):
    def __init__(self, model: TimelineModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Timeline")
        self._delegate = TimelineDelegate(self)
        self.setItemDelegate(self._delegate)
        self._model = model
        self.setModel(model)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.verticalScrollBar().setSingleStep(24)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setUniformItemSizes(False)
        self.setMouseTracking(True)
        self.viewport().setAttribute(Qt.WidgetAttribute.WA_Hover)  # hovered cards get a stronger border
        self.setSpacing(0)
        self.viewport().setAutoFillBackground(True)
        self._follow = True

        self._jump = QPushButton(self)
        self._jump.setObjectName("JumpToLatest")
        self._jump.setCursor(Qt.CursorShape.PointingHandCursor)
        self._jump.hide()
        self._jump.clicked.connect(self.jump_to_latest)
        shadow = QGraphicsDropShadowEffect(self._jump)
        shadow.setBlurRadius(14)
        shadow.setOffset(0, 2)
        shadow.setColor(QColor(0, 0, 0, 70))
        self._jump.setGraphicsEffect(shadow)

        bar = self.verticalScrollBar()
        bar.rangeChanged.connect(self._on_range_changed)
        bar.valueChanged.connect(self._on_scrolled)
        self.clicked.connect(self.toggle)
        model.modelReset.connect(self._on_reset)
        self.retranslate()
        self.refresh_theme()

    @property
    def timeline(self) -> TimelineModel:
        return self._model

    @property
    def following(self) -> bool:
        return self._follow

    @property
    def jump_button(self) -> QPushButton:
        return self._jump

    def jump_to_latest(self) -> None:
        self._follow = True
        self.scrollToBottom()
        self._jump.hide()

    def toggle(self, index: QModelIndex) -> None:
        """Expand or collapse a card's long text."""
        if index.isValid():
            self.timeline.toggle_expanded(index.row())
            self._delegate.sizeHintChanged.emit(index)

    def copy_current(self) -> None:
        index = self.currentIndex()
        if index.isValid():
            QGuiApplication.clipboard().setText(index.data(Qt.ItemDataRole.DisplayRole))

    def copy_all(self) -> None:
        model = self.timeline
        texts = [model.data(model.index(row)) for row in range(model.rowCount())]
        QGuiApplication.clipboard().setText("\n\n".join(texts))

    def retranslate(self) -> None:
        """Every word in the current language, the cards' included (they are laid out again)."""
        self.setAccessibleName(tr("Timeline"))
        self.setAccessibleDescription(
            tr(
                "The task's steps, newest at the bottom. Up and Down move between them, "
                "Enter shows a step's details; Ctrl+C copies."
            )
        )
        self._jump.setText(tr("Jump to latest"))
        self._jump.setAccessibleName(tr("Jump to latest step"))
        self._place_jump()
        self._delegate.forget()
        self.scheduleDelayedItemsLayout()
        self.viewport().update()

    def refresh_theme(self) -> None:
        self._delegate.refresh_theme()
        self._jump.setIcon(icon("arrow-down", theme().on_accent))
        self.scheduleDelayedItemsLayout()

    # --- following the tail ------------------------------------------------------------------------------------

    def _at_bottom(self) -> bool:
        bar = self.verticalScrollBar()
        return bar.value() >= bar.maximum() - _BOTTOM_SLACK

    def _on_range_changed(self, _minimum: int, maximum: int) -> None:
        if self._follow:
            self.verticalScrollBar().setValue(maximum)
        self._update_jump()

    def _on_scrolled(self, _value: int) -> None:
        self._follow = self._at_bottom()
        self._update_jump()

    def _on_reset(self) -> None:
        self._follow = True
        self._delegate.forget()
        self._update_jump()

    def _update_jump(self) -> None:
        show = not self._follow and self.model().rowCount() > 0
        if show != self._jump.isVisible():
            self._jump.setVisible(show)
            self._place_jump()

    def _place_jump(self) -> None:
        self._jump.adjustSize()
        size = self._jump.sizeHint()
        self._jump.move((self.width() - size.width()) // 2, self.height() - size.height() - 14)
        self._jump.raise_()

    # --- events ------------------------------------------------------------------------------------------------

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place_jump()

    def focusInEvent(self, event: QFocusEvent) -> None:
        """Tabbing in lands on a card at once (the newest while following, else the first one in sight), so Up,
        Down and Enter work without a click first."""
        chosen = self.currentIndex().isValid()
        super().focusInEvent(event)  # Qt would make the first card (the task, far above) the current one
        self.viewport().update()  # the focus ring
        if chosen or self.model().rowCount() == 0:
            return
        model = self.timeline
        index = self.indexAt(self.viewport().rect().topLeft() + QPoint(int(MARGIN_X) + 1, int(MARGIN_Y) + 1))
        if self._follow or not index.isValid():
            index = model.index(model.rowCount() - 1)
        self.setCurrentIndex(index)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        self.viewport().update()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy_current()
            return
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space) and self.currentIndex().isValid():
            self.toggle(self.currentIndex())
            return
        super().keyPressEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        index = self.indexAt(event.pos())
        menu = QMenu(self)
        if index.isValid():
            self.setCurrentIndex(index)
            menu.addAction(tr("Copy"), QKeySequence(QKeySequence.StandardKey.Copy), self.copy_current)
            item = self.timeline.item(index.row())
            if isinstance(item, StepItem):
                label = tr("Hide details") if item.expanded else tr("Details")
            else:
                label = tr("Show less") if item.expanded else tr("Show more")
            menu.addAction(label, lambda: self.toggle(index))
        menu.addAction(tr("Copy the whole timeline"), self.copy_all).setEnabled(self.model().rowCount() > 0)
        menu.exec(event.globalPos())

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.FontChange):
            self.refresh_theme()
        elif event.type() == QEvent.Type.LanguageChange:
            self.retranslate()

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self.model().rowCount() == 0:
            self._paint_empty()
        if self.hasFocus():  # the focus ring a Tab stop shows (the list itself has no border to colour)
            painter = QPainter(self.viewport())
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(QPen(theme().accent, 2))
            painter.drawRoundedRect(QRectF(self.viewport().rect()).adjusted(1, 1, -1, -1), 6, 6)
            painter.end()

    def _paint_empty(self) -> None:
        """A friendly first screen instead of a blank list."""
        t = theme()
        painter = QPainter(self.viewport())
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        area = QRectF(self.viewport().rect()).adjusted(36, 0, -36, 0)
        top = area.center().y() - 90
        paint_icon(painter, QRectF(area.center().x() - 22, top, 44, 44), "sparkle", t.soft(t.accent, 0.7))
        title = painter.font()
        title.setPointSizeF(title.pointSizeF() * 1.25)
        title.setWeight(title.Weight.DemiBold)
        painter.setFont(title)
        painter.setPen(t.text)
        painter.drawText(
            QRectF(area.left(), top + 56, area.width(), 30),
            Qt.AlignmentFlag.AlignCenter,
            tr("What should the agent do?"),
        )
        body = self.font()
        painter.setFont(body)
        painter.setPen(t.muted)
        painter.drawText(
            QRectF(area.left(), top + 90, area.width(), 120),
            Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap,
            tr(
                "Describe a task in plain words below, for example “Fill in the new-customer form with these "
                "details…”. You can watch every step here and in the browser, and stop at any time."
            ),
        )
        painter.end()
