"""The panel's Routine mode on the real engine: pytest-qt offscreen, headless Chromium, the fake model server and
the CRM test site (tests/fakes/crm_site.py), and the bundled demo routine offline."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QWidget

from app.demo.routine import DEMO_ROUTINE_TEMPLATE, DemoRoutineBundle, demo_rows
from app.history.store import RunStore
from app.routine.plan import plan_routine
from app.routine.types import PersonRequest, RoutineOptions, RoutineSummary, RowStatus
from app.settings.model import Settings
from app.settings.paths import AppPaths
from app.ui.routine.calls import RowCalls
from app.ui.routine.library import RoutineFolders
from app.ui.routine.panel import RoutinePanel
from app.ui.routine.session import RoutineHost
from app.ui.routine.words import WAITING
from tests.cli.routine_helpers import ROWS, rows_file
from tests.fakes.crm_model import TEMPLATE, crm_model
from tests.fakes.crm_site import CrmSite, crm_site
from tests.fakes.llm_server import FakeLLMServer, FakeResponse
from tests.ui.conftest import ARTIFACTS
from tests.ui_waiting import laid_out
from tests.waiting import until

DEADLINE = 120.0


@dataclasses.dataclass
class Host:
    panel: RoutinePanel
    opened_runs: list[str]
    demo: list[bool]


def make_host(tmp_path: Path, llm_server: FakeLLMServer, demo: list[bool], runs: list[str]) -> RoutineHost:
    settings = Settings(base_url=llm_server.base_url, model="fake-model")
    paths = AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs")

    async def release() -> None:
        return None

    return RoutineHost(
        settings=lambda: settings,
        paths=paths,
        api_key=lambda: "sk-dummy",
        demo=lambda: demo[0],
        release_browser=release,
        browser_back=lambda: None,
        window=lambda: None,
        open_run=runs.append,
        demo_routine=DemoRoutineBundle(),
        headless=True,
    )


@pytest.fixture
async def host(qapp: QApplication, tmp_path: Path, llm_server: FakeLLMServer) -> AsyncIterator[Host]:
    demo, runs = [False], []
    panel = RoutinePanel(make_host(tmp_path, llm_server, demo, runs))
    panel.resize(420, 820)
    panel.show()
    yield Host(panel, runs, demo)
    await panel.shutdown()
    panel.close()
    panel.deleteLater()


def finished(panel: RoutinePanel) -> asyncio.Future[RoutineSummary]:
    future: asyncio.Future[RoutineSummary] = asyncio.get_running_loop().create_future()
    panel.session.finished.connect(lambda summary: future.done() or future.set_result(summary))
    panel.session.failed.connect(lambda words: future.done() or future.set_exception(AssertionError(words)))
    return future


def statuses(panel: RoutinePanel) -> list[str]:
    return [line.status for line in panel.run_view.model.lines]


def shot(panel: RoutinePanel, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    panel.grab().save(str(ARTIFACTS / f"routine-{name}.png"))


async def set_up(panel: RoutinePanel, rows: Path, site: CrmSite, **options: Any) -> None:
    assert await panel.open_file(rows)
    panel.setup.template.setPlainText(TEMPLATE)
    panel.setup.start_url.setText(site.new_url)
    panel.setup.parallel.setValue(options.get("parallel", 1))


async def test_an_opened_file_shows_its_first_rows_and_its_columns_as_chips(host: Host, tmp_path: Path) -> None:
    panel = host.panel
    assert await panel.open_file(rows_file(tmp_path))
    setup = panel.setup
    assert setup.file_label.text() == "customers.csv — 4 rows, 5 columns"
    assert [setup.preview.horizontalHeaderItem(i).text() for i in range(5)] == [
        "name",
        "email",
        "plan",
        "start",
        "newsletter",
    ]
    assert setup.preview.rowCount() == 4 and setup.preview.item(0, 0).text() == "Ana Núñez, Jr."
    assert [chip.text() for chip in setup.chips.chips] == ["{name}", "{email}", "{plan}", "{start}", "{newsletter}"]
    setup.template.setPlainText("Add ")
    setup.template.moveCursor(setup.template.textCursor().MoveOperation.End)
    setup.chips.chips[1].click()
    assert setup.template.toPlainText() == "Add {email}"
    assert not setup.problem.isVisible()
    shot(panel, "file-opened")


async def test_a_bad_file_or_an_unknown_column_is_said_in_plain_words_before_anything_starts(
    host: Host, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    panel = host.panel
    empty = tmp_path / "empty.csv"
    empty.write_text("name,email\n", encoding="utf-8")
    assert not await panel.open_file(empty)
    assert panel.setup.problem.text() == (
        f'{empty} has a header ("name" and "email") but no rows below it: add the rows the routine should run.'
    )
    assert await panel.open_file(rows_file(tmp_path))
    panel.setup.template.setPlainText("Add {customer} to the CRM")
    assert await panel.run_routine() is None
    assert panel.setup.problem.text() == (
        'The task names "customer", which is not a column of the rows file. Columns found: "name", "email", '
        '"plan", "start" and "newsletter".'
    )
    assert panel.pages.currentIndex() == 0 and not panel.running and not llm_server.requests


async def test_pasted_rows_are_saved_as_a_file_and_previewed(host: Host, tmp_path: Path) -> None:
    panel = host.panel
    assert not await panel.paste_rows("")
    assert "copy the rows in your spreadsheet" in panel.setup.problem.text()
    assert await panel.paste_rows("name\temail\nAda\tada@x.test\nBo\tbo@x.test\n")
    assert panel.rows_file is not None and panel.rows_file.parent == tmp_path / "data" / "routines" / "pasted"
    assert panel.setup.preview.rowCount() == 2 and panel.setup.preview.item(1, 1).text() == "bo@x.test"


async def test_a_small_routine_runs_to_the_end_and_the_site_stores_its_records(
    host: Host, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    panel = host.panel
    with crm_site() as site:
        await set_up(panel, rows_file(tmp_path), site)
        done = finished(panel)
        assert await panel.run_routine() is not None, panel.setup.problem.text()
        assert panel.pages.currentIndex() == 1 and panel.running
        # The bar inside Chromium says the agent works there (once the routine's Chromium is up).
        opened = await until(lambda: panel.session.opened, DEADLINE, "the routine's windows")
        assert opened.says_working
        summary = await asyncio.wait_for(done, DEADLINE)
        assert not opened.says_working  # over: the windows stay, without saying so any more
    assert summary.counts == {RowStatus.DONE: 3, RowStatus.FAILED: 1}
    assert sorted(site.emails()) == ["ana@x.test", "bob@x.test", "chloe@x.test"]
    assert statuses(panel) == ["done", "done", "done", "failed"]
    view = panel.run_view
    assert view.model.line(4).words == "The CRM refused it: that email is already a customer."
    assert view.line.text().startswith("Finished in ") and "3 done · 1 failed" in view.line.text()
    assert view.retry_button.isEnabled() and view.retry_button.text() == "Retry failed rows (1)"
    assert view.path.text().startswith("1. Type {name} into the Full name field")
    view.rows.selectRow(0)
    assert view.timeline_button.isEnabled()
    view.timeline_button.click()
    assert host.opened_runs == [view.model.line(1).outcome.run]  # type: ignore[union-attr]
    copied = await panel.copy_results()
    assert copied.splitlines()[0].startswith("name,email,plan,start,newsletter,status,result")
    assert QApplication.clipboard().text() == copied
    shot(panel, "finished")

    # Retry failed rows: the same routine on the same file goes on; done rows are never done twice.
    with crm_site() as again:
        panel.last = (dataclasses.replace(panel.last[0], start_url=again.new_url), *panel.last[1:])  # type: ignore[index]
        done = finished(panel)
        lines: list[str] = []
        panel.session.progress.connect(lambda _progress: lines.append(view.line.text()))
        assert await panel.retry_failed() is not None
        assert view.model.line(1).words == "Earlier: Saved Ana Núñez, Jr.."
        assert (view.model.line(4).status, view.model.line(4).words) == (WAITING, "")  # not "Failed · Earlier: …"
        summary = await asyncio.wait_for(done, DEADLINE)
    assert summary.ran == 1 and summary.counts == {RowStatus.DONE: 4}  # the new site has no ana@x.test yet
    # This run's counts: the row to retry is not counted "failed" before it ran again.
    assert lines == ["0 of 1 rows · 3 kept from earlier runs", "1 of 1 rows · 1 done · 3 kept from earlier runs"]
    assert again.emails() == ["ana@x.test"] and statuses(panel) == ["done"] * 4


async def test_a_row_that_needs_the_person_waits_in_the_needs_you_queue_and_continuing_it_finishes_it(
    host: Host, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    panel = host.panel
    needed: asyncio.Queue[PersonRequest] = asyncio.Queue()
    panel.session.personNeeded.connect(needed.put_nowait)
    with crm_site() as site:
        site.captcha_emails.add("bob@x.test")
        await set_up(panel, rows_file(tmp_path, ROWS.replace("Dup,ana@x.test", "Dee,dee@x.test")), site, parallel=2)
        done = finished(panel)
        await panel.run_routine()
        request = await asyncio.wait_for(needed.get(), DEADLINE)
        bar = panel.run_view.needs_you
        assert bar.isVisible() and bar.heading.text() == "Needs you (1)"
        assert bar.which.text().startswith("Row 2 · window ")
        assert "The CRM asks a person to confirm this customer." in bar.text.text()
        assert bar.continue_button.isVisible() and not bar.allow_button.isVisible()
        assert panel.run_view.model.line(2).status == RowStatus.NEEDS_PERSON
        shot(panel, "needs-you")
        site.solve()  # the person passes the check in the row's window, then presses continue
        assert await asyncio.to_thread(site.passed.wait, 30)
        bar.continue_button.click()
        summary = await asyncio.wait_for(done, DEADLINE)
    assert request.number == 2 and summary.counts == {RowStatus.DONE: 4}
    assert not bar.isVisible() and statuses(panel) == ["done"] * 4
    assert sorted(site.emails()) == ["ana@x.test", "bob@x.test", "chloe@x.test", "dee@x.test"]


async def test_a_risky_save_allowed_for_every_row_in_the_panel_is_asked_once(
    host: Host, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    panel = host.panel
    needed: list[PersonRequest] = []
    panel.session.personNeeded.connect(needed.append)
    with crm_site() as site:
        site.save_label = "Save and pay $9"
        site.newsletter_label = "Send the newsletter"  # a check box: ticking it asks nothing
        await set_up(panel, rows_file(tmp_path, ROWS.replace("Dup,ana@x.test", "Dee,dee@x.test")), site)
        done = finished(panel)
        await panel.run_routine()
        bar = panel.run_view.needs_you
        await until(lambda: bar.isVisible(), DEADLINE, "the first row's question")
        assert bar.allow_button.isVisible() and bar.deny_button.isVisible() and bar.allow_all_button.isVisible()
        assert not bar.continue_button.isVisible() and "Save and pay $9" in bar.text.text()
        shot(panel, "allow-every-row")
        bar.allow_all_button.click()
        summary = await asyncio.wait_for(done, DEADLINE)
    assert summary.counts == {RowStatus.DONE: 4}
    assert [(r.number, r.kind) for r in needed] == [(1, "confirm")]


async def test_stop_ends_the_rows_in_flight_as_stopped_and_skips_the_rest(
    host: Host, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    scripted = crm_model()

    def slow(body: dict[str, Any]) -> FakeResponse:
        return dataclasses.replace(scripted(body), delay=30)

    llm_server.fallback = slow
    panel = host.panel
    with crm_site() as site:
        await set_up(panel, rows_file(tmp_path), site, parallel=2)
        done = finished(panel)
        await panel.run_routine()
        await until(lambda: len(llm_server.requests) >= 1, timeout=DEADLINE, message="the first model call")
        panel.stop()  # what Esc and the Stop button do
        assert panel.run_view.line.text() == "Stopping every row…"
        summary = await asyncio.wait_for(done, 30)
    assert RowStatus.STOPPED in summary.counts and set(summary.counts) <= {RowStatus.STOPPED, RowStatus.SKIPPED}
    assert statuses(panel)[0] == "stopped" and not site.records


async def test_a_row_that_may_have_reached_the_site_says_so_in_the_panels_words_and_runs_again_once_checked(
    host: Host, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    """Stopped while its Save was on its way, row 1 is interrupted: the panel never tells the person to use a
    command-line flag, and Check and run again… lists it with what happened; ticked, it runs again."""
    llm_server.fallback = crm_model()
    panel = host.panel
    loop = asyncio.get_running_loop()
    with crm_site() as site:
        site.on_post = lambda _data: loop.call_soon_threadsafe(panel.stop)  # Stop as the Save reaches the site
        await set_up(panel, rows_file(tmp_path, ROWS.split("Chlo", 1)[0]), site)
        done = finished(panel)
        await panel.run_routine()
        summary = await asyncio.wait_for(done, DEADLINE)
        site.on_post = None
        assert summary.stopped and summary.counts == {RowStatus.INTERRUPTED: 1, RowStatus.SKIPPED: 1}
        view = panel.run_view
        row = view.model.line(1)
        assert row.words == (
            "You stopped the routine after this row may have sent its data. It runs again only if you choose it "
            "under “Check and run again…”, once you have checked the site."
        )
        assert view.recheck_button.isVisible() and view.recheck_button.text() == "Check and run again… (1)"
        assert view.line.text().startswith("Stopped after ")
        shot(panel, "maybe-sent")

        with site._lock:  # what the person finds on the site: row 1 is not there
            site.records.clear()
        dialog = view.check_and_run_again()
        assert list(dialog.boxes) == [1] and not dialog.run_button.isEnabled()
        dialog.boxes[1].setChecked(True)
        done = finished(panel)
        dialog.run_button.click()
        summary = await asyncio.wait_for(done, DEADLINE)
    assert summary.counts == {RowStatus.DONE: 2} and sorted(site.emails()) == ["ana@x.test", "bob@x.test"]
    assert not view.recheck_button.isVisible()


async def test_a_saved_routine_is_listed_and_fills_the_editor_again(
    host: Host, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    panel = host.panel
    rows = rows_file(tmp_path)
    assert await panel.open_file(rows)
    setup = panel.setup
    setup.name.setText("New customers")
    setup.template.setPlainText(TEMPLATE)
    setup.start_url.setText("http://127.0.0.1:1/new")
    setup.parallel.setValue(3)
    setup.retry_failed.setChecked(True)
    setup.secret_columns.setText("email")
    setup.output_columns.setText("customer_id")
    setup.allowed_sites.setText("127.0.0.1, crm.example.com")
    saved = await panel.save_routine()
    assert [r.name for r in RoutineFolders(tmp_path / "data").load()] == ["New customers"]

    again = RoutinePanel(make_host(tmp_path, llm_server, [False], []))
    try:
        await until(lambda: again.setup.saved.count() == 2, message="the saved routines listed")
        assert again.setup.saved.itemText(1) == "New customers"
        again.setup.saved.activated.emit(1)
        await until(lambda: again.rows_file == rows, message="its rows file opened again")
        assert again.setup.routine(again.rows_file).model_dump(exclude={"saved_at"}) == saved.model_dump(
            exclude={"saved_at"}
        )
        assert again.setup.allowed_sites.text() == "127.0.0.1, crm.example.com"
    finally:
        await again.shutdown()
        again.deleteLater()


async def test_the_demo_routine_runs_offline_and_the_demo_crm_stores_five_customers(
    host: Host, llm_server: FakeLLMServer
) -> None:
    host.demo[0] = True
    panel = host.panel
    assert await panel.run_routine() is None and "only the demo routine can run" not in panel.setup.problem.text()
    await panel.use_demo()
    assert panel.rows_file == demo_rows() and panel.setup.template.toPlainText() == DEMO_ROUTINE_TEMPLATE
    panel.setup.template.setPlainText("Add {first_name}")
    assert await panel.run_routine() is None
    assert "only the demo routine can run" in panel.setup.problem.text()  # no model: nothing else runs
    await panel.use_demo()
    done = finished(panel)
    await panel.run_routine()
    summary = await asyncio.wait_for(done, DEADLINE)
    assert summary.counts == {RowStatus.DONE: 5} and not llm_server.requests
    assert summary.model_calls <= 9 + 1 + 4  # the scripted first row, then one confirming call per replayed row
    page = panel.session._open.runner._lanes[0].slot.session.active_page  # type: ignore[union-attr]
    stored = json.loads(await page.evaluate("localStorage.getItem('acme.customers')"))
    assert sorted(c["email"] for c in stored) == sorted(
        ["jane@example.com", "arjun@quillworks.in", "sofia.rossi@vela.it", "kenji@harbor.jp", "lea.martin@atelier.fr"]
    )
    assert panel.run_view.path.text().startswith("1. Type {first_name} into the First name field")
    assert panel.run_view.note.text() == (  # beside "14 model calls", under the banner's "No AI model is called"
        "In the demo, a script on this computer gives the model's answers: no AI model is called."
    )
    saved = await asyncio.to_thread(RunStore(panel.session.host.paths.runs_dir).summaries)
    assert len(saved) == 5 and all(run.demo for run in saved)  # History says so too: no model was called


class Calls:
    """What would call the person (app/ui/attention.py), recorded."""

    def __init__(self) -> None:
        self.made: list[tuple[str, str, bool, bool] | str] = []

    def call(self, title: str, message: str, *, sound: bool, urgent: bool = False) -> None:
        self.made.append((title, message, sound, urgent))

    def dismiss(self) -> None:
        self.made.append("dismissed")


async def test_a_rows_notification_goes_once_it_is_answered_and_the_next_one_waiting_is_told_instead(
    host: Host, tmp_path: Path
) -> None:
    panel = host.panel
    panel.run_view.begin(plan_routine(RoutineOptions(rows_file(tmp_path), TEMPLATE)), "New customers")
    calls = Calls()
    RowCalls(panel, calls, lambda: True)
    captcha = PersonRequest(1, 2, "hand_off", "Solve the captcha.", "window 1")
    pay = PersonRequest(2, 3, "confirm", 'The agent wants to click "Pay $9".', "window 2")
    panel.session.personNeeded.emit(captcha)
    panel.session.personNeeded.emit(pay)
    panel.session.personDone.emit(captcha)  # answered: its notification goes, row 3's is told (without a sound)
    panel.session.personDone.emit(pay)
    your_turn = "The agent says: “Solve the captcha.”\nPage Agent never asks for your passwords or PINs."
    assert calls.made == [
        ("Page Agent: row 2 needs you", your_turn, True, True),  # a hand-off is urgent
        ("Page Agent: row 3 needs you", 'The agent wants to click "Pay $9".', True, False),
        "dismissed",
        ("Page Agent: row 3 needs you", 'The agent wants to click "Pay $9".', False, False),
        "dismissed",
    ]


def in_sight(widget: QWidget) -> bool:
    """Shown, and not scrolled out of the panel's view."""
    return widget.isVisible() and not widget.visibleRegion().isEmpty()


async def test_a_setup_never_saved_is_there_again_after_quit(
    host: Host, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    panel = host.panel
    rows = rows_file(tmp_path)
    assert await panel.open_file(rows)
    panel.setup.template.setPlainText(TEMPLATE)
    panel.setup.start_url.setText("http://127.0.0.1:1/new")
    panel.setup.parallel.setValue(2)
    await panel.shutdown()  # the app quits: nothing was saved by name, nothing was asked

    again = RoutinePanel(make_host(tmp_path, llm_server, [False], []))
    try:
        await until(lambda: again.rows_file == rows, message="the last setup's rows opened again")
        setup = again.setup
        assert setup.template.toPlainText() == TEMPLATE and setup.start_url.text() == "http://127.0.0.1:1/new"
        assert setup.parallel.value() == 2 and setup.name.text() == ""  # no name was given: none is made up
        assert setup.preview.rowCount() == 4 and setup.note.text() == "As you left it last time."
        assert RoutineFolders(tmp_path / "data").load() == []  # kept as the last setup, not as a saved routine
    finally:
        await again.shutdown()
        again.deleteLater()


async def test_after_the_demo_routine_ones_own_file_starts_clean_and_the_demo_is_not_kept(
    host: Host, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    host.demo[0] = True
    panel = host.panel
    await panel.use_demo()
    assert panel.setup.name.text() == "Demo: add five customers" and panel.setup.start_url.text()
    await panel.shutdown()
    assert RoutineFolders(tmp_path / "data").last_setup() is None  # its site's address dies with the app

    rows = rows_file(tmp_path)
    assert await panel.open_file(rows)
    setup = panel.setup
    assert (setup.name.text(), setup.template.toPlainText(), setup.start_url.text()) == ("", "", "")
    assert setup.chips.chips[0].text() == "{name}"  # its own columns


async def test_saves_confirmation_run_and_what_is_wrong_stay_in_sight_on_a_short_screen(
    host: Host, tmp_path: Path
) -> None:
    panel = host.panel
    panel.resize(420, 520)
    assert await panel.open_file(rows_file(tmp_path))
    panel.setup.template.setPlainText("Add {customer} to the CRM")
    panel.setup.name.setText("New customers")
    await panel.save_routine()
    laid_out(panel)
    assert panel.setup.note.text() == "Saved as “New customers”."
    assert in_sight(panel.setup.note) and in_sight(panel.setup.run_button)
    assert await panel.run_routine() is None
    laid_out(panel)
    assert panel.setup.problem.text().startswith('The task names "customer"') and in_sight(panel.setup.problem)
    assert in_sight(panel.setup.run_button)
    shot(panel, "short-screen-problem")
