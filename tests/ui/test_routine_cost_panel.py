"""What a routine will cost, in the panel: the line above Run routine, and the limit of model calls set in Settings
asked in the Needs you bar (Go on / Stop the routine). pytest-qt offscreen, headless Chromium, the fake model server
and the CRM test site, as in test_routine_panel.py."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from app.routine.types import RowStatus
from app.ui.routine.panel import RoutinePanel
from tests.cli.routine_helpers import ROWS, rows_file
from tests.fakes.crm_model import crm_model
from tests.fakes.crm_site import crm_site
from tests.fakes.llm_server import FakeLLMServer
from tests.ui.test_routine_panel import DEADLINE, finished, make_host, set_up
from tests.waiting import until

FOUR = ROWS.replace("Dup,ana@x.test", "Dee,dee@x.test")


@pytest.fixture
async def panel(qapp: QApplication, tmp_path: Path, llm_server: FakeLLMServer) -> AsyncIterator[RoutinePanel]:
    host = make_host(tmp_path, llm_server, [False], [])
    limited = host.settings().model_copy(update={"routine_max_calls": 3})
    panel = RoutinePanel(dataclasses.replace(host, settings=lambda: limited))
    panel.resize(420, 820)
    panel.show()
    yield panel
    await panel.shutdown()
    panel.close()
    panel.deleteLater()


async def test_the_setup_says_about_what_the_rows_cost_and_the_limit_asks_in_the_needs_you_bar(
    panel: RoutinePanel, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    with crm_site() as site:
        await set_up(panel, rows_file(tmp_path, FOUR), site)
        # Five columns: about 5 + 3 calls to learn the path on the first row, one each for the other three.
        assert panel.setup.estimate.isVisible()
        assert panel.setup.estimate.text() == (
            "4 rows · about 11 model calls (a guess from the task until the first row has run) · asks you after 3 "
            "model calls"
        )
        done = finished(panel)
        assert await panel.run_routine() is not None
        bar = panel.run_view.needs_you
        await until(lambda: bar.isVisible(), DEADLINE, "the limit's question")
        assert bar.which.text() == "The whole routine is paused" and not bar.show_button.isVisible()
        assert bar.text.text().startswith("It has made 3 model calls; your limit was 3.")
        assert (bar.allow_button.text(), bar.deny_button.text()) == ("Go on", "Stop the routine")
        assert not bar.allow_all_button.isVisible() and not bar.continue_button.isVisible()
        assert len(llm_server.requests) == 3 and panel.session.paused
        # Not "Paused by you", nor still "Thinking…": the row holds at the limit, and the routine says so.
        assert panel.run_view.line.text() == "0 of 4 rows · paused at your limit"
        assert panel.run_view.model.line(1).words == "Paused at your limit"
        bar.allow_button.click()
        summary = await done
    assert summary.counts == {RowStatus.DONE: 4} and not bar.isVisible()
    assert sorted(site.emails()) == ["ana@x.test", "bob@x.test", "chloe@x.test", "dee@x.test"]
