"""A computer without a browser, end to end: the panel starts, says no browser was found and offers the download;
the download (a fake driver, which puts in place a browser that runs this machine's Chromium) ends in Chromium
opening on its own, and a Run then works. Real headless Chromium."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from functools import partial
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

import app.browser.chromium as chromium
from app.browser.discovery import BrowserKind, Host
from app.browser.install import install_browser, install_env
from app.settings.paths import AppPaths
from app.ui.desktop import Desktop, LaunchChoices
from tests.browser.test_discovery import RealFilesUnder
from tests.fakes.memory_keyring import MemoryKeyring, memory_keyring  # noqa: F401  (fixture)
from tests.waiting import until

FAKE_DRIVER = Path(__file__).resolve().parents[1] / "fakes" / "browser_driver.py"


@pytest.fixture
def no_browser_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Discovery sees only the test's folder: this machine's own browsers are out of sight."""
    monkeypatch.setattr(
        chromium,
        "this_host",
        lambda data_dir: Host("linux", {}, str(tmp_path / "home"), str(data_dir), RealFilesUnder(tmp_path)),
    )
    return tmp_path


@pytest.fixture
async def desktop(qapp: QApplication, no_browser_here: Path) -> AsyncIterator[Desktop]:
    qapp.setQuitOnLastWindowClosed(False)
    root = no_browser_here
    made = Desktop(AppPaths(root / "config", root / "data", root / "logs"), LaunchChoices(demo=True, headless=True))
    yield made
    if made.window is not None:
        made.window.close()
    await made.shutdown()


async def test_no_browser_offers_the_download_and_the_browser_opens_after_it(
    desktop: Desktop, no_browser_here: Path, memory_keyring: MemoryKeyring
) -> None:
    window = await desktop.start()
    offer = window.browser_offer
    await until(offer.isVisible, timeout=30, message="the no-browser offer")
    assert "none was found on this computer" in offer.text.text()
    data = no_browser_here / "data"
    command = [sys.executable, str(FAKE_DRIVER), "ok"]
    offer.installer = partial(install_browser, command=command, env=install_env(data))
    offer.download_button.click()
    await until(
        lambda: desktop.runtime is not None and desktop.runtime.page_url().startswith("http://127.0.0.1"),
        timeout=60,
        message="Chromium open on the demo site",
    )
    assert not offer.isVisible()
    assert chromium.locate(None, data).kind is BrowserKind.DOWNLOADED
    notices = [window.model.index(row, 0).data() for row in range(window.model.rowCount())]
    assert any("The browser is ready" in str(text) for text in notices), notices


async def test_a_run_without_a_browser_says_why_and_offers_the_download_again(
    desktop: Desktop, memory_keyring: MemoryKeyring
) -> None:
    window = await desktop.start()
    offer = window.browser_offer
    await until(offer.isVisible, timeout=30, message="the no-browser offer")
    offer.hide()  # as if it had been put away: a Run brings it back
    run = window.run_task("Open the demo site")
    assert run is not None
    await run
    await until(offer.isVisible, timeout=10, message="the offer again")
    notices = [str(window.model.index(row, 0).data()) for row in range(window.model.rowCount())]
    assert any("No Chrome, Edge or Chromium was found" in text for text in notices), notices
