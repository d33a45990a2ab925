"""How the local-model smoke check (tests/smoke/local_model.py) judges an answer: as the schema describes it
(parsed), mended by the engine's repair (repaired), or sent back with the reason (refused). A grammar-constrained
local server sends the first; what models sent before, the others."""

from __future__ import annotations

import json

from app.core.llm import LLMReply, ToolCall
from app.core.tools.registry import build_tools
from tests.smoke.local_model import judge

TOOLS = build_tools(ask_user=False, javascript=False)
REFLECTION = {"evaluation_previous_goal": "❔", "memory": "", "next_goal": "Type the name"}


def call(arguments: object) -> LLMReply:
    return LLMReply(tool_calls=[ToolCall(name="AgentOutput", arguments=json.dumps(arguments))])


def test_an_answer_as_the_schema_describes_it_is_parsed() -> None:
    reply = call({**REFLECTION, "action": {"input_text": {"index": 1, "text": "Ada"}}})
    assert judge(reply, TOOLS) == ("parsed", 'input_text {"index": 1, "text": "Ada"}')


def test_slips_the_engine_mends_are_repaired() -> None:
    nested = call({"current_state": REFLECTION, "action": [{"click_element_by_index": {"index": 2}}]})
    verdict, said = judge(nested, TOOLS)
    assert verdict == "repaired" and said.startswith('click_element_by_index {"index": 2} (mended: ')
    in_text = LLMReply(content='```json\n{"action": {"done": {"text": "Saved"}}}\n```')
    assert judge(in_text, TOOLS) == ("repaired", 'done {"text": "Saved"} (not an AgentOutput call)')


def test_three_keys_or_a_cut_answer_are_refused_in_plain_words() -> None:
    three = call({**REFLECTION, "action": {"go_back": {}, "wait": {}, "done": {"text": "x"}}})
    assert judge(three, TOOLS) == (
        "refused",
        "The action must have exactly one key (the action's name); got 3: go_back, wait, done.",
    )
    cut = LLMReply(tool_calls=[ToolCall(name="AgentOutput", arguments='{"evaluation_previous_goal": "Seleci')])
    verdict, said = judge(cut, TOOLS)
    assert verdict == "refused" and said.startswith("The AgentOutput arguments were not a JSON object")
