"""The hand-off on the command line, as a script and a person at a terminal see it: `python -m app run ...` in a
subprocess, real headless Chromium, the real HTTP fake model handing the browser over (hand_off_to_user)."""

from __future__ import annotations

import json
import signal
import subprocess
from typing import Any

from tests.cli.test_cli import (  # noqa: F401  (fixtures)
    ROOT,
    RUN_TIMEOUT,
    PageServer,
    cli,
    cli_env,
    event_lines,
    home,
    page_server,
    statuses,
)
from tests.fakes.llm_server import FakeLLMServer, FakeResponse, agent_output, completion
from tests.security.test_risky_cli import Terminal
from tests.text.test_hand_off_words import PRETENDER, QUOTED

REASON = "Please solve the captcha in the browser window, then let me carry on."
HANDED_BACK = "and they have handed it back"
SAYS = f"The agent says: “{REASON}” Page Agent never asks for your passwords or PINs."


def hand_off_then_done(llm_server: FakeLLMServer, reason: str = REASON) -> None:
    """A model that hands the browser over, and finishes once it is told the person handed it back."""

    def respond(body: dict[str, Any]) -> FakeResponse:
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        if HANDED_BACK in user:
            action: dict[str, Any] = {"done": {"text": "Exported.", "success": True}}
        else:
            action = {"hand_off_to_user": {"reason": reason}}
        return FakeResponse(body=completion(arguments=agent_output(action)))

    llm_server.fallback = respond


def run_without_terminal(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, env=env, cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=RUN_TIMEOUT
    )


def test_without_a_terminal_a_hand_off_exits_4_with_the_reason(
    home, llm_server: FakeLLMServer, page_server: PageServer
) -> None:
    hand_off_then_done(llm_server)
    done = run_without_terminal(
        cli("Export the customers", "--url", page_server.url, "--json"), cli_env(home, llm_server)
    )

    assert done.returncode == 4, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "needs_person" and result["success"] is False
    assert result["data"] == REASON
    assert [e["action"]["name"] for e in result["history"] if e["type"] == "step"] == ["hand_off_to_user"]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("page-agent-desktop: A person is needed in the browser") and last.endswith(SAYS)
    assert len(llm_server.requests) == 1


def test_without_a_terminal_events_end_with_the_reason(
    home, llm_server: FakeLLMServer, page_server: PageServer
) -> None:
    hand_off_then_done(llm_server)
    done = run_without_terminal(
        cli("Export the customers", "--url", page_server.url, "--events"), cli_env(home, llm_server)
    )

    assert done.returncode == 4, done.stderr
    assert done.stdout == ""
    events = event_lines(done.stderr)
    assert statuses(events) == ["running", "needs_person"]
    assert events[-1]["event"] == "error" and events[-1]["message"].endswith(SAYS)


def test_on_a_terminal_enter_carries_the_same_task_on_with_the_note(
    home, llm_server: FakeLLMServer, page_server: PageServer
) -> None:
    hand_off_then_done(llm_server)
    terminal = Terminal(cli("Export the customers", "--url", page_server.url, "--json"), cli_env(home, llm_server))
    terminal.wait_for(b"or Ctrl+C to stop:")
    assert len(llm_server.requests) == 1 and terminal.process.poll() is None
    terminal.type(b"I solved it\n")
    stdout, stderr = terminal.finish()

    assert terminal.process.returncode == 0, stderr
    lines = stderr.splitlines()
    said = lines.index(f"page-agent-desktop: The agent needs you in the browser. The agent says: “{REASON}”")
    assert lines[said + 1] == "page-agent-desktop: Page Agent never asks for your passwords or PINs."
    assert "run with --headed to act in it" in stderr
    result = json.loads(stdout)
    assert result["status"] == "completed" and result["data"] == "Exported." and result["steps"] == 2
    takeover = next(e for e in result["history"] if e["type"] == "user_takeover")
    assert takeover["after_hand_off"] is True and takeover["note"] == "I solved it"
    assert "The user said: I solved it" in llm_server.user_message(-1)


def test_on_a_terminal_ctrl_c_while_waiting_stops_with_exit_3(
    home, llm_server: FakeLLMServer, page_server: PageServer
) -> None:
    hand_off_then_done(llm_server)
    terminal = Terminal(cli("Export the customers", "--url", page_server.url, "--json"), cli_env(home, llm_server))
    terminal.wait_for(b"or Ctrl+C to stop:")
    terminal.process.send_signal(signal.SIGINT)
    stdout, stderr = terminal.finish(timeout=30)  # the hand-off alone waits for the person as long as it takes

    assert terminal.process.returncode == 3, stderr
    result = json.loads(stdout)
    assert result["status"] == "stopped" and result["success"] is False
    assert len(llm_server.requests) == 1


def test_on_a_terminal_a_page_written_reason_is_the_agents_quoted_words(
    home, llm_server: FakeLLMServer, page_server: PageServer
) -> None:
    hand_off_then_done(llm_server, PRETENDER)
    terminal = Terminal(cli("Export the customers", "--url", page_server.url, "--json"), cli_env(home, llm_server))
    terminal.wait_for(b"or Ctrl+C to stop:")
    terminal.type(b"\n")
    stdout, stderr = terminal.finish()

    assert terminal.process.returncode == 0, stderr
    assert json.loads(stdout)["status"] == "completed"
    lines = stderr.splitlines()
    said = lines.index(f"page-agent-desktop: The agent needs you in the browser. The agent says: {QUOTED}")
    assert lines[said + 1] == "page-agent-desktop: Page Agent never asks for your passwords or PINs."
    assert "\x1b" not in stderr and "<b>" not in stderr and "Page Agent: this is required." not in lines
