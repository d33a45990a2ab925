"""The panel's keys, wherever the keyboard is in it: Esc stops, Ctrl+Enter runs (or answers, or continues: what the
task box would do), Ctrl+H opens History, Ctrl+, Settings, and Ctrl+Q quits (asking first during a run); and Tab's
order where Qt's own (the order widgets were made in) is not the reading order."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QWidget


def install_shortcuts(
    window: QWidget,
    *,
    stop: Callable[[], None],
    submit: Callable[[], None],
    history: Callable[[], None],
    settings: Callable[[], None],
) -> None:
    keys: list[tuple[QKeySequence, Callable[[], object]]] = [
        (QKeySequence(Qt.Key.Key_Escape), stop),
        (QKeySequence("Ctrl+Return"), submit),
        (QKeySequence("Ctrl+Enter"), submit),
        (QKeySequence("Ctrl+H"), history),
        (QKeySequence("Ctrl+,"), settings),
        (QKeySequence(QKeySequence.StandardKey.Quit), window.close),
        (QKeySequence("Ctrl+Q"), window.close),  # the standard key is none on some desktops
    ]
    seen: set[str] = set()
    for sequence, action in keys:
        if sequence.isEmpty() or sequence.toString() in seen:
            continue
        seen.add(sequence.toString())
        shortcut = QShortcut(sequence, window)
        shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        shortcut.activated.connect(action)


def tab_chain(*widgets: QWidget) -> None:
    """Tab goes through ``widgets`` in this order (Shift+Tab back)."""
    for first, second in pairwise(widgets):
        QWidget.setTabOrder(first, second)
