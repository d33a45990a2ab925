"""A tabbed dialog that fits its screen: as tall as its tallest tab needs at the width it has (so switching tabs never
changes its height), plus whatever message shows below the tabs; never taller than the screen's free area (a page
that does not fit scrolls); shorter again once a message goes, unless the person has resized it themselves.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRect, QSize, Qt, QTimer
from PySide6.QtWidgets import QFrame, QLayout, QScrollArea, QWidget

from app.ui.screen_geometry import cap_to_screen, keep_on_screen, screen_area


class Page(QScrollArea):
    """One tab: its content at full height when the screen has room, scrolled when it has not."""

    def __init__(self, content: QWidget) -> None:
        super().__init__()
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setWidget(content)
        self.content = content
        self.viewport().setAutoFillBackground(False)
        content.setAutoFillBackground(False)

    def sizeHint(self) -> QSize:
        # QScrollArea caps its hint at a few dozen lines; the dialog wants the whole page when it fits. A hidden tab is
        # measured as it will be shown: its layouts brought up to date (Qt activates a layout only while its widget
        # is visible, so the nested ones kept the sizes the fields had before the style sheet gave them their
        # padding), and at the width every tab has, the tabs' stack's (a hidden tab keeps the size it was made
        # with). Measured otherwise, the Agent tab was 354 px tall until seen, then 401: the dialog's height
        # depended on the tabs the person had looked at.
        for widget in [*reversed(self.content.findChildren(QWidget)), self.content]:  # the innermost first
            inner = widget.layout()
            if inner is not None:
                inner.activate()  # nothing to do when up to date
        layout = self.content.layout()
        hint = self.content.sizeHint().expandedTo(self.content.minimumSizeHint())
        stack = self.parentWidget()
        width = (stack.width() if stack is not None else self.width()) - 2 * self.frameWidth()
        if layout is not None and layout.hasHeightForWidth() and width > 0:
            hint.setHeight(max(hint.height(), layout.totalHeightForWidth(width)))
        return hint


class DialogFit(QObject):
    """Looks after ``dialog``'s size; ``root`` is its top layout, ``pages`` its tabs."""

    def __init__(self, dialog: QWidget, root: QLayout, pages: list[Page]) -> None:
        super().__init__(dialog)
        self._dialog = dialog
        self._root = root
        self._pages = pages
        self.available: QRect | None = None  # the area to fit, when not the screen's (tests)
        self._set_height = 0  # the height last given here: another one means the person resized the dialog
        self._page_hints: list[QSize] = []  # the pages' size hints at the last measure
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.refit)
        dialog.installEventFilter(self)

    def watch(self, page: Page) -> None:
        page.content.installEventFilter(self)

    def fit(self, available: QRect | None = None) -> None:
        """As wide and tall as the content asks, within ``available`` (by default the screen's free area)."""
        if available is not None:
            self.available = available
        dialog = self._dialog
        room = cap_to_screen(dialog, self.available or screen_area(dialog))
        hint = self._root.sizeHint()
        self._resize(max(dialog.width(), min(hint.width(), room.width())), min(hint.height(), room.height()))

    def refit(self) -> None:
        """Follow the content's height now (a message came or went), unless the person chose a height."""
        dialog = self._dialog
        if self._set_height and dialog.height() != self._set_height:
            wanted = max(dialog.height(), self._natural())  # theirs, but never cutting off a message
        else:
            wanted = self._natural()
        if wanted != dialog.height():
            self._resize(dialog.width(), wanted)
            keep_on_screen(dialog, self.available)

    def _natural(self) -> int:
        # A page's hint follows its content, which Qt does not know of: tell it, but only of a hint that changed. Told
        # every time, the layouts would ask for a refit in reply and the dialog measure itself on every turn.
        hints = [page.sizeHint() for page in self._pages]
        if hints != self._page_hints:
            self._page_hints = hints
            for page in self._pages:
                page.updateGeometry()
            self._root.invalidate()
        return min(self._root.sizeHint().height(), self._dialog.maximumHeight())

    def _resize(self, width: int, height: int) -> None:
        self._dialog.resize(width, height)
        self._set_height = self._dialog.height()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # A page's content or the dialog's own layout changed size: the height may follow, on the next turn.
        if event.type() == QEvent.Type.LayoutRequest:
            self._timer.start()
        return False
