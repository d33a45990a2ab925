"""The bundled demo CRM through the real controller: what the demo run (and its cassette) stands on."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from app.demo.site import DemoSite
from tests.browser.helpers import index_of


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
