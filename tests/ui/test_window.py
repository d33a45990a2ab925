"""The window as a whole: keyboard use, accessible names, geometry, light/dark palette."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractButton, QApplication

from app.ui import style
from app.ui.main_window import MainWindow
from app.ui.placement.panel import place_beside_browser, restore_geometry, save_geometry, tile_with_browser
from app.ui.status_pill import PillState
from app.ui.task_input import ComposerMode
from tests.fakes.llm_server import FakeLLMServer, done_reply, tool_reply
from tests.ui.conftest import TestRuntime, lay_out, screenshot, settle
from tests.ui.test_hand_off import hand_off
from tests.waiting import until


async def test_keyboard_only_run(window: MainWindow, llm_server: FakeLLMServer, qapp: QApplication) -> None:
    llm_server.add(done_reply("Done by keyboard."))
    window.activateWindow()
    await until(lambda: qapp.focusWidget() is window.composer.input, message="focus in the task box")
    QTest.keyClicks(window.composer.input, "Open the pricing page")
    QTest.keyClick(window.composer.input, Qt.Key.Key_Return)  # Enter alone is a new line
    assert window.composer.mode is ComposerMode.NEW
    QTest.keyClick(window.composer.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert window.composer.mode is ComposerMode.STARTING
    await settle(window)
    assert window.pill.state is PillState.SUCCESS
    assert qapp.focusWidget() is window.composer.input  # back to the input for the follow-up
    assert window.model.item(0).text == "Open the pricing page"


async def test_focus_moves_to_stop_while_running(
    window: MainWindow, llm_server: FakeLLMServer, qapp: QApplication
) -> None:
    llm_server.add(tool_reply({"scroll": {"down": True}}, delay=30))
    window.activateWindow()
    window.composer.input.setPlainText("Scroll")
    window.composer.run.click()
    await until(lambda: window.composer.mode is ComposerMode.RUNNING)
    assert qapp.focusWidget() is window.composer.stop
    window.stop()
    await settle(window, timeout=5)


def test_every_control_has_an_accessible_name(window: MainWindow) -> None:
    buttons = window.findChildren(QAbstractButton)
    assert buttons
    assert all(button.accessibleName() for button in buttons), [b.text() for b in buttons if not b.accessibleName()]
    for widget in (window.pill, window.timeline, window.composer.input, window.footer):
        assert widget.accessibleName()


def test_header_buttons_emit_requests(window: MainWindow) -> None:
    asked: list[str] = []
    window.settingsRequested.connect(lambda: asked.append("settings"))
    window.historyRequested.connect(lambda: asked.append("history"))
    window.settings_button.click()
    window.history_button.click()
    assert asked == ["settings", "history"]


def test_geometry_is_saved_and_restored(window: MainWindow) -> None:
    browser = place_beside_browser(window)
    screen = (window.screen() or QGuiApplication.primaryScreen()).availableGeometry()
    assert browser[0] == screen.x() + window.geometry().width() or browser[0] >= screen.x()
    window.setGeometry(QRect(100, 80, 430, 700))
    saved = save_geometry(window)
    window.setGeometry(QRect(0, 0, 500, 600))
    assert restore_geometry(window, saved)
    assert window.geometry().size() == QRect(100, 80, 430, 700).size()
    assert not restore_geometry(window, "")


def test_a_panel_restored_in_the_middle_snaps_to_an_edge_and_chromium_takes_the_rest(window: MainWindow) -> None:
    screen = (window.screen() or QGuiApplication.primaryScreen()).availableGeometry()
    window.setGeometry(QRect(screen.x() + screen.width() // 2 - 300, screen.y() + 40, 430, 600))
    x, _y, width, height = tile_with_browser(window)
    panel = window.frameGeometry()
    # Side by side, touching, both inside the screen: neither covers the other.
    assert panel.x() == screen.x() + screen.width() - panel.width() or panel.x() == screen.x()
    assert (x + width == panel.x()) or (panel.x() + panel.width() == x)
    assert x >= screen.x() and x + width <= screen.x() + screen.width() and height == screen.height()


async def test_dark_palette(
    window: MainWindow, llm_server: FakeLLMServer, qapp: QApplication, runtime: TestRuntime
) -> None:
    original = qapp.palette()
    dark = QPalette(original)
    for role, color in (
        (QPalette.ColorRole.Window, "#202124"),
        (QPalette.ColorRole.WindowText, "#e8eaed"),
        (QPalette.ColorRole.Base, "#17181a"),
        (QPalette.ColorRole.Text, "#e8eaed"),
    ):
        dark.setColor(role, QColor(color))
    qapp.setPalette(dark)
    try:
        await until(lambda: style.theme().dark, timeout=2, message="the dark theme")
        agent = await hand_off(window, runtime, llm_server)
        assert window.pill.state is PillState.HANDED_OFF
        screenshot(window, "dark_hand_off")
        await agent.stop()
        await settle(window)
    finally:
        qapp.setPalette(original)
        await until(lambda: not style.theme().dark, timeout=2, message="the light theme again")


async def test_panel_in_chinese(llm_server: FakeLLMServer, qapp: QApplication) -> None:
    from app.text.i18n import set_language
    from tests.ui.conftest import TestRuntime

    set_language("zh")
    try:
        runtime = TestRuntime(llm_server)
        window = MainWindow(runtime)
        window.resize(420, 820)
        window.show()
        llm_server.add(
            tool_reply({"input_text": {"index": 1, "text": "Ada"}}, memory="表单已打开", next_goal="填写客户姓名"),
            done_reply("已创建客户 Ada。"),
        )
        window.composer.input.setPlainText("创建一个名为 Ada 的客户")
        window.composer.run.click()
        await settle(window)
        assert window.pill.text() == "已完成"
        assert window.composer.input.placeholderText() == "接下来做什么？"
        screenshot(window, "zh_completed")
        await runtime.shutdown()
        window.close()
    finally:
        set_language("en")


def test_jump_to_latest_in_the_panel(window: MainWindow, qapp: QApplication) -> None:
    from tests.ui.test_timeline import long_history

    window.model.start_run("Fill in the 40-field onboarding form", follow_up=False)
    window.model.add_events(long_history(40))
    qapp.processEvents()
    window.timeline.verticalScrollBar().setValue(window.timeline.verticalScrollBar().maximum() // 2)
    qapp.processEvents()
    assert window.timeline.jump_button.isVisible()
    screenshot(window, "jump_to_latest")


async def test_at_the_minimum_size_the_buttons_never_cover_the_task(
    window: MainWindow, llm_server: FakeLLMServer
) -> None:
    from app.ui.task_input import ComposerMode as Mode

    long_task = " ".join(["Sign in, add the customer Jane Doe with every detail from the email, then export."] * 4)
    window.show_demo_mode(True, long_task)
    window.resize(window.minimumSize())
    lay_out(window)
    composer = window.composer

    def clear_of_the_text() -> None:
        text = composer.input.geometry()
        for button in (composer.run, composer.stop, composer.take_over, composer.new_task):
            if button.isVisible():
                assert not button.geometry().intersects(text), button.text()
                assert window.rect().contains(button.mapTo(window, button.rect().bottomRight())), button.text()

    assert composer.mode is Mode.NEW
    clear_of_the_text()
    llm_server.add(tool_reply({"wait": {"seconds": 1}}, delay=30), done_reply())
    composer.run.click()
    await until(lambda: composer.mode is Mode.RUNNING, message="running")
    lay_out(window)
    assert composer.stop.isVisible() and composer.take_over.isVisible()
    clear_of_the_text()
    screenshot(window, "minimum_size_running")
    window.stop()
    await settle(window)
