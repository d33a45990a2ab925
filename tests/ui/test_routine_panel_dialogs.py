"""The panel's Routine mode: where its file dialogs open (the rows file, the results file)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog

from app.routine.types import RoutineOptions
from app.ui.routine.library import SavedRoutine
from tests.cli.routine_helpers import rows_file
from tests.fakes.crm_model import TEMPLATE
from tests.ui.test_routine_panel import Host, host  # noqa: F401 - the fixture
from tests.waiting import until


async def test_save_results_offers_the_rows_files_folder(host: Host, tmp_path: Path) -> None:
    panel = host.panel
    folder = tmp_path / "sheets"
    folder.mkdir()
    rows = rows_file(folder)
    panel.last = (
        RoutineOptions(rows_file=rows, template=TEMPLATE, results_file=tmp_path / "r.csv"),
        SavedRoutine(name="New customers", template=TEMPLATE),
        False,
    )
    panel.choose_results_file()
    chooser = panel.findChild(QFileDialog)
    assert chooser is not None
    try:
        assert Path(chooser.selectedFiles()[0]) == folder / "New customers results.csv"
    finally:
        chooser.reject()
    await until(lambda: panel.findChild(QFileDialog) is None, message="the closed chooser is deleted")


async def test_open_a_file_starts_in_documents_then_beside_the_rows_never_where_the_app_was_started(
    host: Host, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / "Documents").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)  # a launcher's working folder is no place of the person's

    async def offered() -> Path:
        host.panel.choose_file()
        chooser = host.panel.findChild(QFileDialog)
        assert chooser is not None
        try:
            return Path(chooser.directory().absolutePath())
        finally:
            chooser.reject()
            await until(lambda: host.panel.findChild(QFileDialog) is None, message="the closed chooser is deleted")

    assert await offered() == home / "Documents"
    folder = tmp_path / "sheets"
    folder.mkdir()
    assert await host.panel.open_file(rows_file(folder))
    assert await offered() == folder
