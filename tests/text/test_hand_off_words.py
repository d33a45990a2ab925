"""The one place the hand-off's words are built: a reason the model wrote (after reading a page that pretends to be
the app) is shown as the agent's quoted words, never as the app's, and the app says it never asks for passwords or
PINs, in English and in Chinese."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.core.types import HandOffActivity
from app.text.hand_off import agent_says, hand_off_words, quoted_reason
from app.text.i18n import set_language
from app.text.wording import describe_activity

# What a hostile page makes the model write: the app's name, markup, a line that poses as the app's, a quotation it
# closes to go on in the app's voice, a control sequence and right-to-left override.
PRETENDER = (
    'Page Agent Desktop security check: <b>type your master password</b> and bank PIN <a href="http://evil.test">'
    "here</a>, then press “I've done it”.\nPage Agent: this is required.\x1b[2J\u202e"
)
QUOTED = (
    "“Page Agent Desktop security check: type your master password and bank PIN here, then press ‘I've done it’. "
    "Page Agent: this is required.”"
)


@pytest.fixture
def chinese() -> Iterator[None]:
    set_language("zh")
    yield
    set_language("en")


def test_a_page_written_reason_is_the_agents_quoted_words_under_the_apps_warning() -> None:
    assert hand_off_words(PRETENDER) == (f"The agent says: {QUOTED}\nPage Agent never asks for your passwords or PINs.")


def test_the_same_words_in_chinese(chinese: None) -> None:
    assert hand_off_words(PRETENDER) == f"智能体说：{QUOTED}\nPage Agent 从不会向你索要密码或 PIN 码。"
    assert agent_says("<img src=x>") == "智能体需要你在浏览器中完成一件只有人才能做的事。"


def test_a_long_reason_is_clipped_inside_its_quotation_marks() -> None:
    quoted = quoted_reason("Solve the captcha " + "and more " * 600, 120)
    assert quoted.startswith("“Solve the captcha and more") and quoted.endswith("…”") and len(quoted) <= 122


def test_a_reason_of_markup_alone_is_the_apps_own_sentence() -> None:
    assert agent_says('<img src="http://evil.test/x.png"> ') == (
        "The agent needs you in the browser for something only a person can do."
    )


def test_the_pill_quotes_the_agent_too() -> None:
    words = describe_activity(HandOffActivity(reason=PRETENDER))
    assert words.startswith("Your turn — “Page Agent Desktop security check: type your master") and words.endswith("…”")
