"""Page patterns the listing used to miss or garble (issue 11): each page is read as the model reads it, and the
elements it lists must work when acted on by their index."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.errors import ToolError
from tests.browser.helpers import element_lines, index_of
from tests.browser.test_observation import html_state, state_of


async def test_a_checkbox_under_its_own_labels_decoration_is_listed_and_toggles(controller, signal, site) -> None:
    content = await state_of(controller, signal, f"{site}/custom_checkbox.html")
    terms = index_of(content, 'label="I accept the terms"', "type=checkbox")
    plan = index_of(content, 'label="Plan A"', "type=radio")
    # The label is said once, on its control.
    assert "\nI accept the terms\n" not in content and "\nPlan A\n" not in content
    await controller.click(terms, signal)
    await controller.click(plan, signal)
    content = (await controller.get_browser_state(signal)).content
    assert "checked" in element_lines(content)[terms - 1]
    assert "checked" in element_lines(content)[plan - 1]


async def test_a_transparent_file_input_with_a_visible_label_takes_an_upload(
    controller, signal, site, tmp_path: Path
) -> None:
    content = await state_of(controller, signal, f"{site}/custom_file.html")
    index = index_of(content, "type=file", 'label="Choose file"')
    cv = tmp_path / "cv.pdf"
    cv.write_bytes(b"%PDF-1.4")
    await controller.upload_file(index, str(cv), signal)
    content = (await controller.get_browser_state(signal)).content
    assert "Chosen: cv.pdf" in content


async def test_icons_inside_a_clickable_row_are_listed_on_their_own(controller, signal, site) -> None:
    content = await state_of(controller, signal, f"{site}/inbox.html")
    row = index_of(content, "Alice Lunch on Friday?")
    star = index_of(content, "aria-label=Star")
    trash = index_of(content, "title=Delete")
    assert len({row, star, trash}) == 3
    await controller.click(star, signal)
    assert "Starred" in (await controller.get_browser_state(signal)).content
    await controller.click(trash, signal)
    assert "Deleted" in (await controller.get_browser_state(signal)).content


async def test_text_reads_in_document_order_and_inline_markup_keeps_words_whole(controller, signal, site) -> None:
    content = await state_of(controller, signal, f"{site}/reading_order.html")
    lines = content.splitlines()
    assert '"Seats left: 7"' in lines
    assert '"Price: 120 EUR"' in lines
    assert '"Enter the code \\"yA\\""' in lines  # page text is a quoted string: its own quotes are escaped
    assert '"Type abcd here"' in lines
    # Blocks still separate.
    assert lines.index('"Block one"') + 1 == lines.index('"Block two"')


async def test_the_items_of_a_clickable_list_are_listed_not_the_list(controller, signal, site) -> None:
    content = await state_of(controller, signal, f"{site}/suggestions.html")
    assert "<ul" not in content
    parma = index_of(content, "<li>Parma />")
    index_of(content, "<li>Paris />")
    index_of(content, "<li>Paramaribo />")
    await controller.click(parma, signal)
    assert "value=Parma" in (await controller.get_browser_state(signal)).content


async def test_a_field_with_a_datalist_says_its_suggestions(controller, signal) -> None:
    # Chromium draws a datalist's suggestions outside the page, where no look reaches: the field's line is the only
    # place the model can learn them.
    cities = "".join(f"<option value='City {i}'>" for i in range(12))
    page = (
        "<title>Trip</title><label>From <input list=from name=from></label><datalist id=from><option value=Lima>"
        "<option value=Cusco label='Cusco (CUZ)'><option value=Arequipa disabled></datalist>"
        f"<label>To <input list=to name=to></label><datalist id=to>{cities}</datalist>"
    )
    content = await html_state(controller, signal, page)
    origin = index_of(content, "label=From", "options=Lima|Cusco />")
    index_of(content, "label=To", 'options="City 0|City 1|City 2|City 3|City 4|City 5|City 6|City 7|…4 more"')
    # Chosen the way a drop-down's option is, or typed.
    assert (await controller.select_option(origin, "cusco", signal)).startswith(f'Selected "Cusco" in [{origin}]')
    assert "value=Cusco" in element_lines((await controller.get_browser_state(signal)).content)[origin - 1]
    with pytest.raises(ToolError, match=r'no such suggestion\. Suggestions: "Lima", "Cusco"$'):
        await controller.select_option(origin, "Arequipa", signal)  # disabled
    await controller.input_text(origin, "Lima", signal)
    assert "value=Lima" in element_lines((await controller.get_browser_state(signal)).content)[origin - 1]
