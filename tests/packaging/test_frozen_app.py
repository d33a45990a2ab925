"""The frozen app (PyInstaller onedir) needs nothing else: run with a bare environment (no Python, no virtual
environment, PATH=/usr/bin:/bin) it prints its version, passes its self-test, does a CLI task on a local page with a
scripted model, records and replays it, and opens the demo's panel and Chromium under Xvfb."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.browser.processes import profile_pids
from tests.packaging.conftest import Built
from tests.packaging.smoke import bare_env, run_task
from tests.waiting import ended, sync_until

pytestmark = pytest.mark.timeout(1800)

# Where the Run button is, from the panel's bottom right corner, in pixels.
RUN_FROM_RIGHT, RUN_FROM_BOTTOM = 52, 50


def run_bare(built: Built, home: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(built.app), *args], env=bare_env(home), capture_output=True, text=True, timeout=timeout, cwd=home
    )


def test_version(built: Built, tmp_path: Path) -> None:
    done = run_bare(built, tmp_path, "--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"page-agent-desktop {built.version}\n"


def test_self_test_passes_in_plain_words(built: Built, tmp_path: Path) -> None:
    done = run_bare(built, tmp_path, "--self-test")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"Page Agent Desktop {built.version} self-test")
    assert lines[-1] == "All 7 checks passed."
    checks = "\n".join(lines[1:-1])
    assert "Every part of the app loads" in checks
    assert "A browser was found: Chromium at /usr/bin/chromium" in checks
    assert "The browser starts without a window." in checks
    assert "A page bundled with the app opens and can be read" in checks
    assert f"The data folder can be written: {tmp_path / 'page-agent' / 'data'}" in checks
    assert all(line.startswith("  ok ") for line in lines[1:-1])


def test_self_test_fails_with_the_reason_and_exit_1(built: Built, tmp_path: Path) -> None:
    config = tmp_path / "page-agent" / "config"
    config.mkdir(parents=True)
    (config / "settings.json").write_text(json.dumps({"browser_path": "/opt/nowhere/chrome"}))
    done = run_bare(built, tmp_path, "--self-test")
    assert done.returncode == 1
    assert "FAILED  The browser configured in Settings (/opt/nowhere/chrome) does not exist or cannot be run" in (
        done.stdout
    )
    assert "FAILED  Skipped starting the browser without a window: there is no browser to start." in done.stdout
    assert done.stdout.splitlines()[-1] == (
        "3 of 7 checks failed. Send this text to whoever helps you with Page Agent."
    )


def test_a_cli_task_is_done_recorded_and_replayed(built: Built, tmp_path: Path) -> None:
    cassette = tmp_path / "press.json"
    run = run_task(built.app, tmp_path / "first", "--record", str(cassette))
    assert run.process.returncode == 0, run.process.stderr
    assert run.pressed and run.result["success"] is True and run.result["status"] == "completed"
    # The recording plays back without any model: the same press happens on the page.
    replay = run_task(built.app, tmp_path / "second", "--replay", str(cassette), model=False)
    assert replay.process.returncode == 0, replay.process.stderr
    assert replay.pressed and replay.result["success"] is True
    for home in (tmp_path / "first", tmp_path / "second"):
        assert asyncio.run(profile_pids(home / "page-agent" / "data" / "browser-profile")) == []


@pytest.fixture
def display() -> Iterator[str]:
    """An X server of the test's own (its number chosen by Xvfb)."""
    read, write = os.pipe()
    xvfb = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "1366x768x24", "-nolisten", "tcp"], pass_fds=(write,)
    )
    os.close(write)
    with os.fdopen(read) as announced:
        number = announced.readline().strip()
    yield f":{number}"
    ended(xvfb)


def windows_named(display: str, name: str) -> list[str]:
    found = subprocess.run(
        ["xdotool", "search", "--onlyvisible", "--name", name],
        env={"DISPLAY": display, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )
    return found.stdout.split()


def a_window(display: str, name: str, timeout: float, app: subprocess.Popen[bytes]) -> str:
    """The first visible window whose title matches ``name``, once there is one (X sends no event we could wait on
    from here: xdotool is asked again every 0.1 s, up to ``timeout``, while the app runs)."""
    return sync_until(lambda: windows_named(display, name), timeout, f"a window named {name!r}", alive=app, every=0.1)[
        0
    ]


def test_the_demo_opens_its_panel_and_chromium_and_runs(built: Built, tmp_path: Path, display: str) -> None:
    env = bare_env(tmp_path, DISPLAY=display)
    app = subprocess.Popen([str(built.app), "--demo"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    failure: AssertionError | None = None
    try:
        panel = a_window(display, "^Page Agent$", 60, app)
        a_window(display, "Sign in — Acme CRM", 60, app)
        # Run the demo's task: a click on Run, at the panel's bottom right (no window manager here to give the
        # panel the keyboard). The agent signs in, through the frozen Playwright.
        x = {"DISPLAY": display, "PATH": "/usr/bin:/bin"}
        shell = subprocess.run(
            ["xdotool", "getwindowgeometry", "--shell", panel], env=x, capture_output=True, text=True
        )
        size = dict(line.split("=", 1) for line in shell.stdout.split())
        where = [str(int(size["WIDTH"]) - RUN_FROM_RIGHT), str(int(size["HEIGHT"]) - RUN_FROM_BOTTOM)]
        subprocess.run(["xdotool", "mousemove", "--window", panel, *where, "click", "1"], env=x, check=True, timeout=30)
        a_window(display, "Dashboard — Acme CRM|New customer — Acme CRM", 90, app)
    except AssertionError as exc:
        failure = exc  # said below, with what the app printed
    finally:
        app.send_signal(signal.SIGTERM)
        output = app.communicate(timeout=60)[0].decode(errors="replace")
    faults = sorted((tmp_path / "page-agent" / "logs").glob("crash-*"))  # a hard crash's Python stacks
    said = "".join(f"\n{path.name}:\n{path.read_text(errors='replace')}" for path in faults)
    assert failure is None, f"{failure}; the app printed:\n{output}{said}"
    assert app.returncode == 0, output
    assert asyncio.run(profile_pids(tmp_path / "page-agent" / "data" / "browser-profile")) == []


def test_the_frozen_app_serves_mcp_over_stdio(built: Built, tmp_path: Path) -> None:
    """What an AI tool's configuration starts (the README's MCP section): the built app's `mcp`, with a bare
    environment, answers over stdio with its tools, and reads History."""
    from mcp import Client, StdioServerParameters

    from tests.mcp.test_stdio import TOOLS

    async def ask() -> tuple[set[str], dict[str, object]]:
        params = StdioServerParameters(
            command=str(built.app), args=["mcp"], env=bare_env(tmp_path, OPENAI_API_KEY="sk-unused"), cwd=tmp_path
        )
        async with Client(params, read_timeout_seconds=60) as client:
            tools = {tool.name for tool in (await client.list_tools()).tools}
            runs = await client.call_tool("list_runs", {"limit": 5})
        assert not runs.is_error, runs.content
        return tools, dict(runs.structured_content or {})

    tools, runs = asyncio.run(ask())
    assert tools == TOOLS
    assert runs == {"runs": []}
