"""A headless task on a local page, run by a built app with a scripted model: the smoke test of every build.

    python -m tests.packaging.smoke PATH/TO/page-agent-desktop      (exit 0 when the task was done; used by CI)

A page with a button that reports its press, and a fake OpenAI-compatible model that reads the page the app sends
it, presses the button by its [index] and then calls done. The app runs with a bare environment: nothing from the
caller's Python or virtual environment reaches it. Standard library only, so the release workflow can run it with
any Python.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.fakes.html_site import html_site
from tests.fakes.llm_server import FakeLLMServer, FakeResponse, agent_output, completion

PAGE = b"""<!doctype html><title>Counter</title>
<button onclick="fetch('/pressed'); document.getElementById('out').textContent = 'Thank you'">Press me</button>
<p id=out>Waiting</p>"""
TASK = "Press the button"
_ELEMENT = re.compile(r"^\t*\*?\[(\d+)\].*Press me", re.MULTILINE)


def bare_env(home: Path, **extra: str) -> dict[str, str]:
    """What a user's session gives an app at most: no Python, no virtual environment, a plain PATH. (Windows keeps
    its own variables, which starting any program needs, without Python's and with only the system's PATH.)"""
    if sys.platform == "win32":
        env = {k: v for k, v in os.environ.items() if not k.upper().startswith(("PYTHON", "VIRTUAL_ENV", "PIP"))}
        root = os.environ.get("SYSTEMROOT", r"C:\Windows")
        env["PATH"] = f"{root}\\system32;{root}"
    else:
        env = {"PATH": "/usr/bin:/bin", "HOME": str(home)}
    env["PAGE_AGENT_HOME"] = str(home / "page-agent")
    env.update(extra)
    return env


def press_then_done() -> Callable[[dict[str, Any]], FakeResponse]:
    """The model: press the button by its index while the page waits, then done once it says thank you."""

    def respond(body: dict[str, Any]) -> FakeResponse:
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        page = user.split("<browser_state>", 1)[1]
        if "Thank you" in page:
            done = agent_output({"done": {"text": "Pressed.", "success": True}})
            return FakeResponse(body=completion(arguments=done))
        found = _ELEMENT.search(page)
        if found is None:
            return FakeResponse(body=completion(arguments=agent_output({"done": {"text": page, "success": False}})))
        press = agent_output({"click_element_by_index": {"index": int(found.group(1))}}, next_goal="Press it")
        return FakeResponse(body=completion(arguments=press))

    return respond


@dataclass
class SmokeRun:
    process: subprocess.CompletedProcess[str]
    pressed: bool
    result: dict[str, Any]


def run_task(executable: Path, home: Path, *extra_args: str, model: bool = True, timeout: float = 120) -> SmokeRun:
    """Run the task once; ``model=False`` runs it without a model server (a ``--replay``)."""
    hits: list[str] = []

    def respond(path: str) -> bytes:
        hits.append(path)
        return PAGE if path == "/" else b""

    server = FakeLLMServer()
    server.fallback = press_then_done()
    server.start()
    try:
        with html_site(respond) as origin:
            env = bare_env(home, OPENAI_API_KEY="sk-smoke", PAGE_AGENT_MODEL="fake-model")
            if model:
                env["OPENAI_BASE_URL"] = server.base_url
            command = [str(executable), "run", TASK, "--url", origin + "/", "--headless", "--json", *extra_args]
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
    finally:
        server.stop()
    try:
        result = json.loads(done.stdout)
    except json.JSONDecodeError:
        result = {}
    return SmokeRun(done, "/pressed" in hits, result)


def main() -> int:
    executable = Path(sys.argv[1]).resolve()
    with tempfile.TemporaryDirectory(prefix="page-agent-smoke-") as home:
        run = run_task(executable, Path(home))
    print(run.process.stdout)
    print(run.process.stderr, file=sys.stderr)
    ok = run.process.returncode == 0 and run.pressed and run.result.get("success") is True
    print("smoke task:", "done" if ok else f"FAILED (exit {run.process.returncode}, pressed={run.pressed})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
