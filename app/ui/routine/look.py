"""The Routine mode's own look, from the panel's theme: chips, headings, the row table, a problem in plain words."""

from __future__ import annotations

from app.ui.status_pill import your_turn_color
from app.ui.style import Theme, css_color


def routine_stylesheet(t: Theme) -> str:
    c = {name: css_color(getattr(t, name)) for name in Theme.__dataclass_fields__ if name != "dark"}
    turn = your_turn_color(t)
    return f"""
    QScrollArea#RoutineScroll, QScrollArea#RoutineScroll > QWidget > QWidget,
    QScrollArea#RoutinePathArea, QScrollArea#RoutinePathArea > QWidget > QWidget {{
        background: transparent; border: none;
    }}
    QScrollArea#RoutinePathArea:focus {{ border: 2px solid {c["accent"]}; border-radius: 6px; }}
    QLabel#RoutineHeading {{
        color: {c["muted"]}; font-size: 11px; font-weight: 700; letter-spacing: 0.5px; text-transform: uppercase;
        padding-top: 6px;
    }}
    QLabel#RoutineTitle {{ font-size: 15px; font-weight: 700; color: {c["text"]}; }}
    QLabel#RoutineHint {{ color: {c["muted"]}; }}
    QLabel#RoutinePath {{ color: {c["text"]}; }}
    QLabel#RoutineProblem {{
        color: {c["text"]}; background: {css_color(t.soft(t.danger, 0.12))};
        border: 1px solid {css_color(t.soft(t.danger, 0.5))}; border-radius: 8px; padding: 8px 10px;
    }}
    QFrame#YourTurnBar {{
        background: {css_color(t.soft(turn, 0.14))}; border: 1px solid {css_color(t.soft(turn, 0.6))};
        border-radius: 10px;
    }}
    QFrame#YourTurnBar QLabel {{ color: {c["text"]}; }}
    QPushButton#ColumnChip {{
        background: {css_color(t.soft(t.accent, 0.14))}; color: {c["accent"]}; border: 1px solid transparent;
        border-radius: 11px; padding: 2px 10px; font-family: monospace; min-height: 18px;
    }}
    QPushButton#ColumnChip:hover {{ border: 1px solid {c["accent"]}; }}
    QPushButton#ColumnChip:focus {{ border: 2px solid {c["accent"]}; padding: 1px 9px; }}
    QTableView, QTableWidget {{
        background: {c["surface"]}; color: {c["text"]}; border: 1px solid {c["border"]}; border-radius: 8px;
        gridline-color: {c["border"]}; selection-background-color: {css_color(t.soft(t.accent, 0.22))};
        selection-color: {c["text"]};
    }}
    QTableView:focus, QTableWidget:focus {{ border: 2px solid {c["accent"]}; }}
    QCheckBox {{ border: 2px solid transparent; border-radius: 6px; padding: 2px 4px; }}
    QCheckBox:focus {{ border-color: {c["accent"]}; }}
    QTableView QHeaderView::section, QTableWidget QHeaderView::section {{
        background: {c["sunken"]}; color: {c["muted"]}; border: none; border-bottom: 1px solid {c["border"]};
        padding: 3px 6px; font-weight: 600;
    }}
    QProgressBar {{ background: {c["sunken"]}; border: none; border-radius: 4px; }}
    QProgressBar::chunk {{ background: {c["accent"]}; border-radius: 4px; }}
    """


def modes_stylesheet(t: Theme) -> str:
    """The One task | Routine switch: two halves of one rounded control."""
    c = {name: css_color(getattr(t, name)) for name in Theme.__dataclass_fields__ if name != "dark"}
    return f"""
    QPushButton#ModeSegment {{
        background: {c["surface"]}; color: {c["muted"]}; border: 1px solid {c["border"]}; padding: 5px 10px;
        font-weight: 600;
    }}
    QPushButton#ModeSegment[side="left"] {{ border-top-left-radius: 8px; border-bottom-left-radius: 8px; }}
    QPushButton#ModeSegment[side="right"] {{ border-top-right-radius: 8px; border-bottom-right-radius: 8px; }}
    QPushButton#ModeSegment:checked {{
        background: {css_color(t.soft(t.accent, 0.16))}; color: {c["accent"]}; border-color: {c["accent"]};
    }}
    QPushButton#ModeSegment:focus {{ border: 2px solid {c["accent"]}; padding: 4px 9px; }}
    QPushButton#ModeSegment:disabled {{ color: {css_color(t.soft(t.muted, 0.6))}; }}
    """
