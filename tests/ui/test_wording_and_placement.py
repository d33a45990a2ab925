"""Plain words for actions and evaluations, the captcha detector, and the side-by-side window placement."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect

from app.ui.window_placement import browser_beside, side_by_side
from app.text.wording import (
    Reading,
    describe_action,
    displayable,
    element_label,
    evaluation_reading,
    format_tokens,
    needs_human,
)


@pytest.mark.parametrize(
    ("name", "params", "words"),
    [
        ("click_element_by_index", {"index": 12}, "Click element [12]"),
        ("input_text", {"index": 3, "text": "abc"}, "Type “abc” into [3]"),
        ("go_to_url", {"url": "https://crm.example/new"}, "Go to https://crm.example/new"),
        ("select_dropdown_option", {"index": 7, "text": "Pro"}, "Choose “Pro” in [7]"),
        ("scroll", {"down": False, "num_pages": 0.5}, "Scroll up 0.5 pages"),
        ("send_keys", {"keys": "Enter"}, "Press Enter"),
        ("done", {"text": "x", "success": False}, "Finish: could not complete"),
        ("some_new_tool", {}, "Some new tool"),
    ],
)
def test_actions_in_plain_words(name: str, params: dict[str, object], words: str) -> None:
    assert describe_action(name, params) == words


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


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The site shows a CAPTCHA I cannot solve", True),
        ("Please log in first; the session expired", True),
        ("A two-factor code was sent to your phone", True),
        ("需要人工验证", True),
        ("The product is out of stock", False),
    ],
)
def test_needs_human(text: str, expected: bool) -> None:
    assert needs_human(text) is expected


def test_small_helpers() -> None:
    assert element_label("Clicked [12] <button> Save") == "Save"
    assert element_label("❌ Element [12] is gone") == ""
    assert format_tokens(12_345) == "12.3k" and format_tokens(1_000) == "1k" and format_tokens(999) == "999"
    assert displayable("✅ ok ❌ no", emoji_font=False) == "✓ ok ✗ no"


def test_side_by_side_on_a_full_hd_screen() -> None:
    placement = side_by_side(QRect(0, 0, 1920, 1050))
    assert placement.panel == (0, 0, 420, 1050)
    assert placement.browser == (420, 0, 1500, 1050)


def test_side_by_side_respects_the_screen_origin_and_narrow_screens() -> None:
    assert side_by_side((1920, 30, 1280, 770)).browser == (2340, 30, 860, 770)
    narrow = side_by_side((0, 0, 800, 600))
    assert narrow.panel[2] == 360 and narrow.browser == (360, 0, 440, 600)


def test_browser_beside_a_panel_the_user_moved() -> None:
    screen = (0, 0, 1920, 1050)
    assert browser_beside(screen, (0, 0, 420, 1050)) == (420, 0, 1500, 1050)
    # Panel moved to the right edge: Chromium takes the left.
    assert browser_beside(screen, (1500, 0, 420, 1050)) == (0, 0, 1500, 1050)
    # Panel in the middle: the wider side wins.
    assert browser_beside(screen, (700, 0, 420, 1050)) == (1120, 0, 800, 1050)
    # No side wide enough for a page: Chromium covers the screen.
    assert browser_beside((0, 0, 1000, 700), (300, 0, 420, 700)) == (0, 0, 1000, 700)
    # Works on a second screen with an origin, and with a panel hanging off it.
    assert browser_beside((1920, 30, 1280, 770), (1800, 30, 420, 770)) == (2220, 30, 980, 770)
