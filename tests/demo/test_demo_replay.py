"""The bundled demo as the panel plays it: the checked-in cassette replayed through the real engine in headless
Chromium against the demo site, the captcha handed to a person and the export finished after they solved it."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urljoin

import pytest

from app.assets import resource_path
from app.core.abort import AbortSignal
from app.core.llm import LLMError, Message, ToolSpec
from app.core.types import AgentStatus, StepEvent
from app.demo.script import DEMO_FOLLOW_UP, DEMO_TASK, ScriptedModel, Step, generate, solve_captcha
from app.runtime import DEMO_CASSETTE, Runtime, RuntimeOptions
from app.settings.model import Settings
from app.settings.paths import AppPaths

DOWNLOAD_WAIT = 10.0


@pytest.fixture
def paths(tmp_path: Path) -> AppPaths:
    return AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs")


@pytest.fixture
async def runtime(paths: AppPaths) -> AsyncIterator[Runtime]:
    runtime = Runtime(Settings(), paths, RuntimeOptions(demo=True, headless=True, replay_pace=0))
    try:
        yield runtime
    finally:
        await runtime.shutdown()


async def read_when_saved(path: Path) -> str:
    # The download is saved in the background; the agent may finish the moment it has seen it start.
    loop = asyncio.get_running_loop()
    deadline = loop.time() + DOWNLOAD_WAIT
    while not path.exists() and loop.time() < deadline:
        await asyncio.sleep(0.1)
    return await asyncio.to_thread(path.read_text, encoding="utf-8")


def outputs(history: list[object]) -> list[str]:
    return [event.action.output for event in history if isinstance(event, StepEvent)]


# The recording was made at 1280x800; a laptop's shorter window lists the form's elements under other indices.
@pytest.mark.parametrize("viewport", [None, {"width": 1000, "height": 560}])
async def test_the_demo_stops_at_the_captcha_then_finishes_the_export(
        runtime: Runtime, paths: AppPaths, viewport: dict[str, int] | None) -> None:
    agent = await runtime.agent()
    if viewport is not None:
        assert runtime.active_page is not None
        await runtime.active_page.set_viewport_size(viewport)
    first = await agent.execute(DEMO_TASK)
    assert first.status is AgentStatus.COMPLETED, first.data
    assert first.success is False
    assert "captcha" in first.data and "I've done it — continue" in first.data
    assert any("Save customer; the page navigated to" in out and "customer-saved.html" in out
               for out in outputs(first.history))
    page = runtime.active_page
    assert page is not None and page.url.endswith("/verify.html")

    await solve_captcha(page)
    second = await agent.execute(DEMO_FOLLOW_UP, follow_up=True)
    assert second.status is AgentStatus.COMPLETED, second.data
    assert second.success is True
    assert outputs(second.history)[0].endswith("<a> Download CSV")
    csv = await read_when_saved(paths.downloads_dir / "acme-customers.csv")
    assert csv.splitlines()[1] == "Jane,Doe,jane@example.com,,Example Ltd,Pro,2026-12-01"


async def test_a_new_task_runs_the_demo_again_from_the_sign_in_page(runtime: Runtime) -> None:
    agent = await runtime.agent(new_task=True)
    first = await agent.execute(DEMO_TASK)
    assert first.status is AgentStatus.COMPLETED and first.success is False, first.data
    # "New task" in the panel: the same agent, a task that is not a follow-up.
    assert await runtime.agent(new_task=True) is agent
    assert runtime.page_url().endswith("/index.html")  # signed out again: ?reset cleared the demo's storage
    again = await agent.execute(DEMO_TASK)
    assert again.status is AgentStatus.COMPLETED and again.success is False, again.data
    assert len(outputs(again.history)) == len(outputs(first.history))


async def test_continuing_before_solving_the_captcha_says_so_and_can_be_retried(runtime: Runtime) -> None:
    agent = await runtime.agent()
    await agent.execute(DEMO_TASK)
    early = await agent.execute(DEMO_FOLLOW_UP, follow_up=True)
    assert early.status is AgentStatus.ERROR
    assert "If the captcha is still there, solve it" in early.data
    page = runtime.active_page
    assert page is not None
    await solve_captcha(page)
    done = await agent.execute(DEMO_FOLLOW_UP, follow_up=True)
    assert done.status is AgentStatus.COMPLETED and done.success, done.data
    over = await agent.execute("Now delete every customer", follow_up=True)
    assert over.status is AgentStatus.ERROR
    assert "end of the recorded demo" in over.data


async def test_a_replay_that_no_longer_matches_the_page_stops_before_acting(runtime: Runtime) -> None:
    # The recording starts by typing into the sign-in form, which the "page not found" page does not have.
    agent = await runtime.agent()
    await runtime.open_url(urljoin(runtime.page_url(), "404.html"))
    result = await agent.execute(DEMO_TASK)
    assert result.status is AgentStatus.ERROR
    assert "no longer matches the page at answer 1" in result.data
    assert "placeholder=you@company.com" in result.data
    assert outputs(result.history) == []


async def test_the_checked_in_cassette_is_what_the_script_records(tmp_path: Path) -> None:
    out = tmp_path / "cassette.json"
    await generate(out)
    checked_in = resource_path(DEMO_CASSETTE).read_text(encoding="utf-8")
    assert out.read_text(encoding="utf-8") == checked_in, "regenerate: python -m app.demo.script --out PATH"
    # Nothing of the machine it was recorded on: no port, no temporary folder.
    assert "127.0.0.1" not in checked_in and tempfile.gettempdir() not in checked_in


# --- the scripted model on its own ------------------------------------------------------------------------------

SPEC = ToolSpec(name="AgentOutput", description="", parameters={})
STATE = ("<agent_history>\nResult: Clicked [1] <button> Save customer\n</agent_history>\n<browser_state>\n"
         "[1]<a href=/customers.html>Cancel />\n\t*[2]<button>Save customer />\n[3]<button>Save draft />\n"
         "</browser_state>")


def shown(state: str) -> list[Message]:
    return [Message(role="system", content="..."), Message(role="user", content=state)]


async def test_the_script_finds_its_element_by_text_on_the_page_it_is_shown() -> None:
    model = ScriptedModel((Step("❔ start", "m", "Save.", "click_element_by_index", target=">Save customer />"),))
    reply = await model.invoke(shown(STATE), SPEC, AbortSignal())
    assert reply.tool_calls[0].name == "AgentOutput"
    assert '"action": {"click_element_by_index": {"index": 2}}' in reply.tool_calls[0].arguments
    assert model.finished


@pytest.mark.parametrize(("step", "message"), [
    (Step("e", "m", "g", "click_element_by_index", target="Delete"), "Demo step 1: no element with 'Delete'"),
    (Step("e", "m", "g", "click_element_by_index", target="Save"), "Demo step 1: 2 elements with 'Save'"),
    (Step("e", "m", "g", "done", {"text": "t"}, sees="Export ready"), "Demo step 1 expects 'Export ready'"),
])
async def test_the_script_refuses_a_page_it_was_not_written_for(step: Step, message: str) -> None:
    model = ScriptedModel((step,))
    with pytest.raises(LLMError, match=message):
        await model.invoke(shown(STATE), SPEC, AbortSignal())
    assert not model.finished
