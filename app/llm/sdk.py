"""The openai SDK, met in one place: its client as the agent and the connection test both build it, and the one
forced tool as both ask for it."""

from __future__ import annotations

from typing import Any

from app.llm.settings import ToolChoiceMode

NO_KEY = "not-needed"  # local servers (Ollama, LM Studio) want no key, but the SDK insists on one


def new_client(base_url: str, api_key: str, timeout: float) -> Any:
    """An AsyncOpenAI client that never retries on its own: retries are the caller's, visible and abortable."""
    import openai  # lazily: importing openai costs most of a second

    return openai.AsyncOpenAI(base_url=base_url, api_key=api_key or NO_KEY, timeout=timeout, max_retries=0)


def forced_tool(name: str, description: str, parameters: dict[str, Any], mode: ToolChoiceMode) -> dict[str, Any]:
    """The request fields that make the model call the tool ``name``: none in JSON-in-text mode."""
    if mode == ToolChoiceMode.JSON_TEXT:
        return {}
    choice: Any = "required" if mode == ToolChoiceMode.REQUIRED else {"type": "function", "function": {"name": name}}
    tool = {"type": "function", "function": {"name": name, "description": description, "parameters": parameters}}
    return {"tools": [tool], "tool_choice": choice}
