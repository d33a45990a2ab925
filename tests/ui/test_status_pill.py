"""The pill's coalescing that keeps fast-changing text readable (its words are tested in tests/text)."""

from __future__ import annotations

import asyncio

from PySide6.QtWidgets import QApplication

from app.ui.status_pill import MIN_HOLD_MS, PillState, StatusPill


async def test_fast_activity_is_coalesced(qapp: QApplication) -> None:
    pill = StatusPill()
    shown: list[str] = []
    pill.textChanged.connect(shown.append)
    pill.set_state(PillState.RUNNING, "Thinking…")
    for text in ("Clicking [1]…", "Clicked [1] Save", "Thinking…", "Typing into [3]…"):
        pill.set_activity(text)
    assert shown == ["Thinking…"]  # held: each text stays readable
    await asyncio.sleep(MIN_HOLD_MS / 1000 + 0.15)
    assert shown == ["Thinking…", "Typing into [3]…"]  # only the latest of a burst is shown
    await asyncio.sleep(MIN_HOLD_MS / 1000 + 0.05)
    pill.set_activity("Thinking…")
    assert shown[-1] == "Thinking…"  # after a quiet spell a new text shows at once


async def test_state_changes_are_never_held_back(qapp: QApplication) -> None:
    pill = StatusPill()
    states: list[PillState] = []
    pill.stateChanged.connect(states.append)
    pill.set_state(PillState.RUNNING)
    pill.set_detail("Step 6 of 40")
    pill.set_activity("Clicking [2]…")
    pill.set_state(PillState.STOPPING)
    assert pill.text() == "Stopping…" and pill.detail() == "Step 6 of 40"
    pill.set_activity("Thinking…")  # late activity during a stop is ignored
    await asyncio.sleep(MIN_HOLD_MS / 1000 + 0.1)
    assert pill.text() == "Stopping…"
    pill.set_state(PillState.STOPPED)
    assert pill.text() == "Stopped" and pill.detail() == ""
    assert states == [PillState.RUNNING, PillState.STOPPING, PillState.STOPPED]
    assert "Stopped" in pill.accessibleDescription()
