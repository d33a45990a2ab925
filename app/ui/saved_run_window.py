"""A past run, read-only, in a window of its own: opening it never touches the panel's live run (nor a hand-off
that waits for the user)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.background import Background
from app.history.records import RunRecord
from app.text.counts import steps_count
from app.text.i18n import tr
from app.text.wording import describe_outcome
from app.ui.dialog_style import apply_dialog_style
from app.ui.dialog_widgets import MessageArea, Tone, small_label
from app.ui.history_view import spend_text
from app.ui.run_export import ExportFormat, choose_export_file, write_export
from app.ui.timeline.model import TimelineModel
from app.ui.timeline.view import TimelineView


class SavedRunWindow(QDialog):
    def __init__(self, record: RunRecord, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # A window of its own (minimise, move behind), not a dialog pinned over the panel.
        self.setWindowFlag(Qt.WindowType.Window)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setObjectName("SavedRunWindow")
        self.record = record
        self._background = Background("saved run window")
        when = record.started_at.astimezone().strftime("%Y-%m-%d %H:%M")
        self.setWindowTitle(tr("Saved run · {when}", when=when))
        self.model = TimelineModel(self)
        for task in record.tasks:
            self.model.add_finished_run(task.task, task.to_result(), follow_up=task.follow_up)
        self._build(when)
        apply_dialog_style(self)
        self.resize(560, 640)

    def _build(self, when: str) -> None:
        label = describe_outcome(self.record.outcome)
        facts = " · ".join(
            [
                when,
                label,
                steps_count(self.record.steps),
                spend_text(self.record.demo, self.record.replay, self.record.usage.total_tokens),
            ]
        )
        title = QLabel(tr("Saved run"), self)
        title.setObjectName("DialogTitle")
        self.facts = small_label(self, facts + "\n" + tr("Read-only: your current task in the panel goes on."))
        self.timeline = TimelineView(self.model, self)
        self.timeline.setAccessibleName(tr("Saved run"))
        self.message = MessageArea(self)
        self.html_button = QPushButton(tr("Export HTML…"), self)
        self.json_button = QPushButton(tr("Export JSON…"), self)
        self.close_button = QPushButton(tr("Close"), self)
        self.close_button.setProperty("role", "primary")
        buttons = QHBoxLayout()
        buttons.setSpacing(8)
        buttons.addWidget(self.html_button)
        buttons.addWidget(self.json_button)
        buttons.addStretch(1)
        buttons.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 18, 20, 16)
        layout.setSpacing(10)
        layout.addWidget(title)
        layout.addWidget(self.facts)
        layout.addWidget(self.timeline, 1)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        self.html_button.clicked.connect(lambda: self._choose(ExportFormat.HTML))
        self.json_button.clicked.connect(lambda: self._choose(ExportFormat.JSON))
        self.close_button.clicked.connect(self.close)

    def _choose(self, fmt: ExportFormat) -> None:
        choose_export_file(self, self.record.id, fmt, lambda path: self._background.spawn(self.export_to(path, fmt)))

    async def export_to(self, path: Path, fmt: ExportFormat) -> None:
        problem = await write_export(self.record, path, fmt)
        if problem:
            self.message.show_message(Tone.ERROR, tr("Could not export the run"), problem)
        else:
            self.message.show_message(Tone.OK, tr("Exported"), str(path))
