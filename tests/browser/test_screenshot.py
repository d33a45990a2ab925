"""The labelled screenshot: a bounded JPEG of the viewport with each listed element's box and number, drawn for the
capture only."""

from __future__ import annotations

from PySide6.QtGui import QColor, QImage

from app.browser.controller import PlaywrightPageController
from app.browser.screenshot import MAX_WIDTH
from app.core.abort import AbortSignal
from tests.browser.helpers import index_of


def _image(jpeg: bytes) -> QImage:
    image = QImage()
    assert image.loadFromData(jpeg, "JPEG")
    return image


def _saturation_near(image: QImage, x: int, y: int) -> int:
    """The most saturated pixel in a small square around (x, y): a label's colour, or 0 on a white page."""
    return max(QColor(image.pixel(x + dx, y + dy)).hsvSaturation() for dx in range(-3, 4) for dy in range(-3, 4))


async def test_the_viewport_is_captured_with_each_element_boxed_and_numbered(
    controller: PlaywrightPageController, signal: AbortSignal, site: str
) -> None:
    await controller.go_to_url(f"{site}/vision.html", signal)
    content = (await controller.get_browser_state(signal)).content
    index_of(content, "Export")
    shot = await controller.screenshot(signal)
    image = _image(shot.jpeg)
    assert (image.width(), image.height()) == (shot.width, shot.height)
    assert shot.width <= MAX_WIDTH and len(shot.jpeg) < 300_000
    scale = shot.width / 1280  # the test viewport is 1280 px wide
    # The box's outline runs along the button's left edge (x 200, y 300..380); the page itself is white there.
    assert _saturation_near(image, round(200 * scale), round(340 * scale)) > 100
    # Nothing stays behind in the page once captured.
    page = controller.session.active_page
    assert await page.evaluate("window.__pageAgentLabels === undefined")
    assert await page.evaluate("document.body.lastElementChild.tagName") != "DIV"


async def test_without_a_listing_the_page_is_captured_as_it_is(
    controller: PlaywrightPageController, signal: AbortSignal, site: str
) -> None:
    await controller.go_to_url(f"{site}/vision.html", signal)  # not looked at: nothing listed to label
    image = _image((await controller.screenshot(signal)).jpeg)
    scale = image.width() / 1280
    assert _saturation_near(image, round(200 * scale), round(340 * scale)) < 30
