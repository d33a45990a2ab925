"""What a screenshot shows the model: every field or text that holds a secret is blacked out before the picture
leaves the machine (the README promises the model only ever sees the placeholder), and a field for a password or a
code is blacked out whatever its type. Real headless Chromium; the pixels of the JPEG are read back."""

from __future__ import annotations

from pydantic import SecretStr
from PySide6.QtGui import QColor, QImage

from app.browser.controller import PlaywrightPageController
from app.core.abort import AbortSignal
from app.core.safety.guardrails import Guardrails
from app.core.safety.secrets import Secret, SecretVault
from tests.security.conftest import HostileSite

TOKEN = "tok-Q7vX2mP9sLr4Kd8W"


def _darkest_share(image: QImage, box: tuple[float, float, float, float], scale: float) -> float:
    """The share of pixels inside ``box`` (CSS px: left, top, width, height) that are black."""
    left, top, width, height = (round(v * scale) for v in box)
    pixels = [
        QColor(image.pixel(x, y)).lightness()
        for x in range(left + 2, left + width - 2, 3)
        for y in range(top + 2, top + height - 2, 3)
    ]
    return sum(1 for p in pixels if p < 40) / len(pixels)


async def test_a_screenshot_blacks_out_every_secret_it_would_show(
    controller: PlaywrightPageController, signal: AbortSignal, hostile: HostileSite
) -> None:
    controller.guardrails = Guardrails(secrets=SecretVault([Secret("api_token", SecretStr(TOKEN))]))
    await controller.go_to_url(f"{hostile.page}/vision-secrets.html?t={TOKEN}", signal)
    await controller.get_browser_state(signal)
    page = controller.session.active_page
    boxes = {
        name: await page.evaluate(
            "id => { const range = document.createRange(); range.selectNodeContents(document.getElementById(id)); "
            "const r = id === 'echo' ? range.getBoundingClientRect() : document.getElementById(id)"
            ".getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; }",
            name,
        )
        for name in ("token", "echo", "code", "name")
    }

    shot = await controller.screenshot(signal)
    image = QImage()
    assert image.loadFromData(shot.jpeg, "JPEG")
    scale = shot.width / 1280
    # The token in a plain text field and in the page's text, and the one-time code, are black; the name is not.
    assert _darkest_share(image, boxes["token"], scale) > 0.9
    assert _darkest_share(image, boxes["echo"], scale) > 0.9
    assert _darkest_share(image, boxes["code"], scale) > 0.9
    assert _darkest_share(image, boxes["name"], scale) < 0.2
    assert await page.evaluate("window.__pageAgentBlackout === undefined")  # nothing stays behind
