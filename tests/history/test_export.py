"""Exports: JSON that loads back, and a self-contained HTML report with the whole timeline, safely escaped."""

from __future__ import annotations

import json
import re
from pathlib import Path

from app.core.messages import MessageId, say
from app.core.types import (
    ActionRecord,
    ActionTarget,
    AgentReflection,
    AgentStatus,
    ErrorEvent,
    ErrorKind,
    ObservationEvent,
    StepEvent,
)
from app.history.export import export_html, export_json
from app.history.records import RunRecord
from app.text.i18n import set_language
from tests.history.conftest import make_record

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts" / "history"


def test_json_export_round_trips() -> None:
    record = make_record()
    assert RunRecord.model_validate_json(export_json(record)) == record
    assert json.loads(export_json(record))["tasks"][0]["events"][0]["type"] == "step"


def test_html_has_the_timeline_and_the_outcome() -> None:
    html = export_html(make_record())
    for expected in (
        "Add Ada",
        "Type “ada@example.com” into the Email field",
        "Form is open",
        "Type the email",
        "<summary>Details</summary>",
        "input_text {&quot;index&quot;: 3",
        "→ Typed into [3] &lt;input&gt; Email",
        "The page navigated to /customers/new",
        "Retry 2 of 3",
        "You took over the browser",
        "Solved the captcha",
        "https://crm.test/home",
        "Element [9] is not on the page",
        "Saved Ada.",
        'class="badge ok">Success<',
        "prefers-color-scheme: dark",
        "2.6k tokens",
        "model gpt-test",
    ):
        assert expected in html, expected
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "run.html").write_text(html, encoding="utf-8")


def test_html_failure_badge() -> None:
    html = export_html(make_record(success=False))
    assert 'class="badge fail">Not completed<' in html
    assert 'class="badge stopped">Stopped<' in export_html(make_record(status=AgentStatus.STOPPED, success=False))


def test_html_is_self_contained_and_escapes_everything() -> None:
    record = make_record(task='<script>alert("task")</script>')
    record.tasks[0].events.append(ObservationEvent(content="<img src=x onerror=alert(1)> & <script>x()</script>"))
    html = export_html(record)
    assert "<script" not in html.lower()
    assert "&lt;script&gt;alert(&quot;task&quot;)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=alert(1)&gt; &amp;" in html
    assert not re.search(r"""(?:src|href)=["']?(?:https?:)?//""", html)  # no external assets
    assert "<link" not in html and "@import" not in html


def test_no_secret_in_exports() -> None:
    record = make_record()
    record.settings["api_key"] = "sk-never-export-me"  # mutated after validation, as a careless caller might
    for text in (export_json(record), export_html(record)):
        assert "sk-never-export-me" not in text and "api_key" not in text


def test_a_replay_or_the_demo_lists_no_model_and_no_tokens() -> None:
    for update, words in (({"replay": True}, "Replayed from a recording"), ({"demo": True}, "Replayed demo")):
        record = make_record().model_copy(update=update)
        assert not record.model_called
        facts = re.search(r'<p class="facts">(.*?)</p>', export_html(record), re.DOTALL)
        assert facts is not None and words in facts.group(1)
        assert "tokens" not in facts.group(1) and "gpt-test" not in facts.group(1)
    facts = re.search(r'<p class="facts">(.*?)</p>', export_html(make_record()), re.DOTALL)
    assert facts is not None and "2.6k tokens" in facts.group(1) and "model gpt-test" in facts.group(1)


def test_html_speaks_plain_words_outside_details_and_draws_its_marks() -> None:
    record = make_record()
    record.tasks[0].events.append(
        StepEvent(
            step_index=3,
            reflection=AgentReflection(
                evaluation_previous_goal="❌ Failed - the button was covered", memory="✅ email typed"
            ),
            action=ActionRecord(
                name="click_element_by_index",
                input={"index": 12},
                output="❌ Element [12] is covered",
                target=ActionTarget(tag="button", name="Save"),
            ),
        )
    )
    html = export_html(record)
    # Everything outside "Details" is plain words: no indices, tags or tool names.
    outside = re.sub(r"<details>.*?</details>", "", html, flags=re.DOTALL)
    assert "Click the Save button" in outside and "This action didn&#x27;t work" in outside
    for jargon in ("[12]", "[3]", "&lt;input", "input_text", "click_element_by_index", "{&quot;index"):
        assert jargon not in outside, jargon
    # No emoji glyph that a machine without an emoji font shows as an empty box: drawn marks and plain symbols.
    assert not re.search("[\u2705\u274c\u2754\u2753]", outside)
    assert '<svg class="mark fail"' in html and '<svg class="mark ok"' in html and "✓ email typed" in html


def test_html_states_a_needed_person_and_errors_in_chinese() -> None:
    record = make_record(status=AgentStatus.NEEDS_PERSON, success=False)
    assert 'class="badge person">Needs a person<' in export_html(record)
    error = "The endpoint http://x/v1 rejected the API key (401). Server said: bad key"
    record = make_record(status=AgentStatus.ERROR, success=False)
    record.tasks[0].result = error
    record.tasks[0].events.append(ErrorEvent(message=error, kind=ErrorKind.AUTH))
    timed_out = say(MessageId.STEP_TIMED_OUT, step=4, seconds="30")
    record.tasks[0].events.append(ErrorEvent(message=timed_out.text, said=timed_out))
    set_language("zh")
    try:
        html = export_html(record)
    finally:
        set_language("en")
    assert html.count("模型服务不接受该 API 密钥。") == 2  # the error card and the result
    assert "第 4 步在 30 秒后超时" in html
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "run_zh.html").write_text(html, encoding="utf-8")
