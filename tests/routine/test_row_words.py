"""A row's own words (what the app says of how it ended, and the window it ran in) are in the person's language:
简体中文 in a Chinese panel, English on the command line. outcome_of on typed inputs, no browser."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from app.core.page import ForeignKeys
from app.core.types import AgentStatus, ExecutionResult
from app.routine.browsers import window_name
from app.routine.replay import RowModel
from app.routine.row import outcome_of
from app.routine.types import RowStatus
from app.text.i18n import set_language


@dataclass
class Slot:
    name: str
    alive: bool = True
    foreign_keys: list[ForeignKeys] = field(default_factory=list)


@pytest.fixture
def chinese() -> Iterator[None]:
    set_language("zh")
    yield
    set_language("en")


def ended(status: AgentStatus, slot: Slot, **more: object) -> tuple[RowStatus, str]:
    result = ExecutionResult(success=False, data="Stopped", status=status)
    model = RowModel(None, 1, {}, None)  # type: ignore[arg-type]  # only its counts are read
    options: dict[str, object] = {"gave_up": "", "sent": False, **more}
    outcome = outcome_of(result, model, slot=slot, seconds=1.0, run="", outputs=(), **options)  # type: ignore[arg-type]
    return outcome.status, outcome.result


def test_in_chinese_a_rows_window_and_how_it_ended_are_chinese(chinese: None) -> None:
    assert window_name(2) == "窗口 2"
    status, words = ended(AgentStatus.STOPPED, Slot(window_name(1)), gave_up="Solve the captcha")
    assert status == RowStatus.NEEDS_PERSON and words.startswith("你放弃了这一行")
    assert "Solve the captcha" in words  # the agent's own words stay as it said them
    status, words = ended(AgentStatus.ERROR, Slot(window_name(1), alive=False))
    assert status == RowStatus.INTERRUPTED and "窗口 1" in words and "went away" not in words
    status, words = ended(AgentStatus.STOPPED, Slot(window_name(1)), sent=True)
    assert status == RowStatus.INTERRUPTED and "stopped" not in words


def test_in_english_they_stay_english() -> None:
    assert window_name(2) == "window 2"
    _, words = ended(AgentStatus.STOPPED, Slot(window_name(1)), gave_up="Solve the captcha")
    assert words.startswith("You gave this row up")
