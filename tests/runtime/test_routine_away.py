"""A routine's "your turn" reaching a person away from the desk: an apprise address (json:// to a stand-in service
on 127.0.0.1) receives which row needs them and why, its markup escaped; a hand-off nobody takes in time leaves the
row needs_person and the routine goes on. Real headless Chromium, the fake model server and the CRM test site."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest

from app.away_notifier import AwayNotifier, away_message
from app.routine.launch import open_routine
from app.routine.plan import plan_routine
from app.routine.types import PersonRequest, RoutineOptions, RowFinished
from app.settings.secrets import NOTIFY_ENV
from tests.cli.routine_helpers import ROWS, rows_file
from tests.fakes.crm_model import TEMPLATE, crm_model
from tests.fakes.crm_site import crm_site
from tests.fakes.json_hook import json_hook
from tests.fakes.llm_server import FakeLLMServer
from tests.runtime.test_routine_runner import setup


async def test_a_hand_off_is_sent_to_the_persons_address_and_left_for_them_when_nobody_comes(
    tmp_path: Path, llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, ROWS.replace("Dup,ana@x.test", "Dee,dee@x.test"))
    with crm_site() as site, json_hook() as hook:
        monkeypatch.setenv(NOTIFY_ENV, f"json://{hook.address}/page-agent")
        site.captcha_emails.add("bob@x.test")
        plan = await asyncio.to_thread(plan_routine, RoutineOptions(rows, TEMPLATE, start_url=site.new_url))
        routine = await open_routine(plan, replace(setup(tmp_path, llm_server), hand_off_wait=1.0))
        finished: list[RowFinished] = []
        routine.runner.on("row_finished", finished.append)
        try:
            summary = await asyncio.wait_for(routine.runner.run(), 120)
        finally:
            await routine.close()
        assert await asyncio.to_thread(hook.received.wait, 30)
    assert summary.counts == {"done": 3, "needs_person": 1}
    outcome = next(event.outcome for event in finished if event.number == 2)
    assert outcome.result == (
        "Nobody took this row when the agent handed it over, so the routine went on without it; it is tried again "
        "next run. The agent had said: “The CRM asks a person to confirm this customer.”"
    )
    [sent] = hook.bodies
    assert sent["title"] == "Page Agent: row 2 needs you"
    assert sent["message"].startswith("Row 2 waits for you in its browser (window 1). The agent says: “The CRM asks")


def test_the_message_escapes_what_is_left_of_a_pages_markup() -> None:
    request = PersonRequest(
        id=1,
        number=7,
        kind="hand_off",
        words="<img src=x onerror=alert(1)>Solve the <b>captcha</b> & 1 < 2",
        browser="w",
    )
    title, body = away_message(request, 30)
    assert title == "Page Agent: row 7 needs you"
    assert "<" not in body and "onerror" not in body
    assert "Solve the captcha &amp; 1 &lt; 2" in body
    assert body.endswith("If nobody takes it within 30 min, it is left for you and the routine goes on.")


async def test_an_address_that_cannot_be_reached_is_logged_and_the_routine_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    notifier = AwayNotifier("json://127.0.0.1:9/nowhere")
    assert not await notifier.send("Page Agent: row 1 needs you", "Row 1 waits for you.")
    assert "not take the notification" in caplog.text or "was not sent" in caplog.text
    assert "127.0.0.1:9" not in caplog.text
