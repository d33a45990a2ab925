"""Calling the person back when the run waits for them (a hand-off, a question, an Allow/Cancel): the panel comes
back from the taskbar, it is flagged urgent until looked at, a desktop notification goes out while the panel is not
the window in front, and (if chosen in Settings) a sound plays. A click on the notification brings the panel forward.

Notifications go to the desktop's notification service over D-Bus where there is one (app/ui/freedesktop_notifications
.py), to the system's own through Qt's tray icon on Windows and macOS, and else to Qt's balloon, only where it can
point at a tray icon (never at a corner of the screen, over the panel). Each step is best effort: none is a hard
dependency, and none may fail the run.

What a notification says may quote the model or a page (a question, a hand-off, an Allow/Cancel): every back-end
gets it clipped (the title to one line, the body to a few lines), and the desktop's service, which may read the
body as markup, gets it escaped (app/ui/freedesktop_notifications.py); Windows', macOS' and Qt's own balloon show
plain text.
"""

from __future__ import annotations

import logging
import sys

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QSystemTrayIcon, QWidget

from app.assets import resource_path
from app.background import Background
from app.text.element_words import clip
from app.text.i18n import tr
from app.ui.freedesktop_notifications import FreedesktopNotifications, ServiceUnavailable

log = logging.getLogger(__name__)

TITLE_MAX = 60
# Windows shows at most 255 characters of a notification's text.
BODY_MAX = 250
# A hand-off's reason in a notification: short enough that the line after it (the app's own) is never cut.
NOTIFIED_REASON_MAX = 150


class Attention:
    """Owned by the panel ``window``."""

    def __init__(self, window: QWidget) -> None:
        self._window = window
        self._tray: QSystemTrayIcon | None = None
        self._background = Background("attention")
        self._service: FreedesktopNotifications | None = (
            FreedesktopNotifications(tr("Page Agent"), str(resource_path("icons/app.svg")), self.bring_back)
            if sys.platform.startswith("linux")
            else None
        )
        self._shown = 0  # the notification on show (its id at the service), 0 when none
        self._calls = 0  # a dismiss() between a call and the service's answer closes what that call showed

    def call(self, title: str, message: str, *, sound: bool, urgent: bool = False) -> None:
        """The run waits for the person: ``title`` and ``message`` say for what, in plain words. ``urgent``: nothing
        goes on until they act (a hand-off): the desktop's notification says so (it stays, over full screens)."""
        window = self._window
        if window.isMinimized():
            # Back on screen where the person left it, without taking the keyboard from what they are doing.
            window.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating, True)
            window.setWindowState(window.windowState() & ~Qt.WindowState.WindowMinimized)
            window.show()
            window.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating, False)
        QApplication.alert(window)  # urgent (the taskbar entry flashes) until activated; nothing if it is active
        if not window.isActiveWindow():
            self._calls += 1
            title, message = clip(title, TITLE_MAX), clip(message, BODY_MAX, lines=True)
            self._background.spawn(self._notify(self._calls, title, message, urgent))
        if sound:
            QApplication.beep()

    def dismiss(self) -> None:
        """The moment is over (answered, stopped, ended): its notification goes."""
        self._calls += 1
        if self._shown and self._service is not None:
            shown, self._shown = self._shown, 0
            self._background.spawn(self._service.close(shown))
        if self._tray is not None:
            self._tray.hide()

    async def shutdown(self) -> None:
        self.dismiss()
        self._background.cancel_all()
        if self._service is not None:
            await self._service.shutdown()

    def bring_back(self) -> None:
        """The person clicked the notification: the panel comes forward, with the keyboard."""
        window = self._window
        window.setWindowState(window.windowState() & ~Qt.WindowState.WindowMinimized)
        window.show()
        window.raise_()
        window.activateWindow()

    # --- where the notification goes ---------------------------------------------------------------------------

    async def _notify(self, call: int, title: str, message: str, urgent: bool) -> None:
        if self._service is not None:
            try:
                shown = await self._service.notify(
                    title, message, tr("Show Page Agent"), replaces=self._shown, urgent=urgent
                )
            except ServiceUnavailable as exc:
                log.info("no desktop notification service (%s); using the tray", exc)
            else:
                if call == self._calls:
                    self._shown = shown
                else:  # dismissed meanwhile
                    await self._service.close(shown)
                return
        if call == self._calls:
            self._tray_message(title, message)

    def _tray_message(self, title: str, message: str) -> None:
        if not (QSystemTrayIcon.isSystemTrayAvailable() and QSystemTrayIcon.supportsMessages()):
            return
        if self._tray is None:
            self._tray = QSystemTrayIcon(QApplication.windowIcon(), self._window)
            self._tray.messageClicked.connect(self.bring_back)
            self._tray.activated.connect(lambda _reason: self.bring_back())
        self._tray.show()
        # Windows and macOS show it as their own notification; elsewhere Qt draws a balloon at the tray icon, which
        # without a known place would land in a corner of the screen, over the panel: then the flag alone calls.
        if sys.platform.startswith("linux") and not self._tray.geometry().isValid():
            return
        self._tray.showMessage(title, message, QSystemTrayIcon.MessageIcon.Information)
