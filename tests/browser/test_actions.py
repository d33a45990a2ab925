"""Actions as real trusted input: forms, controlled inputs, dropdowns, uploads, keys, navigation, stale indices."""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path

import pytest
from playwright._impl.element_handle import ElementHandle

from app.browser.controller import PlaywrightPageController
from app.core.abort import AbortController, AbortError, AbortSignal
from app.core.errors import ToolError
from tests.browser.helpers import index_of
from tests.waiting import finishes, until


async def open_page(controller: PlaywrightPageController, signal: AbortSignal, url: str) -> str:
    await controller.go_to_url(url, signal)
    return (await controller.get_browser_state(signal)).content


async def test_fill_and_submit_a_form(controller, signal, site) -> None:
    content = await open_page(controller, signal, f"{site}/form.html")
    result = await controller.input_text(index_of(content, "type=email"), "ann@example.com", signal)
    assert result == 'Typed "ann@example.com" into [1] <input type=email name=email placeholder=you@company.com>'
    result = await controller.input_text(index_of(content, "type=password"), "s3cret!", signal)
    assert "s3cret" not in result and "••••" in result
    assert await controller.select_option(index_of(content, "<select"), "pro", signal) == (
        'Selected "Pro" in [3] <select name=plan>'
    )
    await controller.click(index_of(content, "type=checkbox"), signal)
    await controller.input_text(index_of(content, "<textarea"), "1 Main St\nSpringfield", signal)
    await controller.input_text(index_of(content, "contenteditable"), "A note", signal)
    content = (await controller.get_browser_state(signal)).content
    assert "value=ann@example.com" in content
    assert "value=Pro" in content
    assert "<input label=Newsletter type=checkbox name=news checked />" in content
    assert "<div contenteditable>A note />" in content
    result = await controller.click(index_of(content, "<button>Save"), signal)
    assert result.startswith("Clicked [7] <button> Save; the page navigated to ")
    state = await controller.get_browser_state(signal)
    assert "email=ann%40example.com" in state.url and "plan=p" in state.url and "news=on" in state.url
    assert controller.drain_events() == []  # the click's result already told of the navigation


async def test_the_elements_the_actions_used_are_let_go_at_the_next_look(controller, signal, site) -> None:
    # Each one is held in the page and in this process until let go or its tab closes: over a window's rows of a
    # routine, thousands of them.
    content = await open_page(controller, signal, f"{site}/form.html")
    box = index_of(content, "type=checkbox")
    before = _element_handles()
    for _ in range(10):
        await controller.click(box, signal)
        await controller.get_browser_state(signal)
    assert _element_handles() <= before


def _element_handles() -> int:
    gc.collect()
    return sum(isinstance(each, ElementHandle) for each in gc.get_objects())


async def test_select_option_reports_the_options_when_none_matches(controller, signal, site) -> None:
    content = await open_page(controller, signal, f"{site}/form.html")
    with pytest.raises(ToolError, match=r'no such option\. Options: "Basic", "Pro", "Enterprise"'):
        await controller.select_option(index_of(content, "<select"), "Platinum", signal)


async def test_react_style_controlled_input_keeps_the_typed_value(controller, signal, site) -> None:
    content = await open_page(controller, signal, f"{site}/react.html")
    await controller.input_text(index_of(content, "Full name"), "Ada Lovelace", signal)

    async def rendered() -> str:  # several re-renders from component state
        content = (await controller.get_browser_state(signal)).content
        return content if "state=Ada Lovelace" in content else ""

    assert 'value="Ada Lovelace"' in await until(rendered, message="the component's state to show the name")


async def test_custom_combobox(controller, signal, site) -> None:
    content = await open_page(controller, signal, f"{site}/combobox.html")
    combo = index_of(content, "role=combobox")
    assert await controller.select_option(combo, "growth", signal) == (
        'Selected "Growth" in [1] <div role=combobox> Select plan'
    )
    content = (await controller.get_browser_state(signal)).content
    assert "chosen=Growth" in content
    with pytest.raises(ToolError, match='Visible options: "Starter", "Growth", "Scale"'):
        await controller.select_option(index_of(content, "role=combobox"), "Enterprise", signal)


async def test_upload_through_a_file_input_and_through_a_button(controller, signal, site, tmp_path: Path) -> None:
    file = tmp_path / "invoice.pdf"
    file.write_bytes(b"%PDF-1.4")
    content = await open_page(controller, signal, f"{site}/upload.html")
    result = await controller.upload_file(index_of(content, "type=file"), str(file), signal)
    assert result.startswith(f"Uploaded {file} through [1] <input type=file")
    assert "f:invoice.pdf" in (await controller.get_browser_state(signal)).content
    content = (await controller.get_browser_state(signal)).content
    await controller.upload_file(index_of(content, "Choose file"), str(file), signal)
    assert "hidden:invoice.pdf" in (await controller.get_browser_state(signal)).content
    with pytest.raises(ToolError, match="does not exist"):
        await controller.upload_file(1, str(tmp_path / "missing.pdf"), signal)


async def test_upload_through_a_button_that_opens_no_chooser_says_so(session, signal, site, tmp_path: Path) -> None:
    controller = PlaywrightPageController(session, action_timeout=0.5)
    file = tmp_path / "invoice.pdf"
    file.write_bytes(b"%PDF-1.4")
    content = await open_page(controller, signal, f"{site}/upload.html")
    with pytest.raises(ToolError, match="clicking it did not open a file chooser"):
        await controller.upload_file(index_of(content, "Attach nothing"), str(file), signal)


async def test_send_keys_and_hover(controller, signal, site) -> None:
    content = await open_page(controller, signal, f"{site}/form.html")
    await controller.click(index_of(content, "type=email"), signal)
    assert await controller.send_keys("a b Shift+C", signal) == "Pressed a b Shift+C"
    assert await controller.hover(index_of(content, "Save"), signal) == "Hovered [7] <button> Save"
    assert "value=abC" in (await controller.get_browser_state(signal)).content
    with pytest.raises(ToolError, match="Could not press NoSuchKey"):
        await controller.send_keys("NoSuchKey", signal)


async def test_stale_index_is_an_error_not_another_element(controller, signal, site) -> None:
    content = await open_page(controller, signal, f"{site}/dynamic.html")
    doomed = index_of(content, "Doomed")
    await controller.click(index_of(content, "Remove other"), signal)
    with pytest.raises(ToolError, match=rf"Element \[{doomed}\] is no longer on the page"):
        await controller.click(doomed, signal)
    with pytest.raises(ToolError, match=r"There is no element \[99\]"):
        await controller.click(99, signal)
    # After a navigation, the old listing's indices point at nothing.
    content = await open_page(controller, signal, f"{site}/dynamic.html")
    await controller.go_to_url(f"{site}/form.html", signal)
    with pytest.raises(ToolError, match="no longer on the page"):
        await controller.click(index_of(content, "<button>Add"), signal)


async def test_click_on_a_covered_element_says_what_covers_it(controller, signal, site) -> None:
    content = await open_page(controller, signal, f"{site}/dynamic.html")
    index = index_of(content, "<button>Add")
    await controller.execute_javascript(
        "document.body.insertAdjacentHTML('beforeend', '<div id=veil style=\"position:fixed;inset:0\"></div>')", signal
    )
    with pytest.raises(ToolError, match="another element is covering it"):
        await controller.click(index, signal)


async def test_navigation_back_and_url_fixing(controller, signal, site) -> None:
    host = site.removeprefix("http://")
    assert (await controller.go_to_url(f"{host}/form.html", signal)).startswith(f"Opened {site}/form.html")
    await controller.go_to_url(f"{site}/echo.html", signal)
    assert await controller.go_back(signal) == f"Went back to {site}/form.html"
    with pytest.raises(ToolError, match="Could not open"):
        await controller.go_to_url("http://127.0.0.1:1/", signal)


async def test_execute_javascript_returns_json(controller, signal, site) -> None:
    await controller.go_to_url(f"{site}/form.html", signal)
    assert (
        await controller.execute_javascript("const a = [1, 2]; ({sum: a[0] + a[1], t: document.title})", signal)
        == 'The script returned {"sum": 3, "t": "New customer"}'
    )
    long = await controller.execute_javascript("'x'.repeat(10000)", signal)
    assert len(long) < 4100 and long.endswith("more characters)")
    with pytest.raises(ToolError, match=r"The script failed: .*nope"):
        await controller.execute_javascript("throw new Error('nope')", signal)


async def test_abort_stops_a_slow_action_promptly(controller, signal, site) -> None:
    content = await open_page(controller, signal, f"{site}/covered.html")
    accept = index_of(content, "Accept")
    await controller.execute_javascript(
        "document.body.insertAdjacentHTML('beforeend', '<div style=\"position:fixed;inset:0;z-index:9\"></div>')",
        signal,
    )
    abort = AbortController()
    asyncio.get_running_loop().call_later(0.3, abort.abort)
    with pytest.raises(AbortError):
        # Without the abort the click would wait 5 s for the covered button (the controller's action timeout).
        await finishes(controller.click(accept, abort.signal), 4, "the aborted click")
    with pytest.raises(AbortError):
        await controller.go_to_url(f"{site}/form.html", abort.signal)
