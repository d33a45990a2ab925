"""The panel's mode switch: One task | Routine, built on demand, locked while a task runs; Esc and Ctrl+Enter go to
the mode on screen."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from app.ui.main_window import MainWindow
from app.ui.routine.panel import RoutinePanel
from app.ui.task_input import ComposerMode
from tests.fakes.llm_server import FakeLLMServer, tool_reply
from tests.ui.conftest import settle
from tests.ui.test_routine_panel import make_host
from tests.waiting import until


def offer(window: MainWindow, tmp_path: Path, llm_server: FakeLLMServer) -> list[RoutinePanel]:
    built: list[RoutinePanel] = []

    def factory() -> RoutinePanel:
        built.append(RoutinePanel(make_host(tmp_path, llm_server, [False], [])))
        return built[-1]

    window.modes.offer_routines(factory)
    return built


async def test_the_routine_page_is_built_when_first_chosen_and_the_pill_gives_it_room(
    window: MainWindow, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    built = offer(window, tmp_path, llm_server)
    assert window.modes.switch.isVisible() and not built
    window.modes.routine_button.click()
    assert len(built) == 1 and window.modes.routine_shown and not window.pill.isVisible()
    assert not window.composer.isVisible() and built[0].setup.isVisible()
    window.modes.task_button.click()
    window.modes.routine_button.click()
    assert len(built) == 1  # the same page again, with what was set up in it
    window.modes.task_button.click()
    assert window.pill.isVisible() and window.composer.isVisible()
    await built[0].shutdown()


async def test_ctrl_enter_and_esc_go_to_the_routine_in_routine_mode(
    window: MainWindow, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    built = offer(window, tmp_path, llm_server)
    window.composer.input.setPlainText("A single task that must not start")
    window.modes.routine_button.click()
    panel = built[0]
    panel.setup.template.setFocus()
    QTest.keyClick(panel.setup.template, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    await until(lambda: panel.setup.problem.isVisible(), message="the routine's Run answered")
    assert panel.setup.problem.text() == "Open a CSV or Excel file with the rows first, or paste them."
    assert not window.busy and not llm_server.requests
    QTest.keyClick(panel.setup.template, Qt.Key.Key_Escape)  # nothing runs: nothing to stop, nothing breaks
    assert not window.busy
    await panel.shutdown()


async def test_the_switch_waits_while_a_task_runs(
    window: MainWindow, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    offer(window, tmp_path, llm_server)
    llm_server.add(tool_reply({"scroll": {"down": True}}, delay=30))
    window.composer.input.setPlainText("Scroll for a while")
    window.composer.run.click()
    await until(lambda: llm_server.requests and window.composer.mode is ComposerMode.RUNNING)
    assert not window.modes.routine_button.isEnabled()
    window.stop()
    await settle(window)
    assert window.modes.routine_button.isEnabled()


def test_a_risky_moment_in_the_queue_asks_allow_or_deny_one_at_a_time(qapp: QApplication) -> None:
    from app.routine.types import PersonRequest
    from app.ui.routine.needs_you import NeedsYouBar

    bar = NeedsYouBar()
    shown: list[int] = []
    answers: list[tuple[int, bool]] = []
    bar.showRequested.connect(shown.append)
    bar.answered.connect(lambda request, allow: answers.append((request.id, allow)))
    risky = PersonRequest(1, 3, "confirm", "Click “Delete customer” (http://crm.test/c/3)", "window 2")
    captcha = PersonRequest(2, 5, "hand_off", "Solve the captcha.", "window 1")
    bar.add(risky)
    bar.add(captcha)
    assert bar.heading.text() == "Needs you (2)" and bar.which.text() == "Row 3 · window 2"
    assert bar.text.text() == "Allow this? Click “Delete customer” (http://crm.test/c/3)"
    assert not bar.allow_button.isHidden() and bar.continue_button.isHidden()
    assert shown == [3]  # the first one's window came forward; the second waits its turn
    bar.deny_button.click()
    assert answers == [(1, False)]
    bar.remove(risky)  # the runner settles it (person_done)
    assert bar.heading.text() == "Needs you (1)" and shown == [3, 5]
    assert not bar.continue_button.isHidden() and bar.allow_button.isHidden()
    bar.remove(captcha)
    assert bar.isHidden()


def test_a_page_written_hand_off_in_the_queue_is_the_agents_quoted_words(qapp: QApplication) -> None:
    from app.routine.types import PersonRequest
    from app.ui.routine.needs_you import NeedsYouBar
    from tests.text.test_hand_off_words import PRETENDER, QUOTED

    bar = NeedsYouBar()
    bar.add(PersonRequest(1, 4, "hand_off", PRETENDER, "window 1"))
    assert bar.heading.text() == "Needs you (1)" and bar.which.text() == "Row 4 · window 1"
    assert bar.text.text() == (
        f"The agent says: {QUOTED}\nPage Agent never asks for your passwords or PINs.\n"
        "Do it in its window, then press continue."
    )


def test_a_row_held_back_after_it_was_sent_is_told_in_the_apps_words_with_continue_and_give_up(
    qapp: QApplication,
) -> None:
    from app.routine.types import PersonRequest
    from app.ui.routine.needs_you import NeedsYouBar

    bar = NeedsYouBar()
    bar.add(PersonRequest(1, 4, "unclear", "Click the “New customer” link", "window 1"))
    assert bar.text.text() == (
        "This row was sent to the site, but the site's answer was unclear, and the agent's next step would have "
        "sent it again (Click the “New customer” link), so that step was not taken. Check the site in its window: if "
        "the row was saved, continue and say so in a note; if not, give the row up and enter it yourself."
    )
    assert not bar.continue_button.isHidden() and not bar.give_up_button.isHidden()
    assert bar.allow_button.isHidden() and bar.deny_button.isHidden()


async def test_a_spreadsheet_dropped_on_the_setup_opens_it(
    window: MainWindow, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDropEvent

    from tests.cli.routine_helpers import rows_file

    built = offer(window, tmp_path, llm_server)
    window.modes.routine_button.click()
    setup = built[0].setup
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(rows_file(tmp_path)))])
    drop = QDropEvent(
        QPointF(10, 10), Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    setup.dropEvent(drop)
    await until(lambda: built[0].rows_file is not None, message="the dropped file opened")
    assert setup.file_label.text() == "customers.csv — 4 rows, 5 columns"
    await built[0].shutdown()


def test_a_risky_moment_in_the_queue_is_asked_in_the_persons_language(qapp: QApplication) -> None:
    from app.core.safety.risky import ConfirmRequest
    from app.routine.browsers import window_name
    from app.routine.types import PersonRequest
    from app.text.i18n import set_language
    from app.ui.routine.needs_you import NeedsYouBar

    question = ConfirmRequest(
        kind="irreversible",
        message="The agent wants to click “Delete customer”.",
        url="http://crm.test/c/3",
        quote="Delete customer",
    )
    set_language("zh")
    try:
        bar = NeedsYouBar()
        bar.add(PersonRequest(1, 3, "confirm", f"{question.message} ({question.url})", window_name(2), question))
        assert bar.which.text() == "第 3 行 · 窗口 2"
        assert bar.text.text() == "允许吗？智能体想要点击“Delete customer”。（http://crm.test/c/3）"
    finally:
        set_language("en")


async def test_a_spreadsheet_dropped_on_the_task_box_or_a_field_opens_as_the_rows_and_pastes_nothing(
    window: MainWindow, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    from PySide6.QtCore import QMimeData, QPoint, QPointF, QUrl
    from PySide6.QtGui import QDragEnterEvent, QDropEvent

    from tests.cli.routine_helpers import rows_file

    built = offer(window, tmp_path, llm_server)
    window.modes.routine_button.click()
    panel = built[0]
    setup = panel.setup
    rows = rows_file(tmp_path)
    fields = ((setup.template.viewport(), setup.template.toPlainText), (setup.start_url, setup.start_url.text))
    for target, text in fields:
        panel.rows_file = None
        data = QMimeData()  # as a file manager drags a file: its address, and its path as text
        data.setUrls([QUrl.fromLocalFile(str(rows))])
        data.setText(str(rows))
        buttons, keys = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
        enter = QDragEnterEvent(QPoint(5, 5), Qt.DropAction.CopyAction, data, buttons, keys)
        QApplication.sendEvent(target, enter)
        assert enter.isAccepted()
        drop = QDropEvent(QPointF(5, 5), Qt.DropAction.CopyAction, data, buttons, keys)
        QApplication.sendEvent(target, drop)
        await until(lambda: panel.rows_file == rows, message="the dropped file opened")
        assert text() == ""  # its path was not pasted into the field
    assert setup.file_label.text() == "customers.csv — 4 rows, 5 columns"
    await panel.shutdown()
