"""What the model sees when it may see images: the viewport as a JPEG, each listed element boxed with its [index].

The boxes are drawn into the page for the moment of the capture only, inside a closed shadow root that the page's
scripts cannot read, and taken away at once, whatever happened. Each frame draws the boxes of its own elements, so
they land where the elements are on screen. The capture goes through CDP, which scales it down as it captures:
``MAX_WIDTH`` keeps the image, and the tokens it costs, modest.
"""

from __future__ import annotations

import base64
import contextlib
from collections import defaultdict
from collections.abc import Iterable

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page

from app.browser.observer import ElementRef
from app.core.abort import AbortSignal
from app.core.page import Screenshot, ToolError

# Wide enough to read a form's labels; a 1280-pixel viewport becomes 1024x640 (about 800 tokens at high detail).
MAX_WIDTH = 1024
# JPEG quality: text stays readable, and a typical page is 60-120 KB.
QUALITY = 60
_LABELS_KEY = "__pageAgentLabels"

# Draws the boxes of [[index, ref], ...] (this frame's listed elements) in a closed shadow root; returns how many.
_DRAW_JS = """([nonce, pairs, key]) => {
  const state = window.__pageAgent;
  if (!state || state.nonce !== nonce) return 0;
  const host = document.createElement('div');
  host.style.cssText = 'all:initial;position:fixed;inset:0;pointer-events:none;z-index:2147483647';
  const root = host.attachShadow({mode: 'closed'});
  let drawn = 0;
  for (const [index, ref] of pairs) {
    const el = state.elements[ref];
    if (!el || !el.isConnected) continue;
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0 || r.bottom < 0 || r.right < 0 || r.top > innerHeight || r.left > innerWidth)
      continue;
    const hue = (index * 47) % 360;
    const box = document.createElement('div');
    box.style.cssText = `position:fixed;left:${r.left}px;top:${r.top}px;width:${r.width}px;height:${r.height}px;` +
      `outline:2px solid hsl(${hue} 90% 40%);box-sizing:border-box`;
    const tag = document.createElement('span');
    tag.textContent = String(index);
    tag.style.cssText = `position:absolute;left:-2px;top:${r.top >= 14 ? -14 : 0}px;padding:0 3px;` +
      `background:hsl(${hue} 90% 40%);color:#fff;font:bold 11px/13px sans-serif`;
    box.append(tag);
    root.append(box);
    drawn++;
  }
  (document.body || document.documentElement).append(host);
  Object.defineProperty(window, key, {value: host, configurable: true});
  return drawn;
}"""
_REMOVE_JS = """key => { const host = window[key]; if (host) { host.remove(); delete window[key]; } }"""


async def capture(page: Page, refs: dict[int, ElementRef], signal: AbortSignal) -> Screenshot:
    """The viewport of ``page`` with the boxes of ``refs`` (index -> element of the last look) drawn on it."""
    frames: dict[Frame, list[tuple[int, ElementRef]]] = defaultdict(list)
    for index, ref in refs.items():
        frames[ref.frame].append((index, ref))
    try:
        labelled = [frame for frame, pairs in frames.items() if await _draw(frame, pairs, signal)]
        try:
            return await signal.race(_jpeg(page))
        finally:
            await _remove(labelled)
    except PlaywrightError as exc:
        raise ToolError(f"Could not take a screenshot: {(exc.message or str(exc)).splitlines()[0]}") from exc


async def _draw(frame: Frame, pairs: Iterable[tuple[int, ElementRef]], signal: AbortSignal) -> bool:
    pairs = list(pairs)
    if frame.is_detached() or not pairs:
        return False
    nonce = pairs[0][1].nonce
    try:
        drawn = await signal.race(frame.evaluate(_DRAW_JS, [nonce, [[i, r.ref] for i, r in pairs], _LABELS_KEY]))
    except PlaywrightError:
        return False  # a frame that navigated away: its elements are not on screen any more
    return bool(drawn)


async def _remove(frames: list[Frame]) -> None:
    # Not abortable: the boxes must never stay on a page the person is looking at.
    for frame in frames:
        with contextlib.suppress(PlaywrightError):
            await frame.evaluate(_REMOVE_JS, _LABELS_KEY)


async def _jpeg(page: Page) -> Screenshot:
    # The clip is in document coordinates: the viewport starts where the page is scrolled to.
    x, y, width, height = await page.evaluate("[scrollX, scrollY, innerWidth, innerHeight]")
    scale = min(1.0, MAX_WIDTH / max(width, 1))
    cdp = await page.context.new_cdp_session(page)
    try:
        shot = await cdp.send(
            "Page.captureScreenshot",
            {
                "format": "jpeg",
                "quality": QUALITY,
                "captureBeyondViewport": False,
                "clip": {"x": x, "y": y, "width": width, "height": height, "scale": scale},
            },
        )
    finally:
        await cdp.detach()
    data = base64.b64decode(shot["data"])
    return Screenshot(jpeg=data, width=round(width * scale), height=round(height * scale))
