"""The panel's "no browser found" bar: plain words, "Download a browser" with a progress bar, Cancel, and a failure
said plainly. The bundled driver's download is played by a fake driver (tests/fakes/browser_driver.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from app.browser.install import install_browser, install_env
from app.ui.browser_offer import BrowserOfferBar
from tests.ui.conftest import ARTIFACTS
from tests.waiting import until

FAKE_DRIVER = Path(__file__).resolve().parents[1] / "fakes" / "browser_driver.py"


def bar_with(mode: str, data_dir: Path) -> BrowserOfferBar:
    command = [sys.executable, str(FAKE_DRIVER), mode]
    bar = BrowserOfferBar(installer=partial(install_browser, command=command, env=install_env(data_dir)))
    bar.resize(400, 200)
    bar.offer(data_dir)
    return bar


@pytest.fixture
def bars(qapp: QApplication) -> Iterator[list[BrowserOfferBar]]:
    made: list[BrowserOfferBar] = []
    yield made
    for bar in made:
        bar.cancel()
        bar.deleteLater()


async def test_the_offer_says_what_is_missing_and_downloads_with_progress(
    bars: list[BrowserOfferBar], tmp_path: Path
) -> None:
    bar = bar_with("ok", tmp_path)
    bars.append(bar)
    ready: list[bool] = []
    bar.browserReady.connect(lambda: ready.append(True))
    assert bar.isVisible()
    assert "none was found on this computer" in bar.text.text()
    assert bar.download_button.isVisible() and bar.download_button.text() == "Download a browser"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    bar.grab().save(str(ARTIFACTS / "browser-offer.png"))
    values: list[int] = []
    bar.progress.valueChanged.connect(values.append)
    bar.download_button.click()
    assert bar.progress.isVisible() and bar.cancel_button.isVisible() and not bar.download_button.isVisible()
    await until(lambda: ready, timeout=20, message="the browser to be ready")
    assert values == list(range(0, 101, 10))
    assert not bar.isVisible()
    assert (tmp_path / "browsers" / "chromium-1255" / "INSTALLATION_COMPLETE").exists()


async def test_cancel_stops_the_download_and_offers_it_again(bars: list[BrowserOfferBar], tmp_path: Path) -> None:
    bar = bar_with("hang", tmp_path)
    bars.append(bar)
    bar.download_button.click()
    await until(lambda: bar.progress.value() == 20, timeout=20, message="20 %")
    bar.cancel_button.click()
    await until(lambda: bar.download_button.isVisible(), timeout=15, message="the offer again")
    assert "cancelled" in bar.text.text()
    assert not bar.progress.isVisible() and not bar.cancel_button.isVisible()
    assert list((tmp_path / "browsers").iterdir()) == []


async def test_a_failed_download_says_why_and_offers_to_try_again(bars: list[BrowserOfferBar], tmp_path: Path) -> None:
    bar = bar_with("fail", tmp_path)
    bars.append(bar)
    bar.download_button.click()
    await until(lambda: bar.download_button.isVisible(), timeout=20, message="the failure")
    assert bar.text.text() == "The browser could not be downloaded: Error: getaddrinfo ENOTFOUND cdn.invalid"
    assert bar.download_button.text() == "Try again"
    assert bar.settings_button.isVisible()
