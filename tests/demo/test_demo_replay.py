"""The bundled demo as the panel plays it: the checked-in cassette replayed through the real engine in headless
Chromium against the demo site; at the captcha the run pauses for the person (a hand-off) and the same run finishes
the export after they solved it."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urljoin

import pytest

from app.assets import resource_path
from app.browser.observer import Observation
from app.core.abort import AbortSignal
from app.core.agent import Agent
from app.core.llm import LLMError, Message, ToolSpec
from app.core.page import ListedElement
from app.core.types import AgentActivity, AgentStatus, ExecutionResult, HandOffActivity, StepEvent
from app.demo.bundle import DEMO_CASSETTE, DemoBundle
from app.demo.scripted_model import Pick, ScriptedModel, Step
from app.demo.task import DEMO_TASK
from app.runtime import Runtime, RuntimeOptions
from app.settings.model import Settings
from app.settings.paths import AppPaths
from tests.demo.record_cassette import generate, solve_captcha
from tests.fakes.page import listed
from tests.waiting import until

DOWNLOAD_WAIT = 10.0
TURN_WAIT = 60.0


@pytest.fixture
def paths(tmp_path: Path) -> AppPaths:
    return AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs")


@pytest.fixture
async def runtime(paths: AppPaths) -> AsyncIterator[Runtime]:
    runtime = Runtime(Settings(), paths, RuntimeOptions(demo=True, headless=True, replay_pace=0), demo=DemoBundle())
    try:
        yield runtime
    finally:
        await runtime.shutdown()


async def read_when_saved(path: Path) -> str:
    # The download is saved in the background; the agent may finish the moment it has seen it start.
    await until(path.exists, DOWNLOAD_WAIT, message=f"{path.name} saved")
    return await asyncio.to_thread(path.read_text, encoding="utf-8")


def outputs(history: list[object]) -> list[str]:
    return [event.action.output for event in history if isinstance(event, StepEvent)]


class DemoRun:
    """The demo task running, with every hand-off it makes."""

    def __init__(self, agent: Agent) -> None:
        self.hand_offs: list[HandOffActivity] = []
        self._turn = asyncio.Event()
        agent.on("activity", self._activity)
        self.task = asyncio.ensure_future(agent.execute(DEMO_TASK))

    def _activity(self, activity: AgentActivity) -> None:
        if isinstance(activity, HandOffActivity):
            self.hand_offs.append(activity)
            self._turn.set()

    async def handed_over(self) -> HandOffActivity:
        """The next hand-off: the run is paused for the person."""
        waiter = asyncio.ensure_future(self._turn.wait())
        await asyncio.wait({waiter, self.task}, timeout=TURN_WAIT, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
        assert self._turn.is_set(), self.task.result().data if self.task.done() else "no hand-off in time"
        self._turn.clear()
        return self.hand_offs[-1]

    async def result(self) -> ExecutionResult:
        return await asyncio.wait_for(self.task, TURN_WAIT)


# The recording was made at 1280x800; a laptop's shorter window lists the form's elements under other indices.
@pytest.mark.parametrize("viewport", [None, {"width": 1000, "height": 560}])
async def test_the_demo_pauses_at_the_captcha_then_the_same_run_finishes_the_export(
    runtime: Runtime, paths: AppPaths, viewport: dict[str, int] | None
) -> None:
    agent = await runtime.agent()
    if viewport is not None:
        assert runtime.active_page is not None
        await runtime.active_page.set_viewport_size(viewport)
    run = DemoRun(agent)
    turn = await run.handed_over()
    assert "solve it in the browser window" in turn.reason and "I've done it — continue" in turn.reason
    assert agent.paused and agent.hand_off_reason == turn.reason and agent.status is AgentStatus.RUNNING
    assert any(
        "Save customer; the page navigated to" in out and "customer-saved.html" in out for out in outputs(agent.history)
    )
    page = runtime.active_page
    assert page is not None and page.url.endswith("/verify.html")

    await solve_captcha(page)
    agent.resume()
    result = await run.result()
    assert result.status is AgentStatus.COMPLETED, result.data
    assert result.success is True and len(run.hand_offs) == 1
    assert outputs(result.history)[-2].endswith("<a> Download CSV")
    csv = await read_when_saved(paths.downloads_dir / "acme-customers.csv")
    assert csv.splitlines()[1] == "Jane,Doe,jane@example.com,,Example Ltd,Pro,2026-12-01"


async def test_the_recording_follows_the_elements_however_their_lines_are_written(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The page as the model reads it, in another format altogether: the replay matches the elements as data.
    written: list[str] = []

    def another_format(observation: Observation) -> str:
        lines = [
            f"#{line.index} {line.element.tag}: {line.element.reads()}" for line in observation.lines if line.element
        ]
        written.append("\n".join(lines))
        return written[-1]

    monkeypatch.setattr("app.browser.page_reading.render", another_format)
    agent = await runtime.agent()
    run = DemoRun(agent)
    await run.handed_over()
    page = runtime.active_page
    assert page is not None
    await solve_captcha(page)
    agent.resume()
    result = await run.result()
    assert result.status is AgentStatus.COMPLETED, result.data
    assert "#2 input: Email" in written[0] and "<input" not in "".join(written)


async def test_a_new_task_runs_the_demo_again_from_the_sign_in_page(runtime: Runtime) -> None:
    agent = await runtime.agent(new_task=True)
    first = DemoRun(agent)
    await first.handed_over()
    steps_to_the_captcha = len(outputs(agent.history))
    await agent.stop()
    assert (await first.result()).status is AgentStatus.STOPPED
    # "New task" in the panel: the same agent, a task that is not a follow-up.
    assert await runtime.agent(new_task=True) is agent
    assert runtime.page_url().endswith("/index.html")  # signed out again: ?reset cleared the demo's storage
    again = DemoRun(agent)
    await again.handed_over()
    assert len(outputs(agent.history)) == steps_to_the_captcha
    await agent.stop()


async def test_continuing_before_solving_the_captcha_hands_it_over_again(runtime: Runtime) -> None:
    agent = await runtime.agent()
    run = DemoRun(agent)
    first = await run.handed_over()
    agent.resume()  # the captcha is still there
    second = await run.handed_over()
    assert agent.paused and not run.task.done()
    # Not the identical card: it says the captcha is still not solved.
    assert second.reason == f"Not done yet: the captcha is still on the page. {first.reason}"
    page = runtime.active_page
    assert page is not None and page.url.endswith("/verify.html")
    await solve_captcha(page)
    agent.resume()
    done = await run.result()
    assert done.status is AgentStatus.COMPLETED and done.success, done.data
    over = await agent.execute("Now delete every customer", follow_up=True)
    assert over.status is AgentStatus.ERROR
    assert "end of the recorded demo" in over.data


async def test_taking_over_and_doing_a_step_yourself_the_demo_carries_on(runtime: Runtime) -> None:
    agent = await runtime.agent()
    typed = asyncio.Event()
    agent.on("event_added", lambda event: typed.set() if isinstance(event, StepEvent) else None)
    run = DemoRun(agent)
    await asyncio.wait_for(typed.wait(), TURN_WAIT)
    agent.pause()  # Take over, with the email typed: the person signs in themselves
    page = runtime.active_page
    assert page is not None
    await page.fill("#password", "demo1234")
    await page.click("button[type=submit]")
    await page.wait_for_url("**/dashboard.html")
    agent.resume()
    turn = await run.handed_over()  # on to the captcha, from where the person left the page: no error
    assert "captcha" in turn.reason
    await agent.stop()


async def test_a_replay_that_no_longer_matches_the_page_stops_before_acting_and_says_so_plainly(
    runtime: Runtime,
) -> None:
    # The recording starts by typing into the sign-in form, which the "page not found" page does not have.
    agent = await runtime.agent()
    page = runtime.active_page
    assert page is not None
    await page.goto(urljoin(page.url, "404.html"))
    result = await agent.execute(DEMO_TASK)
    assert result.status is AgentStatus.ERROR
    assert result.data == (
        "The demo can only follow its recording, and this page is not where the recording "
        "expects it (its next step acts on the Email field). Press New task to start the demo "
        "again."
    )
    assert outputs(result.history) == []


async def test_the_checked_in_cassette_is_what_the_script_records(tmp_path: Path) -> None:
    out = tmp_path / "cassette.json"
    await generate(out)
    checked_in = resource_path(DEMO_CASSETTE).read_text(encoding="utf-8")
    assert out.read_text(encoding="utf-8") == checked_in, "rerun: python -m tests.demo.record_cassette --out PATH"
    # Nothing of the machine it was recorded on: no port, no temporary folder.
    assert "127.0.0.1" not in checked_in and tempfile.gettempdir() not in checked_in


# --- the scripted model on its own ------------------------------------------------------------------------------

SPEC = ToolSpec(name="AgentOutput", description="", parameters={})
STATE = (
    "<agent_history>\nResult: Clicked [1] <button> Save customer\n</agent_history>\n<browser_state>\n"
    "[1]<a href=/customers.html>Cancel />\n\t*[2]<button>Save customer />\n[3]<button>Save draft />\n"
    "</browser_state>"
)
ELEMENTS = [
    listed(1, "a", "Cancel", attrs={"href": "/customers.html"}),
    listed(2, "button", "Save customer"),
    listed(3, "button", "Save draft"),
]


def shown(state: str, elements: list[ListedElement]) -> list[Message]:
    return [Message(role="system", content="..."), Message(role="user", content=state, elements=elements)]


async def test_the_script_finds_its_element_by_its_fields_on_the_page_it_is_shown() -> None:
    step = Step("❔ start", "m", "Save.", "click_element_by_index", target=Pick("button", name="Save customer"))
    model = ScriptedModel((step,))
    # The lines number the buttons otherwise: the script reads the elements' data, never the text.
    reply = await model.invoke(shown(STATE.replace("[2]", "[9]"), ELEMENTS), SPEC, AbortSignal())
    assert reply.tool_calls[0].name == "AgentOutput"
    assert '"action": {"click_element_by_index": {"index": 2}}' in reply.tool_calls[0].arguments
    assert model.finished


@pytest.mark.parametrize(
    ("step", "message"),
    [
        (
            Step("e", "m", "g", "click_element_by_index", target=Pick("button", name="Delete")),
            "Demo step 1: no element matches Pick",
        ),
        (Step("e", "m", "g", "click_element_by_index", target=Pick("button")), "Demo step 1: 2 elements match Pick"),
        (
            Step("e", "m", "g", "click_element_by_index", target=Pick(attrs={"href": "/index.html"})),
            "Demo step 1: no element matches",
        ),
        (Step("e", "m", "g", "done", {"text": "t"}, sees="Export ready"), "Demo step 1 expects 'Export ready'"),
    ],
)
async def test_the_script_refuses_a_page_it_was_not_written_for(step: Step, message: str) -> None:
    model = ScriptedModel((step,))
    with pytest.raises(LLMError, match=message):
        await model.invoke(shown(STATE, ELEMENTS), SPEC, AbortSignal())
    assert not model.finished
