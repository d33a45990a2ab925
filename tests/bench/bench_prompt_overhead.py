"""The fixed part of every model request: the system prompt and the tool schema, as the client sends them.

Characters of compact JSON as the openai SDK writes the body (not ASCII-escaped), for the tool sets a run can have:
the panel's (ask_user on), the CLI's without a terminal (ask_user off), and with the opt-in JavaScript tool. Tokens
are printed when tiktoken and its o200k encoding are available on this machine.

Run: .venv/bin/python -m tests.bench.bench_prompt_overhead
"""

from __future__ import annotations

import json

from app.core.output import build_tool_spec
from app.core.prompt import system_prompt
from app.core.tools.registry import build_tools
from app.llm.sdk import forced_tool
from app.llm.settings import ToolChoiceMode


def _tokens(text: str) -> str:
    try:
        import tiktoken

        return f"{len(tiktoken.get_encoding('o200k_base').encode(text)):,} tokens"
    except Exception:  # not installed, or its encoding file cannot be fetched here
        return "tokens: n/a (tiktoken or its o200k encoding is not available)"


def main() -> None:
    prompt = system_prompt()
    print(f"system prompt: {len(prompt):,} characters; {_tokens(prompt)}")
    for label, ask_user, javascript in (
        ("panel (ask_user)", True, False),
        ("CLI without a terminal", False, False),
        ("with the JavaScript tool", True, True),
    ):
        spec = build_tool_spec(build_tools(ask_user=ask_user, javascript=javascript))
        fields = forced_tool(spec.name, spec.description, spec.parameters, ToolChoiceMode.NAMED)
        schema = json.dumps(fields["tools"], separators=(",", ":"), ensure_ascii=False)
        print(
            f"{label}: tool schema {len(schema):,} characters; system prompt + schema "
            f"{len(prompt) + len(schema):,} characters; {_tokens(prompt + schema)}"
        )


if __name__ == "__main__":
    main()
