"""Paints timeline items as cards and measures them: what each kind of item's card says, in which colours and fonts;
layouts (app/ui/timeline/card.py) are cached per item, width and expansion."""

from __future__ import annotations

from typing import assert_never

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QFont,
    QFontDatabase,
    QFontMetricsF,
    QPainter,
    QPen,
)
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from app.core.types import RunOutcome, StepEvent, UserTakeoverEvent
from app.text.i18n import tr
from app.text.wording import (
    Reading,
    action_details,
    action_failed,
    describe_action,
    describe_outcome,
    evaluation_reading,
    failure_words,
    format_duration,
    takeover_title,
)
from app.ui.style import Theme, theme
from app.ui.timeline.card import (
    GAP,
    ICON,
    MARGIN_X,
    MARGIN_Y,
    PAD,
    RADIUS,
    BadgeOp,
    CardBuilder,
    CardLayout,
    DocOp,
    IconOp,
    TextOp,
    markdown_document,
    paint_op,
)
from app.ui.timeline.items import (
    AnswerItem,
    ErrorItem,
    NoticeItem,
    ObservationItem,
    QuestionItem,
    ResultItem,
    RetryItem,
    StepItem,
    TakeoverItem,
    TaskItem,
    TimelineItem,
)
from app.ui.timeline.model import TimelineModel


class TimelineDelegate(QStyledItemDelegate):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._cache: dict[int, tuple[tuple[float, bool], CardLayout]] = {}
        self.refresh_theme()

    # --- fonts and colours -------------------------------------------------------------------------------------

    def refresh_theme(self) -> None:
        """Drop every cached layout (colours and fonts live in them) after a palette or font change."""
        self.theme: Theme = theme()
        base = QFont()
        size = base.pointSizeF() if base.pointSizeF() > 0 else 10.0
        self.body_font = QFont(base)
        self.body_font.setPointSizeF(size)
        self.title_font = QFont(base)
        self.title_font.setPointSizeF(size * 1.02)
        self.title_font.setWeight(QFont.Weight.DemiBold)
        self.task_font = QFont(base)
        self.task_font.setPointSizeF(size * 1.1)
        self.task_font.setWeight(QFont.Weight.Medium)
        self.small_font = QFont(base)
        self.small_font.setPointSizeF(size * 0.88)
        self.label_font = QFont(self.small_font)
        self.label_font.setPointSizeF(size * 0.78)
        self.label_font.setWeight(QFont.Weight.DemiBold)
        self.label_font.setLetterSpacing(QFont.SpacingType.PercentageSpacing, 106)
        self.emoji_font = any("emoji" in family.lower() for family in QFontDatabase.families())
        self.mono_font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.mono_font.setPointSizeF(size * 0.88)
        self._cache.clear()

    def forget(self) -> None:
        self._cache.clear()

    # --- Qt delegate -------------------------------------------------------------------------------------------

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        layout = self._layout(index, self._card_width(option))
        return QSize(int(option.rect.width()), int(layout.height + 2 * MARGIN_Y + 0.999))

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        width = self._card_width(option)
        layout = self._layout(index, width)
        t = self.theme
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        origin = QPointF(option.rect.left() + MARGIN_X, option.rect.top() + MARGIN_Y)
        card = QRectF(origin, QSize(int(width), int(layout.height)))
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        hovered = bool(option.state & QStyle.StateFlag.State_MouseOver)
        if option.state & QStyle.StateFlag.State_HasFocus:
            # The keyboard's current card: a ring around it, so Up/Down/Enter visibly act on something.
            painter.setPen(QPen(t.accent, 2.0))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(card.adjusted(-2.5, -2.5, 2.5, 2.5), RADIUS + 2, RADIUS + 2)
        if layout.card or selected:
            border = t.accent if selected else (t.muted if hovered and layout.card else layout.border)
            painter.setPen(QPen(border, 1.6 if selected else 1.0))
            painter.setBrush(layout.fill)
            painter.drawRoundedRect(card.adjusted(0.5, 0.5, -0.5, -0.5), RADIUS, RADIUS)
            if layout.stripe is not None:
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(layout.stripe)
                painter.drawRoundedRect(QRectF(card.left() + 1, card.top() + 8, 3, card.height() - 16), 1.5, 1.5)
        painter.translate(origin)
        for op in layout.ops:
            paint_op(painter, op, t.text)
        painter.restore()

    # --- layout ------------------------------------------------------------------------------------------------

    def _card_width(self, option: QStyleOptionViewItem) -> float:
        view = self.parent()
        available = view.viewport().width() if isinstance(view, QWidget) and hasattr(view, "viewport") else 0
        return max(160.0, float(available or option.rect.width()) - 2 * MARGIN_X)

    @staticmethod
    def _item(index: QModelIndex | QPersistentModelIndex) -> TimelineItem:
        item: TimelineItem = index.data(TimelineModel.ItemRole)
        return item

    def _layout(
        self, index: QModelIndex | QPersistentModelIndex, width: float, expanded: bool | None = None
    ) -> CardLayout:
        item = self._item(index)
        expanded = item.expanded if expanded is None else expanded
        key = (width, expanded)
        cache_key = item.uid * 2 + int(expanded)
        cached = self._cache.get(cache_key)
        if cached is not None and cached[0] == key:
            return cached[1]
        layout = self._build(item, width, expanded)
        if isinstance(item, StepItem):  # every step has its raw action one click away
            self._add_toggle(layout, width, tr("Hide details") if expanded else tr("Details"))
        elif layout.elided or (expanded and self._layout(index, width, expanded=False).elided):
            self._add_toggle(layout, width, tr("Show less") if expanded else tr("Show more"))
        self._cache[cache_key] = (key, layout)
        return layout

    def _add_toggle(self, layout: CardLayout, width: float, text: str) -> None:
        """The "Show more" / "Show less" link under an elided or expanded card."""
        metrics = QFontMetricsF(self.small_font)
        x = width - PAD - metrics.horizontalAdvance(text)
        layout.ops.append(
            TextOp(QPointF(x, layout.height - PAD + metrics.ascent()), text, self.small_font, self.theme.accent)
        )
        layout.height += metrics.lineSpacing()

    def _build(self, item: TimelineItem, width: float, expanded: bool) -> CardLayout:
        b = CardBuilder(self, width, expanded)
        t = self.theme
        match item:
            case TaskItem():
                b.text(tr("FOLLOW-UP") if item.follow_up else tr("TASK"), self.label_font, t.accent, spacing=3)
                b.text(item.text, self.task_font, t.text, max_lines=6)
                return b.finish(t.soft(t.accent, 0.35), t.soft(t.accent, 0.08))
            case StepItem():
                return self._build_step(b, item.event)
            case ObservationItem():
                b.icon_text("eye", t.muted, item.message, self.small_font, t.muted, max_lines=2)
                return b.finish(t.border, t.sunken, card=False)
            case RetryItem():
                b.icon_text("retry", t.warning, item.message, self.small_font, t.muted, max_lines=2)
                return b.finish(t.border, t.sunken, card=False)
            case ErrorItem():
                # An error is read whole, however long: it says what went wrong and what to do.
                b.icon_text("x-circle", t.danger, item.message, self.body_font, t.text, max_lines=None)
                return b.finish(t.soft(t.danger, 0.45), t.soft(t.danger, 0.07), stripe=t.danger)
            case TakeoverItem():
                return self._build_takeover(b, item.event)
            case QuestionItem():
                b.icon_text("chat", t.paused, tr("The agent asks you"), self.title_font, t.paused)
                b.text(item.text, self.task_font, t.text, max_lines=8)
                return b.finish(t.soft(t.paused, 0.5), t.soft(t.paused, 0.09), stripe=t.paused)
            case AnswerItem():
                b.icon_text("user", t.accent, tr("Your answer"), self.label_font, t.accent)
                b.text(item.text, self.body_font, t.text)
                return b.finish(t.soft(t.accent, 0.35), t.soft(t.accent, 0.08))
            case ResultItem():
                return self._build_result(b, item)
            case NoticeItem():
                b.text(item.text, self.small_font, t.muted, max_lines=4)
                return b.finish(t.border, t.sunken, card=False)
            case _:
                assert_never(item)

    def _build_step(self, b: CardBuilder, step: StepEvent) -> CardLayout:
        t = self.theme
        # Header: a round step number, the action in words, and the duration at the right.
        number = str(step.step_index)
        metrics = QFontMetricsF(self.small_font)
        badge_w = max(22.0, metrics.horizontalAdvance(number) + 12)
        title_metrics = QFontMetricsF(self.title_font)
        badge_h = 20.0
        b.ops.append(
            BadgeOp(
                QRectF(PAD, b.y + (title_metrics.height() - badge_h) / 2, badge_w, badge_h),
                number,
                self.small_font,
                t.accent,
                t.soft(t.accent, 0.16),
            )
        )
        duration = format_duration(step.duration)
        duration_w = metrics.horizontalAdvance(duration)
        b.ops.append(
            TextOp(
                QPointF(b.width - PAD - duration_w, b.y + title_metrics.ascent()), duration, self.small_font, t.muted
            )
        )
        x = PAD + badge_w + 8
        b.text(
            describe_action(step.action.name, step.action.input, step.action.target),
            self.title_font,
            t.text,
            x=x,
            width=b.width - x - PAD - duration_w - 10,
            max_lines=2,
            spacing=GAP + 2,
        )

        reflection = step.reflection
        if reflection.evaluation_previous_goal:
            reading, rest = evaluation_reading(reflection.evaluation_previous_goal)
            icon, color = {
                Reading.SUCCESS: ("check-circle", t.success),
                Reading.FAILURE: ("x-circle", t.danger),
                Reading.UNKNOWN: ("question-circle", t.neutral),
            }[reading]
            b.icon_text(icon, color, rest or reflection.evaluation_previous_goal, self.body_font, t.text)
        if reflection.memory:
            b.labelled(tr("Memory"), reflection.memory, t.muted)
        if reflection.next_goal:
            b.labelled(tr("Next goal"), reflection.next_goal)
        if action_failed(step):
            b.icon_text("x-circle", t.danger, failure_words(step), self.small_font, t.danger)
        if b.expanded:
            b.labelled(tr("Details"), action_details(step), t.muted, self.mono_font)
        return b.finish(t.border, t.surface)

    def _build_takeover(self, b: CardBuilder, event: UserTakeoverEvent) -> CardLayout:
        t = self.theme
        b.icon_text("hand", t.paused, takeover_title(event), self.title_font, t.text)
        if event.after_url and event.after_url != event.before_url:
            b.labelled(tr("Now on"), f"{event.after_title or event.after_url}\n{event.after_url}", t.muted)
        elif event.after_title:
            b.labelled(tr("Still on"), event.after_title, t.muted)
        if event.note:
            b.labelled(tr("Your note"), event.note)
        return b.finish(t.soft(t.paused, 0.45), t.soft(t.paused, 0.07), stripe=t.paused)

    def _build_result(self, b: CardBuilder, item: ResultItem) -> CardLayout:
        t = self.theme
        outcome = item.outcome
        color, icon = {
            RunOutcome.SUCCESS: (t.success, "check-circle"),
            RunOutcome.FAILED: (t.warning, "warning"),
            RunOutcome.ERROR: (t.danger, "x-circle"),
            RunOutcome.STOPPED: (t.neutral, "stop-circle"),
            RunOutcome.NEEDS_PERSON: (t.paused, "hand"),
        }[outcome]
        label = describe_outcome(outcome)
        metrics = QFontMetricsF(self.title_font)
        badge_w = metrics.horizontalAdvance(label) + 44
        badge_h = metrics.height() + 8
        b.ops.append(BadgeOp(QRectF(PAD, b.y, badge_w, badge_h), label, self.title_font, color, t.soft(color, 0.18)))
        b.ops.append(IconOp(QRectF(PAD + 8, b.y + (badge_h - ICON) / 2, ICON, ICON), icon, color))
        b.y += badge_h + GAP + 4
        if item.text:
            # The outcome is read whole, never cut: a report's last section or an error's advice matters most.
            doc = markdown_document(item.message, b.inner, self)
            height = doc.size().height()
            b.ops.append(DocOp(QPointF(PAD - 4, b.y), doc, height))
            b.y += height + GAP
        return b.finish(t.soft(color, 0.6), t.surface, stripe=color)
