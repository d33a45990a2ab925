"""The person is called back through the desktop's own notification service: dunst on a private D-Bus session bus
(on an Xvfb display) receives the notification, a click on it brings the panel back, and it goes when the moment is
over. Without any service the call still flags the panel, and fails nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QWidget

from app.ui.attention import Attention
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
