"""The repair of what models really send, one case per known drift."""

from __future__ import annotations

import json

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.llm import LLMReply, ToolCall
from app.core.output import InvalidOutput, action_names, build_tool_spec, parse_agent_output
from app.core.tools.registry import build_tools

TOOLS = build_tools(ask_user=True, javascript=False)


def call(arguments: object, name: str = "AgentOutput") -> LLMReply:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return LLMReply(tool_calls=[ToolCall(name=name, arguments=text)])


def test_well_formed() -> None:
    parsed = parse_agent_output(
        call(
            {
                "evaluation_previous_goal": "✅ ok",
                "memory": "m",
                "next_goal": "g",
                "action": {"click_element_by_index": {"index": 4}},
            }
        ),
        TOOLS,
    )
    assert parsed.action_name == "click_element_by_index"
    assert parsed.action_input.model_dump() == {"index": 4}
    assert parsed.reflection.evaluation_previous_goal == "✅ ok"


def test_action_called_as_the_tool_itself() -> None:
    parsed = parse_agent_output(call({"index": 4}, name="click_element_by_index"), TOOLS)
    assert parsed.action_name == "click_element_by_index"
    assert parsed.reflection.memory == ""


def test_json_in_text_instead_of_a_tool_call() -> None:
    reply = LLMReply(content='I will click.\n{"memory": "x", "action": {"go_back": {}}}\nThanks')
    assert parse_agent_output(reply, TOOLS).action_name == "go_back"


def test_double_encoded_json() -> None:
    inner = json.dumps({"next_goal": "type", "action": json.dumps({"input_text": {"index": 1, "text": "hi"}})})
    parsed = parse_agent_output(call(json.dumps(inner)), TOOLS)
    assert parsed.action_input.model_dump() == {"index": 1, "text": "hi"}
    assert parsed.reflection.next_goal == "type"


def test_bare_value_for_a_one_field_tool() -> None:
    assert parse_agent_output(call({"action": {"click_element_by_index": 12}}), TOOLS).action_input.model_dump() == {
        "index": 12
    }
    assert parse_agent_output(call({"action": {"go_to_url": "https://a.test"}}), TOOLS).action_input.model_dump() == {
        "url": "https://a.test"
    }


def test_missing_reflection_and_action_beside_it() -> None:
    parsed = parse_agent_output(call({"wait": {"seconds": 1}}), TOOLS)
    assert parsed.action_name == "wait"
    assert parsed.reflection.model_dump() == {"evaluation_previous_goal": "", "memory": "", "next_goal": ""}


def test_nested_current_state_and_action_list() -> None:
    parsed = parse_agent_output(call({"current_state": {"memory": "nested"}, "action": [{"go_back": {}}]}), TOOLS)
    assert parsed.reflection.memory == "nested"
    assert parsed.action_name == "go_back"


def test_action_name_as_string_with_input_beside() -> None:
    parsed = parse_agent_output(call({"action": "click_element_by_index", "index": 3}), TOOLS)
    assert parsed.action_input.model_dump() == {"index": 3}


def test_unknown_tool_lists_valid_ones() -> None:
    with pytest.raises(InvalidOutput, match=r"Unknown action 'fly'\. Valid actions: done, wait, ask_user"):
        parse_agent_output(call({"action": {"fly": {}}}), TOOLS)


def test_two_actions_are_refused() -> None:
    with pytest.raises(InvalidOutput, match="exactly one key"):
        parse_agent_output(call({"action": {"go_back": {}, "wait": {}}}), TOOLS)


def test_no_tool_call_and_no_json() -> None:
    with pytest.raises(InvalidOutput, match="no AgentOutput tool call"):
        parse_agent_output(LLMReply(content="I think I should click the button."), TOOLS)


def test_tool_spec_offers_every_tool_with_one_key() -> None:
    # Exactly one action, in the form grammar-constrained decoding enforces (a local server compiles the schema into a
    # grammar that ignores minProperties/maxProperties and numeric bounds): one object of a single required key per
    # action, with its type (Gemini reads no branch without one) and no additionalProperties (which Gemini refuses,
    # and whose absence a grammar reads as no other key).
    spec = build_tool_spec(TOOLS)
    action = spec.parameters["properties"]["action"]
    assert set(action) == {"anyOf"}
    assert [list(branch["properties"]) for branch in action["anyOf"]] == [[name] for name in TOOLS]
    assert all(
        branch == {"type": "object", "properties": branch["properties"], "required": list(branch["properties"])}
        for branch in action["anyOf"]
    )
    assert action_names(spec) == list(TOOLS)
    text = json.dumps(spec.parameters)
    assert "title" not in text.replace('"title":', "")
    for ignored in ("minProperties", "maxProperties", "additionalProperties", "maximum", "default"):
        assert ignored not in text


def test_the_schema_accepts_each_action_and_rejects_none_or_an_unknown_one() -> None:
    spec = build_tool_spec(TOOLS)
    reflection = {"evaluation_previous_goal": "✅", "memory": "", "next_goal": "Click"}
    validator = jsonschema.Draft202012Validator(spec.parameters)
    assert validator.is_valid({**reflection, "action": {"click_element_by_index": {"index": 3}}})
    assert validator.is_valid({**reflection, "action": {"go_back": {}}})
    assert not validator.is_valid({**reflection, "action": {}})
    assert not validator.is_valid({**reflection, "action": {"fly_away": {}}})
    assert not validator.is_valid({**reflection, "action": {"click_element_by_index": {}}})


@given(st.text())
def test_any_text_either_parses_or_fails_cleanly(text: str) -> None:
    try:
        parse_agent_output(LLMReply(content=text), TOOLS)
    except InvalidOutput:
        pass
