"""A small X11 client (libX11 through ctypes): what keeping Chromium from taking the focus needs, and nothing else.

It reads and writes the window-manager properties of other clients' windows (EWMH and ICCCM), sends the window
manager its requests, and waits for the window manager's answers on the event loop (the connection's file
descriptor is watched, never blocked on); a connection of its own hears of new windows and of the window manager's
changes (app/browser/x11_watch.py). X errors are ignored, never fatal: a window may close at any moment. Opened only
on an X display; ``X11.open()`` answers None anywhere else (Wayland, Windows, macOS, no libX11).
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import logging
import os
import sys
import time
from dataclasses import dataclass
from typing import Literal

log = logging.getLogger(__name__)

_XA_CARDINAL = 6
_XA_WINDOW = 33
_CREATE_NOTIFY = 16
_DESTROY_NOTIFY = 17
_PROPERTY_NOTIFY = 28
_CLIENT_MESSAGE = 33
_PROPERTY_CHANGE_MASK = 1 << 22
_SUBSTRUCTURE_NOTIFY_MASK = 1 << 19
_SUBSTRUCTURE_REDIRECT_MASK = 1 << 20
_INPUT_HINT = 1  # XWMHints.flags: the input field is set
# EWMH source indication: an application asking for itself, or a pager or taskbar acting for the user (window
# managers do not second-guess that one).
SOURCE_APPLICATION = 1
SOURCE_PAGER = 2
RESTACK_BELOW = 1


class _DisplayHead(ctypes.Structure):
    """The first fields of Xlib's Display (Xlib.h; Xlibint.h names private3 to 5 resource_base, resource_mask and
    resource_id), unchanged since X11R6."""

    _fields_ = [
        ("ext_data", ctypes.c_void_p),
        ("private1", ctypes.c_void_p),
        ("fd", ctypes.c_int),
        ("private2", ctypes.c_int),
        ("proto_major_version", ctypes.c_int),
        ("proto_minor_version", ctypes.c_int),
        ("vendor", ctypes.c_char_p),
        ("resource_base", ctypes.c_ulong),
        ("resource_mask", ctypes.c_ulong),
    ]


class _WMHints(ctypes.Structure):
    _fields_ = [
        ("flags", ctypes.c_long),
        ("input", ctypes.c_int),
        ("initial_state", ctypes.c_int),
        ("icon_pixmap", ctypes.c_ulong),
        ("icon_window", ctypes.c_ulong),
        ("icon_x", ctypes.c_int),
        ("icon_y", ctypes.c_int),
        ("icon_mask", ctypes.c_ulong),
        ("window_group", ctypes.c_ulong),
    ]


# What every X event starts with (XAnyEvent).
_EVENT_HEADER: list[tuple[str, type[ctypes.c_int] | type[ctypes.c_ulong] | type[ctypes.c_void_p]]] = [
    ("type", ctypes.c_int),
    ("serial", ctypes.c_ulong),
    ("send_event", ctypes.c_int),
    ("display", ctypes.c_void_p),
    ("window", ctypes.c_ulong),
]


class _ClientMessage(ctypes.Structure):
    _fields_ = [*_EVENT_HEADER, ("message_type", ctypes.c_ulong), ("format", ctypes.c_int), ("data", ctypes.c_long * 5)]


class _PropertyEvent(ctypes.Structure):
    _fields_ = [*_EVENT_HEADER, ("atom", ctypes.c_ulong), ("time", ctypes.c_ulong), ("state", ctypes.c_int)]


class _CreateWindowEvent(ctypes.Structure):
    _fields_ = [
        *_EVENT_HEADER[:4],
        ("parent", ctypes.c_ulong),
        ("window", ctypes.c_ulong),
        *[(name, ctypes.c_int) for name in ("x", "y", "width", "height", "border_width", "override_redirect")],
    ]


class _DestroyWindowEvent(ctypes.Structure):
    _fields_ = [*_EVENT_HEADER[:4], ("event", ctypes.c_ulong), ("window", ctypes.c_ulong)]


class _Event(ctypes.Union):
    _fields_ = [
        ("type", ctypes.c_int),
        ("xclient", _ClientMessage),
        ("xproperty", _PropertyEvent),
        ("xcreatewindow", _CreateWindowEvent),
        ("xdestroywindow", _DestroyWindowEvent),
        ("pad", ctypes.c_long * 24),
    ]


_ERROR_HANDLER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)


def _ignore(_display: int | None, _event: int | None) -> int:
    # Xlib's default handler ends the process; a window that closed between two calls is not worth that.
    return 0


_ignore_error = _ERROR_HANDLER(_ignore)  # held here for as long as Xlib may call it


def _load(keep_lock: bool) -> ctypes.CDLL | None:
    """libX11, its functions typed. ``keep_lock``: its calls keep Python's lock (a thread that must act within a
    millisecond of hearing news would otherwise wait for the lock again after each call); without it, they let other
    threads run while they wait for the X server."""
    if not sys.platform.startswith("linux") or not os.environ.get("DISPLAY"):
        return None
    name = ctypes.util.find_library("X11")
    if name is None:
        return None
    try:
        lib = ctypes.PyDLL(name) if keep_lock else ctypes.CDLL(name)
    except OSError:
        return None
    void, ulong, c_int, c_long = ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_long
    signatures: dict[str, tuple[object, list[object]]] = {
        "XOpenDisplay": (void, [ctypes.c_char_p]),
        "XCloseDisplay": (c_int, [void]),
        "XDefaultRootWindow": (ulong, [void]),
        "XConnectionNumber": (c_int, [void]),
        "XInternAtom": (ulong, [void, ctypes.c_char_p, c_int]),
        "XGetWindowProperty": (
            c_int,
            [
                void,
                ulong,
                ulong,
                c_long,
                c_long,
                c_int,
                ulong,
                ctypes.POINTER(ulong),
                ctypes.POINTER(c_int),
                ctypes.POINTER(ulong),
                ctypes.POINTER(ulong),
                ctypes.POINTER(ctypes.c_void_p),
            ],
        ),
        "XGetWMHints": (ctypes.POINTER(_WMHints), [void, ulong]),
        "XSetWMHints": (c_int, [void, ulong, ctypes.POINTER(_WMHints)]),
        "XDeleteProperty": (c_int, [void, ulong, ulong]),
        "XGetWMProtocols": (c_int, [void, ulong, ctypes.POINTER(ctypes.POINTER(ulong)), ctypes.POINTER(c_int)]),
        "XSetWMProtocols": (c_int, [void, ulong, ctypes.POINTER(ulong), c_int]),
        "XSendEvent": (c_int, [void, ulong, c_int, c_long, ctypes.POINTER(_Event)]),
        "XCreateSimpleWindow": (ulong, [void, ulong, c_int, c_int, *[ctypes.c_uint] * 3, ulong, ulong]),
        "XDestroyWindow": (c_int, [void, ulong]),
        "XSelectInput": (c_int, [void, ulong, c_long]),
        "XPending": (c_int, [void]),
        "XNextEvent": (c_int, [void, ctypes.POINTER(_Event)]),
        "XSync": (c_int, [void, c_int]),
        "XFlush": (c_int, [void]),
        "XFree": (c_int, [void]),
        "XSetErrorHandler": (void, [_ERROR_HANDLER]),
    }
    for function, (restype, argtypes) in signatures.items():
        getattr(lib, function).restype = restype
        getattr(lib, function).argtypes = argtypes
    return lib


@dataclass(frozen=True)
class XEvent:
    """What a watching connection hears: a top-level window ``created`` (not a menu's nor a tooltip's) or
    ``destroyed``, an ``activation`` asked of the window manager for ``window`` (``source``: ``SOURCE_APPLICATION``,
    ``SOURCE_PAGER``), or a ``property`` (``atom``) of ``window`` changed."""

    kind: Literal["created", "destroyed", "activation", "property"]
    window: int
    atom: int = 0
    source: int = 0


@dataclass(frozen=True)
class FocusHints:
    """What a window tells the window manager about taking the keyboard (ICCCM): kept to be put back as it was."""

    flags: int  # XWMHints.flags
    accepts_input: bool
    protocols: tuple[int, ...]
    has_hints: bool = True  # False: the window has no WM_HINTS at all (Chromium sets none)


class X11:
    """One connection to the X server, used on the event loop's thread only."""

    def __init__(self, lib: ctypes.CDLL, display: int) -> None:
        self._lib = lib
        self._display = display
        self.root: int = lib.XDefaultRootWindow(display)
        # The bits of a resource id the client that made it chooses; the others say which client it is.
        self._resource_mask: int = ctypes.cast(display, ctypes.POINTER(_DisplayHead)).contents.resource_mask
        self._atoms: dict[str, int] = {}
        # A window of our own, never mapped, that the window manager answers on (a round trip through it).
        self._probe: int = lib.XCreateSimpleWindow(display, self.root, -10, -10, 1, 1, 0, 0, 0)
        lib.XSelectInput(display, self._probe, _PROPERTY_CHANGE_MASK)
        lib.XSync(display, 0)

    @classmethod
    def open(cls, keep_lock: bool = False) -> X11 | None:
        lib = _load(keep_lock)
        if lib is None:
            return None
        lib.XSetErrorHandler(_ignore_error)
        display = lib.XOpenDisplay(None)
        if not display:
            return None
        return cls(lib, display)

    def close(self) -> None:
        if self._display:
            self._lib.XDestroyWindow(self._display, self._probe)
            self._lib.XCloseDisplay(self._display)
            self._display = 0

    # --- events, for a connection that watches (app/browser/x11_watch.py) -------------------------------------

    def watch_root(self) -> int:
        """From now on this connection receives the root window's property changes, its new and destroyed windows
        and the requests sent to the window manager; the descriptor to wait on for them."""
        self._lib.XSelectInput(self._display, self.root, _PROPERTY_CHANGE_MASK | _SUBSTRUCTURE_NOTIFY_MASK)
        self._lib.XSync(self._display, 0)
        return int(self._lib.XConnectionNumber(self._display))

    def watch_properties(self, window: int) -> None:
        self._lib.XSelectInput(self._display, window, _PROPERTY_CHANGE_MASK)

    def events(self) -> list[XEvent]:
        """The events received so far (without waiting), those ``watch_root`` asks for."""
        found: list[XEvent] = []
        activate = self.atom("_NET_ACTIVE_WINDOW")
        while self._display and self._lib.XPending(self._display):
            event = _Event()
            self._lib.XNextEvent(self._display, ctypes.byref(event))
            if event.type == _CREATE_NOTIFY and not event.xcreatewindow.override_redirect:
                found.append(XEvent("created", event.xcreatewindow.window))
            elif event.type == _DESTROY_NOTIFY:
                found.append(XEvent("destroyed", event.xdestroywindow.window))
            elif event.type == _CLIENT_MESSAGE and event.xclient.message_type == activate:
                found.append(XEvent("activation", event.xclient.window, source=event.xclient.data[0]))
            elif event.type == _PROPERTY_NOTIFY:
                found.append(XEvent("property", event.xproperty.window, atom=event.xproperty.atom))
        return found

    def atom(self, name: str) -> int:
        if name not in self._atoms:
            self._atoms[name] = self._lib.XInternAtom(self._display, name.encode(), 0)
        return self._atoms[name]

    # --- properties --------------------------------------------------------------------------------------------

    def _numbers(self, window: int, name: str, kind: int) -> list[int]:
        actual_type, actual_format = ctypes.c_ulong(), ctypes.c_int()
        count, after, data = ctypes.c_ulong(), ctypes.c_ulong(), ctypes.c_void_p()
        status = self._lib.XGetWindowProperty(
            self._display,
            window,
            self.atom(name),
            0,
            4096,
            0,
            kind,
            ctypes.byref(actual_type),
            ctypes.byref(actual_format),
            ctypes.byref(count),
            ctypes.byref(after),
            ctypes.byref(data),
        )
        if status != 0 or not data.value:
            return []
        try:
            if actual_format.value != 32:
                return []
            # Xlib hands format-32 data back as C longs, whatever their size.
            values = ctypes.cast(data, ctypes.POINTER(ctypes.c_ulong))
            return [values[i] for i in range(count.value)]
        finally:
            self._lib.XFree(data)

    def windows(self, name: str) -> list[int]:
        """A window list on the root window: ``_NET_CLIENT_LIST`` or ``_NET_CLIENT_LIST_STACKING`` (bottom first)."""
        return self._numbers(self.root, name, _XA_WINDOW)

    def active_window(self) -> int:
        """The window the window manager says has the keyboard (0: none, or no EWMH window manager)."""
        found = self._numbers(self.root, "_NET_ACTIVE_WINDOW", _XA_WINDOW)
        return found[0] if found else 0

    def client_of(self, window: int) -> int:
        """Which X connection made ``window`` (every window a program makes on one connection has the same)."""
        return window & ~self._resource_mask

    def pid(self, window: int) -> int:
        found = self._numbers(window, "_NET_WM_PID", _XA_CARDINAL)
        return found[0] if found else 0

    # --- taking the keyboard -----------------------------------------------------------------------------------

    def restore_focus(self, window: int, hints: FocusHints) -> None:
        """The window's hints as they were (what ``refuse_focus`` answered)."""
        self._set_hints(window, hints)
        if self.atom("WM_TAKE_FOCUS") in hints.protocols:  # taken out: back in
            self._set_protocols(window, hints.protocols)

    def refuse_focus(self, window: int) -> FocusHints:
        """ICCCM's "no input" model: the window manager gives the window neither the keyboard nor WM_TAKE_FOCUS.
        Answers the window's own WM_HINTS input field and WM_PROTOCOLS, to put back. The refusal is written first,
        one request after reading the hints it keeps: a window just created is mapped a few milliseconds later, and
        the window manager reads the hints as it maps it. Its protocols are written only to take WM_TAKE_FOCUS out
        (a window just created may not have said them yet)."""
        flags, accepts, has_hints = 0, True, False
        hints = self._lib.XGetWMHints(self._display, window)
        wanted = _WMHints()
        if hints:
            flags, accepts, has_hints = hints.contents.flags, bool(hints.contents.input), True
            wanted = hints.contents
        wanted.flags = flags | _INPUT_HINT
        wanted.input = 0
        self._lib.XSetWMHints(self._display, window, ctypes.byref(wanted))
        self._lib.XFlush(self._display)
        if hints:
            self._lib.XFree(hints)
        atoms = ctypes.POINTER(ctypes.c_ulong)()
        count = ctypes.c_int()
        protocols: tuple[int, ...] = ()
        if self._lib.XGetWMProtocols(self._display, window, ctypes.byref(atoms), ctypes.byref(count)):
            protocols = tuple(atoms[i] for i in range(count.value))
            self._lib.XFree(atoms)
        take_focus = self.atom("WM_TAKE_FOCUS")
        if take_focus in protocols:
            self._set_protocols(window, tuple(p for p in protocols if p != take_focus))
        # Without the input flag (or without WM_HINTS at all), ICCCM says the window accepts input.
        accepts = accepts or not flags & _INPUT_HINT
        return FocusHints(flags=flags, accepts_input=accepts, protocols=protocols, has_hints=has_hints)

    def _set_hints(self, window: int, hints: FocusHints) -> None:
        if hints.has_hints:
            current = self._lib.XGetWMHints(self._display, window)
            wanted = current.contents if current else _WMHints()
            wanted.flags = hints.flags
            wanted.input = int(hints.accepts_input)
            self._lib.XSetWMHints(self._display, window, ctypes.byref(wanted))
            if current:
                self._lib.XFree(current)
        else:
            self._lib.XDeleteProperty(self._display, window, self.atom("WM_HINTS"))

    def _set_protocols(self, window: int, protocols: tuple[int, ...]) -> None:
        atoms = (ctypes.c_ulong * len(protocols))(*protocols)
        self._lib.XSetWMProtocols(self._display, window, atoms, len(protocols))

    # --- asking the window manager -----------------------------------------------------------------------------

    def _ask(self, window: int, message: str, *data: int) -> None:
        event = _Event()
        event.xclient.type = _CLIENT_MESSAGE
        event.xclient.window = window
        event.xclient.message_type = self.atom(message)
        event.xclient.format = 32
        for i, value in enumerate(data[:5]):
            event.xclient.data[i] = value
        mask = _SUBSTRUCTURE_NOTIFY_MASK | _SUBSTRUCTURE_REDIRECT_MASK
        self._lib.XSendEvent(self._display, self.root, 0, mask, ctypes.byref(event))

    def activate(self, window: int) -> None:
        """Give ``window`` the keyboard, as a taskbar would."""
        self._ask(window, "_NET_ACTIVE_WINDOW", SOURCE_PAGER, 0, 0)

    def restack_below(self, window: int, sibling: int) -> None:
        self._ask(window, "_NET_RESTACK_WINDOW", SOURCE_PAGER, sibling, RESTACK_BELOW)

    def sync(self) -> None:
        self._lib.XSync(self._display, 0)

    async def window_manager_round_trip(self, deadline: float) -> bool:
        """Return once the window manager has handled every request sent to it before this call (it answers a
        _NET_REQUEST_FRAME_EXTENTS on our own window, and handles its requests in order); False after ``deadline``
        seconds without an answer (no window manager, or one without the request)."""
        answer = self.atom("_NET_FRAME_EXTENTS")
        self._ask(self._probe, "_NET_REQUEST_FRAME_EXTENTS")
        self._lib.XFlush(self._display)
        loop = asyncio.get_running_loop()
        until = time.monotonic() + deadline
        fd = self._lib.XConnectionNumber(self._display)
        while True:
            while self._lib.XPending(self._display):
                event = _Event()
                self._lib.XNextEvent(self._display, ctypes.byref(event))
                if (
                    event.type == _PROPERTY_NOTIFY
                    and event.xproperty.window == self._probe
                    and event.xproperty.atom == answer
                ):
                    return True
            left = until - time.monotonic()
            if left <= 0:
                return False
            readable: asyncio.Future[None] = loop.create_future()
            loop.add_reader(fd, _settle, readable)
            try:
                await asyncio.wait({readable}, timeout=left)
            finally:
                loop.remove_reader(fd)


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
