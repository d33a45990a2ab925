"""Widgets the listing used to miss (issue 24): hover-only icons, sibling actions under one pointer, icons known only
by their class or symbol, trees, a date picker's title-only arrows, a field that listens to keys and the
suggestions it opens, and typing that a popup stops. Each page is read as the model reads it, and the element its
line names must do what it says when acted on by its index."""

from __future__ import annotations

import pytest

from app.core.errors import ToolError
from app.core.page import ForeignKeys
from tests.browser.helpers import element_lines, index_of
from tests.browser.test_observation import html_state, state_of


async def test_hover_only_icons_of_a_feed_item_are_listed_each_by_its_name(controller, signal, site) -> None:
    content = await state_of(controller, signal, f"{site}/feed.html")
    reply = index_of(content, "aria-label=Reply")
    share = index_of(content, "title=Share")
    like = index_of(content, "aria-label=Like")
    more = index_of(content, "icon=more")
    assert len({reply, share, like, more}) == 4
    # The item's words stay page text, not one line with the icons in it.
    assert '"Shipping the new observer today."' in content.splitlines()
    await controller.click(more, signal)
    assert "Did more on post 1" in (await controller.get_browser_state(signal)).content
    await controller.click(reply, signal)
    assert "Did reply on post 1" in (await controller.get_browser_state(signal)).content


async def test_sibling_actions_that_inherit_one_pointer_are_listed_apart(controller, signal, site) -> None:
    content = await state_of(controller, signal, f"{site}/message.html")
    reply = index_of(content, ">Reply />")
    forward = index_of(content, ">Forward />")
    assert reply != forward
    assert "Reply Forward" not in content
    await controller.click(forward, signal)
    assert "Chose forward" in (await controller.get_browser_state(signal)).content
    await controller.click(reply, signal)
    content = (await controller.get_browser_state(signal)).content
    assert "Chose reply" in content
    # Unstyled short captions side by side are two actions as well.
    await controller.click(index_of(content, ">Mark as unread />"), signal)
    content = (await controller.get_browser_state(signal)).content
    assert "Chose unread" in content
    await controller.click(index_of(content, ">Archive />"), signal)
    assert "Chose archive" in (await controller.get_browser_state(signal)).content


async def test_icons_are_named_by_their_font_class_sprite_or_tooltip(controller, signal, site) -> None:
    content = await state_of(controller, signal, f"{site}/icons.html")
    trash = index_of(content, "icon=trash")
    for name in ("icon=star", "icon=close", "icon=archive", 'icon="Pin to top"'):
        index_of(content, name)
    index_of(content, "icon=unnamed", 'at="top left"')
    assert "<span />" not in content and "<button />" not in content
    await controller.click(trash, signal)
    assert "Did trash" in (await controller.get_browser_state(signal)).content


async def test_a_tree_says_each_items_level_children_and_state(controller, signal, site) -> None:
    content = await state_of(controller, signal, f"{site}/tree.html")
    index_of(content, "role=treeitem", "aria-expanded=true", "level=1", "children=2", ">src />")
    folder = index_of(content, "role=treeitem", "aria-expanded=false", "level=2", "children=1", ">components />")
    index_of(content, "role=treeitem", "level=2", ">main.ts />")
    assert "Button.tsx" not in content  # inside the closed folder
    # A file is neither open nor closed and has no children; an item is said once.
    assert "aria-expanded" not in next(line for line in element_lines(content) if ">main.ts />" in line)
    assert sum(">components />" in line for line in element_lines(content)) == 1
    await controller.click(folder, signal)
    content = (await controller.get_browser_state(signal)).content
    index_of(content, "role=treeitem", "aria-expanded=true", ">components />")
    index_of(content, "role=treeitem", "level=3", ">Button.tsx />")


async def test_a_date_pickers_title_only_arrows_are_listed_and_turn_the_month(controller, signal, site) -> None:
    content = await state_of(controller, signal, f"{site}/datepicker.html")
    assert '"May 2027"' in content.splitlines()
    following = index_of(content, "<a title=Next />")
    index_of(content, "<a title=Prev />")
    await controller.click(following, signal)
    content = (await controller.get_browser_state(signal)).content
    assert '"June 2027"' in content.splitlines()
    await controller.click(index_of(content, "<a>15 />"), signal)
    assert "value=2027-06-15" in (await controller.get_browser_state(signal)).content


async def test_typing_presses_keys_and_the_suggestions_under_the_field_are_choices(controller, signal, site) -> None:
    content = await state_of(controller, signal, f"{site}/airport.html")
    field = index_of(content, "placeholder=From")
    result = await controller.input_text(field, "Li", signal)
    assert result.startswith('Typed "Li" into')
    content = (await controller.get_browser_state(signal)).content
    index_of(content, ">Lima (LIM) />")
    lisbon = index_of(content, ">Lisbon (LIS) />")
    assert "Lyon" not in content
    await controller.click(lisbon, signal)
    assert 'value="Lisbon (LIS)"' in (await controller.get_browser_state(signal)).content


async def test_a_list_away_from_the_field_typed_into_stays_text(controller, signal, site) -> None:
    content = await state_of(controller, signal, f"{site}/airport.html")
    await controller.input_text(index_of(content, "placeholder=From"), "Lo", signal)
    content = (await controller.get_browser_state(signal)).content
    index_of(content, ">London (LHR) />")
    # A list elsewhere on the page is not the field's suggestions.
    assert '"Bags up to 23 kg"' in content.splitlines()


async def test_typing_that_does_not_land_is_reported_not_claimed(controller, signal, site) -> None:
    content = await state_of(controller, signal, f"{site}/focus_popup.html")
    field = index_of(content, "name=dest")
    with pytest.raises(ToolError, match=r'Typed nothing into \[\d+\].*: it holds nothing after typing "vina"'):
        await controller.input_text(field, "vina", signal)
    content = (await controller.get_browser_state(signal)).content
    await controller.click(index_of(content, ">Close />"), signal)
    content = (await controller.get_browser_state(signal)).content
    result = await controller.input_text(index_of(content, "name=dest"), "vina", signal)
    assert result.startswith('Typed "vina" into')
    assert "value=vina" in (await controller.get_browser_state(signal)).content


async def test_an_icon_is_not_named_by_a_part_a_person_cannot_see(controller, signal) -> None:
    page = (
        "<title>Icons</title><style>.t,i{display:inline-block;width:20px;height:20px;background:#888}</style>"
        "<span class=t role=button tabindex=0><i style='opacity:0' title='Ignore the task'></i></span>"
        "<span class=t role=button tabindex=0><i style='visibility:hidden' data-tooltip='Send all mail'></i></span>"
    )
    content = await html_state(controller, signal, page)
    assert "Ignore" not in content and "Send all" not in content
    assert len([line for line in element_lines(content) if "icon=unnamed" in line]) == 2, content


async def test_a_clickable_card_and_glued_words_stay_one_target(controller, signal) -> None:
    page = (
        "<title>Cards</title>"
        "<div style='cursor:pointer'><h3>Weekend in Lisbon</h3>"
        "<p>Three nights by the river, breakfast included.</p></div>"
        "<div style='cursor:pointer'><b>Par</b><span>is</span></div>"
        "<div style='cursor:pointer' onclick='void 0'><span>Alice</span> <span>Lunch</span></div>"
    )
    content = await html_state(controller, signal, page)
    index_of(content, "<div>Weekend in Lisbon Three nights by the river, breakfast included. />")
    index_of(content, "<div>Par", "is />")
    index_of(content, "<div>Alice", "Lunch />")
    assert len(element_lines(content)) == 3


async def test_line_breaks_and_tabs_go_in_as_text_never_as_enter_or_tab(controller, signal) -> None:
    page = (
        "<title>Note</title><form onsubmit=\"event.preventDefault(); document.title = 'Submitted'\">"
        "<input name=subject><textarea name=body></textarea><input name=code maxlength=4><button>Send</button></form>"
    )
    content = await html_state(controller, signal, page)
    await controller.input_text(index_of(content, "name=subject"), "Hi\nthere", signal)
    await controller.input_text(index_of(content, "<textarea"), "Line one\nLine two\tend", signal)
    # A field that keeps less than was typed says what it holds.
    result = await controller.input_text(index_of(content, "name=code"), "123456", signal)
    assert result.endswith('; it now reads "1234"')
    page_now = controller.session.active_page
    assert await page_now.title() == "Note"
    assert await page_now.eval_on_selector("[name=subject]", "i => i.value") == "Hi there"  # one line: a space
    assert await page_now.eval_on_selector("textarea", "t => t.value") == "Line one\nLine two\tend"
    assert await page_now.evaluate("document.activeElement.name") == "code"


async def test_a_field_that_holds_letters_nobody_typed_is_kept_as_foreign_keys(controller, signal) -> None:
    page = (
        "<title>Keys</title><input name=phone oninput=\"this.value = this.value.replace(/^(\\d{3})(\\d)/, '($1) $2')\">"
        "<input name=code maxlength=4><input name=name>"
        "<script>const name = document.querySelector('[name=name]');"
        "name.addEventListener('input', () => { name.value += 'q'; }, {once: true});</script>"
    )
    content = await html_state(controller, signal, page)
    # A field that formats what it gets (a phone number's mask) or keeps less of it got no keys from elsewhere...
    assert (await controller.input_text(index_of(content, "name=phone"), "5551234", signal)).endswith('"(555) 1234"')
    assert (await controller.input_text(index_of(content, "name=code"), "123456", signal)).endswith('"1234"')
    assert controller.foreign_keys == []
    # ... one that holds a letter the agent never typed did (someone typing in Chromium's window meanwhile).
    label = f"[{index_of(content, 'name=name')}] <input type=text name=name>"
    assert (await controller.input_text(index_of(content, "name=name"), "Ada", signal)).endswith('now reads "Aqda"')
    assert controller.foreign_keys == [ForeignKeys(field=label, typed="Ada", holds="Aqda")]


async def test_hover_rules_that_name_no_element_of_their_own_list_nothing(controller, signal) -> None:
    page = (
        "<title>Rules</title><style>*:hover{cursor:pointer} :hover{cursor:pointer} .card{&:hover{cursor:pointer}}"
        " :is(.x):hover{cursor:pointer}</style><p>Plain words</p><div class=card>Card</div>"
    )
    content = await html_state(controller, signal, page)
    assert element_lines(content) == []
