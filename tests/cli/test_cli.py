"""The headless runner as a user's script sees it: `python -m app run ...` in a subprocess, real headless Chromium,
the real HTTP fake model, exit codes, --events lines on stderr and the --json result on stdout."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from app.browser.processes import kill_profile_processes, profile_pids
from tests.browser.helpers import index_of
from tests.fakes.external_chromium import external_chromium
from tests.fakes.html_site import html_site
from tests.fakes.llm_server import (
    FakeLLMServer,
    FakeResponse,
    agent_output,
    completion,
    done_reply,
    error_reply,
    tool_reply,
)
from tests.fakes.ports import ROOT, unused_port

RUN_TIMEOUT = 45.0

# The button reports its press to the server, so a test knows the click reached the real page.
PAGE = b"""<!doctype html><title>Counter</title>
<button onclick="fetch('/pressed'); document.getElementById('out').textContent = 'Thank you'">Press me</button>
<p id=out>Waiting</p>"""

# Usage the fake model reports for the two answers of press_then_done, to check the totals against.
PRESS_USAGE = {"prompt_tokens": 1000, "completion_tokens": 50, "cached_tokens": 200}
DONE_USAGE = {"prompt_tokens": 1500, "completion_tokens": 70, "cached_tokens": 0}
PRESS_DELAY = 0.3


@dataclass
class PageServer:
    url: str
    hits: list[str]


@pytest.fixture
def page_server() -> Iterator[PageServer]:
    hits: list[str] = []

    def respond(path: str) -> bytes:
        hits.append(path)
        return PAGE if path == "/" else b""

    with html_site(respond) as origin:
        yield PageServer(origin + "/", hits)


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    """PAGE_AGENT_HOME for the run; afterwards no Chromium may be left running with its profile."""
    home = tmp_path / "home"
    yield home
    assert asyncio.run(profile_pids(home / "data" / "browser-profile")) == []


def cli_env(home: Path, llm_server: FakeLLMServer, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PAGE_AGENT_"))}
    env.update(
        PAGE_AGENT_HOME=str(home),
        OPENAI_API_KEY="sk-dummy",
        OPENAI_BASE_URL=llm_server.base_url,
        PAGE_AGENT_MODEL="fake-model",
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "app", "run", *args]


def run_cli(args: list[str], env: dict[str, str], timeout: float = RUN_TIMEOUT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def browser_state(body: dict[str, Any]) -> str:
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    return user.split("<browser_state>", 1)[1]


def press_then_done() -> Callable[[dict[str, Any]], FakeResponse]:
    """A model that reads the page: it presses the button, then calls done once the page thanks it."""

    def respond(body: dict[str, Any]) -> FakeResponse:
        page = browser_state(body)
        if "Thank you" in page:
            done = agent_output({"done": {"text": "Pressed it.", "success": True}})
            return FakeResponse(body=completion(arguments=done, **DONE_USAGE))
        press = agent_output(
            {"click_element_by_index": {"index": index_of(page, "Press me")}}, next_goal="Press the button"
        )
        return FakeResponse(body=completion(arguments=press, **PRESS_USAGE), delay=PRESS_DELAY)

    return respond


def event_lines(stderr: str) -> list[dict[str, Any]]:
    """Every stderr line, parsed: with --events nothing but JSON objects may appear there."""
    events = [json.loads(line) for line in stderr.splitlines() if line.strip()]
    assert all(isinstance(e, dict) for e in events)
    return events


def statuses(events: list[dict[str, Any]]) -> list[str]:
    return [e["status"] for e in events if e["event"] == "status_changed"]


def test_a_task_that_succeeds_exits_0_with_events_and_a_json_result(
    home: Path, llm_server: FakeLLMServer, page_server: PageServer
) -> None:
    llm_server.fallback = press_then_done()
    # A damaged settings file makes the app log a warning: with --events that must arrive as a JSON line too.
    (home / "config").mkdir(parents=True)
    (home / "config" / "settings.json").write_text("{not json")

    done = run_cli(cli("Press the button", "--url", page_server.url, "--events", "--json"), cli_env(home, llm_server))

    assert done.returncode == 0, done.stderr
    events = event_lines(done.stderr)
    warning = next(e for e in events if e["event"] == "log" and "settings file was damaged" in e["message"])
    assert warning["level"] == "warning" and warning["logger"] == "app.settings.model"
    assert warning["message"].startswith("settings file was damaged")  # no "WARNING:logger:" prefix repeated
    times = [e["t"] for e in events]
    assert times == sorted(times) and times[0] >= 0
    assert statuses(events) == ["running", "completed"]
    steps = [e["item"] for e in events if e["event"] == "history" and e["item"]["type"] == "step"]
    assert [s["action"]["name"] for s in steps] == ["click_element_by_index", "done"]
    assert {"thinking", "executing", "executed"} <= {e["activity"]["type"] for e in events if e["event"] == "activity"}

    result = json.loads(done.stdout)
    assert result["success"] is True and result["data"] == "Pressed it."
    assert result["status"] == "completed" and result["steps"] == 2
    assert {"prompt_tokens", "completion_tokens", "total_tokens"} <= result["tokens"].keys()

    assert "/pressed" in page_server.hits
    assert len(llm_server.requests) == 2
    second = llm_server.user_message(1)
    assert "click_element_by_index" in second and "Thank you" in browser_state(llm_server.requests[1])


def test_the_first_step_reads_the_start_page_once_its_content_has_come(home: Path, llm_server: FakeLLMServer) -> None:
    app = (ROOT / "tests" / "pages" / "settle_app.html").read_bytes()
    llm_server.fallback = lambda _body: done_reply("Read it.")

    def respond(path: str) -> bytes:
        return b"Lisbon\nLima\nLondon\n" if path == "/cities.txt" else app

    with html_site(respond) as origin:
        done = run_cli(cli("Count the open orders", "--url", f"{origin}/"), cli_env(home, llm_server))

    assert done.returncode == 0, done.stderr
    first = browser_state(llm_server.requests[0])
    assert "3 open orders" in first and "New order" in first and "Loading" not in first


def test_event_times_and_token_totals_match_what_the_model_reported(
    home: Path, llm_server: FakeLLMServer, page_server: PageServer
) -> None:
    llm_server.fallback = press_then_done()

    done = run_cli(cli("Press the button", "--url", page_server.url, "--events", "--json"), cli_env(home, llm_server))

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    prompt = PRESS_USAGE["prompt_tokens"] + DONE_USAGE["prompt_tokens"]
    completion_tokens = PRESS_USAGE["completion_tokens"] + DONE_USAGE["completion_tokens"]
    assert result["tokens"] == {
        "prompt_tokens": prompt,
        "completion_tokens": completion_tokens,
        "cached_tokens": PRESS_USAGE["cached_tokens"],
        "total_tokens": prompt + completion_tokens,
    }
    events = event_lines(done.stderr)
    step_usage = [e["item"]["usage"] for e in events if e["event"] == "history" and e["item"]["type"] == "step"]
    assert step_usage == [PRESS_USAGE, DONE_USAGE]

    # The model held its first answer PRESS_DELAY seconds: the times must show that wait between thinking and acting.
    first = {e["activity"]["type"]: e["t"] for e in reversed(events) if e["event"] == "activity"}
    assert first["executing"] - first["thinking"] >= PRESS_DELAY
    assert first["executing"] - first["thinking"] < PRESS_DELAY + 10


def test_done_with_success_false_exits_1_and_flags_beat_the_environment(
    home: Path, llm_server: FakeLLMServer, page_server: PageServer
) -> None:
    llm_server.add(done_reply("There is no such button.", success=False))
    dead_endpoint = f"http://127.0.0.1:{unused_port()}/v1"
    env = cli_env(home, llm_server, OPENAI_BASE_URL=dead_endpoint, MY_KEY="sk-from-my-var")

    done = run_cli(
        cli(
            "Press the red button",
            "--url",
            page_server.url,
            "--base-url",
            llm_server.base_url,
            "--model",
            "flag-model",
            "--api-key-env",
            "MY_KEY",
        ),
        env,
    )

    assert done.returncode == 1, done.stderr
    assert done.stdout.strip() == "There is no such button."
    request = llm_server.requests[0]
    assert request["model"] == "flag-model"
    assert request["_headers"]["authorization"] == "Bearer sk-from-my-var"


def test_a_model_error_exits_2_with_a_plain_message(
    home: Path, llm_server: FakeLLMServer, page_server: PageServer
) -> None:
    llm_server.add(error_reply(401, "Incorrect API key provided", code="invalid_api_key"))

    done = run_cli(cli("Press the button", "--url", page_server.url), cli_env(home, llm_server))

    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    message = done.stderr.strip().splitlines()[-1]
    assert message.startswith("page-agent-desktop: ") and "API key" in message
    assert len(llm_server.requests) == 1  # an auth error is not retried


def test_a_browser_that_cannot_be_reached_exits_2_with_an_error_event(home: Path, llm_server: FakeLLMServer) -> None:
    done = run_cli(
        cli("Press the button", "--cdp-url", f"http://127.0.0.1:{unused_port()}", "--events"), cli_env(home, llm_server)
    )

    assert done.returncode == 2
    events = event_lines(done.stderr)
    assert events[-1]["event"] == "error" and "Could not attach" in events[-1]["message"]
    assert llm_server.requests == []


def test_a_start_page_that_cannot_be_opened_still_gives_a_json_result(home: Path, llm_server: FakeLLMServer) -> None:
    """A script reading --json's stdout learns why the run never started (it printed nothing before)."""
    url = f"http://127.0.0.1:{unused_port()}/"

    done = run_cli(cli("Press the button", "--url", url, "--json"), cli_env(home, llm_server))

    assert done.returncode == 2
    result = json.loads(done.stdout)
    assert result["success"] is False and result["status"] == "error"
    assert result["data"].startswith(f"Could not open {url}")
    assert result["data"] in done.stderr  # said on stderr too, as without --json
    assert llm_server.requests == []


@pytest.mark.parametrize("key_flag", [[], ["--api-key-env", "MY_KEY"]])
def test_without_a_key_the_cli_says_one_is_missing_before_chromium_starts(
    home: Path, llm_server: FakeLLMServer, key_flag: list[str]
) -> None:
    """Not "Could not reach the model endpoint" after Chromium started: the key is missing, and where to put one."""
    env = cli_env(home, llm_server, OPENAI_BASE_URL="https://api.example.invalid/v1")
    del env["OPENAI_API_KEY"]
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"  # no saved key either

    done = run_cli(cli("Press the button", "--json", *key_flag), env)

    assert done.returncode == 2
    said = done.stderr.strip().splitlines()[-1]
    assert said.startswith("page-agent-desktop: No API key for the model at https://api.example.invalid/v1"), said
    assert ("MY_KEY" if key_flag else "OPENAI_API_KEY") in said
    assert json.loads(done.stdout)["status"] == "error"
    assert not (home / "data" / "browser-profile").exists()


def test_a_routine_without_a_key_says_one_is_missing_before_any_row_runs(
    home: Path, llm_server: FakeLLMServer, tmp_path: Path
) -> None:
    """Not one "Could not reach the model endpoint" per row, each after its browser started."""
    rows = tmp_path / "rows.csv"
    rows.write_text("name\nAda\nGrace\n", encoding="utf-8")
    env = cli_env(home, llm_server, OPENAI_BASE_URL="https://api.example.invalid/v1")
    del env["OPENAI_API_KEY"]
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"

    done = run_cli(cli("Greet {name}", "--rows", str(rows)), env)

    assert done.returncode == 2
    said = done.stderr.strip().splitlines()[-1]
    assert said.startswith("page-agent-desktop: No API key for the model at https://api.example.invalid/v1"), said
    assert not (home / "data" / "browser-profile").exists() and not (tmp_path / "rows-results.csv").exists()


@pytest.mark.parametrize(
    ("args", "complaint"),
    [
        (["  "], "the task is empty"),
        (["Press the button", "--max-steps", "0"], "--max-steps: must be more than 0"),
        (["Press the button", "--max-duration", "-5"], "--max-duration: must be more than 0"),
        (["Press the button", "--max-steps", "many"], "invalid int value"),
    ],
)
def test_bad_arguments_exit_2_before_chromium_starts(
    home: Path, llm_server: FakeLLMServer, args: list[str], complaint: str
) -> None:
    done = run_cli(cli(*args), cli_env(home, llm_server))

    assert done.returncode == 2
    assert complaint in done.stderr and "Traceback" not in done.stderr
    assert not (home / "data").exists()


def test_sigint_stops_a_held_model_call_and_exits_3(
    home: Path, llm_server: FakeLLMServer, page_server: PageServer
) -> None:
    llm_server.add(tool_reply({"click_element_by_index": {"index": 1}}, delay=60))  # only the stop ends the call
    process = subprocess.Popen(
        cli("Press the button", "--url", page_server.url, "--json"),
        env=cli_env(home, llm_server),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        llm_server.wait_received(timeout=RUN_TIMEOUT, alive=process)

        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=30)  # half the held call: a stop that waited for it fails
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()

    assert process.returncode == 3, stderr
    result = json.loads(stdout)
    assert result["status"] == "stopped" and result["success"] is False
    assert "/pressed" not in page_server.hits


def test_cdp_url_works_in_the_open_tab_and_leaves_that_browser_running(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer, page_server: PageServer
) -> None:
    profile = tmp_path / "external-profile"
    with external_chromium(profile, page_server.url) as (cdp_url, chromium):
        llm_server.fallback = press_then_done()

        done = run_cli(cli("Press the button", "--cdp-url", cdp_url, "--json"), cli_env(home, llm_server))

        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["data"] == "Pressed it."
        state = browser_state(llm_server.requests[0])
        assert "Tab 1 (current)" in state and "Current page: [Counter]" in state
        assert "/pressed" in page_server.hits
        with pytest.raises(subprocess.TimeoutExpired):
            chromium.wait(0.3)  # the attached browser was not closed
        with urllib.request.urlopen(f"{cdp_url}/json/version", timeout=5) as response:
            assert json.load(response)["Browser"]
    # Chromium's helper processes follow the browser out: none is left to kill after a grace period.
    assert asyncio.run(kill_profile_processes(profile, grace=10)) == []


def test_vision_sends_a_screenshot_each_step_and_its_recording_replays_without_the_images(
    home: Path, llm_server: FakeLLMServer, page_server: PageServer, tmp_path: Path
) -> None:
    respond = press_then_done()

    def reading_text_and_image(body: dict[str, Any]) -> FakeResponse:
        last = body["messages"][-1]
        assert [part["type"] for part in last["content"]] == ["text", "image_url"]  # one image, with the text
        assert all(isinstance(m["content"], str) for m in body["messages"][:-1])
        return respond(
            {**body, "messages": [*body["messages"][:-1], {"role": "user", "content": last["content"][0]["text"]}]}
        )

    llm_server.fallback = reading_text_and_image
    cassette = tmp_path / "vision.json"
    done = run_cli(
        cli("Press the button", "--url", page_server.url, "--vision", "--record", str(cassette), "--json"),
        cli_env(home, llm_server),
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["success"] is True and len(llm_server.requests) == 2
    assert "base64" not in cassette.read_text()  # answers are recorded, never the screenshots sent

    replayed = run_cli(
        cli("Press the button", "--url", page_server.url, "--vision", "--replay", str(cassette), "--json"),
        cli_env(home, llm_server),
    )
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout)["data"] == "Pressed it." and len(llm_server.requests) == 2


def test_a_cassette_of_the_older_format_is_refused_plainly(
    home: Path, llm_server: FakeLLMServer, page_server: PageServer, tmp_path: Path
) -> None:
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"version": 1, "entries": []}), encoding="utf-8")
    done = run_cli(cli("Press the button", "--url", page_server.url, "--replay", str(old)), cli_env(home, llm_server))
    assert done.returncode == 2, done.stderr
    assert "it was recorded in cassette format 1" in done.stderr and "Record it again with --record." in done.stderr
    assert "Traceback" not in done.stderr and llm_server.requests == []
