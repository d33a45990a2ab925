"""Runs resources/js/observe.js in a page's frames and merges them into one list with global indices.

Each frame lists its own document; an <iframe> in view comes back as a slot that is filled by observing that child
frame (same- or cross-origin alike: Playwright acts on an element only through a handle of the frame that owns it).
A frame of another origin than the document around it is another website: its lines go under a marker naming it.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import itertools
import json
import logging
import weakref
from dataclasses import dataclass
from typing import Annotated, Literal, TypeVar
from urllib.parse import urlsplit

from playwright.async_api import BrowserContext, ElementHandle, Frame, Page
from playwright.async_api import Error as PlaywrightError
from pydantic import BaseModel, Field

from app.assets import read_resource
from app.browser.playwright_errors import first_line
from app.core.clean_text import is_valid_text, valid_data

log = logging.getLogger(__name__)

SCRIPT = "js/observe.js"
# The observer is compiled once per document and kept on its state; later looks only call it. The result crosses
# as one JSON string: Playwright's own value serialisation costs more than the observation itself on small pages.
_CALL = """([version, options]) => {
  const state = window.__pageAgent;
  return state && state.version === version ? JSON.stringify(state.observe(options)) : null;
}"""
# Returns the element a previous observation listed, or null once it is gone or another observation replaced it.
_RESOLVE = """([nonce, ref]) => {
  const state = window.__pageAgent;
  const el = state && state.nonce === nonce ? state.elements[ref] : null;
  return el && el.isConnected ? el : null;
}"""
# Schedules a rehearsal of the first look at a new document (observe.js, "dry"), once per document and a moment
# later, so that the settle's own watch is in place first: V8 compiles the observer's hot paths from what it runs,
# and the look the agent then waits for runs compiled code instead of starting cold.
_REHEARSE = """([version, options]) => {
  const state = window.__pageAgent;
  if (!state || state.version !== version || state.observed || state.rehearsal) return;
  state.rehearsal = setTimeout(() => { if (!state.observed) state.observe(options); }, 30);
}"""
_SLOT_OF = "el => el.__pageAgentSlot ?? null"
# The element's line as the observer would write it now (by the rules of the last look), or null without one.
_ITEM_OF = "el => { const state = window.__pageAgent; return state && state.itemOf ? state.itemOf(el) : null; }"
_NAMING_ATTRS = ("type", "label", "aria-label", "alt", "placeholder")
_BUTTON_INPUTS = ("submit", "button", "reset")
# What observe.js says of an icon that nothing names (icon=unnamed at="top left").
UNNAMED_ICON = "unnamed"
_FRAME_DEPTH_MAX = 5
# How JSON.stringify writes half of a surrogate pair (a page's own backslash before "ud" matches too, harmlessly).
_SURROGATE_ESCAPE = "\\ud"

M = TypeVar("M", bound=BaseModel)


class Region(BaseModel):
    top: float
    bottom: float
    left: float
    right: float


class ElementItem(BaseModel):
    kind: Literal["el"]
    depth: int
    ref: int
    tag: str
    attrs: list[tuple[str, str]]
    text: str
    # Its words as they identify it, when they are not its text: whatever the mouse is over (a row's pieces drawn
    # apart under it) or wherever it is scrolled (words clipped or painted away), without its icons.
    key: str | None = None
    # Its words are written on lines of their own inside it (a box that scrolls, a row too long for one line), not
    # on its line.
    lines: bool = False
    is_new: bool = Field(alias="isNew")

    @property
    def words(self) -> str:
        """The words that identify it (``key``, else its text)."""
        return self.text if self.key is None else self.key

    def identity(self) -> tuple[str, ...]:
        """What makes it the element the model chose: its tag and what names it (not a field's value or state, which
        typing and clicking change, nor what hovering or scrolling change: its looks, its place)."""
        attrs = dict(self.attrs)
        named = [f"{key}={attrs[key]}" for key in _NAMING_ATTRS if key in attrs]
        if self.tag == "input" and attrs.get("type") in _BUTTON_INPUTS:
            named.append(f"value={attrs.get('value', '')}")
        return (self.tag, self.words, *named)

    def reads(self) -> str:
        """The name a person reads on it."""
        attrs = dict(self.attrs)
        icon = attrs.get("icon", "")
        named = self.text or attrs.get("label") or attrs.get("aria-label") or attrs.get("placeholder")
        return named or (icon if icon != UNNAMED_ICON else "")


class TextItem(BaseModel):
    kind: Literal["text"]
    depth: int
    text: str


class FrameItem(BaseModel):
    kind: Literal["frame"]
    depth: int
    slot: str
    region: Region
    alpha: float = 1.0  # the opacity the page gives the frame, passed down to what it shows


Item = Annotated[ElementItem | TextItem | FrameItem, Field(discriminator="kind")]


class Viewport(BaseModel):
    width: int
    height: int


class Scroll(BaseModel):
    y: float
    height: float


class FrameSnapshot(BaseModel):
    title: str
    url: str
    origin: str
    viewport: Viewport
    scroll: Scroll
    items: list[Item]
    truncated: bool


@dataclass(frozen=True)
class ElementRef:
    """Where a listed element lives, enough to find exactly it again (and nothing else) for an action."""

    frame: Frame
    nonce: str
    ref: int
    item: ElementItem


@dataclass(frozen=True)
class FrameOrigin:
    """Marks where the content of a frame from another origin begins; its lines follow one level deeper."""

    origin: str
    depth: int = 0  # like an item's: added to the frame's depth in the page


@dataclass(frozen=True)
class Line:
    """One line of the merged listing: an element (with its global index), context text, or a frame's origin."""

    depth: int
    index: int | None
    element: ElementItem | None
    text: str = ""
    frame_origin: str = ""


@dataclass(frozen=True)
class Observation:
    title: str
    url: str
    viewport: Viewport
    scroll: Scroll
    lines: list[Line]
    refs: dict[int, ElementRef]
    truncated: bool


_nonces = itertools.count(1)


@functools.cache
def _installer() -> tuple[str, str]:
    """The script that compiles, keeps and runs the observer in a document, and the version it keeps it under."""
    source = read_resource(SCRIPT)
    # A page that outlives an app update (attached over CDP) must not keep answering with the old observer.
    version = hashlib.sha1(source.encode()).hexdigest()[:12]
    install = f"""([version, options]) => {{
  const observe = {source};
  const result = observe(options);
  Object.assign(window.__pageAgent, {{observe, version}});
  return JSON.stringify(result);
}}"""
    return install, version


def _preloader() -> str:
    """An init script that compiles the observer into every new document before it is first looked at, so that the
    first look neither sends the script across nor compiles it while the agent waits; it observes nothing itself."""
    source = read_resource(SCRIPT)
    _install, version = _installer()
    return f"""(() => {{
  let state = window.__pageAgent;
  if (!state) {{
    // Non-enumerable so that pages iterating window see nothing of us; observe.js adds the rest of its state.
    state = {{}};
    Object.defineProperty(window, '__pageAgent', {{value: state, configurable: true}});
  }}
  Object.assign(state, {{observe: {source}, version: {json.dumps(version)}}});
}})();"""


# The contexts whose documents carry the observer: the windows of a local routine share one, and each window added
# again made every later document run one more copy.
_preloaded: weakref.WeakSet[BrowserContext] = weakref.WeakSet()


async def preload(context: BrowserContext) -> None:
    """Have every document opened from now on carry the observer (documents already open install it at their first
    look); once per context, however many windows read its pages."""
    if context in _preloaded:
        return
    _preloaded.add(context)  # first: a second window's look while this one waits must not add it twice
    try:
        await context.add_init_script(_preloader())
    except PlaywrightError:
        _preloaded.discard(context)
        raise


async def _snapshot(frame: Frame, options: dict[str, object]) -> FrameSnapshot:
    install, version = _installer()
    text = await frame.evaluate(_CALL, [version, options])
    if text is None:
        text = await frame.evaluate(install, [version, options])
    return _from_page(FrameSnapshot, text)


def _from_page(model: type[M], text: str) -> M:
    """The page's JSON as ``model``. A lone surrogate in the page's text (pydantic refuses its escape as invalid
    JSON) becomes U+FFFD, so that one odd character on a page never ends the run."""
    if _SURROGATE_ESCAPE not in text and is_valid_text(text):
        return model.model_validate_json(text)
    return model.model_validate(valid_data(json.loads(text)))


async def observe(page: Page, margin: float, skip: str | None = None) -> Observation:
    """Everything interactive within the viewport plus ``margin`` viewport heights above and below.

    ``skip``: the tag name of the app's own stop bar, which is left out and covers nothing.
    """
    nonce = f"o{next(_nonces)}"
    main, pieces = await _observe_frame(page.main_frame, {"nonce": nonce, "margin": margin, "skip": skip}, 0)
    lines: list[Line] = []
    refs: dict[int, ElementRef] = {}
    for frame, depth_offset, item in pieces:
        depth = item.depth + depth_offset
        if isinstance(item, ElementItem):
            index = len(refs) + 1
            refs[index] = ElementRef(frame, nonce, item.ref, item)
            lines.append(Line(depth, index, item))
        elif isinstance(item, TextItem):
            lines.append(Line(depth, None, None, item.text))
        else:
            lines.append(Line(depth, None, None, frame_origin=item.origin))
    return Observation(main.title, page.url, main.viewport, main.scroll, lines, refs, main.truncated)


async def rehearse(page: Page, margin: float, skip: str | None = None) -> None:
    """Have a new document rehearse its first look while the page settles (nothing is read back; a document already
    looked at, or not yet carrying the observer, is left alone)."""
    _install, version = _installer()
    options = {"nonce": "", "margin": margin, "skip": skip, "dry": True}
    try:
        await page.main_frame.evaluate(_REHEARSE, [version, options])
    except PlaywrightError as exc:
        # The document is being replaced: the next one gets its own rehearsal.
        log.debug("no rehearsal: %s", first_line(exc))


Piece = tuple[Frame, int, ElementItem | TextItem | FrameOrigin]


async def _observe_frame(
    frame: Frame, options: dict[str, object], depth_offset: int
) -> tuple[FrameSnapshot, list[Piece]]:
    snapshot = await _snapshot(frame, options)
    slots = [item for item in snapshot.items if isinstance(item, FrameItem)]
    children: dict[str, list[Piece]] = {}
    if slots and depth_offset < _FRAME_DEPTH_MAX:
        by_slot = await _child_frames_by_slot(frame)
        wanted = [(slot, by_slot[slot.slot]) for slot in slots if slot.slot in by_slot]
        results = await asyncio.gather(
            *(_observe_child(child, slot, options, depth_offset, snapshot.origin) for slot, child in wanted)
        )
        children = {slot.slot: pieces for (slot, _child), pieces in zip(wanted, results, strict=True)}
    pieces: list[Piece] = []
    for item in snapshot.items:
        if isinstance(item, FrameItem):
            pieces.extend(children.get(item.slot, ()))
        else:
            pieces.append((frame, depth_offset, item))
    return snapshot, pieces


async def _observe_child(
    child: Frame, slot: FrameItem, options: dict[str, object], depth_offset: int, parent_origin: str
) -> list[Piece]:
    depth = depth_offset + slot.depth
    try:
        snapshot, pieces = await _observe_frame(
            child, {**options, "region": slot.region.model_dump(), "alpha": slot.alpha}, depth
        )
    except PlaywrightError as exc:
        # A frame that navigates or goes away while we look is simply left out of this observation.
        log.debug("frame %s skipped: %s", child.url, first_line(exc))
        return []
    if (snapshot.origin == parent_origin and snapshot.origin != "null") or not pieces:
        return pieces
    return [
        (child, depth, FrameOrigin(_origin_name(snapshot))),
        *((frame, piece_depth + 1, item) for frame, piece_depth, item in pieces),
    ]


def _origin_name(snapshot: FrameSnapshot) -> str:
    if snapshot.origin != "null":
        return snapshot.origin
    # A sandboxed or data: frame has an opaque origin: name where it came from.
    url = urlsplit(snapshot.url)
    where = f"{url.scheme}://{url.netloc}" if url.netloc else f"{url.scheme}:"
    return f"{where} (sandboxed)"


async def _child_frames_by_slot(frame: Frame) -> dict[str, Frame]:
    async def slot_of(child: Frame) -> str | None:
        try:
            element = await child.frame_element()
            slot: str | None = await element.evaluate(_SLOT_OF)
            return slot
        except PlaywrightError:
            return None

    children = frame.child_frames
    slots = await asyncio.gather(*(slot_of(child) for child in children))
    return {slot: child for slot, child in zip(slots, children, strict=True) if slot}


async def resolve(ref: ElementRef) -> ElementHandle | None:
    """The live element behind ``ref``, or None when it is gone or a newer observation replaced the listing."""
    handle = await ref.frame.evaluate_handle(_RESOLVE, [ref.nonce, ref.ref])
    element = handle.as_element()
    if element is None:
        await handle.dispose()
    return element


async def item_now(element: ElementHandle) -> ElementItem | None:
    """How ``element`` reads at this moment, by the same rules the observer listed it with; None without an observer."""
    text = await element.evaluate(_ITEM_OF)
    return None if text is None else _from_page(ElementItem, text)
