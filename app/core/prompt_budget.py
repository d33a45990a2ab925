"""Keeps what the model reads bounded however long a run gets.

Every history field is clipped, the last few steps are shown whole, and older steps are folded into one short line
each, led by the start of their memory (where the system prompt asks the model to keep values it found), so early
facts survive in a few dozen characters. When the model still says the request is too long, the agent retries once
with ``tighter()`` and keeps that budget for the rest of the run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from app.core.types import HistoricalEvent, StepEvent, TaskRecord

_CUT = " …(cut)"


@dataclass(frozen=True)
class PromptBudget:
    recent_steps: int = 8  # shown whole: evaluation, memory, next goal, action and result
    memory_chars: int = 1500
    field_chars: int = 400  # evaluation, next goal, the action's input, a system line
    result_chars: int = 1200
    summary_chars: int = 10_000  # every older step together
    fold_line_chars: int = 60  # the least an older step gets; below it the middle steps are left out
    page_chars: int = 40_000
    previous_tasks: int = 5  # follow-ups: the most recent finished tasks carried along

    def tighter(self) -> PromptBudget:
        """Roughly half of everything: what a model whose context window is too small for the default gets."""
        return replace(
            self,
            recent_steps=3,
            memory_chars=600,
            field_chars=200,
            result_chars=500,
            summary_chars=2500,
            fold_line_chars=40,
            page_chars=15_000,
            previous_tasks=2,
        )


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(0, limit - len(_CUT))] + _CUT


def split_history(
    history: Sequence[HistoricalEvent], recent_steps: int
) -> tuple[list[HistoricalEvent], list[HistoricalEvent]]:
    """(older, recent): recent starts at the ``recent_steps``-th last step, with the system lines around it."""
    seen = 0
    for position in range(len(history) - 1, -1, -1):
        if isinstance(history[position], StepEvent):
            seen += 1
            if seen == recent_steps:
                return list(history[:position]), list(history[position:])
    return [], list(history)


def fold_lines(lines: Sequence[str], budget: PromptBudget) -> list[str]:
    """Older history as lines sharing ``summary_chars``; when even ``fold_line_chars`` each would not fit, the
    first lines (how the task began) and the latest are kept and the middle is counted."""
    if not lines:
        return []
    allowance = max(budget.fold_line_chars, budget.summary_chars // len(lines))
    fitting = max(2, budget.summary_chars // allowance)
    if len(lines) <= fitting:
        return [clip(line, allowance) for line in lines]
    head = fitting // 4
    tail = fitting - head
    left_out = len(lines) - head - tail
    return (
        [clip(line, allowance) for line in lines[:head]]
        + [f"(… {left_out} older entries left out)"]
        + [clip(line, allowance) for line in lines[-tail:]]
    )


def recent_tasks(records: Sequence[TaskRecord], budget: PromptBudget) -> tuple[int, list[TaskRecord]]:
    """(how many earlier tasks are left out, the ones carried along)."""
    kept = list(records[-budget.previous_tasks :]) if budget.previous_tasks else []
    return len(records) - len(kept), kept


def clip_page(content: str, limit: int) -> str:
    """The page's lines up to ``limit`` characters, cut at a line so no element line is half shown."""
    if len(content) <= limit:
        return content
    cut = content.rfind("\n", 0, limit)
    kept = content[: cut if cut > 0 else limit]
    return kept + f"\n(… {len(content) - len(kept):,} more characters of this page left out: scroll to read on)"
