"""What the model sees: the listing format, frames, shadow roots, hidden and covered elements, scrolling, markers."""

from __future__ import annotations

import pytest

from app.browser.controller import PlaywrightPageController
from app.core.abort import AbortSignal
from app.core.page import ElementInfo
from tests.browser.helpers import element_lines, index_of, is_new


async def state_of(controller: PlaywrightPageController, signal: AbortSignal, url: str) -> str:
    await controller.go_to_url(url, signal)
    return (await controller.get_browser_state(signal)).content


async def html_state(controller: PlaywrightPageController, signal: AbortSignal, html: str) -> str:
    """The state of a page written inline (go_to_url refuses data: addresses, so the tab's own document is used)."""
    await controller.session.active_page.set_content(html)
    return (await controller.get_browser_state(signal)).content


async def test_form_listing_matches_the_design_format(controller, signal, site) -> None:
    content = await state_of(controller, signal, f"{site}/form.html")
    lines = content.splitlines()
    assert lines[0] == f"Current page: [New customer]({site}/form.html)"
    assert lines[1] == "Viewport 1280x800; 0.0 pages above, 0.0 pages below"
    assert lines[2] == "[Start of page]"
    assert lines[-1] == "[End of page]"
    assert '"New customer"' in lines  # context text, unindexed, quoted
    assert '"Billing address"' in lines
    email = index_of(content, "type=email")
    assert f"[{email}]<input label=Email type=email name=email placeholder=you@company.com required />" in lines
    assert "value=Basic" in lines[lines.index(next(line for line in lines if "<select" in line))]
    assert "options=Basic|Pro|Enterprise" in content
    assert index_of(content, "<button>Save />")
    assert index_of(content, "contenteditable")
    assert index_of(content, "<textarea name=address")


async def test_labels_name_their_controls_and_line_breaks_separate_words(controller, signal) -> None:
    page = (
        "<title>Labels</title>"
        "<span id=l1>Delivery</span> <span id=l2>date</span><input aria-labelledby='l1 l2'>"
        "<label>Country <select><option>France</option><option>Peru</option></select></label>"
        "<label for=q>Search</label><input id=q placeholder=Search>"
        "<p><span>User: <code>demo</code><br>Any password works.</span></p>"
    )
    content = await html_state(controller, signal, page)
    assert '<input label="Delivery date" type=text />' in content
    # The wrapping label's own words only, not the options of the select inside it.
    assert "<select label=Country value=France options=France|Peru />" in content
    # A label that only repeats the placeholder is not said twice.
    assert "<input type=text placeholder=Search />" in content
    assert "User: demo Any password works." in content


async def test_password_value_is_never_shown(controller, signal, site) -> None:
    content = await state_of(controller, signal, f"{site}/form.html")
    assert "hunter2" not in content
    assert "value=••••" in content


@pytest.mark.fresh_browser  # tab ids count from the browser's start
async def test_tabs_are_listed_with_stable_ids(controller, signal, site) -> None:
    await controller.go_to_url(f"{site}/form.html", signal)
    await controller.open_new_tab(f"{site}/echo.html", signal)
    state = await controller.get_browser_state(signal)
    assert [(t.tab_id, t.active) for t in state.tabs] == [(1, False), (2, True)]
    assert state.tabs[0].title == "New customer"
    await controller.close_tab(1, signal)
    state = await controller.get_browser_state(signal)
    assert [t.tab_id for t in state.tabs] == [2]


async def test_same_and_cross_origin_iframes_are_listed_and_clickable(controller, signal, site) -> None:
    content = await state_of(controller, signal, f"{site}/frames.html")
    same = index_of(content, "Inner button same")
    cross = index_of(content, "Inner button cross")
    top = index_of(content, "Top button")
    assert top < same < cross
    assert "Clicked" in await controller.click(cross, signal)
    assert "Clicked" in await controller.click(same, signal)
    content = (await controller.get_browser_state(signal)).content
    assert "Clicked in cross" in content and "Clicked in same" in content


async def test_open_shadow_root_button(controller, signal, site) -> None:
    content = await state_of(controller, signal, f"{site}/shadow.html")
    assert "Slotted title" in content
    await controller.click(index_of(content, "Shadow action"), signal)
    assert "shadow clicked" in (await controller.get_browser_state(signal)).content


async def test_covered_element_is_not_listed_until_the_overlay_goes(controller, signal, site) -> None:
    content = await state_of(controller, signal, f"{site}/covered.html")
    assert "Buy now" not in content
    await controller.click(index_of(content, "Accept"), signal)
    content = (await controller.get_browser_state(signal)).content
    assert index_of(content, "Buy now")


async def test_covered_listing_keeps_its_shape_and_reports_what_the_overlay_hid_as_new(controller, signal) -> None:
    # A clickable card holding a button, both under a dialog; a link that a later, non-positioned block overlaps
    # (negative margin): every cover is found, whatever makes it.
    page = (
        "<div style='cursor:pointer'>Card <button>Inner</button></div>"
        "<a href='/x' style='display:block;height:40px'>Hidden link</a>"
        "<div style='margin-top:-40px;height:40px;background:white;position:relative'>Banner text</div>"
        "<div id=veil style='position:fixed;inset:0;background:rgba(0,0,0,.4)'>"
        "<div style='background:white;margin:200px auto;width:200px'><p>Sure?</p>"
        "<button onclick=\"document.getElementById('veil').remove()\">Close</button></div></div>"
    )
    content = await html_state(controller, signal, page)
    lines = element_lines(content)
    assert [line.split("]")[1] for line in lines] == ["<button>Close />"], content
    assert not lines[0].startswith("\t"), "the dialog's button is not nested under anything left out"
    await controller.click(index_of(content, "Close"), signal)
    content = (await controller.get_browser_state(signal)).content
    assert is_new(content, "Card") and is_new(content, "Inner"), content
    assert not any("Hidden link" in line for line in element_lines(content)), content
    assert '\n"Banner text"\n' in content, content


async def test_hidden_elements_are_left_out(controller, signal) -> None:
    page = (
        "<button>Shown</button><div style='display:none'><button>None</button></div>"
        "<button style='visibility:hidden'>Invisible</button><div style='opacity:0'><button>Clear</button></div>"
        "<button style='width:0;height:0;padding:0;border:0;overflow:hidden'>Zero</button>"
    )
    content = await html_state(controller, signal, page)
    assert [line.split("]")[1] for line in element_lines(content)] == ["<button>Shown />"]


async def test_pointer_cursor_lists_the_clickable_not_its_children(controller, signal) -> None:
    page = (
        "<div style='cursor:pointer' id=card><span>Card title</span><span>More</span></div>"
        "<div onclick='1'>Handler</div>"
    )
    content = await html_state(controller, signal, page)
    lines = element_lines(content)
    assert len(lines) == 2, content
    assert "Card title More" in lines[0]


async def test_long_page_lists_the_viewport_and_counts_the_rest(controller, signal, site) -> None:
    content = await state_of(controller, signal, f"{site}/long.html")
    assert "[Start of page]" in content
    assert "Item 1 />" in content and "Item 6 />" in content  # viewport (4 rows) plus half a page of margin
    assert "Item 20 />" not in content
    assert "pages below — scroll to see more" in content
    result = await controller.scroll(True, 2, None, signal)
    assert result.startswith("Scrolled the page down by 2 page(s); now 2.0 pages above")
    content = (await controller.get_browser_state(signal)).content
    assert "... 2.0 pages above — scroll up to see more" in content
    assert "Item 1 />" not in content and "Item 10 />" in content
    await controller.scroll(True, 50, None, signal)
    content = (await controller.get_browser_state(signal)).content
    assert content.endswith("[End of page]")
    box = index_of(content, "scrollable=")
    assert "Did not scroll" in await controller.scroll(False, 1, box, signal)
    assert "now 1.0 pages above" in await controller.scroll(True, 1, box, signal)
    assert "1.0 pages above" in (await controller.get_browser_state(signal)).content


async def test_new_elements_are_starred(controller, signal, site) -> None:
    content = await state_of(controller, signal, f"{site}/dynamic.html")
    assert not any(line.startswith("*") for line in element_lines(content))  # nothing is new at first sight
    await controller.click(index_of(content, "<button>Add"), signal)
    content = (await controller.get_browser_state(signal)).content
    assert is_new(content, "Added later")
    assert not is_new(content, "<button>Add")
    content = (await controller.get_browser_state(signal)).content
    assert not is_new(content, "Added later")


async def test_an_observer_left_by_another_app_version_is_replaced(controller, signal) -> None:
    content = await html_state(controller, signal, "<button>Save</button>")
    page = controller.session.active_page
    await page.evaluate("() => { window.__pageAgent.version = 'older'; window.__pageAgent.observe = () => null; }")
    assert (await controller.get_browser_state(signal)).content == content


async def test_a_fixed_dialog_deep_inside_content_below_the_region_is_listed(controller, signal) -> None:
    # Its ancestors lie pages below the viewport: a look that judged a subtree by its root's box would miss it.
    rows = "".join(f"<div class=row><a href='/r{i}'>Row {i}</a></div>" for i in range(400))
    page = (
        f"<title>Deep dialog</title><main>{rows}<section><div><div role=dialog "
        "style='position:fixed;top:40px;left:40px;background:#fff;padding:10px'>Cookies? "
        "<button>Accept all</button></div></div></section></main>"
    )
    content = await html_state(controller, signal, page)
    assert "Cookies?" in content
    assert index_of(content, "<button>Accept all")
    assert "Row 350" not in content


async def test_what_a_page_never_draws_is_not_measured(controller, signal) -> None:
    # A long form's drop-downs, a datalist and an icon sprite hold thousands of elements on real pages; measuring
    # each was most of a look's cost there. What is drawn (a list box's options, an icon used in a button) still is.
    page = (
        "<title>Order</title><script>window.measured = [];"
        "const measure = Element.prototype.getBoundingClientRect;"
        "Element.prototype.getBoundingClientRect = function () { window.measured.push(this.id); "
        "return measure.call(this); };</script>"
        "<svg style='display:none'><defs><linearGradient id=grad><stop id=stop /></linearGradient></defs>"
        "<symbol id=star viewBox='0 0 10 10'><path id=sprite-path d='M0 0L10 10' /></symbol></svg>"
        "<label>Country <select><option id=dropdown-option>France</option><option>Peru</option></select></label>"
        "<input list=cities aria-label=City><datalist id=cities><option id=datalist-option>Lima</option></datalist>"
        "<select multiple aria-label=Sizes><option id=listbox-option>S</option><option>M</option></select>"
        "<button aria-label=Favourite><svg id=icon width=16 height=16><use href='#star' /></svg></button>"
    )
    content = await html_state(controller, signal, page)
    measured = set(await controller.session.active_page.evaluate("() => window.measured"))
    assert {"dropdown-option", "datalist-option", "stop", "sprite-path"}.isdisjoint(measured)
    assert {"listbox-option", "icon"} <= measured
    assert "<select label=Country value=France options=France|Peru />" in content
    assert index_of(content, "<button aria-label=Favourite")
    assert index_of(content, "<select", "options=S|M", "multiple")


async def test_a_new_document_carries_the_observer_before_its_first_look(controller, signal, site) -> None:
    await controller.get_browser_state(signal)  # the first look preloads the observer into documents opened after it
    page = controller.session.active_page
    await page.goto(f"{site}/form.html")
    # Loaded, not run: it observes nothing (and keeps no state) until the app looks.
    assert await page.evaluate("() => typeof window.__pageAgent.observe === 'function' && !window.__pageAgent.known")
    assert index_of((await controller.get_browser_state(signal)).content, "type=email")


async def test_a_link_is_read_against_the_current_address(controller, signal, site) -> None:
    # The short form of a link is kept between looks; a page that changes its address (pushState) is read anew.
    await controller.go_to_url(f"{site}/form.html", signal)
    page = controller.session.active_page
    await page.evaluate("() => document.body.insertAdjacentHTML('afterbegin', `<a href='/docs/intro'>Intro</a>`)")
    assert "<a href=/docs/intro>Intro />" in (await controller.get_browser_state(signal)).content
    await page.evaluate("() => history.pushState(null, '', '/docs/intro')")
    assert "<a>Intro />" in (await controller.get_browser_state(signal)).content


async def test_the_listing_comes_as_data_too_with_the_indices_of_its_lines(controller, signal, site) -> None:
    await controller.go_to_url(f"{site}/frames.html", signal)
    state = await controller.get_browser_state(signal)
    lines = element_lines(state.content)
    assert [element.index for element in state.elements] == [index_of(state.content, line) for line in lines]
    for element in state.elements:
        info = controller.element_info(element.index)
        assert info is not None and element.model_dump(include=set(ElementInfo.model_fields)) == info.model_dump()
        assert f"<{element.tag}" in lines[element.index - 1]

    await controller.go_to_url(f"{site}/form.html", signal)
    state = await controller.get_browser_state(signal)
    email = next(element for element in state.elements if element.attrs.get("type") == "email")
    assert email.index == index_of(state.content, "type=email")
    assert (email.tag, email.name, email.input_type) == ("input", "Email", "email")
    assert email.attrs == {
        "label": "Email",
        "type": "email",
        "name": "email",
        "placeholder": "you@company.com",
        "required": "",
    }
