"""Plain words for actions, activities, endings and the agent's messages: the element by the name a person reads,
never an index, a tag or a tool name; the agent's messages in the panel's language."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.assets import resources_root
from app.core.llm import LLMErrorKind
from app.core.messages import TEMPLATES, MessageId, say
from app.core.tools.registry import build_tools
from app.core.types import (
    ActionTarget,
    AgentStatus,
    ErrorActivity,
    ErrorEvent,
    ErrorKind,
    ExecutedActivity,
    ExecutingActivity,
    HandOffActivity,
    ObservationEvent,
    PausedActivity,
    RetryingActivity,
    RunOutcome,
    ThinkingActivity,
)
from app.text.element_words import target_words
from app.text.i18n import set_language
from app.text.wording import (
    Reading,
    describe_action,
    describe_activity,
    describe_outcome,
    displayable,
    evaluation_reading,
    format_tokens,
    plain_error,
    plain_observation,
    plain_retry,
)

EMAIL = ActionTarget(tag="input", name="Email", input_type="email")
SAVE = ActionTarget(tag="button", name="Save")
TERMS = ActionTarget(tag="input", name="Terms", input_type="checkbox")
PLAN = ActionTarget(tag="select", name="Plan")
PRICING = ActionTarget(tag="a", name="Pricing")
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def chinese() -> Iterator[None]:
    set_language("zh")
    yield
    set_language("en")


@pytest.mark.parametrize(
    ("name", "params", "target", "words"),
    [
        ("input_text", {"index": 3, "text": "ada@example.com"}, EMAIL, "Type “ada@example.com” into the Email field"),
        ("click_element_by_index", {"index": 9}, SAVE, "Click the Save button"),
        ("click_element_by_index", {"index": 4}, TERMS, "Click the Terms checkbox"),
        ("select_dropdown_option", {"index": 7, "text": "Pro"}, PLAN, "Choose “Pro” in the Plan list"),
        ("click_element_by_index", {"index": 2}, PRICING, "Click the “Pricing” link"),
        (
            "select_dropdown_option",
            {"index": 7, "text": "Pro"},
            ActionTarget(tag="button", name="Select a plan"),
            "Choose “Pro” in the “Select a plan” list",
        ),
        ("select_dropdown_option", {"index": 7, "text": "Pro"}, None, "Choose “Pro” in a list"),
        (
            "click_element_by_index",
            {"index": 2},
            ActionTarget(tag="input", name="Send", input_type="submit"),
            "Click the Send button",
        ),
        (
            "click_element_by_index",
            {"index": 2},
            ActionTarget(tag="input", name="Monthly", input_type="radio"),
            "Click the Monthly option",
        ),
        (
            "input_text",
            {"index": 5, "text": "1 Main St"},
            ActionTarget(tag="textarea", name="Billing address:"),
            "Type “1 Main St” into the Billing address field",
        ),
        (
            "input_text",
            {"index": 5, "text": "x"},
            ActionTarget(tag="input", name="Last name *", input_type="text"),
            "Type “x” into the Last name field",
        ),
        (
            "input_text",
            {"index": 6, "text": "Met at the expo"},
            ActionTarget(tag="textarea", name="Notes optional"),
            "Type “Met at the expo” into the Notes field",
        ),
        (
            "input_text",
            {"index": 6, "text": "x"},
            ActionTarget(tag="input", name="Phone (optional)", input_type="tel"),
            "Type “x” into the Phone field",
        ),
        (
            "input_text",
            {"index": 2, "text": "<secret>crm_password</secret>"},
            ActionTarget(tag="input", name="Password", input_type="password"),
            "Type your secret crm_password into the Password field",
        ),
        ("input_text", {"index": 2, "text": "id <secret>pin</secret>!"}, None, "Type “id ••••!” into a text field"),
        (
            "click_element_by_index",
            {"index": 8},
            ActionTarget(tag="div", name="Acme Corp"),
            "Click the “Acme Corp” item",
        ),
        ("click_element_by_index", {"index": 8}, ActionTarget(tag="button"), "Click a button"),
        ("click_element_by_index", {"index": 8}, None, "Click an element on the page"),
        ("input_text", {"index": 2, "text": "Ada"}, None, "Type “Ada” into a text field"),
        ("hover_element", {"index": 6}, ActionTarget(tag="button", name="Account"), "Point at the Account button"),
        ("scroll", {"down": False, "num_pages": 0.5}, None, "Scroll up 0.5 pages"),
        (
            "scroll",
            {"down": True, "num_pages": 1, "index": 4},
            ActionTarget(tag="div", name="Results"),
            "Scroll down 1 page in the “Results” item",
        ),
        (
            "upload_file",
            {"index": 2, "path": "/home/ada/cv.pdf"},
            ActionTarget(tag="input", name="CV", input_type="file"),
            "Upload “cv.pdf” with the CV field",
        ),
        ("go_to_url", {"url": "https://crm.example/new"}, None, "Go to https://crm.example/new"),
        ("switch_to_tab", {"tab_id": 2}, None, "Switch to another tab"),
        ("send_keys", {"keys": "Enter"}, None, "Press Enter"),
        (
            "hand_off_to_user",
            {"reason": "Solve the captcha on the sign-in page"},
            None,
            "Hand the browser to you: “Solve the captcha on the sign-in page”",
        ),
        ("done", {"text": "x", "success": False}, None, "Finish: could not complete"),
        ("some_new_tool", {"index": 3}, None, "Do something on the page"),
    ],
)
def test_actions_in_plain_words(name: str, params: dict[str, Any], target: ActionTarget | None, words: str) -> None:
    assert describe_action(name, params, target) == words


def test_long_names_are_clipped_to_one_short_line() -> None:
    words = target_words(ActionTarget(tag="a", name="Read the full terms and\nconditions of the service agreement"))
    assert words == "the “Read the full terms and…” link"


JARGON = re.compile(r"\[\d+\]|<\w|\{\"|_by_index|input_text|index")


def sample_input(name: str) -> dict[str, Any]:
    return {
        "index": 12,
        "text": "Ada",
        "keys": "Enter",
        "url": "https://crm.example/x",
        "tab_id": 1,
        "path": "/tmp/a.pdf",
        "seconds": 2,
        "question": "Which plan?",
        "reason": "A captcha",
        "down": True,
        "num_pages": 1,
        "script": "1",
        "success": True,
    }


@pytest.mark.parametrize("tool", sorted(build_tools(ask_user=True, javascript=True)))
@pytest.mark.parametrize("target", [None, SAVE, ActionTarget(tag="span")])
def test_no_tool_says_an_index_a_tag_or_its_own_name(tool: str, target: ActionTarget | None) -> None:
    params = sample_input(tool)
    texts = [
        describe_action(tool, params, target),
        describe_activity(ExecutingActivity(tool=tool, input=params, target=target)),
        describe_activity(
            ExecutedActivity(tool=tool, input=params, output="Clicked [12] <button> Save", duration=0.1, target=target)
        ),
    ]
    for text in texts:
        assert not JARGON.search(text), text
        assert "_" not in tool or tool not in text  # "done" and "wait" are plain words; "go_to_url" is not


@pytest.mark.parametrize(
    ("activity", "text"),
    [
        (ThinkingActivity(step_index=6, max_steps=40), "Thinking…"),
        (
            ExecutingActivity(tool="click_element_by_index", input={"index": 12}, target=SAVE),
            "Clicking the Save button…",
        ),
        (
            ExecutedActivity(
                tool="click_element_by_index",
                input={"index": 12},
                output="Clicked [12] <button> Save",
                duration=0.2,
                target=SAVE,
            ),
            "Clicked the Save button",
        ),
        (
            ExecutingActivity(tool="input_text", input={"index": 3, "text": "abc"}, target=EMAIL),
            "Typing into the Email field…",
        ),
        (
            ExecutedActivity(
                tool="input_text", input={"index": 3, "text": "abc"}, output="Typed", duration=0.2, target=EMAIL
            ),
            "Typed into the Email field",
        ),
        (ExecutingActivity(tool="click_element_by_index", input={"index": 12}), "Clicking an element on the page…"),
        (
            ExecutingActivity(tool="select_dropdown_option", input={"index": 7, "text": "Pro"}, target=PLAN),
            "Choosing “Pro” in the Plan list…",
        ),
        (ExecutingActivity(tool="go_to_url", input={"url": "https://crm.example/new"}), "Opening crm.example…"),
        (
            ExecutedActivity(
                tool="click_element_by_index",
                input={"index": 4},
                output="❌ Element [4] is gone",
                duration=0.1,
                target=SAVE,
                ok=False,
            ),
            "That didn't work; rethinking…",
        ),
        (RetryingActivity(attempt=2, max_attempts=3), "Retrying (2/3)…"),
        (ErrorActivity(message="boom"), "Hit a problem; trying again…"),
        (PausedActivity(), "Paused — your turn"),
        (
            HandOffActivity(reason="Please solve the captcha on the sign-in page, then press continue here"),
            "Your turn — “Please solve the captcha on the sign-in page, then press…”",
        ),
    ],
)
def test_activity_words(activity: object, text: str) -> None:
    assert describe_activity(activity) == text  # type: ignore[arg-type]


def test_outcomes_in_words(chinese: None) -> None:
    assert describe_outcome(RunOutcome.NEEDS_PERSON) == "需要人工操作"
    set_language("en")
    assert [describe_outcome(RunOutcome.of(status, success)) for status, success in STATUSES] == [
        "Success",
        "Not completed",
        "Error",
        "Stopped",
        "Needs a person",
    ]


STATUSES = (
    (AgentStatus.COMPLETED, True),
    (AgentStatus.COMPLETED, False),
    (AgentStatus.ERROR, False),
    (AgentStatus.STOPPED, False),
    (AgentStatus.NEEDS_PERSON, False),
)


def test_every_outcome_has_words() -> None:
    assert all(describe_outcome(outcome) for outcome in RunOutcome)
    assert {RunOutcome.of(status, success) for status, success in STATUSES} == set(RunOutcome)


def _agent_error(message: MessageId, **fields: object) -> ErrorEvent:
    said = say(message, **fields)
    return ErrorEvent(message=said.text, kind=ErrorKind.AGENT, said=said)


def test_english_messages_are_shown_as_they_are() -> None:
    assert plain_error(_agent_error(MessageId.STEP_TIMED_OUT, step=4, seconds="30")) == "Step 4 timed out after 30 s"
    model_failure = ErrorEvent(message="The endpoint rejected the key", kind=ErrorKind.AUTH)
    assert plain_error(model_failure) == "The endpoint rejected the key"


@pytest.mark.parametrize(
    ("message", "fields", "chinese_text"),
    [
        (MessageId.TASK_ABORTED, {}, "任务已中止"),
        (MessageId.STEP_LIMIT, {}, "步数已达上限"),
        (MessageId.STEP_TIMED_OUT, {"step": 4, "seconds": "30"}, "第 4 步在 30 秒后超时"),
        (MessageId.TOO_MANY_FAILURES, {"count": 3}, "连续失败次数过多（连续 3 次）"),
        (MessageId.TIME_BUDGET_EXCEEDED, {"seconds": "600"}, "已超出 600 秒的时间限制"),
        (MessageId.PAGE_UNREADABLE, {"reason": "Timeout 15000ms exceeded."}, "无法读取页面：Timeout 15000ms exceeded."),
        (MessageId.UNEXPECTED_ERROR, {"error": "KeyError: 'x'"}, "意外错误：KeyError: 'x'"),
        # The fields are the agent's or the model's words as they came: filled in, never read as a template.
        (
            MessageId.UNUSABLE_ANSWER,
            {"step": 2, "reason": "Step {step} timed out"},
            "第 2 步：模型的回答无法使用：Step {step} timed out",
        ),
    ],
)
def test_the_agents_messages_in_chinese(
    chinese: None, message: MessageId, fields: dict[str, object], chinese_text: str
) -> None:
    assert plain_error(_agent_error(message, **fields)) == chinese_text


def test_an_observation_of_the_agents_own_is_translated_and_a_pages_words_are_not(chinese: None) -> None:
    said = say(MessageId.PROMPT_SHORTENED)
    assert plain_observation(ObservationEvent(content=said.text, said=said)) != said.text
    page_words = ObservationEvent(content=TEMPLATES[MessageId.PROMPT_SHORTENED])  # a page may write our English
    assert plain_observation(page_words) == page_words.content


def test_a_model_endpoint_failure_gets_a_chinese_headline(chinese: None) -> None:
    text = "The endpoint http://x/v1 rejected the API key (401). Server said: bad key"
    assert plain_error(ErrorEvent(message=text, kind=ErrorKind.AUTH)) == f"模型服务不接受该 API 密钥。\n{text}"
    older = ErrorEvent.model_validate({"message": "Something nobody wrote a template for"})  # a run saved before ids
    assert older.kind is ErrorKind.AGENT
    assert plain_error(older) == "Something nobody wrote a template for"


def test_an_older_saved_stop_is_still_a_stop() -> None:
    assert ErrorEvent.model_validate({"message": "Task aborted", "kind": ""}).stopped
    assert ErrorEvent.model_validate({"message": "Task aborted", "kind": "stopped"}).stopped
    assert ErrorEvent.model_validate({"message": "x", "kind": "auth"}).kind is ErrorKind.AUTH


def test_a_retry_says_why_in_chinese_above_the_services_words(chinese: None) -> None:
    text = "The endpoint is rate limiting requests (429). slow down"
    assert plain_retry(text) == f"模型服务暂时出现问题。\n{text}"
    set_language("en")
    assert plain_retry(text) == text


def zh_tables() -> dict[str, str]:
    table: dict[str, str] = {}
    for path in sorted((resources_root() / "i18n" / "zh").glob("*.json")):
        table.update(json.loads(path.read_text(encoding="utf-8")))
    return table


def test_every_message_template_and_headline_has_a_chinese_version() -> None:
    table = zh_tables()
    assert not [template for template in TEMPLATES.values() if template not in table]
    assert set(TEMPLATES) == set(MessageId)
    model_kinds = [kind for kind in ErrorKind if kind.value in set(LLMErrorKind)]
    assert {kind.value for kind in model_kinds} == set(LLMErrorKind)  # every model failure is an ErrorKind
    set_language("zh")
    try:
        untranslated = [
            kind
            for kind in model_kinds
            if not re.search(r"[\u4e00-\u9fff]", plain_error(ErrorEvent(message="x", kind=kind)))
        ]
    finally:
        set_language("en")
    assert not untranslated


@pytest.mark.parametrize(
    ("text", "reading", "rest"),
    [
        ("✅ Success - typed the email", Reading.SUCCESS, "typed the email"),
        ("Success: the page loaded", Reading.SUCCESS, "the page loaded"),
        ("❌ Failed - the button was covered", Reading.FAILURE, "the button was covered"),
        ("❔ Unknown - no visible change", Reading.UNKNOWN, "no visible change"),
        ("Successfully logged in", Reading.UNKNOWN, "Successfully logged in"),
    ],
)
def test_evaluation_reading(text: str, reading: Reading, rest: str) -> None:
    assert evaluation_reading(text) == (reading, rest)


def test_small_helpers() -> None:
    assert format_tokens(12_345) == "12.3k" and format_tokens(1_000) == "1k" and format_tokens(999) == "999"
    assert displayable("✅ ok ❌ no", emoji_font=False) == "✓ ok ✗ no"


def test_the_card_says_whether_the_person_took_over_or_handed_back() -> None:
    from app.core.types import UserTakeoverEvent
    from app.text.wording import takeover_title

    assert takeover_title(UserTakeoverEvent(after_hand_off=True)) == "You handed the browser back"
    assert takeover_title(UserTakeoverEvent()) == "You took over the browser"
