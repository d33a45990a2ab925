"""The panel's bar for a computer without a usable browser: what is missing, in plain words, and "Download a
browser", which fetches one into the app's data folder with a progress bar and can be cancelled.

Once the browser is there the bar hides itself and says so (``browserReady``); the panel then opens it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QProgressBar, QWidget

from app.background import Background
from app.browser.install import InstallOutcome, InstallResult, install_browser
from app.text.i18n import tr
from app.ui.panel_bars import _Bar

Installer = Callable[[Path, Callable[[int], None]], Coroutine[Any, Any, InstallResult]]

# What the download weighs today (Chrome for Testing for Playwright's driver), so nobody is surprised.
DOWNLOAD_MB = 170


class BrowserOfferBar(_Bar):
    settingsRequested = Signal()
    browserReady = Signal()

    def __init__(self, parent: QWidget | None = None, installer: Installer = install_browser) -> None:
        super().__init__(tr("No browser found"), parent)
        self.setAccessibleName(self.heading.text())
        self.installer = installer  # the bundled driver's install (tests give a fake driver)
        self._data_dir: Path | None = None
        self._download: asyncio.Task[InstallResult] | None = None
        self._background = Background("browser download")
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 100)
        self.progress.setAccessibleName(tr("Download progress"))
        self.progress.hide()
        layout = self.layout()
        assert layout is not None
        layout.addWidget(self.progress)
        self.settings_button = self._button(tr("Settings"), "ghost")
        self.cancel_button = self._button(tr("Cancel"), "ghost")
        self.download_button = self._button(tr("Download a browser"), "primary")
        self.settings_button.clicked.connect(self.settingsRequested)
        self.cancel_button.clicked.connect(self.cancel)
        self.download_button.clicked.connect(self.download)
        self.cancel_button.hide()

    def offer(self, data_dir: Path) -> None:
        """Say that no browser was found, and offer the download into ``data_dir``'s browsers folder."""
        self._data_dir = data_dir
        if self.downloading:
            return
        self.text.setText(
            tr(
                "Page Agent works in Google Chrome, Microsoft Edge or Chromium, and none was found on this "
                "computer. Install one of them, choose one in Settings, or let Page Agent download a browser "
                "of its own ({size}).",
                size=tr("about {mb} MB", mb=DOWNLOAD_MB),
            )
        )
        self.detail.hide()
        self._show_buttons(downloading=False)
        self.download_button.setText(tr("Download a browser"))
        self.show()
        self.download_button.setFocus()

    @property
    def downloading(self) -> bool:
        return self._download is not None and not self._download.done()

    def download(self) -> asyncio.Task[InstallResult] | None:
        if self.downloading or self._data_dir is None:
            return None
        size = tr("about {mb} MB", mb=DOWNLOAD_MB)
        self.text.setText(tr("Downloading a browser for Page Agent ({size})…", size=size))
        self.detail.hide()
        self.progress.setValue(0)
        self.progress.show()
        self._show_buttons(downloading=True)
        self.cancel_button.setFocus()
        self._download = self._background.spawn(self.installer(self._data_dir, self.progress.setValue))
        self._download.add_done_callback(self._finished)
        return self._download

    def cancel(self) -> None:
        if self._download is not None:
            self._download.cancel()

    def _finished(self, task: asyncio.Task[InstallResult]) -> None:
        self.progress.hide()
        result = InstallResult(InstallOutcome.CANCELLED) if task.cancelled() else task.result()
        if result.outcome is InstallOutcome.INSTALLED:
            self.hide()
            self.browserReady.emit()
            return
        self._show_buttons(downloading=False)
        if result.outcome is InstallOutcome.CANCELLED:
            self.text.setText(tr("The download was cancelled; nothing was kept. You can start it again."))
        else:
            self.text.setText(tr("The browser could not be downloaded: {reason}", reason=result.detail))
            self.download_button.setText(tr("Try again"))
        self.show()

    def _show_buttons(self, *, downloading: bool) -> None:
        self.cancel_button.setVisible(downloading)
        self.download_button.setVisible(not downloading)
        self.settings_button.setVisible(not downloading)
