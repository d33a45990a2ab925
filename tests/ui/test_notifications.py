"""The person is called back through the desktop's own notification service: dunst on a private D-Bus session bus
(on an Xvfb display) receives the notification, a click on it brings the panel back, and it goes when the moment is
over. Without any service the call still flags the panel, and fails nothing."""

from __future__ import annotations

import contextlib
import html
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QWidget

from app.ui.attention import BODY_MAX, TITLE_MAX, Attention
from app.ui.freedesktop_notifications import FreedesktopNotifications
from tests.waiting import until
from tests.x_desktop import NEEDS_X_DESKTOP, NotificationService, notification_service, session_bus, x_desktop


@pytest.fixture
def dunst(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[NotificationService]:
    with x_desktop() as desktop, session_bus() as bus, notification_service(desktop, bus, str(tmp_path)) as service:
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", bus)
        yield service


@NEEDS_X_DESKTOP
async def test_the_call_reaches_the_desktops_notification_service_and_a_click_brings_the_panel_back(
    qapp: QApplication, dunst: NotificationService
) -> None:
    panel = QWidget()  # never shown: not the window in front, so the person is called
    attention = Attention(panel)
    try:
        attention.call("Page Agent: your turn", "Solve the captcha on the sign-in page.", sound=False)
        await until(lambda: any("Solve the captcha" in line for line in dunst.received), message="the notification")
        assert any("Page Agent: your turn" in line for line in dunst.received)
        assert dunst.displayed() == 1
        dunst.call("org.dunstproject.cmd0", "NotificationAction", "u", 0)  # the person clicks it
        await until(panel.isVisible, message="the panel back")
        attention.dismiss()  # answered: the notification goes
        await until(lambda: dunst.displayed() == 0, message="the notification closed")
    finally:
        await attention.shutdown()
        panel.deleteLater()


async def test_without_a_notification_service_the_panel_is_still_flagged(
    qapp: QApplication, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    flags: list[QWidget] = []
    monkeypatch.setattr(QApplication, "alert", staticmethod(lambda widget, *_args: flags.append(widget)))
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", f"unix:path={tmp_path / 'no-bus-here'}")
    panel = QWidget()
    attention = Attention(panel)
    try:
        attention.call("Page Agent asks you", "Which plan?", sound=False)
        assert flags == [panel]
        await until(lambda: not attention._background, message="the attempt to notify to end")
    finally:
        await attention.shutdown()
        panel.deleteLater()


@contextlib.contextmanager
def eager_service(bus: str) -> Iterator[None]:
    """A notification service that says the notification was clicked before it answers the call that showed it:
    the order in which a busy app may read the two, which come on one connection."""
    from jeepney import DBusAddress, HeaderFields, MessageType, new_method_return, new_signal
    from jeepney.bus_messages import message_bus
    from jeepney.io.blocking import open_dbus_connection

    emitter = DBusAddress("/org/freedesktop/Notifications", interface="org.freedesktop.Notifications")
    done = threading.Event()
    with open_dbus_connection(bus=bus) as connection:
        connection.send_and_get_reply(message_bus.RequestName("org.freedesktop.Notifications"), timeout=10)

        def serve() -> None:
            while not done.is_set():
                try:
                    call = connection.receive(timeout=0.1)
                except TimeoutError:
                    continue
                fields = call.header.fields
                if call.header.message_type == MessageType.method_call and fields.get(HeaderFields.member) == "Notify":
                    connection.send(new_signal(emitter, "ActionInvoked", "us", (7, "default")))
                    connection.send(new_method_return(call, "u", (7,)))

        server = threading.Thread(target=serve, daemon=True)
        server.start()
        try:
            yield
        finally:
            done.set()
            server.join(10)


@NEEDS_X_DESKTOP
async def test_a_click_read_before_the_reply_that_made_the_notification_still_brings_the_panel_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clicked: list[bool] = []
    with session_bus() as bus, eager_service(bus):
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", bus)
        service = FreedesktopNotifications("Page Agent", "", lambda: clicked.append(True))
        try:
            assert await service.notify("Page Agent: your turn", "Solve the captcha.", "Show Page Agent") == 7
            await until(lambda: clicked, message="the click")  # once it was dropped: not known to be ours yet
        finally:
            await service.shutdown()


def printed_field(printed: str, name: str, following: str) -> str:
    """A field of dunst's -print output, as the service received it."""
    return printed.split(f"\t{name}: '", 1)[1].split(f"'\n\t{following}:", 1)[0]


@NEEDS_X_DESKTOP
async def test_a_pages_words_reach_the_service_escaped_and_clipped(
    qapp: QApplication, dunst: NotificationService
) -> None:
    hostile = (
        'Sign in <a href="http://evil.test/login">here</a> <img src="http://evil.test/pixel.png"> & <b>now</b> '
        + "and again " * 500
    )
    assert len(hostile) > 5000
    panel = QWidget()
    attention = Attention(panel)
    try:
        attention.call("Page Agent asks you " + "about this " * 30, hostile, sound=False)
        await until(lambda: any(line.startswith("\tformatted:") for line in dunst.received), message="the notification")
        await until(lambda: any(line.startswith("\tactions:") for line in dunst.received), message="all of it printed")
    finally:
        await attention.shutdown()
        panel.deleteLater()
    printed = "\n".join(dunst.received)
    body = printed_field(printed, "body", "icon")
    summary = printed_field(printed, "summary", "body")

    assert body.startswith('Sign in &lt;a href="http://evil.test/login"&gt;here&lt;/a&gt; &lt;img src=')
    assert "&amp; &lt;b&gt;now&lt;/b&gt; and again" in body and body.endswith(" and…")
    assert "<" not in body and ">" not in body
    assert len(html.unescape(body)) <= BODY_MAX
    assert summary.startswith("Page Agent asks you about this") and summary.endswith("…")
    assert len(summary) <= TITLE_MAX
    # Shown as the words they are: no link under other words, no image (dunst still lists a written address).
    formatted = printed_field(printed, "formatted", "fg")
    assert 'Sign in &lt;a href="http://evil.test/login"&gt;here&lt;/a&gt; &lt;img' in formatted
    assert "[image]" not in formatted
    urls = printed.split("\turls:", 1)[1].split("\tactions:", 1)[0]
    assert "[here]" not in urls and "[image]" not in urls


@NEEDS_X_DESKTOP
async def test_a_hand_off_is_notified_as_urgent_and_a_question_is_not(
    qapp: QApplication, dunst: NotificationService
) -> None:
    panel = QWidget()
    attention = Attention(panel)
    try:
        attention.call("Page Agent: your turn", "Solve the captcha.", sound=False, urgent=True)
        await until(lambda: any(line.startswith("\turgency:") for line in dunst.received), message="the hand-off")
        attention.dismiss()
        attention.call("Page Agent asks you", "Which plan?", sound=False)
        await until(lambda: sum(line.startswith("\turgency:") for line in dunst.received) == 2, message="the question")
    finally:
        await attention.shutdown()
        panel.deleteLater()
    urgencies = [line.strip() for line in dunst.received if line.startswith("\turgency:")]
    assert urgencies == ["urgency: CRITICAL", "urgency: NORMAL"], urgencies
