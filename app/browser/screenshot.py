"""What the model sees when it may see images: the viewport as a JPEG, each listed element boxed with its [index].

The boxes are drawn into the page for the moment of the capture only, inside a closed shadow root that the page's
scripts cannot read, and taken away at once, whatever happened. So are black boxes over everything that shows a
secret: a field for a password or a code whatever its type (a "show password" toggle makes it text), and any field
or piece of text whose words hold a value the vault knows (a typed secret, a learnt password, an API key), so that the
picture never shows what the text listing masks. The page is never handed a secret to look for: it lists what it
shows, and the vault decides here. Each frame draws the boxes of its own elements, so
they land where the elements are on screen. The capture goes through CDP, which scales it down as it captures:
``MAX_WIDTH`` keeps the image, and the tokens it costs, modest.
"""

from __future__ import annotations

import base64
import contextlib
from collections import defaultdict
from collections.abc import Callable, Iterable

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page

from app.browser.observer import ElementRef
from app.browser.playwright_errors import first_line
from app.core.abort import AbortSignal
from app.core.errors import ToolError
from app.core.page import Screenshot

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
_BLACKOUT_KEY = "__pageAgentBlackout"
# Fields and pieces of text on screen in this frame (open shadow roots included): [text, left, top, width, height,
# secret field]. At most _SHOWN_MAX of them.
_SHOWN_MAX = 5000
_SHOWN_JS = """(max) => {
  const out = [];
  const vw = innerWidth, vh = innerHeight;
  const seen = (r) => r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0 && r.top < vh && r.left < vw;
  const secretField = (el) => el.tagName === 'INPUT' && (el.type === 'password'
    || /(^|\\s)(current-password|new-password|one-time-code)(\\s|$)/i.test(el.getAttribute('autocomplete') || ''));
  const range = document.createRange();
  const walk = (root) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node && out.length < max; node = walker.nextNode()) {
      if (node.nodeType === Node.TEXT_NODE) {
        if (!node.data.trim()) continue;
        range.selectNodeContents(node);
        const r = range.getBoundingClientRect();
        if (seen(r)) out.push([node.data, r.left, r.top, r.width, r.height, false]);
        continue;
      }
      if (node.shadowRoot) walk(node.shadowRoot);
      if (node.tagName === 'INPUT' || node.tagName === 'TEXTAREA') {
        const r = node.getBoundingClientRect();
        if (seen(r) && (node.value || secretField(node))) {
          out.push([node.value, r.left, r.top, r.width, r.height, secretField(node)]);
        }
      }
    }
  };
  walk(document);
  return out;
}"""
# Black boxes at [[left, top, width, height], ...] in a closed shadow root, for the capture only.
_BLACKOUT_JS = """([boxes, key]) => {
  const host = document.createElement('div');
  host.style.cssText = 'all:initial;position:fixed;inset:0;pointer-events:none;z-index:2147483647';
  const root = host.attachShadow({mode: 'closed'});
  for (const [left, top, width, height] of boxes) {
    const box = document.createElement('div');
    box.style.cssText = `position:fixed;left:${left - 2}px;top:${top - 2}px;width:${width + 4}px;` +
      `height:${height + 4}px;background:#000`;
    root.append(box);
  }
  (document.body || document.documentElement).append(host);
  Object.defineProperty(window, key, {value: host, configurable: true});
}"""


async def capture(
    page: Page, refs: dict[int, ElementRef], holds_secret: Callable[[str], bool], signal: AbortSignal
) -> Screenshot:
    """The viewport of ``page`` with the boxes of ``refs`` (index -> element of the last look) drawn on it, and every
    field or text ``holds_secret`` says holds a secret (and every field for a password or a code) blacked out."""
    frames: dict[Frame, list[tuple[int, ElementRef]]] = defaultdict(list)
    for index, ref in refs.items():
        frames[ref.frame].append((index, ref))
    try:
        drawn: list[tuple[Frame, str]] = []
        try:
            for frame in page.frames:
                if await _black_out(frame, holds_secret, signal):
                    drawn.append((frame, _BLACKOUT_KEY))
            drawn += [(frame, _LABELS_KEY) for frame, pairs in frames.items() if await _draw(frame, pairs, signal)]
            return await signal.race(_jpeg(page))
        finally:
            await _remove(drawn)
    except PlaywrightError as exc:
        raise ToolError(f"Could not take a screenshot: {first_line(exc)}") from exc


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


async def _black_out(frame: Frame, holds_secret: Callable[[str], bool], signal: AbortSignal) -> bool:
    """Black boxes over what shows a secret in ``frame``; whether any was drawn. Fails closed: a frame whose secrets
    cannot be covered fails the capture, unless it went away meanwhile (then it shows nothing)."""
    if frame.is_detached():
        return False
    try:
        shown = await signal.race(frame.evaluate(_SHOWN_JS, _SHOWN_MAX))
        boxes = [box[1:5] for box in shown if box[5] or holds_secret(str(box[0]))]
        if not boxes:
            return False
        await signal.race(frame.evaluate(_BLACKOUT_JS, [boxes, _BLACKOUT_KEY]))
    except PlaywrightError:
        if frame.is_detached():
            return False
        raise
    return True


async def _remove(drawn: list[tuple[Frame, str]]) -> None:
    # Not abortable: the boxes must never stay on a page the person is looking at.
    for frame, key in drawn:
        with contextlib.suppress(PlaywrightError):
            await frame.evaluate(_REMOVE_JS, key)


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
