"""The History dialog: lists runs newest first with their outcome, opens one (openRun), exports, deletes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from app.core.types import AgentStatus
from app.history.records import RunRecord
from app.history.store import RunStore
from app.ui.dialog_widgets import Tone
from app.ui.history_view import ExportFormat, HistoryDialog
from tests.history.conftest import T0, make_record
from tests.ui_dialogs.conftest import screenshot
from tests.waiting import until


@pytest.fixture
def store(tmp_path: Path) -> RunStore:
    store = RunStore(tmp_path / "runs")
    store.save(make_record("20250314-093000-aaaaaa", task="Add the customer Ada Lovelace on the Pro plan"))
    store.save(
        make_record(
            "20250315-101500-bbbbbb",
            started=T0 + timedelta(days=1, minutes=45),
            task="Export the customer list as CSV",
            success=False,
        )
    )
    stopped = make_record(
        "20250316-080000-cccccc",
        started=T0 + timedelta(days=2),
        task="Find the invoice",
        status=AgentStatus.STOPPED,
        success=False,
    )
    stopped.demo = True
    store.save(stopped)
    return store


@pytest.fixture
async def dialog(qapp: QApplication, store: RunStore) -> AsyncIterator[HistoryDialog]:
    dlg = HistoryDialog(store)
    dlg.show()
    yield dlg
    dlg.close()
    dlg.deleteLater()


def column(dialog: HistoryDialog, col: int) -> list[str]:
    return [dialog.list.topLevelItem(r).text(col) for r in range(dialog.list.topLevelItemCount())]


async def test_lists_runs_newest_first(dialog: HistoryDialog) -> None:
    assert column(dialog, 1) == [
        "[Demo] Find the invoice",
        "Export the customer list as CSV",
        "Add the customer Ada Lovelace on the Pro plan",
    ]
    assert column(dialog, 2) == ["Stopped", "Not completed", "Success"]
    assert column(dialog, 3) == ["2", "2", "2"]
    assert dialog.selected_id() == "20250316-080000-cccccc"  # the newest is ready to open
    screenshot(dialog, "history")


async def test_open_emits_the_record(dialog: HistoryDialog) -> None:
    opened: list[RunRecord] = []
    dialog.openRun.connect(opened.append)
    dialog.select("20250314-093000-aaaaaa")
    dialog.open_button.click()
    await until(lambda: opened)
    assert opened[0].id == "20250314-093000-aaaaaa" and opened[0].tasks[0].events
    assert not dialog.isVisible()


async def test_damaged_run_says_so(dialog: HistoryDialog, store: RunStore) -> None:
    (store.runs_dir / "20250314-093000-aaaaaa.json").write_text("{broken")
    dialog.select("20250314-093000-aaaaaa")
    await dialog.open_selected()  # type: ignore[misc]
    assert dialog.isVisible() and dialog.message.tone == Tone.ERROR and "damaged" in dialog.message.text()


async def test_export_html_and_json(dialog: HistoryDialog, tmp_path: Path) -> None:
    await dialog.export_to("20250315-101500-bbbbbb", tmp_path / "out" / "run.html", ExportFormat.HTML)
    await dialog.export_to("20250315-101500-bbbbbb", tmp_path / "out" / "run.json", ExportFormat.JSON)
    assert "Export the customer list as CSV" in (tmp_path / "out" / "run.html").read_text()
    assert RunRecord.model_validate_json((tmp_path / "out" / "run.json").read_text()).id == "20250315-101500-bbbbbb"
    assert dialog.message.tone == Tone.OK


async def test_delete(dialog: HistoryDialog, store: RunStore) -> None:
    dialog.select("20250315-101500-bbbbbb")
    dialog.delete_selected(confirm=False)
    assert [s.id for s in store.summaries()] == ["20250316-080000-cccccc", "20250314-093000-aaaaaa"]
    assert dialog.list.topLevelItemCount() == 2


async def test_empty_history(qapp: QApplication, tmp_path: Path) -> None:
    dlg = HistoryDialog(RunStore(tmp_path / "none"))
    dlg.show()
    assert dlg.empty.isVisible() and not dlg.open_button.isEnabled()
    dlg.close()
