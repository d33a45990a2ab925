"""The whole app on a real desktop (Xvfb + openbox, dunst on a private session bus), as a person uses it: they start a
task in the panel and go back to typing in another program while the agent clicks, types and chooses on a page;
the keyboard never goes to Chromium and none of their letters reach the page. They minimize the panel; the hand-off
brings it back, the desktop's notification service gets "Page Agent: your turn", and clicking the notification brings
the panel forward."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.settings.model import Settings
from tests.fakes.llm_server import FakeLLMServer, done_reply, tool_reply
from tests.waiting import sync_until
from tests.x_desktop import (
    KEYBOARD,
    NotificationService,
    Person,
    XDesktop,
    notification_service,
    other_application,
    session_bus,
    x_desktop,
)

pytestmark = KEYBOARD

REASON = "The page wants a person to confirm the plan. Please check it, then continue."
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts" / "ui"


class App:
    """``python -m app`` on the test's desktop, with its own home folder; ended by SIGTERM (as a logout would)."""

    def __init__(self, desktop: XDesktop, bus: str, home: Path) -> None:
        env = {**desktop.env(), "PAGE_AGENT_HOME": str(home), "DBUS_SESSION_BUS_ADDRESS": bus}
        env["OPENAI_API_KEY"] = "sk-test"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "app"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )

    def end(self) -> str:
        """Quit and return what the app wrote on stderr."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            _, errors = self.process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, errors = self.process.communicate()
        return errors


@pytest.fixture
def app_home(tmp_path: Path, llm_server: FakeLLMServer, site: str) -> Path:
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    settings = Settings(
        base_url=llm_server.base_url, model="fake-model", start_url=f"{site}/focus.html", first_run_done=True
    )
    (home / "config" / "settings.json").write_text(json.dumps(settings.model_dump(mode="json")), encoding="utf-8")
    return home


@pytest.fixture
def desktop(tmp_path: Path) -> Iterator[tuple[XDesktop, str, NotificationService]]:
    with x_desktop() as screen, session_bus() as bus, notification_service(screen, bus, str(tmp_path)) as dunst:
        yield screen, bus, dunst


def test_the_agent_works_beside_the_person_and_a_hand_off_reaches_a_minimized_panel(
    desktop: tuple[XDesktop, str, NotificationService], app_home: Path, llm_server: FakeLLMServer
) -> None:
    screen, bus, dunst = desktop
    llm_server.add(
        tool_reply({"click_element_by_index": {"index": 1}}),
        tool_reply({"input_text": {"index": 2, "text": "Ada"}}),
        tool_reply({"select_dropdown_option": {"index": 4, "text": "Growth"}}),
        # Held back a moment: the person minimizes the panel meanwhile.
        tool_reply({"hand_off_to_user": {"reason": REASON}}, delay=2),
        done_reply("Saved the form."),
    )
    app = App(screen, bus, app_home)
    try:
        panel = sync_until(lambda: screen.windows("--name", "^Page Agent$"), message="the panel", alive=app.process)[0]
        sync_until(lambda: screen.windows("--class", "chromium"), message="Chromium", alive=app.process)
        with other_application(screen, "someone-elses-editor", "520x400+760+160") as (editor, _keys):
            screen.run("xdotool", "windowactivate", "--sync", str(panel))
            screen.run("xdotool", "type", "--delay", "5", "Fill in the form")
            screen.run("xdotool", "key", "ctrl+Return")
            llm_server.wait_received(1, alive=app.process)  # the first step
            screen.run("xdotool", "windowactivate", "--sync", str(editor))
            with Person(screen) as person:
                llm_server.wait_received(4, alive=app.process)  # the step that hands over
            assert person.active and set(person.active) == {editor}, "Chromium took the keyboard during the run"
            screen.run("xdotool", "windowminimize", "--sync", str(panel))
            sync_until(
                lambda: any("your turn" in line for line in dunst.received),
                message="the notification",
                alive=app.process,
            )
            # Back from the taskbar, and flagged until looked at; Chromium in front, as the hand-off asks.
            assert "_NET_WM_STATE_HIDDEN" not in screen.window_state(panel)
            # Asked again each time: Chromium's first window may give way to another as it starts.
            sync_until(
                lambda: screen.active_window() in screen.windows("--class", "chromium"),
                message="Chromium in front for the hand-off",
                alive=app.process,
            )
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            screen.screenshot(str(ARTIFACTS / "hand-off-minimized-panel.png"))
            dunst.call("org.dunstproject.cmd0", "NotificationAction", "u", 0)  # the person clicks it
            sync_until(lambda: screen.active_window() == panel, message="the panel in front", alive=app.process)
    finally:
        errors = app.end()
    assert app.process.returncode == 0, errors


def test_the_notice_of_a_crash_last_time_is_in_front_of_chromium(
    desktop: tuple[XDesktop, str, NotificationService], app_home: Path
) -> None:
    # The last run died hard: faulthandler left its tracebacks, which this start turns into a report and a notice.
    logs = app_home / "logs"
    logs.mkdir()
    (logs / "crash-faults.log").write_text("Fatal Python error: Segmentation fault\n", encoding="utf-8")
    screen, bus, _dunst = desktop
    app = App(screen, bus, app_home)
    try:

        def both() -> tuple[list[int], list[int]] | None:
            notice, chromium = screen.windows("--name", "^Page Agent Desktop"), screen.windows("--class", "chromium")
            return (notice, chromium) if notice and chromium else None

        notice, chromium = sync_until(both, message="the notice and Chromium", alive=app.process)
        stacking = screen.root_windows("_NET_CLIENT_LIST_STACKING")  # bottom first
        assert notice[0] in stacking and all(window in stacking for window in chromium)
        assert stacking.index(notice[0]) > max(stacking.index(window) for window in chromium), "behind Chromium"
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        screen.screenshot(str(ARTIFACTS / "crash-notice-last-session.png"))
    finally:
        errors = app.end()
    assert app.process.returncode == 0, errors
