"""The one forced tool (AgentOutput) and the repair of what models really send back.

Models drift from the schema in a handful of known ways; each is mended here so that one sloppy answer does not
cost a step. What cannot be mended becomes an InvalidOutput whose message the model sees on its next attempt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

from pydantic import BaseModel, ValidationError

from app.core.clean_text import valid_data
from app.core.llm import LLMReply, ToolSpec
from app.core.tools.registry import ToolSet
from app.core.types import AgentReflection

AGENT_OUTPUT = "AgentOutput"
REFLECTION_FIELDS = ("evaluation_previous_goal", "memory", "next_goal")
_NESTED_STATE_KEYS = ("current_state", "reflection", "state")
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


class InvalidOutput(Exception):
    """The model's answer cannot be used; the message says why, for the model to correct."""


class ParsedOutput(BaseModel):
    reflection: AgentReflection
    action_name: str
    action_input: BaseModel


def build_tool_spec(tools: ToolSet) -> ToolSpec:
    actions = {
        # A name that says it all goes without a description: the schema is sent with every step.
        name: {**({"description": tool.description} if tool.description else {}), **tool.input_schema()}
        for name, tool in tools.items()
    }
    text = {"type": "string"}
    return ToolSpec(
        name=AGENT_OUTPUT,
        description="One step: reflect, then act.",
        parameters={
            "type": "object",
            "properties": {
                "evaluation_previous_goal": {
                    **text,
                    "description": "did the last action work? ✅, ❌ or ❔, and why, judged from the page now",
                },
                "memory": {**text, "description": "progress, values found, what is left; be specific"},
                "next_goal": {**text, "description": "this action's goal"},
                # Exactly one action, as grammar-constrained decoding (llama.cpp, vLLM, LM Studio) enforces it: one of
                # the objects of a single required key, its input beside it. Those engines ignore minProperties
                # and maxProperties, and read an object without additionalProperties as having no other key (which
                # Gemini would refuse to read); each branch keeps its type, which Gemini requires.
                "action": {
                    "anyOf": [
                        {"type": "object", "properties": {name: schema}, "required": [name]}
                        for name, schema in actions.items()
                    ]
                },
            },
            "required": ["evaluation_previous_goal", "memory", "next_goal", "action"],
        },
    )


def action_names(spec: ToolSpec) -> list[str]:
    """The actions a spec from ``build_tool_spec`` offers: for code that reads answers without the tools at hand."""
    branches = spec.parameters.get("properties", {}).get("action", {}).get("anyOf", [])
    return [name for branch in branches for name in branch.get("properties", {})]


def read_action(reply: LLMReply, names: Collection[str]) -> tuple[dict[str, Any], str, Any]:
    """What an answer says, with the known slips mended but nothing validated: its payload (the reflection's
    fields), the name of its action and the action's input. Raises InvalidOutput when there is no action to read."""
    payload = _flatten_nested_state(_payload_of(reply, names))
    name, raw_input = _action_of(payload, names)
    return payload, name, _decode(raw_input)


def parse_agent_output(reply: LLMReply, tools: ToolSet) -> ParsedOutput:
    payload, name, raw_input = read_action(reply, tools)
    tool = tools.get(name)
    if tool is None:
        raise InvalidOutput(f"Unknown action '{name}'. Valid actions: {', '.join(tools)}.")
    if raw_input is None:
        raw_input = {}
    if not isinstance(raw_input, dict):
        field = tool.single_field()
        if field is None:
            raise InvalidOutput(
                f"The input of '{name}' must be an object with: {tool.describe_fields()}; got {raw_input!r}."
            )
        raw_input = {field: raw_input}
    try:
        params = tool.input_model.model_validate(raw_input)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in err['loc']) or 'input'}: {err['msg']}" for err in exc.errors())
        raise InvalidOutput(f"Invalid input for '{name}': {problems}. Its fields: {tool.describe_fields()}.") from None
    reflection = AgentReflection(**{key: _as_text(payload.get(key)) for key in REFLECTION_FIELDS})
    return ParsedOutput(reflection=reflection, action_name=name, action_input=params)


def _payload_of(reply: LLMReply, tools: Collection[str]) -> dict[str, Any]:
    if reply.tool_calls:
        call = reply.tool_calls[0]
        arguments = _decode(call.arguments)
        if call.name in tools:
            # The model called the action itself instead of AgentOutput.
            return {"action": {call.name: arguments}}
        payload = _first_object(arguments)
        if payload is None:
            raise InvalidOutput(f"The {AGENT_OUTPUT} arguments were not a JSON object: {call.arguments[:200]!r}.")
        return payload
    text = reply.content or ""
    payload = _first_object(_json_in_text(text))
    if payload is None:
        snippet = text.strip()[:200] or "(empty answer)"
        raise InvalidOutput(
            f"The answer had no {AGENT_OUTPUT} tool call and no JSON object: {snippet!r}. "
            f"Call the {AGENT_OUTPUT} tool with your reflection and exactly one action."
        )
    return payload


def _flatten_nested_state(payload: dict[str, Any]) -> dict[str, Any]:
    for key in _NESTED_STATE_KEYS:
        nested = payload.get(key)
        if isinstance(nested, dict) and any(field in nested for field in REFLECTION_FIELDS):
            return {**nested, **{k: v for k, v in payload.items() if k != key}}
    return payload


def _action_of(payload: dict[str, Any], tools: Collection[str]) -> tuple[str, Any]:
    action = _decode(payload.get("action"))
    if action is None:
        # The action's key sits at the top level beside the reflection.
        named = [key for key in payload if key in tools]
        if len(named) == 1:
            return named[0], payload[named[0]]
        raise InvalidOutput(f'No action given. Add "action": {{"<name>": {{...}}}} with one of: {", ".join(tools)}.')
    if isinstance(action, list):
        if not action:
            raise InvalidOutput("The action list was empty; give exactly one action.")
        action = _decode(action[0])
    if isinstance(action, str):
        # A bare action name, its input possibly beside it at the top level.
        extra = {k: v for k, v in payload.items() if k not in (*REFLECTION_FIELDS, "action")}
        return action, extra
    if not isinstance(action, dict):
        raise InvalidOutput(f"The action must be an object with exactly one key; got {action!r}.")
    if "name" in action and isinstance(action["name"], str) and action["name"] in tools:
        return action["name"], action.get("input", action.get("arguments", action.get("params", {})))
    if len(action) != 1:
        raise InvalidOutput(
            f"The action must have exactly one key (the action's name); got {len(action)}: {', '.join(action)}."
        )
    return next(iter(action.items()))


def _decode(value: Any) -> Any:
    """Undo JSON that arrived as a string, even twice over. An escaped lone surrogate in it ("\\ud800") becomes
    U+FFFD: the answer's text must stay printable and savable."""
    for _ in range(3):
        if not isinstance(value, str):
            return value
        stripped = value.strip()
        if not stripped or stripped[0] not in '{["':
            return value
        try:
            value = valid_data(json.loads(stripped))
        except json.JSONDecodeError:
            return value
    return value


def _json_in_text(text: str) -> Any:
    for candidate in [*_FENCE.findall(text), text]:
        decoded = _decode(candidate.strip())
        if isinstance(decoded, (dict, list)):
            return decoded
        start = candidate.find("{")
        end = candidate.rfind("}")
        if 0 <= start < end:
            decoded = _decode(candidate[start : end + 1])
            if isinstance(decoded, dict):
                return decoded
    return None


def _first_object(value: Any) -> dict[str, Any] | None:
    if isinstance(value, list) and value:
        value = value[0]
    return value if isinstance(value, dict) else None


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
