"""The dialogs' style sheet (the panel's, plus form fields, sections, messages, lists), kept up to date when the
theme changes, and each dialog kept inside the screen when it is shown."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QWidget

from app.ui import style
from app.ui.dialog_widgets import Tone
from app.ui.placement.screen_geometry import keep_on_screen
from app.ui.style import Theme, css_color

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

    QLineEdit, QAbstractSpinBox, QComboBox {{
        background: {c["surface"]}; color: {c["text"]}; border: 1px solid {c["border"]}; border-radius: 7px;
        padding: 5px 8px; min-height: 20px; selection-background-color: {c["accent"]};
        selection-color: {c["on_accent"]};
    }}
    QLineEdit:focus, QAbstractSpinBox:focus, QComboBox:focus {{ border: 1px solid {c["accent"]}; }}
    QLineEdit:disabled {{ background: {c["sunken"]}; color: {c["muted"]}; }}
    QComboBox::drop-down {{ subcontrol-origin: padding; subcontrol-position: center right; border: none; width: 24px; }}
    QComboBox::down-arrow {{ image: url({_chevron("down", c["muted"])}); width: 12px; height: 12px; }}
    QAbstractSpinBox {{ padding-right: 28px; }}
    QAbstractSpinBox::up-button, QAbstractSpinBox::down-button {{
        subcontrol-origin: border; width: 24px; border: none; border-left: 1px solid {c["border"]};
    }}
    QAbstractSpinBox::up-button {{ subcontrol-position: top right; border-top-right-radius: 7px; }}
    QAbstractSpinBox::down-button {{ subcontrol-position: bottom right; border-bottom-right-radius: 7px; }}
    QAbstractSpinBox::up-button:hover, QAbstractSpinBox::down-button:hover {{
        background: {css_color(t.soft(t.neutral, 0.16))};
    }}
    QAbstractSpinBox::up-arrow {{ image: url({_chevron("up", c["muted"])}); width: 10px; height: 10px; }}
    QAbstractSpinBox::down-arrow {{ image: url({_chevron("down", c["muted"])}); width: 10px; height: 10px; }}
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
