"""The panel's look: a small set of colours chosen for light or dark, following the system palette or the user's
Theme setting.

Widgets read colours from ``theme()``; the style sheet is generated from the same theme so painted cards and
styled widgets always agree. Call ``theme.cache_clear()`` (done by ``apply``) when the palette changes.
``use_theme`` switches the whole app at once: it sets the application palette, and every window restyles itself on
the ApplicationPaletteChange that follows (the panel and the dialogs listen for it).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QWidget

from app.settings.model import ThemeChoice


@dataclass(frozen=True)
class Theme:
    dark: bool
    window: QColor
    surface: QColor  # cards, input
    sunken: QColor  # the timeline's backdrop
    border: QColor
    text: QColor
    muted: QColor
    accent: QColor
    on_accent: QColor
    success: QColor
    warning: QColor
    danger: QColor
    paused: QColor
    neutral: QColor

    def soft(self, color: QColor, strength: float = 0.14) -> QColor:
        """A tint of ``color`` over the surface: badge and banner backgrounds."""
        base = self.surface
        mix = strength * (1.6 if self.dark else 1.0)
        return QColor.fromRgbF(
            base.redF() + (color.redF() - base.redF()) * mix,
            base.greenF() + (color.greenF() - base.greenF()) * mix,
            base.blueF() + (color.blueF() - base.blueF()) * mix,
        )


_LIGHT = dict(
    window="#f4f5f7",
    surface="#ffffff",
    sunken="#eef0f3",
    border="#dfe2e8",
    text="#1c2230",
    muted="#667085",
    accent="#3a66f0",
    on_accent="#ffffff",
    success="#18a048",
    warning="#d07a06",
    danger="#d92d2d",
    paused="#7a45e6",
    neutral="#8a93a3",
)
_DARK = dict(
    window="#181a1f",
    surface="#23262d",
    sunken="#1d2025",
    border="#343842",
    text="#e7e9ee",
    muted="#9aa2b1",
    accent="#6f93ff",
    on_accent="#0d1220",
    success="#3cc46e",
    warning="#f0a23b",
    danger="#f26a6a",
    paused="#a789fa",
    neutral="#7d8595",
)


_choice: ThemeChoice = "system"


def use_theme(choice: ThemeChoice) -> None:
    """Light, dark, or the system's scheme from now on, applied at once to every window of the app."""
    global _choice
    if choice == _choice:
        return
    _choice = choice
    theme.cache_clear()
    app = QApplication.instance()
    if isinstance(app, QApplication):
        # An empty palette hands every colour back to the platform, which then follows the system's changes again.
        app.setPalette(QPalette() if choice == "system" else palette(theme()))


def palette(t: Theme) -> QPalette:
    """The theme as a Qt palette, for what no style sheet reaches (native file choosers, tooltips, scroll areas)."""
    p = QPalette()
    roles = QPalette.ColorRole
    for role, color in (
        (roles.Window, t.window),
        (roles.WindowText, t.text),
        (roles.Base, t.surface),
        (roles.AlternateBase, t.sunken),
        (roles.Text, t.text),
        (roles.Button, t.surface),
        (roles.ButtonText, t.text),
        (roles.Highlight, t.accent),
        (roles.HighlightedText, t.on_accent),
        (roles.ToolTipBase, t.surface),
        (roles.ToolTipText, t.text),
        (roles.PlaceholderText, t.muted),
        (roles.Link, t.accent),
        (roles.Mid, t.border),
        (roles.Dark, t.border),
    ):
        p.setColor(role, color)
    for role in (roles.WindowText, roles.Text, roles.ButtonText):
        p.setColor(QPalette.ColorGroup.Disabled, role, t.muted)
    return p


def _is_dark() -> bool:
    if _choice != "system":
        return _choice == "dark"
    hints = QGuiApplication.styleHints()
    scheme = hints.colorScheme() if hints is not None else Qt.ColorScheme.Unknown
    if scheme != Qt.ColorScheme.Unknown:
        return scheme == Qt.ColorScheme.Dark
    return QGuiApplication.palette().color(QPalette.ColorRole.Window).lightness() < 128


@cache
def theme() -> Theme:
    dark = _is_dark()
    return Theme(dark=dark, **{key: QColor(value) for key, value in (_DARK if dark else _LIGHT).items()})


def css_color(color: QColor) -> str:
    return color.name(QColor.NameFormat.HexArgb) if color.alpha() < 255 else color.name()


def stylesheet(t: Theme) -> str:
    accent_hover = t.accent.lighter(110) if t.dark else t.accent.darker(110)
    danger_hover = t.danger.lighter(110) if t.dark else t.danger.darker(110)
    c = {name: css_color(getattr(t, name)) for name in Theme.__dataclass_fields__ if name != "dark"}
    return f"""
    #Panel {{ background: {c["window"]}; }}
    #Panel QLabel {{ color: {c["text"]}; }}
    #Title {{ font-size: 16px; font-weight: 700; }}
    #Muted, #Footer {{ color: {c["muted"]}; }}
    #Footer {{ font-size: 12px; padding: 6px 16px 2px 16px; }}

    QPushButton {{
        background: {c["surface"]}; color: {c["text"]}; border: 1px solid {c["border"]};
        border-radius: 8px; padding: 7px 14px; font-weight: 600;
    }}
    QPushButton:hover {{ border-color: {css_color(t.muted)}; }}
    QPushButton:focus {{ border: 2px solid {c["accent"]}; padding: 6px 13px; }}
    QPushButton:disabled {{ color: {css_color(t.neutral)}; background: {css_color(t.soft(t.neutral, 0.08))}; }}
    QPushButton[role="primary"] {{
        background: {c["accent"]}; color: {c["on_accent"]}; border: 1px solid {c["accent"]};
    }}
    QPushButton[role="primary"]:hover {{ background: {css_color(accent_hover)}; }}
    QPushButton[role="primary"]:focus {{ border: 2px solid {css_color(t.text)}; }}
    QPushButton[role="primary"]:disabled {{
        background: {css_color(t.soft(t.accent, 0.35))}; border-color: transparent; color: {c["on_accent"]};
    }}
    QPushButton[role="danger"] {{ background: {c["danger"]}; color: #ffffff; border: 1px solid {c["danger"]}; }}
    QPushButton[role="danger"]:hover {{ background: {css_color(danger_hover)}; }}
    QPushButton[role="danger"]:focus {{ border: 2px solid {css_color(t.text)}; }}
    QPushButton[role="danger"]:disabled {{ background: {css_color(t.soft(t.danger, 0.4))}; border-color: transparent; }}
    QPushButton[role="ghost"] {{ background: transparent; border: 1px solid transparent; color: {c["muted"]}; }}
    QPushButton[role="ghost"]:hover {{ color: {c["text"]}; background: {css_color(t.soft(t.neutral, 0.12))}; }}
    QPushButton[role="ghost"]:focus {{ border: 2px solid {c["accent"]}; }}
    QPushButton[role="link"] {{
        background: transparent; border: 1px solid transparent; border-radius: 4px; color: {c["accent"]};
        padding: 0 2px; font-weight: 400; text-decoration: underline;
    }}
    QPushButton[role="link"]:focus {{ border: 1px solid {c["accent"]}; padding: 0 2px; }}

    QToolButton {{ background: transparent; border: 1px solid transparent; border-radius: 8px; padding: 5px; }}
    QToolButton:hover {{ background: {css_color(t.soft(t.neutral, 0.16))}; }}
    QToolButton:focus {{ border: 2px solid {c["accent"]}; padding: 4px; }}

    QPlainTextEdit#TaskInput {{
        background: {c["surface"]}; color: {c["text"]}; border: 1px solid {c["border"]}; border-radius: 10px;
        padding: 8px 10px; font-size: 14px; selection-background-color: {c["accent"]};
        selection-color: {c["on_accent"]};
    }}
    QPlainTextEdit#TaskInput:focus {{ border: 2px solid {c["accent"]}; padding: 7px 9px; }}
    QPlainTextEdit#TaskInput:disabled {{ background: {c["sunken"]}; color: {c["muted"]}; }}

    #Composer {{ background: {c["window"]}; border-top: 1px solid {c["border"]}; }}
    #Header {{ background: {c["window"]}; }}

    #DemoBanner {{
        background: {css_color(t.soft(t.paused, 0.16))}; border: 1px solid {css_color(t.soft(t.paused, 0.45))};
        border-radius: 10px;
    }}
    #DemoBanner QLabel {{ color: {c["text"]}; font-size: 12px; }}
    #HandoffBar {{
        background: {css_color(t.soft(t.warning, 0.14))}; border: 1px solid {css_color(t.soft(t.warning, 0.55))};
        border-radius: 10px;
    }}
    #HandoffBar QLabel {{ color: {c["text"]}; }}
    #ConfirmBar {{
        background: {css_color(t.soft(t.danger, 0.10))}; border: 1px solid {css_color(t.soft(t.danger, 0.5))};
        border-radius: 10px;
    }}
    #ConfirmBar QLabel {{ color: {c["text"]}; }}
    #ConfirmBar QLabel#ConfirmDetail {{ color: {c["muted"]}; font-size: 12px; }}

    QListView#Timeline {{ background: {c["sunken"]}; border: none; outline: none; }}
    QPushButton#JumpToLatest {{
        background: {c["accent"]}; color: {c["on_accent"]}; border: none; border-radius: 14px; padding: 0 16px;
        min-height: 28px; max-height: 28px;
    }}
    QPushButton#JumpToLatest:focus {{ border: 2px solid {css_color(t.text)}; }}

    QScrollBar:vertical {{ background: transparent; width: 10px; margin: 2px; }}
    QScrollBar::handle:vertical {{
        background: {css_color(t.soft(t.neutral, 0.55))}; border-radius: 3px; min-height: 30px;
    }}
    QScrollBar::handle:vertical:hover {{ background: {c["neutral"]}; }}
    QScrollBar::add-line, QScrollBar::sub-line {{ height: 0; }}
    QScrollBar::add-page, QScrollBar::sub-page {{ background: transparent; }}

    QMenu {{ background: {c["surface"]}; color: {c["text"]}; border: 1px solid {c["border"]}; padding: 4px; }}
    QMenu::item {{ padding: 6px 18px; border-radius: 6px; }}
    QMenu::item:selected {{ background: {css_color(t.soft(t.accent, 0.18))}; }}
    QToolTip {{ background: {c["surface"]}; color: {c["text"]}; border: 1px solid {c["border"]}; }}
    """


def apply(widget: QWidget) -> Theme:
    """(Re)style ``widget`` for the theme in use (the Theme setting, or the system's scheme); returns it."""
    theme.cache_clear()
    current = theme()
    widget.setStyleSheet(stylesheet(current))
    return current


def settings_stylesheet(t: Theme) -> str:
    """What the settings dialogs add to the dialog style: tabs, lists, the sites box and a field's error."""
    c = {name: css_color(getattr(t, name)) for name in Theme.__dataclass_fields__ if name != "dark"}
    return f"""
    QTabWidget::pane {{ border: none; border-top: 1px solid {c["border"]}; top: -1px; padding-top: 14px; }}
    QTabBar::tab {{
        background: transparent; color: {c["muted"]}; border: none; border-bottom: 2px solid transparent;
        padding: 6px 14px 7px 14px; margin-right: 2px; font-weight: 600;
    }}
    QTabBar::tab:hover {{ color: {c["text"]}; }}
    QTabBar::tab:selected {{ color: {c["text"]}; border-bottom: 2px solid {c["accent"]}; }}
    QTabBar::tab:focus {{ color: {c["accent"]}; }}
    QScrollArea, QScrollArea > QWidget > QWidget {{ background: transparent; }}
    QListWidget {{
        background: {c["surface"]}; color: {c["text"]}; border: 1px solid {c["border"]}; border-radius: 8px;
        outline: none; padding: 4px;
    }}
    QListWidget::item {{ padding: 4px 6px; border-radius: 5px; }}
    QListWidget::item:selected {{ background: {css_color(t.soft(t.accent, 0.18))}; color: {c["text"]}; }}
    QPlainTextEdit#SitesEdit {{
        background: {c["surface"]}; color: {c["text"]}; border: 1px solid {c["border"]}; border-radius: 7px;
        padding: 3px 4px; selection-background-color: {c["accent"]}; selection-color: {c["on_accent"]};
    }}
    QPlainTextEdit#SitesEdit:focus {{ border: 1px solid {c["accent"]}; }}
    QLabel#FieldError {{ color: {c["danger"]}; font-size: 12px; }}
    """
