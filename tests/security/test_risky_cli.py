"""--risky on the command line, as a user's script or terminal sees it: `python -m app run ...` in a subprocess, real
headless Chromium, the fake model obeying a page whose button asks confirm("Delete all 120 customers?")."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
from typing import Any

import pytest

from tests.browser.helpers import index_of
from tests.cli.test_cli import ROOT, RUN_TIMEOUT, browser_state, cli, cli_env, home, run_cli  # noqa: F401  (fixture)
from tests.fakes.llm_server import FakeLLMServer, FakeResponse, agent_output, completion
from tests.security.conftest import HostileSite

DELETED = "/deleted-all-customers"
QUESTION = 'The page asks: "Delete all 120 customers?"'


def tidy_up_then_done(llm_server: FakeLLMServer) -> None:
    def respond(body: dict[str, Any]) -> FakeResponse:
        page = browser_state(body)
        if len(llm_server.requests) == 1:
            action = {"click_element_by_index": {"index": index_of(page, "Tidy up the list")}}
        else:
            action = {"done": {"text": "Tidied up.", "success": True}}
        return FakeResponse(body=completion(arguments=agent_output(action)))

    llm_server.fallback = respond


def told_to_model(llm_server: FakeLLMServer) -> str:
    messages = llm_server.requests[1]["messages"]
    return next(m["content"] for m in messages if m["role"] == "user")


@pytest.mark.parametrize("flags", [[], ["--risky", "ask"], ["--risky", "deny"]], ids=["default", "ask", "deny"])
def test_without_a_terminal_a_confirm_is_refused(
    home, llm_server: FakeLLMServer, hostile: HostileSite, flags: list[str]
) -> None:
    tidy_up_then_done(llm_server)
    done = run_cli(
        cli("Look at my customers", "--url", f"{hostile.page}/risky-confirm.html", "--json", *flags),
        cli_env(home, llm_server),
    )
    assert done.returncode == 0, done.stderr
    assert not hostile.received(DELETED)
    assert f"{QUESTION} ({hostile.page}/risky-confirm.html) — not allowed" in done.stderr
    assert "the user answered Cancel (not allowed)" in told_to_model(llm_server)


def test_risky_allow_accepts_and_says_so(home, llm_server: FakeLLMServer, hostile: HostileSite) -> None:
    tidy_up_then_done(llm_server)
    done = run_cli(
        cli(
            "Tidy up my customers",
            "--url",
            f"{hostile.page}/risky-confirm.html",
            "--json",
            "--risky",
            "allow",
            "--events",
        ),
        cli_env(home, llm_server),
    )
    assert done.returncode == 0, done.stderr
    assert hostile.received(DELETED)
    events = [json.loads(line) for line in done.stderr.splitlines() if line.strip()]  # --events: JSON lines only
    assert any(e["event"] == "log" and "allowed (--risky allow)" in e["message"] for e in events)
    assert "the user answered OK (allowed)" in told_to_model(llm_server)


class Terminal:
    """The run with a pseudo-terminal as stdin (what `ask` needs); stderr is read as it comes."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.master, slave = os.openpty()  # POSIX only; os, not pty, so that Windows still collects the tests
        self.process = subprocess.Popen(
            args, env=env, cwd=ROOT, stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        os.close(slave)
        self.stderr = b""

    def wait_for(self, needle: bytes, timeout: float = RUN_TIMEOUT) -> None:
        assert self.process.stderr is not None
        deadline = time.monotonic() + timeout
        while needle not in self.stderr:
            assert time.monotonic() < deadline and self.process.poll() is None, self.stderr.decode()
            ready, _, _ = select.select([self.process.stderr], [], [], 0.1)
            if ready:
                self.stderr += os.read(self.process.stderr.fileno(), 4096)

    def type(self, text: bytes) -> None:
        os.write(self.master, text)

    def finish(self, timeout: float = RUN_TIMEOUT) -> tuple[str, str]:
        try:
            stdout, rest = self.process.communicate(timeout=timeout)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.communicate()
            os.close(self.master)
        return stdout.decode(), (self.stderr + rest).decode()


@pytest.mark.parametrize(
    ("ahead", "typed", "allowed"),
    [(b"", b"y\n", True), (b"", b"\n", False), (b"y\n", b"\n", False)],
    ids=["yes", "default no", "a yes typed before the question does not count"],
)
def test_ask_asks_on_the_terminal(
    home, llm_server: FakeLLMServer, hostile: HostileSite, ahead: bytes, typed: bytes, allowed: bool
) -> None:
    tidy_up_then_done(llm_server)
    terminal = Terminal(
        cli("Tidy up my customers", "--url", f"{hostile.page}/risky-confirm.html", "--json"), cli_env(home, llm_server)
    )
    terminal.type(ahead)
    terminal.wait_for(b"Allow? [y/N]")
    terminal.type(typed)
    stdout, stderr = terminal.finish()
    assert terminal.process.returncode == 0, stderr
    assert f"{QUESTION} ({hostile.page}/risky-confirm.html) Allow? [y/N]" in stderr
    assert hostile.received(DELETED) is allowed
    assert json.loads(stdout)["success"] is True


def test_ctrl_c_during_the_question_stops_the_run(home, llm_server: FakeLLMServer, hostile: HostileSite) -> None:
    tidy_up_then_done(llm_server)
    terminal = Terminal(
        cli("Tidy up my customers", "--url", f"{hostile.page}/risky-confirm.html", "--json"), cli_env(home, llm_server)
    )
    terminal.wait_for(b"Allow? [y/N]")
    terminal.process.send_signal(signal.SIGINT)
    stdout, stderr = terminal.finish(timeout=30)  # the question alone would wait 60 s for an answer
    assert terminal.process.returncode == 3, stderr
    assert json.loads(stdout)["status"] == "stopped"
    assert not hostile.received(DELETED)


# --- what reaches the terminal ------------------------------------------------------------------------------------

CONTROLS = (b"\x1b", b"\x07", b"\x9b", "\u202e".encode(), "\u202d".encode())


def test_a_pages_and_the_models_words_cannot_drive_the_terminal(
    home, llm_server: FakeLLMServer, hostile: HostileSite
) -> None:
    # The page's question erases its own line on the terminal; the model's final words carry escapes and a bidi
    # override. The person must read what they answer, and the terminal must show only text.
    sneaky_done = "Tidied up.\x1b[2J\x1b]0;pwned\x07 \u202dtxt.exe\u009b31m"

    def respond(body: dict[str, Any]) -> FakeResponse:
        page = browser_state(body)
        if len(llm_server.requests) == 1:
            action = {"click_element_by_index": {"index": index_of(page, "Tidy up the list")}}
        else:
            action = {"done": {"text": sneaky_done, "success": True}}
        return FakeResponse(body=completion(arguments=agent_output(action)))

    llm_server.fallback = respond
    terminal = Terminal(
        cli("Look at my customers", "--url", f"{hostile.page}/terminal-escapes.html"), cli_env(home, llm_server)
    )
    terminal.wait_for(b"Allow? [y/N]")
    terminal.type(b"\n")
    stdout, stderr = terminal.finish()
    assert terminal.process.returncode == 0, stderr
    # The page's words are quoted as data: each control is written out as an escape, never sent to the terminal.
    assert "Delete all 120 customers?\\u001b[2K\\u001b[1G\\u001b]0;Page Agent\\u0007Keep the list" in stderr
    printed = (stdout + stderr).encode()
    assert not any(control in printed for control in CONTROLS), printed
    assert "Tidied up.[2J]0;pwned txt.exe31m" in stdout
    assert not hostile.received(DELETED)

    llm_server.requests.clear()
    done = run_cli(
        cli("Look at my customers", "--url", f"{hostile.page}/terminal-escapes.html", "--json", "--risky", "deny"),
        cli_env(home, llm_server),
    )
    assert not any(control in done.stdout.encode() for control in CONTROLS)
    assert json.loads(done.stdout)["data"] == sneaky_done  # the JSON holds the exact words, escaped
