"""Show me once's recorder in real headless Chromium: the person's own input (Playwright's mouse and keyboard, trusted
events as a person's) becomes the agent's own actions, each element named as the agent's look names it, in every
frame (one of another site that loads after the recording began, too); a password's value never leaves the page but
as the secret it is; Enter in a field is one key, not also the click it sets off; an address typed in Chromium's own
bar is a step; a scroll that took the next element out of the agent's reach is one too."""

from __future__ import annotations

import asyncio

from app.browser.controller import PlaywrightPageController
from app.browser.recorder import BarWords, PageRecorder, RecordedStep, ShowingEnd
from app.core.abort import AbortSignal
from app.core.page import ElementIdentity, ListedElement
from app.routine.teach import as_taken
from tests.browser.helpers import bar_button

WORDS = BarWords(say="Do row 1 in the browser as you always do, then press Done.", done="Done", cancel="Cancel")
SECRET = "correct horse 42"


class Recording:
    def __init__(self, controller: PlaywrightPageController) -> None:
        self.recorder = PageRecorder(controller)
        self.steps: list[RecordedStep] = []
        self._arrived: asyncio.Queue[RecordedStep] = asyncio.Queue()
        self.ended: asyncio.Queue[tuple[ShowingEnd, list[ListedElement]]] = asyncio.Queue()

    async def start(self) -> None:
        await self.recorder.start(
            WORDS, self._step, lambda how, listing: self.ended.put_nowait((how, listing)), _secret
        )

    def _step(self, step: RecordedStep) -> None:
        self.steps.append(step)
        self._arrived.put_nowait(step)

    async def next(self) -> RecordedStep:
        return await asyncio.wait_for(self._arrived.get(), 20)

    async def more(self, count: int) -> list[RecordedStep]:
        return [await self.next() for _ in range(count)]


def _secret(value: str) -> str | None:
    return "account_password" if value == SECRET else None


def target(step: RecordedStep) -> ElementIdentity | None:
    return step.listing[step.target - 1].identity() if step.target is not None else None


def said(step: RecordedStep) -> tuple[str, dict[str, object], str]:
    found = target(step)
    return step.action, step.input, (found.name or found.text) if found is not None else ""


async def test_the_persons_clicks_typing_choices_and_ticks_are_the_agents_actions(
    controller: PlaywrightPageController, site: str, signal: AbortSignal
) -> None:
    await controller.open(f"{site}/teach.html", signal)
    recording = Recording(controller)
    await recording.start()
    page = controller.session.active_page
    try:
        await page.get_by_label("Name").click()
        await page.keyboard.type("Ada Lovelace")
        await page.get_by_text("Remember me").click()  # the label: the box is ticked
        await page.get_by_label("Plan").focus()
        await page.keyboard.press("ArrowDown")
        await page.get_by_label("City").click()
        await page.keyboard.type("Lo")
        await page.get_by_text("London", exact=True).click()  # a suggestion chosen by a click
        steps = await recording.more(5)
        await page.mouse.wheel(0, 2600)  # the person scrolls down to Send, far below
        await page.get_by_role("button", name="Send").click()
        steps += await recording.more(2)
        assert await page.locator("#log").text_content() == "Sent Ada Lovelace"
    finally:
        await recording.recorder.stop()
    assert [said(step) for step in steps] == [
        ("input_text", {"text": "Ada Lovelace"}, "Name"),
        ("click_element_by_index", {}, "Remember me"),
        ("select_dropdown_option", {"text": "Pro"}, "Plan"),
        ("input_text", {"text": "Lo"}, "City"),
        ("click_element_by_index", {}, "London"),
        ("scroll", {"down": True, "num_pages": steps[5].input["num_pages"]}, ""),
        ("click_element_by_index", {}, "Send"),
    ]
    assert steps[5].input["num_pages"] >= 2
    assert target(steps[1]) == ElementIdentity(
        tag="input",
        name="Remember me",
        input_type="checkbox",
        attrs={"type": "checkbox", "name": "remember", "label": "Remember me"},
    )
    # What the person typed before choosing a suggestion is the cell the suggestion names.
    taken = as_taken(steps, [], {"name": "Ada Lovelace", "city": "London"})
    assert taken[3].input == {"text": "London", "index": steps[3].target}


async def test_a_frame_of_another_site_that_loads_later_is_recorded_too(
    controller: PlaywrightPageController, site: str, signal: AbortSignal
) -> None:
    await controller.open(f"{site}/teach.html", signal)
    recording = Recording(controller)
    await recording.start()
    page = controller.session.active_page
    try:
        await page.get_by_role("button", name="Add notes").click()
        notes = page.frame_locator("iframe").get_by_label("Notes")
        await notes.click()
        await page.keyboard.type("Call after 5")
        await page.keyboard.press("Tab")
        added, typed = await recording.more(2)
    finally:
        await recording.recorder.stop()
    assert said(added) == ("click_element_by_index", {}, "Add notes")
    assert said(typed) == ("input_text", {"text": "Call after 5"}, "Notes")
    assert typed.listing[0].frame_url.endswith("/teach_notes.html") and typed.listing[0].frame_url != page.url


async def test_a_password_is_only_ever_the_secret_it_is_or_left_to_the_person(
    controller: PlaywrightPageController, site: str, signal: AbortSignal
) -> None:
    await controller.open(f"{site}/teach.html", signal)
    recording = Recording(controller)
    await recording.start()
    page = controller.session.active_page
    field = page.get_by_label("Password")
    try:
        await field.click()
        await page.keyboard.type(SECRET)
        await page.keyboard.press("Tab")
        known = await recording.next()
        await field.fill("")
        await field.click()
        await page.keyboard.type("another one 77")
        await page.keyboard.press("Tab")
        unknown = await recording.next()
    finally:
        await recording.recorder.stop()
    assert said(known) == ("input_text", {"text": "<secret>account_password</secret>"}, "Password") and known.secret
    assert said(unknown) == ("input_text", {"text": ""}, "Password") and unknown.secret
    kept = "".join(step.model_dump_json() for step in recording.steps)
    assert SECRET not in kept and "another one 77" not in kept
    # A password no secret cell holds is the person's in every row that replays the path.
    assert [t.action for t in as_taken([known], [], {}) + as_taken([unknown], [], {})] == [
        "input_text",
        "hand_off_to_user",
    ]


async def test_enter_in_a_field_is_one_key_and_done_in_the_bar_ends_with_the_last_value(
    controller: PlaywrightPageController, site: str, signal: AbortSignal
) -> None:
    await controller.open(f"{site}/teach.html", signal)
    recording = Recording(controller)
    await recording.start()
    page = controller.session.active_page
    try:
        await page.get_by_label("Name").click()
        await page.keyboard.type("Bo")
        await page.keyboard.press("Enter")  # submits: its Send button gets the form's click, which is the key's
        typed, key = await recording.more(2)
        assert await page.locator("#log").text_content() == "Sent Bo"
        await page.get_by_label("City").click()
        await page.keyboard.type("Lima")
        await page.mouse.click(*await bar_button(page, "Done"))  # in the page: the value being typed is the last step
        how, listing = await asyncio.wait_for(recording.ended.get(), 20)
        last = await recording.next()
    finally:
        await recording.recorder.stop()
    assert [said(typed), said(key), said(last)] == [
        ("input_text", {"text": "Bo"}, "Name"),
        ("send_keys", {"keys": "Enter"}, ""),
        ("input_text", {"text": "Lima"}, "City"),
    ]
    assert how == "done" and any(element.name == "City" for element in listing)
    assert not [step for step in recording.steps if step.action == "click_element_by_index"]


async def test_an_address_typed_in_chromiums_own_bar_is_a_step_and_a_link_is_not(
    controller: PlaywrightPageController, site: str, signal: AbortSignal
) -> None:
    await controller.open(f"{site}/links.html", signal)
    recording = Recording(controller)
    await recording.start()
    page = controller.session.active_page
    try:
        await page.goto(f"{site}/teach.html")  # as Chromium's address bar opens a page ("typed")
        opened = await recording.next()
        await page.get_by_label("Name").click()
        await page.keyboard.type("Cy")
        await page.keyboard.press("Tab")
        typed = await recording.next()
    finally:
        await recording.recorder.stop()
    assert said(opened) == ("go_to_url", {"url": f"{site}/teach.html"}, "")
    assert typed.loads == 1  # the page it opened: the agent is told of it before its next step
    assert said(typed)[0] == "input_text"
