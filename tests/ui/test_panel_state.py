"""The panel's one state table: every moment has a pill and a composer, and every way a task ends has a moment."""

from __future__ import annotations

from app.core.types import RunOutcome
from app.ui.panel_state import ENDED_AS, PanelState
from app.ui.status_pill import PillState
from app.ui.task_input import ComposerMode


def test_every_state_has_a_pill_and_a_composer() -> None:
    for state in PanelState:
        assert isinstance(state.pill, PillState) and isinstance(state.composer, ComposerMode)


def test_every_outcome_ends_in_a_state_that_takes_a_follow_up() -> None:
    assert set(ENDED_AS) == set(RunOutcome)
    assert all(state.ended for state in ENDED_AS.values())


def test_only_ended_states_take_a_follow_up() -> None:
    ended = {state for state in PanelState if state.ended}
    assert ended == {*ENDED_AS.values(), PanelState.STOPPED, PanelState.DEMO_OVER}
    assert not PanelState.READY.ended and not PanelState.STOPPING.ended


def test_a_busy_pill_never_sits_over_a_composer_that_offers_run() -> None:
    busy = {PillState.STARTING, PillState.RUNNING, PillState.STOPPING}
    for state in PanelState:
        if state.pill in busy:
            assert state.composer not in (ComposerMode.NEW, ComposerMode.FOLLOW_UP), state
