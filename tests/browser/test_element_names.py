"""element_info names an element by what a person reads on it (its words, label, placeholder or accessible name),
never by what was typed into it: the panel says "the Email field" from it."""

from __future__ import annotations

from app.browser.controller import PlaywrightPageController
from app.core.abort import AbortSignal
from tests.browser.helpers import index_of


async def test_fields_buttons_and_links_by_the_name_a_person_reads(
    controller: PlaywrightPageController, signal: AbortSignal, site: str
) -> None:
    await controller.go_to_url(f"{site}/form.html", signal)
    content = (await controller.get_browser_state(signal)).content
    named = {
        needle: controller.element_info(index_of(content, needle))
        for needle in ("type=email", "type=password", "<select", "type=checkbox", "<button>Save")
    }
    assert {needle: (info.tag, info.name, info.input_type) for needle, info in named.items() if info} == {
        "type=email": ("input", "Email", "email"),
        "type=password": ("input", "Password", "password"),
        "<select": ("select", "Plan", ""),
        "type=checkbox": ("input", "Newsletter", "checkbox"),
        "<button>Save": ("button", "Save", ""),
    }


async def test_a_typed_value_never_names_a_field(
    controller: PlaywrightPageController, signal: AbortSignal, site: str
) -> None:
    await controller.go_to_url(f"{site}/names.html", signal)
    content = (await controller.get_browser_state(signal)).content
    await controller.input_text(index_of(content, "name=last_name"), "Lovelace", signal)
    content = (await controller.get_browser_state(signal)).content
    assert "value=Lovelace" in content  # the model sees what was typed…
    last = controller.element_info(index_of(content, "name=last_name"))
    assert last is not None and last.name == ""  # …but it is not the field's name
    names = {
        needle: getattr(controller.element_info(index_of(content, needle)), "name", None)
        for needle in ("placeholder=", "type=submit", "<a ", "<button")
    }
    assert names == {
        "placeholder=": "Search customers",
        "type=submit": "Delete account",
        "<a ": "Pricing",
        "<button": "Close",
    }
