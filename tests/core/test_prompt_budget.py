"""The prompt budget's pieces: folding older history, clipping the page at a line, follow-ups carried along."""

from __future__ import annotations

from datetime import datetime

from app.core.prompt import build_messages
from app.core.prompt_budget import PromptBudget, clip, clip_page, fold_lines, split_history
from app.core.types import ActionRecord, AgentReflection, AgentStatus, ObservationEvent, StepEvent, TaskRecord


def _step(n: int, memory: str = "") -> StepEvent:
    return StepEvent(
        step_index=n,
        reflection=AgentReflection(memory=memory or f"fact {n}"),
        action=ActionRecord(name="click", input={"index": n}, output="Clicked"),
    )


def test_clip_marks_the_cut_and_keeps_the_limit() -> None:
    assert clip("short", 10) == "short"
    cut = clip("x" * 100, 40)
    assert len(cut) == 40 and cut.endswith("…(cut)")


def test_the_recent_steps_start_with_the_nth_last_step_and_keep_the_lines_around_them() -> None:
    note = ObservationEvent(content="A download finished.")
    history = [_step(1), _step(2), note, _step(3), _step(4)]
    older, recent = split_history(history, 2)
    assert older == history[:3] and recent == history[3:]
    assert split_history(history, 10) == ([], history)


def test_older_lines_share_the_summary_and_the_middle_is_counted_when_they_cannot() -> None:
    budget = PromptBudget(summary_chars=1000, fold_line_chars=50)
    few = fold_lines([f"line {n} " + "x" * 500 for n in range(4)], budget)
    assert len(few) == 4 and all(len(line) == 250 for line in few)

    many = fold_lines([f"line {n} " + "x" * 500 for n in range(100)], budget)
    assert sum(map(len, many)) <= 1000 + 40
    assert many[0].startswith("line 0 ") and many[-1].startswith("line 99 ")
    assert many[5] == "(… 80 older entries left out)"  # 5 from the start, 15 of the latest


def test_a_long_page_is_cut_at_a_line_and_says_how_much_is_left_out() -> None:
    content = "\n".join(f"[{n}]<a>Row {n} />" for n in range(1000))
    clipped = clip_page(content, 500)
    kept, note = clipped.rsplit("\n", 1)
    assert len(kept) <= 500 and kept.endswith(" />")
    assert note == f"(… {len(content) - len(kept):,} more characters of this page left out: scroll to read on)"
    assert clip_page("short", 500) == "short"


def test_follow_ups_carry_only_the_latest_tasks_and_say_how_many_are_left_out() -> None:
    records = [
        TaskRecord(
            task=f"Task number {n}",
            status=AgentStatus.COMPLETED,
            success=True,
            result="r" * 5000,
            last_memory="m" * 5000,
        )
        for n in range(1, 9)
    ]
    message = build_messages(
        system="s",
        task="Next",
        step_index=1,
        max_steps=5,
        previous_tasks=records,
        history=[],
        state=None,
        now=datetime(2026, 1, 1),
    )[1].content
    assert "(3 earlier tasks left out)" in message
    assert "Task 3 (succeeded)" not in message and "Task 4 (succeeded): Task number 4" in message
    assert "Task 8 (succeeded): Task number 8" in message
    assert len(message) < 5 * (1500 + 1200 + 100) + 500


def test_the_tighter_budget_is_smaller_everywhere_and_tightening_it_again_changes_nothing() -> None:
    default, tight = PromptBudget(), PromptBudget().tighter()
    assert all(getattr(tight, name) < getattr(default, name) for name in default.__dataclass_fields__)
    assert tight.tighter() == tight
