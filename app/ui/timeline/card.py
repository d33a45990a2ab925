"""A timeline card's layout: the paint operations it is made of (text lines, icons, badges, a Markdown document),
laid out once top to bottom by ``CardBuilder`` and then only drawn (``paint_op``), so scrolling never shapes text."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextLayout,
    QTextOption,
)

from app.text.wording import displayable
from app.ui.icons import paint_icon
from app.ui.style import Theme

MARGIN_X = 12.0
MARGIN_Y = 5.0
PAD = 12.0
RADIUS = 10.0
ICON = 16.0
GAP = 6.0
# Collapsed cards show this many lines per section; a click shows everything (and a step's Details).
COLLAPSED_LINES = 3


class CardLook(Protocol):
    """The theme and fonts a card is laid out with (the delegate's, refreshed when the theme changes)."""

    theme: Theme
    body_font: QFont
    label_font: QFont
    emoji_font: bool  # whether the system has an emoji font (else emoji are shown as text)


@dataclass
class TextOp:
    pos: QPointF
    text: str
    font: QFont
    color: QColor


@dataclass
class IconOp:
    rect: QRectF
    name: str
    color: QColor


@dataclass
class BadgeOp:
    rect: QRectF
    text: str
    font: QFont
    fg: QColor
    bg: QColor


@dataclass
class DocOp:
    pos: QPointF
    doc: QTextDocument
    height: float


PaintOp = TextOp | IconOp | BadgeOp | DocOp


@dataclass
class CardLayout:
    height: float
    card: bool  # False: a quiet inline row without a card
    border: QColor
    fill: QColor
    stripe: QColor | None = None
    ops: list[PaintOp] = field(default_factory=list)
    elided: bool = False


def wrap(text: str, font: QFont, width: float, max_lines: int | None) -> tuple[list[str], bool]:
    """Word-wrapped lines of ``text`` in ``width``; with ``max_lines`` the last kept line ends in an ellipsis."""
    text = text.replace("\r\n", "\n").replace("\n", "\u2028")
    layout = QTextLayout(text, font)
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    layout.setTextOption(option)
    spans: list[tuple[int, int]] = []
    layout.beginLayout()
    while True:
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLineWidth(width)
        spans.append((line.textStart(), line.textLength()))
    layout.endLayout()
    lines = [text[start : start + length].rstrip("\u2028") for start, length in spans]
    if max_lines is None or len(lines) <= max_lines:
        return lines, False
    rest = text[spans[max_lines - 1][0] :].replace("\u2028", " ")
    last = QFontMetricsF(font).elidedText(rest, Qt.TextElideMode.ElideRight, width)
    return [*lines[: max_lines - 1], last], True


class CardBuilder:
    """Lays out one card top to bottom; x/y are relative to the card's top-left corner."""

    def __init__(self, look: CardLook, width: float, expanded: bool) -> None:
        self.d = look
        self.t = look.theme
        self.width = width
        self.expanded = expanded
        self.y = PAD
        self.ops: list[PaintOp] = []
        self.elided = False

    @property
    def inner(self) -> float:
        return self.width - 2 * PAD

    def text(
        self,
        text: str,
        font: QFont,
        color: QColor,
        *,
        x: float = PAD,
        width: float | None = None,
        max_lines: int | None = COLLAPSED_LINES,
        spacing: float = GAP,
    ) -> None:
        width = width if width is not None else self.width - PAD - x
        limit = None if self.expanded else max_lines
        lines, elided = wrap(displayable(text, self.d.emoji_font), font, max(20.0, width), limit)
        self.elided |= elided
        metrics = QFontMetricsF(font)
        for line in lines:
            self.ops.append(TextOp(QPointF(x, self.y + metrics.ascent()), line, font, color))
            self.y += metrics.lineSpacing()
        self.y += spacing

    def icon_text(
        self,
        icon: str,
        icon_color: QColor,
        text: str,
        font: QFont,
        color: QColor,
        max_lines: int | None = COLLAPSED_LINES,
    ) -> None:
        metrics = QFontMetricsF(font)
        size = min(ICON, metrics.height())
        self.ops.append(IconOp(QRectF(PAD, self.y + (metrics.height() - size) / 2, size, size), icon, icon_color))
        self.text(text, font, color, x=PAD + size + 7, max_lines=max_lines)

    def labelled(self, label: str, text: str, color: QColor | None = None, font: QFont | None = None) -> None:
        """A small caps label ("MEMORY") above its text."""
        self.text(label.upper(), self.d.label_font, self.t.muted, spacing=2)
        self.text(text, font or self.d.body_font, color or self.t.text)

    def finish(self, border: QColor, fill: QColor, stripe: QColor | None = None, card: bool = True) -> CardLayout:
        return CardLayout(
            height=self.y - GAP + PAD,
            card=card,
            border=border,
            fill=fill,
            stripe=stripe,
            ops=self.ops,
            elided=self.elided,
        )


def markdown_document(text: str, width: float, look: CardLook) -> QTextDocument:
    """``text`` as Markdown (no HTML) in the card's body font, ``width`` wide, its headings at a card title's size."""
    doc = QTextDocument()
    doc.setDefaultFont(look.body_font)
    doc.setDocumentMargin(4)
    doc.setIndentWidth(16)
    option = doc.defaultTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)  # a long address wraps too
    doc.setDefaultTextOption(option)
    # No HTML: an error quoting "<input label=…>" would otherwise lose everything from the tag on.
    features = QTextDocument.MarkdownFeature(
        QTextDocument.MarkdownFeature.MarkdownDialectGitHub.value | QTextDocument.MarkdownFeature.MarkdownNoHTML.value
    )
    doc.setMarkdown(displayable(text, look.emoji_font), features)
    _tame_headings(doc, look.body_font.pointSizeF())
    doc.setTextWidth(width + 8)
    return doc


def _tame_headings(doc: QTextDocument, size: float) -> None:
    """Markdown headings at the size of a card title: reports use them for sections, not for banners."""
    cursor = QTextCursor(doc)
    block = doc.begin()
    while block.isValid():
        level = block.blockFormat().headingLevel()
        if level:
            cursor.setPosition(block.position())
            cursor.setPosition(block.position() + block.length() - 1, QTextCursor.MoveMode.KeepAnchor)
            chars = QTextCharFormat()
            chars.setProperty(QTextFormat.Property.FontSizeAdjustment, 0)
            chars.setFontPointSize(size * (1.12 if level <= 2 else 1.0))
            chars.setFontWeight(QFont.Weight.DemiBold)
            cursor.mergeCharFormat(chars)
            layout = block.blockFormat()
            layout.setTopMargin(8 if block != doc.begin() else 0)
            layout.setBottomMargin(3)
            cursor.setBlockFormat(layout)
        block = block.next()


def paint_op(painter: QPainter, op: PaintOp, text_color: QColor) -> None:
    """Draw one of a card's operations; ``painter`` is at the card's top-left corner."""
    match op:
        case TextOp():
            if op.text:
                painter.setFont(op.font)
                painter.setPen(op.color)
                painter.drawText(op.pos, op.text)
        case IconOp():
            paint_icon(painter, op.rect, op.name, op.color)
        case BadgeOp():
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(op.bg)
            radius = op.rect.height() / 2
            painter.drawRoundedRect(op.rect, radius, radius)
            painter.setFont(op.font)
            painter.setPen(op.fg)
            rect = op.rect.adjusted(30, 0, -8, 0) if op.rect.width() > 60 else op.rect
            align = Qt.AlignmentFlag.AlignVCenter | (
                Qt.AlignmentFlag.AlignLeft if op.rect.width() > 60 else Qt.AlignmentFlag.AlignHCenter
            )
            painter.drawText(rect, align, op.text)
        case DocOp():
            painter.save()
            painter.translate(op.pos)
            clip = QRectF(0, 0, op.doc.textWidth(), op.height)
            painter.setClipRect(clip)
            context = QAbstractTextDocumentLayout.PaintContext()
            context.clip = clip
            context.palette.setColor(context.palette.ColorRole.Text, text_color)
            op.doc.documentLayout().draw(painter, context)
            painter.restore()
