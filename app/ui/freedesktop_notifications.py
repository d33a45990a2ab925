"""The desktop's own notification service (org.freedesktop.Notifications on the session bus), spoken to over D-Bus.

Every Linux desktop has one (GNOME Shell, KDE Plasma, Xfce, dunst, mako...). Notify, CloseNotification and the
service's ActionInvoked signal are all the app needs: a notification that stays until the moment it announces is over,
and a click on it that brings the panel back. jeepney (pure Python, already here through keyring) speaks D-Bus on the
event loop; QtDBus cannot send the spec's unsigned replaces_id from Python.

The body may carry words from the model or a page, and a service that has the spec's "body-markup" capability reads
the body as markup (a link it offers to open, an image it fetches): there, &, < and > are sent escaped, as the spec
asks, so that the words show as they are. The summary is plain text to every service.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jeepney.io.asyncio import DBusRouter

log = logging.getLogger(__name__)

SERVICE = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"
_CONNECT_TIMEOUT = 3.0
_CALL_TIMEOUT = 3.0
_URGENCY_NORMAL = 1
_URGENCY_CRITICAL = 2  # the spec's: it stays until the person acts on it
# The action every service runs when the notification itself is clicked.
DEFAULT_ACTION = "default"


class ServiceUnavailable(Exception):
    """No session bus, or no notification service on it."""


class FreedesktopNotifications:
    """One connection to the session bus, opened at the first notification and kept; ``on_clicked()`` runs when the
    person clicks a notification of ours (or its button)."""

    def __init__(self, app_name: str, icon: str, on_clicked: Callable[[], None]) -> None:
        self._app_name = app_name
        self._icon = icon
        self._on_clicked = on_clicked
        self._router: DBusRouter | None = None
        self._router_context: Any = None
        self._listening: asyncio.Task[None] | None = None
        self._ours: set[int] = set()
        # A click can be read before the reply that says the notification is ours (both come on one connection, the
        # reply takes more turns of the loop): while a Notify is out, such a signal waits here for its id.
        self._notifying = 0
        self._early: dict[int, list[str]] = {}
        self._markup = True  # what the service said of "body-markup" when we connected

    async def notify(self, title: str, body: str, button: str, replaces: int = 0, *, urgent: bool = False) -> int:
        """Show (or replace) a notification that stays until closed; returns its id. ``body`` is plain text;
        ``urgent``: critical, for what waits on the person."""
        from jeepney import DBusAddress, new_method_call

        router = await self._connect()
        if self._markup:
            body = html.escape(body, quote=False)
        address = DBusAddress(PATH, bus_name=SERVICE, interface=SERVICE)
        urgency = _URGENCY_CRITICAL if urgent else _URGENCY_NORMAL
        hints = {"urgency": ("y", urgency), "desktop-entry": ("s", "page-agent-desktop")}
        message = new_method_call(
            address,
            "Notify",
            "susssasa{sv}i",
            (self._app_name, replaces, self._icon, title, body, [DEFAULT_ACTION, button], hints, 0),
        )
        self._notifying += 1
        try:
            reply = await self._call(router, message)
        finally:
            self._notifying -= 1
        notification = int(reply[0])
        self._ours.add(notification)
        early = self._early.pop(notification, [])
        if not self._notifying:
            self._early.clear()
        for member in early:
            self._signalled_ours(member, notification)
        return notification

    async def close(self, notification: int) -> None:
        from jeepney import DBusAddress, new_method_call

        self._ours.discard(notification)
        if self._router is None:
            return
        address = DBusAddress(PATH, bus_name=SERVICE, interface=SERVICE)
        with contextlib.suppress(ServiceUnavailable):
            await self._call(self._router, new_method_call(address, "CloseNotification", "u", (notification,)))

    async def shutdown(self) -> None:
        if self._listening is not None:
            self._listening.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listening
            self._listening = None
        if self._router_context is not None:
            with contextlib.suppress(Exception):
                await self._router_context.__aexit__(None, None, None)
            self._router_context = self._router = None

    # --- the bus -----------------------------------------------------------------------------------------------

    async def _connect(self) -> DBusRouter:
        if self._router is not None:
            return self._router
        try:
            from jeepney import MatchRule, message_bus
            from jeepney.io.asyncio import Proxy, open_dbus_router
        except ImportError as exc:  # jeepney comes with keyring on Linux only
            raise ServiceUnavailable("no D-Bus library") from exc
        context = open_dbus_router("SESSION")
        try:
            router = await asyncio.wait_for(context.__aenter__(), _CONNECT_TIMEOUT)
        except (OSError, KeyError, ValueError, EOFError, TimeoutError) as exc:
            # KeyError: DBUS_SESSION_BUS_ADDRESS is not set (no session bus at all).
            raise ServiceUnavailable(f"no session bus: {exc!r}") from exc
        self._router_context, self._router = context, router
        # Listening before the first notification goes out: a click on it is never missed.
        rule = MatchRule(type="signal", interface=SERVICE, path=PATH)
        signals = router.filter(rule, bufsize=16)
        self._listening = asyncio.ensure_future(self._listen(signals))
        try:
            await asyncio.wait_for(Proxy(message_bus, router).AddMatch(rule), _CALL_TIMEOUT)
        except Exception as exc:
            await self.shutdown()
            raise ServiceUnavailable(f"the session bus did not answer: {exc!r}") from exc
        self._markup = await self._reads_markup(router)
        return router

    async def _reads_markup(self, router: DBusRouter) -> bool:
        """Whether the service reads the body as markup; True when it does not say (escaped words are still words)."""
        from jeepney import DBusAddress, MessageType, new_method_call

        address = DBusAddress(PATH, bus_name=SERVICE, interface=SERVICE)
        try:
            reply = await asyncio.wait_for(
                router.send_and_get_reply(new_method_call(address, "GetCapabilities")), _CALL_TIMEOUT
            )
        except Exception as exc:  # a service that does not answer this may still show notifications
            log.info("the notification service did not say what it supports: %r", exc)
            return True
        if reply.header.message_type == MessageType.error or not reply.body:
            return True
        return "body-markup" in reply.body[0]

    async def _call(self, router: DBusRouter, message: Any) -> tuple[Any, ...]:
        from jeepney import MessageType

        try:
            reply = await asyncio.wait_for(router.send_and_get_reply(message), _CALL_TIMEOUT)
        except Exception as exc:  # a closed connection, a time-out, a router that stopped
            await self.shutdown()  # a broken connection is opened again next time
            raise ServiceUnavailable(f"the session bus did not answer: {exc!r}") from exc
        if reply.header.message_type == MessageType.error:
            raise ServiceUnavailable(f"the notification service refused: {reply.body!r}")
        return tuple(reply.body)

    async def _listen(self, signals: Any) -> None:
        try:
            with signals as queue:
                while True:
                    signal = await queue.get()
                    self._signalled(signal.header.fields, signal.body)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the bus went away: the next notification connects again
            log.info("stopped listening to the notification service: %r", exc)

    def _signalled(self, fields: dict[Any, Any], body: tuple[Any, ...]) -> None:
        from jeepney import HeaderFields

        member = str(fields.get(HeaderFields.member, ""))
        if not body:
            return
        if body[0] in self._ours:
            self._signalled_ours(member, body[0])
        elif self._notifying:
            self._early.setdefault(body[0], []).append(member)

    def _signalled_ours(self, member: str, notification: int) -> None:
        if member == "ActionInvoked":
            self._on_clicked()
        elif member == "NotificationClosed":
            self._ours.discard(notification)
