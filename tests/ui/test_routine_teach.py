"""Show me once in the panel, and what the routine learned, on the real engine: pytest-qt offscreen, headless Chromium
driven by Playwright's real keyboard and mouse (trusted events, as a person's), the fake model server and the CRM
test site (its records are what the assertions count)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Page
from PySide6.QtWidgets import QApplication

from app.core.page import ElementIdentity
from app.routine.path import PathStep, RoutinePath
from app.routine.paths import PathChange
from app.routine.types import PathShown, RowStatus, TaughtStep, TeachStarted
from app.text import i18n
from app.ui.routine.panel import RoutinePanel
from app.ui.routine.teach_box import TeachBox
from tests.browser.helpers import bar_button
from tests.cli.routine_helpers import rows_file
from tests.fakes.crm_model import TEMPLATE, crm_model
from tests.fakes.crm_site import CrmSite, crm_site
from tests.fakes.llm_server import FakeLLMServer
from tests.runtime.test_routine_paths import customers
from tests.runtime.test_routine_teach import CUSTOMERS, SHORT, by_keyboard, rows_of, saved
from tests.ui.test_routine_panel import DEADLINE, finished, make_host, shot, statuses
from tests.waiting import until

PATH = [
    "Click the “New customer” link",
    "Type {name} into the Full name field",
    "Type {email} into the Email field",
    "Choose {plan} in the Plan list",
    "Type {start} into the Start date field",
    "Tick the Newsletter checkbox when {newsletter} says yes",
    "Click the Save button",
]


def numbered(lines: list[str]) -> list[str]:
    return [f"{i}. {line}" for i, line in enumerate(lines, 1)]


@pytest.fixture
async def panel(qapp: QApplication, tmp_path: Path, llm_server: FakeLLMServer) -> AsyncIterator[RoutinePanel]:
    panel = RoutinePanel(make_host(tmp_path, llm_server, [False], []))
    panel.resize(420, 820)
    panel.show()
    yield panel
    await panel.shutdown()
    panel.close()
    panel.deleteLater()


async def teach(panel: RoutinePanel, rows: Path, site: CrmSite, template: str = SHORT) -> None:
    """Show me once pressed on a routine that starts each row at the CRM's customer list."""
    assert await panel.open_file(rows)
    panel.setup.template.setPlainText(template)
    panel.setup.start_url.setText(site.url + "/customers")
    panel.setup.teach_button.click()


def page_of(panel: RoutinePanel) -> Page:
    opened = panel.session.opened
    assert opened is not None
    return opened._browsers.slots[0].session.active_page


async def showing(box: TeachBox, number: int) -> None:
    await until(lambda: box.isVisible() and box.number == number, DEADLINE, f"row {number} shown")


async def test_show_me_once_shows_each_step_as_it_is_recorded_then_the_path_and_the_other_rows_replay_it(
    panel: RoutinePanel, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    box = panel.run_view.teach
    with crm_site() as site:
        done = finished(panel)
        await teach(panel, rows_file(tmp_path, rows_of(CUSTOMERS)), site)
        await showing(box, 1)
        assert box.say.text() == (
            "Do row 1 (Ada Lovelace, ada@example.com, Pro, …) in the browser as you always do, then press Done."
        )
        assert box.done_button.isVisible() and box.cancel_button.isVisible() and not box.use_button.isVisible()
        assert panel.run_view.line.text() == "Row 1 is yours to show; the other rows then do what you did."
        assert panel.run_view.model.line(1).words == "You do it in its window"
        assert box.lines() == [] and box.steps_hint.text() == "Nothing recorded yet."
        await by_keyboard(page_of(panel), CUSTOMERS[0])
        typed = "2. Type “Ada Lovelace” into the Full name field"
        await until(lambda: typed in box.lines(), DEADLINE, "the typed name in the panel")
        assert box.lines()[0] == "1. Click the “New customer” link"
        assert not llm_server.requests
        shot(panel, "teach-recorded")
        box.done_button.click()
        await until(lambda: box.use_button.isVisible(), DEADLINE, "the path shown")
        assert box.lines() == numbered(PATH)
        assert box.steps_hint.text() == "The path learned from row 1, with each row's own values in braces:"
        assert box.again_button.isVisible() and not box.done_button.isVisible()
        assert not llm_server.requests  # nothing asked of the model so far
        shot(panel, "teach-path")
        box.use_button.click()
        assert not box.isVisible()
        summary = await asyncio.wait_for(done, DEADLINE * 2)
        assert saved(site) == CUSTOMERS and site.posts == len(CUSTOMERS)  # each once, exactly its values
    model = panel.run_view.model
    assert statuses(panel) == ["done"] * 4
    assert [model.line(n).outcome.model_calls for n in range(1, 5)] == [0, 1, 1, 1]  # type: ignore[union-attr]
    assert summary.model_calls == 3 == len(llm_server.requests)
    assert panel.run_view.path_heading.text() == "What it learned from row 1"
    assert panel.run_view.path.text().splitlines() == numbered(PATH)
    assert (
        panel.run_view.changes.text() == "The path was learned from row 1, which you showed. Rows 2–4 use the new path."
    )
    assert not box.isVisible()


async def test_done_in_the_page_shows_the_path_show_me_again_gives_row_two_and_cancel_leaves_it_to_the_person(
    panel: RoutinePanel, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    box = panel.run_view.teach
    with crm_site() as site:
        done = finished(panel)
        await teach(panel, rows_file(tmp_path, rows_of(CUSTOMERS[:2])), site)
        await showing(box, 1)
        page = page_of(panel)
        await by_keyboard(page, CUSTOMERS[0])
        await page.mouse.click(
            *await bar_button(page, "Done")
        )  # the bar inside the page ends it as the panel's Done does
        await until(lambda: box.use_button.isVisible(), DEADLINE, "the path shown")
        assert box.lines() == numbered(PATH)
        box.again_button.click()  # Show me again: row 2 is the person's
        await showing(box, 2)
        assert box.say.text().startswith("Do row 2 (Bea Núñez, bea@example.com, Free, …)")
        assert box.lines() == [] and box.done_button.isVisible()
        box.cancel_button.click()
        summary = await asyncio.wait_for(done, DEADLINE)
        assert saved(site) == [CUSTOMERS[0]]
    assert summary.counts == {RowStatus.DONE: 1, RowStatus.NEEDS_PERSON: 1} and not llm_server.requests
    assert statuses(panel) == ["done", "needs_person"] and not box.isVisible()
    assert panel.run_view.model.line(2).words.startswith("You cancelled Show me once")


async def test_stop_while_the_person_shows_row_one_stops_it_and_the_box_goes(
    panel: RoutinePanel, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    box = panel.run_view.teach
    with crm_site() as site:
        done = finished(panel)
        await teach(panel, rows_file(tmp_path, rows_of(CUSTOMERS[:2])), site)
        await showing(box, 1)
        panel.stop()  # Esc in the panel, or Stop
        summary = await asyncio.wait_for(done, DEADLINE)
        assert not site.records
    assert summary.counts == {RowStatus.STOPPED: 1, RowStatus.SKIPPED: 1} and not llm_server.requests
    assert not box.isVisible() and statuses(panel)[0] == "stopped"


async def test_show_me_once_needs_the_page_each_row_starts_at(panel: RoutinePanel, tmp_path: Path) -> None:
    assert await panel.open_file(rows_file(tmp_path, rows_of(CUSTOMERS)))
    panel.setup.template.setPlainText(SHORT)
    assert await panel.run_routine(teach=True) is None
    assert panel.setup.problem.text() == (
        "Show me once opens the page each row starts at: fill in “Start each row at” first."
    )
    assert panel.pages.currentIndex() == 0 and not panel.running


async def test_show_me_once_without_a_model_says_the_other_rows_need_one(
    qapp: QApplication, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    panel = RoutinePanel(make_host(tmp_path, llm_server, [True], []))  # demo mode: no model set up
    try:
        await panel.use_demo()
        assert await panel.run_routine(teach=True) is None
        assert panel.setup.problem.text() == (
            "Show me once needs an AI model for the rows after the one you show (one short call each). Add a model "
            "and its API key in Settings."
        )
        assert panel.pages.currentIndex() == 0 and not panel.running and not llm_server.requests
    finally:
        await panel.shutdown()
        panel.deleteLater()


async def test_what_it_learned_shows_each_kind_of_row_with_the_rows_it_serves(
    panel: RoutinePanel, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    """Row 1 leaves the newsletter box unticked, row 2 ticks it: two paths, each with the rows that follow it."""
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, customers(["no", "yes", "no", "yes", "yes", "no"]))
    with crm_site() as site:
        assert await panel.open_file(rows)
        panel.setup.template.setPlainText(TEMPLATE)
        panel.setup.start_url.setText(site.new_url)
        done = finished(panel)
        assert await panel.run_routine() is not None
        summary = await asyncio.wait_for(done, DEADLINE * 2)
    assert summary.counts == {RowStatus.DONE: 6}
    view = panel.run_view
    assert view.path_heading.text() == "What it learned"
    steps = [
        "1. Type {name} into the Full name field",
        "2. Type {email} into the Email field",
        "3. Choose {plan} in the Plan list",
        "4. Type {start} into the Start date field",
    ]
    assert view.path.text().split("\n\n") == [
        "\n".join(
            ["Rows where {newsletter} is no: 1, 3 and 6 (learned from row 1)", *steps, "5. Click the Save button"]
        ),
        "\n".join(
            [
                "Rows where {newsletter} is yes: 2 and 4–5 (learned from row 2)",
                *steps,
                "5. Tick the Newsletter checkbox when {newsletter} says yes",
                "6. Click the Save button",
            ]
        ),
    ]
    assert view.changes.text().splitlines()[-1] == (
        "Row 2 was another kind of row ({newsletter} is yes): rows like it follow its steps. Rows 4–5 use the new path."
    )
    shot(panel, "learned-kinds")


async def test_a_site_that_changed_mid_routine_is_said_in_the_panel(
    panel: RoutinePanel, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, customers(["yes", "no"] * 3))
    with crm_site() as site:

        def redesign(_data: dict[str, str]) -> None:
            if len(site.records) >= 2:  # this POST saves the third
                site.form_version = 3

        site.on_post = redesign
        assert await panel.open_file(rows)
        panel.setup.template.setPlainText(TEMPLATE)
        panel.setup.start_url.setText(site.new_url)
        done = finished(panel)
        assert await panel.run_routine() is not None
        mended = "The site changed at row 4: “Full name” is now “Customer name”. Rows 5–6 use the new path."
        await until(lambda: mended in panel.run_view.changes.text().splitlines(), DEADLINE * 2, "the mend said")
        summary = await asyncio.wait_for(done, DEADLINE * 2)
    assert summary.counts == {RowStatus.DONE: 6}
    view = panel.run_view
    assert view.path_heading.text() == "What it learned from row 4"
    assert "Type {name} into the Customer name field" in view.path.text()


def test_a_path_taken_as_nobody_answered_takes_the_question_away(panel: RoutinePanel) -> None:
    """A shown path nobody answers in time (the hand-off timeout) is taken: the box no longer asks."""
    box = panel.run_view.teach
    panel.pages.setCurrentIndex(1)  # the run's page
    path = RoutinePath(learned_from=1, steps=[PathStep(action="click_element_by_index")])
    panel.session.pathShown.emit(PathShown(1, path))
    assert box.isVisible() and box.use_button.isVisible()
    panel.session.pathChanged.emit(PathChange("taught", 1, (2, 3), {}))
    assert not box.isVisible()
    assert (
        panel.run_view.changes.text() == "The path was learned from row 1, which you showed. Rows 2–3 use the new path."
    )


def test_show_me_once_speaks_chinese(qapp: QApplication) -> None:
    """The box in the panel's other language: what to do, each step, the path (a secret field is never shown)."""
    name = ElementIdentity(tag="input", name="Full name")
    password = ElementIdentity(tag="input", name="Password", input_type="password")
    path = RoutinePath(
        learned_from=1,
        steps=[PathStep(action="input_text", input={"text": "{name}"}, templated=["text"], target=name)],
    )
    i18n.set_language("zh")
    try:
        box = TeachBox()
        box.start(TeachStarted(1, "window 1", ("Ada Lovelace", "ada@example.com")))
        assert box.title.text() == "示范一次" and box.done_button.text() == "已完成"
        assert box.say.text() == "请像平常一样在浏览器中完成第 1 行（Ada Lovelace, ada@example.com），然后按“已完成”。"
        assert box.steps_hint.text() == "还没有记录到任何步骤。"
        box.add_step(TaughtStep(1, "input_text", {"text": "Ada Lovelace"}, name, False))
        box.add_step(TaughtStep(1, "input_text", {"text": ""}, password, True))
        assert box.lines() == [
            "1. 在“Full name”输入框中输入 “Ada Lovelace”",
            "2. 已在“Password”输入框中输入（不会记录：每一行都由你自己输入）",
        ]
        box.show_path(PathShown(1, path))
        assert box.lines() == ["1. 在“Full name”输入框中输入 {name}"]
        assert (box.use_button.text(), box.again_button.text()) == ("使用这条路径", "再示范一次")
    finally:
        i18n.set_language("en")
