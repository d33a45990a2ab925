"""A PageController without a browser, for driving app/core: a scripted page that records what was done to it."""

from __future__ import annotations

import re

from app.assets import resource_path
from app.core.abort import AbortSignal
from app.core.page import BrowserState, ElementInfo, ListedElement, Screenshot, TabInfo, ToolError
from app.core.safety.risky import Act, ActGate
from app.core.tools.page_tools import ClickInput, GoToUrlInput, PageAction, SelectOptionInput
from app.llm.probe import TEST_IMAGE

DEFAULT_CONTENT = (
    "Current page: [Form](http://fake.test/form)\nViewport 1280x800; 0.0 pages above, 0.0 pages below\n"
    "[Start of page]\n[1]<input name=email />\n[2]<button>Save />\n[End of page]"
)


def listed(
    index: int, tag: str, text: str = "", *, name: str = "", input_type: str = "", attrs: dict[str, str] | None = None
) -> ListedElement:
    """An element of a fake page's listing. ``name``: what a person reads on it (its text unless given); an input's
    type is among its attributes too, as the observer lists it."""
    typed = {"type": input_type} if input_type else {}
    return ListedElement(
        index=index, tag=tag, name=name or text, input_type=input_type, text=text, attrs={**typed, **(attrs or {})}
    )


# DEFAULT_CONTENT's elements as data.
DEFAULT_ELEMENTS = (listed(1, "input", attrs={"name": "email"}), listed(2, "button", "Save"))


class FakePage:
    def __init__(
        self,
        content: str = DEFAULT_CONTENT,
        url: str = "http://fake.test/form",
        elements: tuple[ListedElement, ...] = DEFAULT_ELEMENTS,
    ) -> None:
        self.url = url
        self.title = "Form"
        self.content = content
        # The listing as data (BrowserState.elements), beside ``content``; tests that replay give both.
        self.listed = list(elements)
        self.actions: list[tuple[str, tuple[object, ...]]] = []
        self.pending_events: list[str] = []
        # What element_info answers; tests that need an element's name or type put it here.
        self.elements: dict[int, ElementInfo] = {}
        self.action_delay = 0.0
        self.fail_indices: set[int] = set()
        self.change_on_action = True
        self.screenshots = 0  # how often the agent asked for one
        self._counter = 0

    async def get_browser_state(self, signal: AbortSignal) -> BrowserState:
        signal.throw_if_aborted()
        return BrowserState(
            url=self.url,
            title=self.title,
            content=self.content,
            elements=self.listed,
            tabs=[TabInfo(tab_id=0, url=self.url, title=self.title, active=True)],
        )

    def element_info(self, index: int) -> ElementInfo | None:
        return self.elements.get(index)

    def drain_events(self) -> list[str]:
        events, self.pending_events = self.pending_events, []
        return events

    async def _act(self, name: str, signal: AbortSignal, *args: object) -> str:
        if self.action_delay:
            await signal.sleep(self.action_delay)
        signal.throw_if_aborted()
        index = args[0] if args and isinstance(args[0], int) else None
        if index is not None and index in self.fail_indices:
            raise ToolError(f"Element [{index}] is not on the page")
        self.actions.append((name, args))
        if self.change_on_action:
            self._counter += 1
            self.content = self.content.split("\n<!--")[0] + f"\n<!-- change {self._counter} -->"
        return f"{name} {' '.join(map(str, args))}".strip()

    async def perform(self, action: PageAction, signal: AbortSignal, gate: ActGate | None = None) -> str:
        """Records the action as (its name, its input's values): ClickInput(index=2) is ("click", (2,)). ``gate`` is
        asked first about a click on an element it knows (by its name) and the option a choice names."""
        if gate is not None:
            info = self.element_info(action.index) if isinstance(action, ClickInput) else None
            if isinstance(action, ClickInput) and info is not None:
                await gate(Act(how="click", index=action.index, names=[info.name], page=self.url))
            if isinstance(action, SelectOptionInput):
                await gate(Act(how="choose", index=action.index, names=[action.text], page=self.url))
        if isinstance(action, GoToUrlInput):
            self.url = action.url
        name = re.sub(r"(?<!^)(?=[A-Z])", "_", type(action).__name__.removesuffix("Input")).lower()
        return await self._act(name, signal, *action.model_dump().values())

    async def screenshot(self, signal: AbortSignal) -> Screenshot:
        signal.throw_if_aborted()
        self.screenshots += 1
        return Screenshot(jpeg=resource_path(TEST_IMAGE).read_bytes(), width=8, height=8)
