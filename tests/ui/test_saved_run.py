"""A saved run's own window: read-only timeline, honest facts (no tokens for the demo), export, close."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication

from app.ui.run_export import ExportFormat
from app.ui.saved_run_window import SavedRunWindow
from app.ui.timeline.items import ResultItem, TaskItem
from tests.history.conftest import make_record
from tests.ui.conftest import screenshot


async def test_a_saved_run_window(qapp: QApplication, tmp_path: Path) -> None:
    record = make_record()
    window = SavedRunWindow(record)
    window.show()
    assert window.windowTitle().startswith("Saved run · 2025-03-14")
    items = window.model.items
    assert isinstance(items[0], TaskItem) and isinstance(items[-1], ResultItem)
    assert "2.6k tokens" in window.facts.text() and "Read-only" in window.facts.text()
    screenshot(window, "saved_run_window")  # type: ignore[arg-type]

    await window.export_to(tmp_path / "run.html", ExportFormat.HTML)
    assert "Add Ada" in (tmp_path / "run.html").read_text(encoding="utf-8")
    assert window.message.text().startswith("Exported")
    await window.export_to(tmp_path / "run.html" / "inside-a-file.json", ExportFormat.JSON)  # cannot be written
    assert (
        window.message.text().startswith("Could not export the run") and "inside-a-file.json" in window.message.text()
    )
    window.close_button.click()
    assert not window.isVisible()


async def test_the_demo_shows_no_tokens(qapp: QApplication) -> None:
    window = SavedRunWindow(make_record().model_copy(update={"demo": True}))
    assert "Demo — no model was called" in window.facts.text() and "tokens" not in window.facts.text()
    window.close()
