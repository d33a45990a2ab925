"""The structured progress report a run leaves behind when it ends on a limit (steps, failures, time)."""

from __future__ import annotations

from collections.abc import Sequence

from app.core.types import ErrorEvent, HistoricalEvent, StepEvent

REPORT_SECTIONS = (
    "Task",
    "Completed work",
    "Key findings",
    "Attempted but inconclusive",
    "Not started",
    "Suggested next steps",
)


def report_instruction(reason: str) -> str:
    headings = "\n".join(f"## {section}" for section in REPORT_SECTIONS)
    return (
        f"The run has hit a limit and must end now: {reason}.\n"
        "Call done (the only action available) with success=false and, as text, a progress report for the user "
        f"with exactly these Markdown sections:\n{headings}\n"
        "Be specific: what was done and verified, what you found (values, names, pages), what you tried that did "
        "not work, what was not started, and what the user should do next."
    )


def has_report_sections(text: str) -> bool:
    lowered = text.lower()
    return sum(section.lower() in lowered for section in REPORT_SECTIONS) >= len(REPORT_SECTIONS) - 1


def build_report(task: str, reason: str, history: Sequence[HistoricalEvent], model_text: str = "") -> str:
    """A report made from the history alone, for when the model could not write one."""
    steps = [event for event in history if isinstance(event, StepEvent)]
    succeeded = [step for step in steps if step.action.ok]
    failed = [step for step in steps if not step.action.ok]
    errors = [event.message for event in history if isinstance(event, ErrorEvent)]
    memory = next((step.reflection.memory for step in reversed(steps) if step.reflection.memory), "")
    next_goal = next((step.reflection.next_goal for step in reversed(steps) if step.reflection.next_goal), "")

    def bullets(lines: Sequence[str], empty: str) -> str:
        return "\n".join(f"- {line}" for line in lines) if lines else f"- {empty}"

    findings = [line for line in (memory, model_text.strip()) if line]
    inconclusive = [f"Step {s.step_index}: {_describe(s)} — {s.action.output[:160]}" for s in failed]
    inconclusive += errors
    return "\n\n".join(
        [
            f"## Task\n{task}\n\nThe run stopped early: {reason}.",
            "## Completed work\n"
            + bullets([f"Step {s.step_index}: {_describe(s)}" for s in succeeded], "No step completed successfully."),
            "## Key findings\n" + bullets(findings, "Nothing recorded."),
            "## Attempted but inconclusive\n" + bullets(inconclusive, "Nothing."),
            "## Not started\n" + bullets([next_goal] if next_goal else [], "Unknown: the agent left no plan."),
            "## Suggested next steps\n- Check the browser: the page is left as the agent last saw it.\n"
            "- Run the task again as a follow-up, or with a larger limit, or finish the remaining part by hand.",
        ]
    )


def _describe(step: StepEvent) -> str:
    goal = step.reflection.next_goal
    return f"{step.action.name}" + (f" ({goal})" if goal else "")
