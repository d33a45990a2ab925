"""The bundled demo routine: five customers from resources/demo/customers.csv into the demo CRM, offline.

No model is called. ``DemoRoutineModel`` is the scripted model of the routine's first row (it fills the form with
that row's values, picking each element by its fields: app/demo/scripted_model.py); the engine
learns its path and replays it on the other rows, and the model's one confirming call per replayed row is answered
from the page: done when the page says the customer was added, not done otherwise.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path

from app.assets import resource_path
from app.core.abort import AbortSignal
from app.core.llm import LLMClient, LLMReply, Message, RetryCallback, ToolCall, ToolSpec
from app.demo.scripted_model import Pick, ScriptedModel, Step
from app.demo.site import DemoSite

DEMO_ROWS = "demo/customers.csv"
# Every row starts on the new-customer form, signed in to the demo account (the site's "?as=demo").
DEMO_ROUTINE_START = "new-customer.html?as=demo"
DEMO_ROUTINE_NAME = "Demo: add five customers"
DEMO_ROUTINE_TEMPLATE = (
    "Add the customer {first_name} {last_name} ({email}, company {company}) on plan {plan}, starting {start_date}. "
    "Send a welcome email: {welcome_email}. Note: {notes}. Save the customer."
)
SAVED = " was added to your customers."
# Seconds of "thinking" before each scripted answer, so a demo audience can follow the first row.
DEMO_ROUTINE_PACE = 0.8


def demo_rows() -> Path:
    return resource_path(DEMO_ROWS)


def first_row_steps(row: dict[str, str]) -> tuple[Step, ...]:
    """The first row as a careful model would enter it: each field, the plan, the date, the box, the note, Save."""
    name = f"{row['first_name']} {row['last_name']}"

    def field(label: str, field_name: str, value: str, tag: str = "input") -> Step:
        return Step(
            f"✅ The New customer form is open; {label} is next.",
            f"Entering {name} from the row.",
            f"Type {value} into {label}.",
            "input_text",
            {"text": value},
            target=Pick(tag, attrs={"name": field_name}),
        )

    steps = [
        field("First name", "first_name", row["first_name"]),
        field("Last name", "last_name", row["last_name"]),
        field("Email", "email", row["email"]),
        field("Company", "company", row["company"]),
        Step(
            "✅ The contact details are in.",
            f"Entering {name}: plan next.",
            f"Pick {row['plan']} in the Plan list.",
            "select_dropdown_option",
            {"text": row["plan"]},
            target=Pick("button", attrs={"role": "combobox"}),
        ),
        field("Start date", "start_date", row["start_date"]),
    ]
    if row["welcome_email"].strip().casefold() in ("yes", "y", "true", "1", "x"):
        steps.append(
            Step(
                "✅ The start date is set.",
                f"Entering {name}: the row wants a welcome email.",
                "Tick Send welcome email.",
                "click_element_by_index",
                target=Pick("input", attrs={"name": "welcome_email"}),
            )
        )
    steps += [
        field("Notes", "notes", row["notes"], tag="textarea"),
        Step(
            "✅ Every field of the row is filled.",
            f"{name} is ready to save.",
            "Save the customer.",
            "click_element_by_index",
            target=Pick("button", name="Save customer"),
        ),
        Step(
            f"✅ Saved: the page says {name}{SAVED}",
            f"{name} saved.",
            "Report the row done.",
            "done",
            {"success": True, "text": f"{name}{SAVED}"},
            sees=f"{name}{SAVED}",
        ),
    ]
    return tuple(steps)


def read_first_row(path: Path) -> dict[str, str]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return dict(next(csv.DictReader(handle)))


class DemoRoutineModel:
    """The demo routine's model: the first row's script, then each confirming call answered from the page."""

    def __init__(self, first_row: dict[str, str], pace: float = DEMO_ROUTINE_PACE) -> None:
        self._script = ScriptedModel(first_row_steps(first_row))
        self._pace = pace
        self.calls = 0

    async def invoke(
        self, messages: list[Message], tool: ToolSpec, signal: AbortSignal, on_retry: RetryCallback | None = None
    ) -> LLMReply:
        self.calls += 1
        if self._pace:
            await signal.sleep(self._pace)
        if not self._script.finished:
            return await self._script.invoke(messages, tool, signal, on_retry)
        return _confirm(next((m.content for m in reversed(messages) if m.role == "user"), ""), tool)


class DemoRoutineBundle:
    """The demo routine as the panel runs it (the ``DemoRoutine`` of app/ui/routine/session.py): its setup, its rows,
    its model and the demo site it starts on, which starts with the first ``start_url()`` and stops with ``close()``."""

    name = DEMO_ROUTINE_NAME
    template = DEMO_ROUTINE_TEMPLATE

    def __init__(self) -> None:
        self._site = DemoSite()  # started on first use

    @property
    def rows(self) -> Path:
        return demo_rows()

    async def start_url(self) -> str:
        return await self._site.opened(DEMO_ROUTINE_START)

    def models(self) -> Callable[[], LLMClient]:
        """A new scripted model for each of the routine's windows, all from the first row of ``rows``."""
        first = read_first_row(self.rows)
        return lambda: DemoRoutineModel(first)

    async def close(self) -> None:
        await self._site.stop()


def _confirm(shown: str, tool: ToolSpec) -> LLMReply:
    page = shown.split("<browser_state>", 1)[-1]
    line = next((line.strip().strip('"') for line in page.splitlines() if SAVED in line), "")
    if line:
        done = {"success": True, "text": line}
        evaluation = f"✅ The page confirms it: {line}"
    else:
        done = {"success": False, "text": "The page does not say that this customer was added."}
        evaluation = "❌ The page shows no confirmation for this customer."
    arguments = {
        "evaluation_previous_goal": evaluation,
        "memory": "The row's path was replayed; checking the outcome on the page.",
        "next_goal": "Report the row's outcome.",
        "action": {"done": done},
    }
    return LLMReply(tool_calls=[ToolCall(name=tool.name, arguments=json.dumps(arguments, ensure_ascii=False))])
