from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from app.core.types import (
    ActionRecord,
    ActionTarget,
    AgentReflection,
    AgentStatus,
    ErrorEvent,
    ObservationEvent,
    RetryEvent,
    StepEvent,
    Usage,
    UserTakeoverEvent,
)
from app.history.records import RunRecord, TaskRun
from app.history.store import RunStore
from app.settings.model import Settings

T0 = datetime(2025, 3, 14, 9, 30, tzinfo=UTC)


def make_record(
    run_id: str = "20250314-093000-aaaaaa",
    *,
    started: datetime = T0,
    task: str = "Add Ada",
    success: bool = True,
    status: AgentStatus = AgentStatus.COMPLETED,
) -> RunRecord:
    events = [
        StepEvent(
            step_index=1,
            reflection=AgentReflection(
                evaluation_previous_goal="✅ Success - form open", memory="Form is open", next_goal="Type the email"
            ),
            action=ActionRecord(
                name="input_text",
                input={"index": 3, "text": "ada@example.com"},
                output="Typed into [3] <input> Email",
                target=ActionTarget(tag="input", name="Email", input_type="email"),
            ),
            usage=Usage(prompt_tokens=1200, completion_tokens=80),
            duration=1.4,
        ),
        ObservationEvent(content="The page navigated to /customers/new"),
        RetryEvent(message="The endpoint is rate limiting requests (429).", attempt=2, max_attempts=3),
        UserTakeoverEvent(
            before_url="https://crm.test/login",
            before_title="Log in",
            after_url="https://crm.test/home",
            after_title="Home",
            note="Solved the captcha",
        ),
        ErrorEvent(message="Element [9] is not on the page"),
        StepEvent(
            step_index=2,
            action=ActionRecord(name="done", input={"text": "Saved Ada.", "success": success}),
            usage=Usage(prompt_tokens=1300, completion_tokens=40),
            duration=0.9,
        ),
    ]
    return RunRecord(
        id=run_id,
        started_at=started,
        settings=Settings(model="gpt-test").model_dump(mode="json"),
        tasks=[
            TaskRun(
                task=task,
                started_at=started,
                finished_at=started + timedelta(seconds=20),
                status=status,
                success=success,
                result="Saved Ada.",
                steps=2,
                usage=Usage(prompt_tokens=2500, completion_tokens=120),
                events=events,
            )
        ],
    )


@pytest.fixture
def store(tmp_path: Path) -> RunStore:
    return RunStore(tmp_path / "runs")


from tests.core.conftest import llm_settings, make_agent  # noqa: E402,F401  (the core's agent fixtures, reused)
