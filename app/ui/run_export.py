"""Exporting a saved run to a file the user chooses (HTML report or JSON), shared by History and a saved run's window.

Writing happens off the loop's thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget

from app.history.export import export_html, export_json
from app.history.records import RunRecord
from app.settings.atomic import write_atomic
from app.text.i18n import tr
from app.ui.file_dialog import file_dialog


class ExportFormat(StrEnum):
    JSON = "json"
    HTML = "html"


_RENDER: dict[ExportFormat, Callable[[RunRecord], str]] = {
    ExportFormat.JSON: export_json,
    ExportFormat.HTML: export_html,
}


def choose_export_file(parent: QWidget, run_id: str, fmt: ExportFormat, chosen: Callable[[Path], object]) -> None:
    """Ask where to save; ``chosen(path)`` runs once the user has picked a file (never on Cancel)."""
    chooser = file_dialog(parent, tr("Export run as HTML") if fmt == ExportFormat.HTML else tr("Export run as JSON"))
    chooser.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    chooser.setDefaultSuffix(fmt.value)
    chooser.setNameFilter(tr("HTML report (*.html)") if fmt == ExportFormat.HTML else tr("JSON (*.json)"))
    chooser.selectFile(str(Path.home() / f"page-agent-run-{run_id}.{fmt.value}"))
    chooser.fileSelected.connect(lambda path: chosen(Path(path)))
    chooser.open()


async def write_export(record: RunRecord, path: Path, fmt: ExportFormat) -> str:
    """Write the run; returns "" on success, else what went wrong in plain words."""
    text = _RENDER[fmt](record)
    try:
        await asyncio.to_thread(write_atomic, path, text)
    except OSError as exc:
        return f"{path}: {exc.strerror or exc}"
    return ""
