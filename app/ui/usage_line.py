"""The line under the timeline that says what the run has used so far: "1.4k tokens in · 80 out"."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from app.core.types import Usage
from app.text.i18n import tr
from app.text.wording import format_tokens


class UsageLine(QLabel):
    """Styled as ``#Footer`` (its padding there: a label's contents margins give way to a style sheet's)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Footer")
        self.setAccessibleName(tr("Token usage"))
        self.setAlignment(Qt.AlignmentFlag.AlignRight)
        self.show_usage(Usage())

    def show_usage(self, usage: Usage) -> None:
        if usage.total_tokens == 0:
            self.setText(" ")  # the line keeps its height
            return
        text = tr(
            "{prompt} tokens in · {completion} out",
            prompt=format_tokens(usage.prompt_tokens),
            completion=format_tokens(usage.completion_tokens),
        )
        self.setText(text)
        self.setAccessibleDescription(text)
