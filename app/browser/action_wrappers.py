"""What every action of a kind does around it: step the stop bar aside for the pointer, let the page settle before
the next look, adopt the tab the action opens. Decorators of the controller's methods (app/browser/controller.py)."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from app.core.abort import AbortSignal

if TYPE_CHECKING:
    from app.browser.controller import PlaywrightPageController

_ADOPT_GRACE = 1.0  # s after an action in which a tab the page opens is still that action's outcome

Action = TypeVar("Action", bound=Callable[..., Awaitable[str]])


def beside_the_stop_bar(action: Action) -> Action:
    """An action on an element lets the pointer through the stop bar for its duration (the element may lie under
    it; the observation does not count it as covered)."""

    @functools.wraps(action)
    async def acting(self: PlaywrightPageController, *args: Any, **kwargs: Any) -> str:
        async with self.stop_bar.step_aside(self.session):
            return await action(self, *args, **kwargs)

    return acting  # type: ignore[return-value]


def settles(action: Action) -> Action:
    """The page is read next only once what the action set off has shown (app/browser/settle.py)."""

    @functools.wraps(action)
    async def acting(self: PlaywrightPageController, *args: Any, **kwargs: Any) -> str:
        signal: AbortSignal = kwargs.get("signal") or next(a for a in args if isinstance(a, AbortSignal))
        self.settler.watch(self.session.active_page)
        result = await action(self, *args, **kwargs)
        await self.settler.settle(self.session.active_page, signal)
        return result

    return acting  # type: ignore[return-value]


def may_open_a_tab(action: Action) -> Action:
    """The first tab the page opens during the agent's action (or just after it) is where the agent goes on working;
    any other tab a page opens leaves the active tab alone."""

    @functools.wraps(action)
    async def acting(self: PlaywrightPageController, *args: Any, **kwargs: Any) -> str:
        with self.session.adopting_popup(_ADOPT_GRACE):
            return await action(self, *args, **kwargs)

    return acting  # type: ignore[return-value]
