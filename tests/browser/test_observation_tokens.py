"""What the listing no longer spends tokens on (issue 11): each cut keeps what tells elements apart."""

from __future__ import annotations

from datetime import UTC, datetime

from app.browser.controller import PlaywrightPageController
from app.core.abort import AbortSignal
from app.core.page import BrowserState, TabInfo
from app.core.prompt import build_messages
from tests.browser.helpers import element_lines, index_of


async def links_page(controller: PlaywrightPageController, signal: AbortSignal, site: str) -> str:
    await controller.go_to_url(f"{site}/links.html", signal)
    return (await controller.get_browser_state(signal)).content


async def test_same_origin_links_are_named_by_their_path_and_page_anchors_by_their_fragment(
    controller, signal, site
) -> None:
    content = await links_page(controller, signal, site)
    assert "<a href=/section/world/asia/story-three.html?ref=front>Story three />" in content
    assert "127.0.0.1" not in "\n".join(element_lines(content))
    # "#" leads nowhere: no address at all, rather than the page's own path.
    assert "<a>Back to top />" in content
    assert "<a href=#comments>Comments />" in content


async def test_long_addresses_are_clipped_in_the_middle_and_stay_apart(controller, signal, site) -> None:
    content = await links_page(controller, signal, site)
    first = element_lines(content)[index_of(content, "Weather 4711") - 1]
    second = element_lines(content)[index_of(content, "Weather 4712") - 1]
    assert "example.org/articles/" in first and "…" in first and "id=4711" in first
    assert "id=4712" in second
    assert "www." not in first


async def test_a_tab_is_listed_once_and_a_title_that_repeats_the_text_is_dropped(controller, signal, site) -> None:
    content = await links_page(controller, signal, site)
    assert "<li" not in content
    news = index_of(content, ">News />")
    assert "role=tab aria-selected=true" in element_lines(content)[news - 1]
    assert "<a href=/section/world/europe/story-two.html>Story two />" in content
    await controller.click(index_of(content, ">Sport />"), signal)
    assert (await controller.get_browser_state(signal)).url.endswith("?tab=sport")


async def test_a_label_is_said_once_on_its_field(controller, signal, site) -> None:
    content = await links_page(controller, signal, site)
    assert content.count("Search the site") == 1
    assert '<input label="Search the site" type=text name=q />' in content


def test_the_current_tab_line_does_not_repeat_the_page_line() -> None:
    state = BrowserState(
        url="https://a.test/x",
        title="Alpha",
        content="Current page: [Alpha](https://a.test/x)",
        tabs=[
            TabInfo(tab_id=1, url="https://a.test/x", title="Alpha", active=True),
            TabInfo(tab_id=2, url="https://b.test/", title="Beta"),
        ],
    )
    messages = build_messages(
        system="",
        task="t",
        step_index=1,
        max_steps=5,
        previous_tasks=[],
        history=[],
        state=state,
        now=datetime(2026, 1, 1, tzinfo=UTC),
    )
    user = messages[1].content
    assert "- Tab 1 (current)\n" in user and user.count("Alpha") == 1
    assert '- Tab 2: "Beta" — https://b.test/' in user
