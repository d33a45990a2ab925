"""Secrets against hostile pages and a model that obeys them: the value reaches the page it is meant for and 0 bytes
of everything else (what the model is sent, events, results, the saved run and its exports, the cassette, the log).

Real headless Chromium, the real HTTP fake model, and, for the command line, `python -m app run` in a subprocess.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from pydantic import SecretStr

from app.browser.controller import PlaywrightPageController
from app.core.abort import AbortSignal
from app.core.agent import Agent
from app.core.config import AgentConfig
from app.core.safety.guardrails import Guardrails
from app.core.safety.secrets import Secret, SecretVault
from app.core.types import ExecutionResult, StepEvent
from app.history.export import export_html, export_json
from app.history.recorder import RunRecorder
from app.history.store import RunStore
from app.llm import probe
from app.llm.cassette import RecordingClient
from app.llm.client import OpenAICompatibleClient
from app.llm.settings import LLMSettings
from app.logging_setup import configure_logging
from app.settings.model import Settings
from tests.browser.helpers import index_of
from tests.cli.test_cli import cli, cli_env, home, run_cli  # noqa: F401  (home: fixture)
from tests.fakes.llm_server import FakeLLMServer, FakeResponse, agent_output, completion, error_reply
from tests.fakes.page import FakePage
from tests.security.conftest import HostileSite

Step = Callable[[str], dict[str, Any]]  # the page as the model sees it -> the action


def browser_state(body: dict[str, Any]) -> str:
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    return user.split("<browser_state>", 1)[1]


def obeying_model(llm_server: FakeLLMServer, *steps: Step, memory: str = "") -> None:
    """A model that takes ``steps`` in order, each reading the page it is shown, then says it is done."""
    remaining = list(steps)

    def respond(body: dict[str, Any]) -> FakeResponse:
        action = remaining.pop(0)(browser_state(body)) if remaining else {"done": {"text": "Done.", "success": True}}
        return FakeResponse(body=completion(arguments=agent_output(action, memory=memory)))

    llm_server.fallback = respond


def type_into(needle: str, text: str) -> Step:
    return lambda page: {"input_text": {"index": index_of(page, needle), "text": text}}


def click(*needles: str) -> Step:
    return lambda page: {"click_element_by_index": {"index": index_of(page, *needles)}}


def done(text: str) -> Step:
    return lambda page: {"done": {"text": text, "success": True}}


@dataclass
class Rig:
    """One agent on the real browser, with every place a secret could end up: recorded, saved, logged."""

    agent: Agent
    llm_server: FakeLLMServer
    recorder: RunRecorder
    store: RunStore
    cassette: Path
    log_file: Path
    events: list[str] = field(default_factory=list)

    async def run(self, task: str) -> ExecutionResult:
        result = await self.agent.execute(task)
        await self.recorder.flush()
        # A module that logs what it was handed (an exception text, a page's words) must not leak either.
        logging.getLogger("app.test").warning("after the run: %s", json.dumps(result.model_dump(mode="json")))
        return result

    def outputs(self) -> dict[str, str]:
        """Every output, as text: later prompts are checked separately where the value was in the task."""
        [summary] = self.store.summaries()
        record = self.store.load(summary.id)
        return {
            "model requests": json.dumps(self.llm_server.requests, ensure_ascii=False),
            "events": "\n".join(self.events),
            "result": self.agent.last_result.model_dump_json() if self.agent.last_result else "",
            "saved run": self.store.path_of(summary.id).read_text(encoding="utf-8"),
            "JSON export": export_json(record),
            "HTML export": export_html(record),
            "cassette": self.cassette.read_text(encoding="utf-8"),
            "log": self.log_file.read_text(encoding="utf-8"),
        }


@pytest.fixture
def log_dir(tmp_path: Path) -> Iterator[Path]:
    """The panel's real logging set-up, for this test only."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    configure_logging(tmp_path / "log")
    yield tmp_path / "log"
    for handler in root.handlers[len(handlers) :]:
        root.removeHandler(handler)
        handler.close()
    root.setLevel(level)


@pytest_asyncio.fixture(loop_scope="module")  # on the module's loop, as the shared browser
async def rig_for(
    controller: PlaywrightPageController, llm_server: FakeLLMServer, tmp_path: Path, log_dir: Path
) -> Iterator[Callable[..., Rig]]:
    rigs: list[Rig] = []

    def build(*secret_list: Secret) -> Rig:
        settings = LLMSettings(
            base_url=llm_server.base_url, api_key=SecretStr("sk-test-secret"), model="fake-model", retry_base_delay=0.01
        )
        cassette = tmp_path / f"cassette-{len(rigs)}.json"
        guardrails = Guardrails(secrets=SecretVault(list(secret_list)))
        controller.guardrails = guardrails
        agent = Agent(
            RecordingClient(OpenAICompatibleClient(settings), cassette),
            controller,
            AgentConfig(max_steps=8),
            guardrails=guardrails,
        )
        store = RunStore(tmp_path / f"runs-{len(rigs)}")
        rig = Rig(agent, llm_server, RunRecorder(agent, store, Settings()), store, cassette, log_dir / "page-agent.log")
        for name in ("status_changed", "activity", "task_started", "event_added", "task_finished"):
            agent.on(name, lambda payload, rig=rig: rig.events.append(_dump(payload)))  # type: ignore[misc]
        rigs.append(rig)
        return rig

    yield build
    for rig in rigs:
        await rig.agent.dispose()
        await rig.recorder.close()
        await rig.agent._llm.close()  # type: ignore[attr-defined]


def _dump(payload: Any) -> str:
    if isinstance(payload, list):
        return json.dumps([item.model_dump(mode="json") for item in payload], ensure_ascii=False)
    return payload.model_dump_json() if hasattr(payload, "model_dump_json") else str(payload)


def assert_nowhere(value: str, outputs: dict[str, str]) -> None:
    leaks = [name for name, text in outputs.items() if value in text]
    assert leaks == [], f"the secret leaked into: {leaks}"


@pytest.fixture
def value() -> str:
    return "pw-" + secrets.token_urlsafe(24)


async def open_page(controller: PlaywrightPageController, url: str) -> None:
    await controller.go_to_url(url, AbortSignal())


def posted(hostile: HostileSite, origin: str, path: str) -> list[bytes]:
    return [hit.body for hit in hostile.hits if hit.origin == origin and hit.method == "POST" and hit.path == path]


def results(agent: Agent) -> list[str]:
    return [event.action.output for event in agent.history if isinstance(event, StepEvent)]


# --- the legitimate use --------------------------------------------------------------------------------------------


async def test_a_secret_is_typed_into_the_right_field_and_is_nowhere_else(
    rig_for: Callable[..., Rig], controller: PlaywrightPageController, hostile: HostileSite, value: str
) -> None:
    site = hostile.page.removeprefix("http://")
    rig = rig_for(Secret("pw", SecretStr(value), (site,)))
    await open_page(controller, f"{hostile.page}/secrets-signin.html")
    obeying_model(
        rig.llm_server,
        type_into("name=email", "ada@example.com"),
        type_into("type=password", "<secret>pw</secret>"),
        click("Sign in"),
        done("Signed in."),
    )

    result = await rig.run("Sign in as ada@example.com with <secret>pw</secret>")

    assert result.success, result.data
    [body] = posted(hostile, hostile.page, "/signin")
    assert f"password={value}".encode() in body  # the page it was meant for got it
    assert not hostile.received(value, hostile.attacker)
    assert "<secret>pw</secret>" in rig.llm_server.user_message(0)
    assert_nowhere(value, rig.outputs())


# --- attacks --------------------------------------------------------------------------------------------------------


async def test_a_page_that_echoes_the_typed_value_shows_the_model_only_the_placeholder(
    rig_for: Callable[..., Rig], controller: PlaywrightPageController, hostile: HostileSite, value: str
) -> None:
    rig = rig_for(Secret("pw", SecretStr(value)))
    await open_page(controller, f"{hostile.page}/secrets-echo.html")
    obeying_model(
        rig.llm_server, type_into("type=password", "<secret>pw</secret>"), click("Sign in"), done("Signed in.")
    )

    await rig.run("Sign in with <secret>pw</secret>")

    seen = rig.llm_server.user_message(1)
    # The page repeated it in its text, a text field, its title and its address: each shows the placeholder.
    assert "You typed <secret>pw</secret>" in seen
    assert "name=copy value=<secret>pw</secret>" in seen or 'value="<secret>pw</secret>"' in seen
    assert "Hello <secret>pw</secret>" in seen and "typed=<secret>pw</secret>" in seen
    [body] = posted(hostile, hostile.page, "/signin")
    assert f"password={value}".encode() in body
    assert_nowhere(value, rig.outputs())


async def test_a_button_named_after_the_typed_value_is_recorded_and_replayed_by_its_placeholder(
    rig_for: Callable[..., Rig], controller: PlaywrightPageController, hostile: HostileSite, value: str
) -> None:
    # The cassette keeps each acted-on element as data (its name, text and naming attributes), and the page's
    # elements travel beside the prompt: the value must reach neither the model nor the recording.
    rig = rig_for(Secret("pw", SecretStr(value)))
    await open_page(controller, f"{hostile.page}/secrets-echo-button.html")
    obeying_model(
        rig.llm_server, type_into("type=password", "<secret>pw</secret>"), click("Sign in as"), done("Signed in.")
    )

    await rig.run("Sign in with <secret>pw</secret>")

    assert "Sign in as <secret>pw</secret>" in rig.llm_server.user_message(1)
    assert all(
        set(message) == {"role", "content"} for request in rig.llm_server.requests for message in request["messages"]
    )
    recorded = json.loads(rig.cassette.read_text(encoding="utf-8"))["entries"][1]["expect"]
    assert recorded["text"] == "Sign in as <secret>pw</secret>"
    [body] = posted(hostile, hostile.page, "/signin")
    assert f"password={value}".encode() in body
    assert_nowhere(value, rig.outputs())


async def test_a_secret_limited_to_the_site_is_not_typed_into_another_origins_frame(
    rig_for: Callable[..., Rig], controller: PlaywrightPageController, hostile: HostileSite, value: str
) -> None:
    rig = rig_for(Secret("pw", SecretStr(value), (hostile.page.removeprefix("http://"),)))
    await open_page(controller, f"{hostile.page}/secrets-iframe.html")
    obeying_model(rig.llm_server, type_into("type=password", "<secret>pw</secret>"), click("Sign in"), done("Tried."))

    await rig.run("Sign in with <secret>pw</secret>")

    typed = results(rig.agent)[0]
    assert typed.startswith("❌") and "may only be typed on" in typed
    assert hostile.attacker.removeprefix("http://") in typed
    assert posted(hostile, hostile.attacker, "/steal") == [b"password="]  # the form went, empty
    assert not hostile.received(value)
    assert_nowhere(value, rig.outputs())


async def test_an_unknown_secret_is_refused_naming_the_known_ones(
    rig_for: Callable[..., Rig], controller: PlaywrightPageController, hostile: HostileSite, value: str
) -> None:
    rig = rig_for(Secret("pw", SecretStr(value)))
    await open_page(controller, f"{hostile.page}/secrets-signin.html")
    obeying_model(rig.llm_server, type_into("type=password", "<secret>bank</secret>"), done("Gave up."))

    await rig.run("Sign in")

    typed = results(rig.agent)[0]
    assert typed.startswith("❌") and '"bank"' in typed and "<secret>pw</secret>" in typed
    # Nothing was typed: the field is still empty on the next look.
    password_line = next(
        line for line in browser_state(rig.llm_server.requests[1]).splitlines() if "type=password" in line
    )
    assert "value=" not in password_line
    assert_nowhere(value, rig.outputs())


async def test_a_password_typed_as_itself_is_masked_from_then_on(
    rig_for: Callable[..., Rig], controller: PlaywrightPageController, hostile: HostileSite, value: str
) -> None:
    rig = rig_for()
    await open_page(controller, f"{hostile.page}/secrets-echo.html")
    # The model repeats it in its memory and its final answer; the page echoes it back too.
    obeying_model(
        rig.llm_server,
        type_into("type=password", value),
        click("Sign in"),
        done(f"Signed in with {value}"),
        memory=f"the password is {value}",
    )

    task = f"Sign in with the password {value}"
    await rig.run(task)

    [body] = posted(hostile, hostile.page, "/signin")
    assert f"password={value}".encode() in body
    # The user put it in the task: every prompt has the task as the user wrote it (a value learnt from typing never
    # rewrites the user's words), and nothing else of the later ones holds it.
    for index in range(len(rig.llm_server.requests)):
        assert rig.llm_server.user_message(index).count(f"<user_request>\n{task}\n</user_request>") == 1
    outputs = rig.outputs()
    outputs["model requests"] = json.dumps(rig.llm_server.requests[1:]).replace(json.dumps(task)[1:-1], "")
    assert_nowhere(value, outputs)
    assert "<secret>typed_password</secret>" in rig.llm_server.user_message(1)


async def test_a_password_typed_as_itself_is_not_typed_again_into_another_origins_frame(
    rig_for: Callable[..., Rig], controller: PlaywrightPageController, hostile: HostileSite, value: str
) -> None:
    rig = rig_for()
    await open_page(controller, f"{hostile.page}/secrets-both.html")
    # The model still remembers the password from the task, and the frame asks for it.
    obeying_model(
        rig.llm_server,
        lambda page: {"input_text": {"index": _password(page, 0), "text": value}},
        lambda page: {"input_text": {"index": _password(page, 1), "text": value}},
        click(">Sign in />"),
        done("Done."),
    )

    await rig.run(f"Sign in with the password {value}")

    typed = results(rig.agent)
    assert not typed[0].startswith("❌") and typed[1].startswith("❌") and "may only be typed on" in typed[1]
    assert posted(hostile, hostile.attacker, "/steal") == [b"password="]
    assert not hostile.received(value, hostile.attacker)


def _password(page: str, which: int) -> int:
    """The page's own password field (0), or the one in the other origin's frame (1), listed after it."""
    lines = [line for line in page.splitlines() if "type=password" in line]
    assert len(lines) == 2, page
    return index_of(lines[which], "type=password")


# --- the command line ---------------------------------------------------------------------------------------------


def secrets_file(tmp_path: Path, data: dict[str, Any], mode: int = 0o600) -> Path:
    path = tmp_path / "secrets.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    os.chmod(path, mode)
    return path


def test_the_cli_types_a_secret_from_a_private_file_and_prints_and_records_only_the_placeholder(
    home: Path, llm_server: FakeLLMServer, hostile: HostileSite, tmp_path: Path, value: str
) -> None:
    path = secrets_file(tmp_path, {"pw": {"value": value, "domains": [hostile.page.removeprefix("http://")]}})
    cassette = tmp_path / "cassette.json"
    obeying_model(
        llm_server,
        type_into("name=email", "ada@example.com"),
        type_into("type=password", "<secret>pw</secret>"),
        click("Sign in"),
        done("Signed in."),
    )

    run = run_cli(
        cli(
            "Sign in with <secret>pw</secret>",
            "--url",
            f"{hostile.page}/secrets-signin.html",
            "--secrets-file",
            str(path),
            "--events",
            "--json",
            "--record",
            str(cassette),
        ),
        cli_env(home, llm_server),
    )

    assert run.returncode == 0, run.stderr
    [body] = posted(hostile, hostile.page, "/signin")
    assert f"password={value}".encode() in body
    assert "<secret>pw</secret>" in run.stderr
    assert_nowhere(
        value,
        {
            "--events": run.stderr,
            "--json": run.stdout,
            "cassette": cassette.read_text(),
            "model requests": json.dumps(llm_server.requests),
        },
    )


@pytest.mark.parametrize(
    ("content", "mode", "words"),
    [
        ({"pw": "long-enough-value"}, 0o644, "can be read by other users"),
        ({"Bad Name": "long-enough-value"}, 0o600, "not a usable secret name"),
    ],
)
def test_the_cli_refuses_a_bad_secrets_file_before_chromium_starts(
    home: Path,
    llm_server: FakeLLMServer,
    hostile: HostileSite,
    tmp_path: Path,
    content: dict[str, Any],
    mode: int,
    words: str,
) -> None:
    path = secrets_file(tmp_path, content, mode)

    run = run_cli(
        cli("Sign in", "--url", f"{hostile.page}/secrets-signin.html", "--secrets-file", str(path)),
        cli_env(home, llm_server),
    )

    assert run.returncode == 2 and words in run.stderr
    assert "long-enough-value" not in run.stderr
    assert not (home / "data" / "browser-profile").exists() and hostile.hits == [] and llm_server.requests == []


def test_the_cli_refuses_a_missing_secrets_file(home: Path, llm_server: FakeLLMServer, tmp_path: Path) -> None:
    run = run_cli(cli("Sign in", "--secrets-file", str(tmp_path / "none.json")), cli_env(home, llm_server))
    assert run.returncode == 2 and "does not exist" in run.stderr


def test_an_api_key_quoted_in_a_401_is_masked_in_every_cli_output(home: Path, llm_server: FakeLLMServer) -> None:
    key = "plainkey" + secrets.token_hex(16)  # no "sk-" prefix: only knowing the key itself can mask it
    llm_server.fallback = lambda _body: error_reply(401, f"Incorrect API key provided: {key}")

    for flags in (("--events", "--json"), ()):
        run = run_cli(cli("Anything", *flags), cli_env(home, llm_server, OPENAI_API_KEY=key))
        assert run.returncode == 2, run.stderr
        assert "rejected the API key" in run.stderr + run.stdout
        assert key not in run.stderr and key not in run.stdout


async def test_the_connection_test_and_a_running_agent_never_show_a_quoted_key(
    llm_server: FakeLLMServer, log_dir: Path
) -> None:
    key = "plainkey" + secrets.token_hex(16)
    settings = LLMSettings(base_url=llm_server.base_url, api_key=SecretStr(key), model="fake-model", max_attempts=1)
    llm_server.fallback = lambda _body: error_reply(401, f"Incorrect API key provided: {key}; {key[:12]}")

    verdict = await probe.test_connection(settings)
    client = OpenAICompatibleClient(settings)
    try:
        result = await Agent(client, FakePage()).execute("Anything")
    finally:
        await client.close()
    logging.getLogger("app.test").error("the server said: Incorrect API key provided: %s", key)

    assert "rejected the API key" in verdict.message and "rejected the API key" in result.data
    assert_nowhere(
        key,
        {
            "probe": verdict.model_dump_json(),
            "result": result.model_dump_json(),
            "log": (log_dir / "page-agent.log").read_text(encoding="utf-8"),
        },
    )


async def test_a_key_cut_off_by_a_long_error_message_is_not_shown_in_part(llm_server: FakeLLMServer) -> None:
    key = "plainkey" + secrets.token_hex(16)
    settings = LLMSettings(base_url=llm_server.base_url, api_key=SecretStr(key), model="fake-model", max_attempts=1)
    # The key starts just before the 300 characters an error message is cut to.
    llm_server.fallback = lambda _body: error_reply(401, "x" * 290 + f" {key}")

    verdict = await probe.test_connection(settings)

    assert key[:8] not in verdict.message
