"""The bundled demo CRM through the real controller: what the demo run (and its cassette) stands on."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from app.demo.site import DemoSite
from tests.browser.helpers import index_of
from tests.demo.record_cassette import solve_captcha


@pytest_asyncio.fixture(loop_scope="module")  # on the module's loop, as the shared browser
async def demo() -> AsyncIterator[str]:
    site = DemoSite()
    url = await site.start()
    yield url
    await site.stop()


async def test_sign_in_and_choose_a_plan_in_the_custom_combobox(controller, signal, demo) -> None:
    await controller.go_to_url(demo, signal)
    content = (await controller.get_browser_state(signal)).content
    await controller.input_text(index_of(content, "type=email"), "demo@acme.test", signal)
    await controller.input_text(index_of(content, "type=password"), "demo1234", signal)
    assert "navigated to" in await controller.click(index_of(content, "Sign in"), signal)
    content = (await controller.get_browser_state(signal)).content
    assert "navigated to" in await controller.click(
        index_of(content, "<a href=/new-customer.html>New customer"), signal
    )
    content = (await controller.get_browser_state(signal)).content
    assert "Phone optional" in content
    plan = index_of(content, "role=combobox")
    assert (await controller.select_option(plan, "pro", signal)).startswith('Selected "Pro')
    content = (await controller.get_browser_state(signal)).content
    assert (
        f'[{plan}]<button label="Plan *" type=button role=combobox aria-expanded=false aria-haspopup=listbox '
        "required>Pro />"
    ) in content


async def test_the_export_page_says_so_in_its_title_and_the_link_is_done_once_used(controller, signal, demo) -> None:
    await controller.go_to_url(demo, signal)
    page = controller.session.active_page
    await page.fill("#email", "demo@acme.test")
    await page.fill("#password", "demo1234")
    await page.click("button[type=submit]")
    await page.wait_for_url("**/dashboard.html")
    await controller.go_to_url(demo + "verify.html", signal)
    await solve_captcha(page)
    assert await page.title() == "Export ready — Acme CRM"  # not still "Security check"
    content = (await controller.get_browser_state(signal)).content
    await controller.click(index_of(content, "Download CSV"), signal)
    link = page.locator("#export-download")
    await link.filter(has_text="Downloaded").wait_for()
    # No longer a link: the browser's status bubble ("blob:…") does not linger under the pointer.
    assert await link.get_attribute("href") is None
