"""Calling the person back to the panel: window attention, a desktop notification where there is a tray, and an
optional sound. Each is best effort: none is a hard dependency, and none may fail the run."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QSystemTrayIcon, QWidget


class Attention:
    """Owned by the panel; the tray icon exists only while a notification may need it (and only with a tray)."""

    def __init__(self, window: QWidget) -> None:
        self._window = window
        self._tray: QSystemTrayIcon | None = None

    def call(self, title: str, message: str, *, sound: bool) -> None:
        QApplication.alert(self._window)  # the taskbar entry flashes until the panel is activated
        if QSystemTrayIcon.isSystemTrayAvailable() and QSystemTrayIcon.supportsMessages():
            if self._tray is None:
                self._tray = QSystemTrayIcon(QApplication.windowIcon(), self._window)
                self._tray.messageClicked.connect(self._bring_back)
            self._tray.show()
            self._tray.showMessage(title, message, QSystemTrayIcon.MessageIcon.Information)
        if sound:
            QApplication.beep()

    def dismiss(self) -> None:
        if self._tray is not None:
            self._tray.hide()

    def _bring_back(self) -> None:
        self._window.showNormal()
        self._window.raise_()
        self._window.activateWindow()
