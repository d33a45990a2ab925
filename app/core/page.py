"""What the agent needs from a browser. app/browser implements it with Playwright; tests may use their own."""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Protocol

from pydantic import BaseModel, Field

from app.core.abort import AbortSignal
from app.core.safety.risky import ActGate
from app.core.types import ActionTarget

# The attributes that name an element or say what it is, as opposed to its state (a field's value, checked,
# expanded, disabled, scrolled), which typing and clicking change.
_IDENTIFYING_ATTRS = frozenset(
    {"type", "name", "role", "label", "aria-label", "placeholder", "title", "alt", "href", "icon"}
)
# Input types whose value is their caption, not what was typed.
_CAPTION_INPUTS = frozenset({"submit", "button", "reset"})

if TYPE_CHECKING:  # a page action's input is a tool's, and the tools act on a PageController: types only
    from app.core.tools.page_tools import PageAction


class TabInfo(BaseModel):
    tab_id: int
    url: str
    title: str
    active: bool = False


class BrowserState(BaseModel):
    url: str = ""
    title: str = ""
    tabs: list[TabInfo] = Field(default_factory=list)
    # The serialized page: header lines, one line per interactive element, scroll hints (app/browser/serialize.py).
    content: str = ""
    # The elements ``content`` lists, as data: for code that reads the model's answers (a cassette, a scripted
    # model), never for the model, which reads the page as text only.
    elements: list[ListedElement] = Field(default_factory=list)
    # Only when the model is shown screenshots; never part of what is masked or saved.
    screenshot: Screenshot | None = Field(default=None, exclude=True)


class Screenshot(BaseModel):
    """The viewport as a JPEG, each listed element boxed with its [index]: for models that accept images."""

    jpeg: bytes
    width: int
    height: int

    def data_url(self) -> str:
        return "data:image/jpeg;base64," + base64.b64encode(self.jpeg).decode("ascii")


class ElementInfo(BaseModel):
    """What the model saw of one listed element: enough for a policy to judge an action before it happens."""

    tag: str
    # The name a person reads on it (its text, else its label or accessible name), clipped.
    name: str = ""
    input_type: str = ""  # <input type=...>, lower case; "" for other tags
    # A text field whose autocomplete says it holds a password or a code (current-password, new-password,
    # one-time-code): a "show password" toggle makes a password field a text field.
    secret_autocomplete: bool = False
    # The address of the document (frame) that owns the element: a cross-origin iframe has its own.
    frame_url: str = ""

    @property
    def secret_field(self) -> bool:
        """A field for a password or a code, whatever its type now."""
        return self.input_type == "password" or self.secret_autocomplete


class ListedElement(ElementInfo):
    """One element of the page's listing as data: the fields its line is written from, under the index the model
    reads for it."""

    index: int
    text: str = ""  # its visible words
    attrs: dict[str, str] = Field(default_factory=dict)

    def identity(self) -> ElementIdentity:
        # A button input's value is its caption; any other value is what was typed or chosen.
        attrs = {
            key: value
            for key, value in self.attrs.items()
            if key in _IDENTIFYING_ATTRS or (key == "value" and self.input_type in _CAPTION_INPUTS)
        }
        return ElementIdentity(tag=self.tag, name=self.name, input_type=self.input_type, text=self.text, attrs=attrs)


class ElementIdentity(ActionTarget):
    """Which element an answer acted on, whatever its index and however its line is written: its tag, its words and
    the attributes that name it, never its state (the element stays the one the model chose while it is typed into
    or ticked). As an ActionTarget it is also the element in plain words."""

    text: str = ""
    attrs: dict[str, str] = Field(default_factory=dict)


class ForeignKeys(BaseModel):
    """A field that held, read back after typing, letters or digits the agent did not type: someone else's keys reached
    the page (app/browser/typing.py tells them from a field's own formatting; a routine's row with one is not done)."""

    field: str  # as the step names it ("[3] <input name=name>")
    typed: str
    holds: str


class PageController(Protocol):
    """Every method honours ``signal`` and raises ToolError for expected failures.

    Indices are the ones from the most recent ``get_browser_state``; a stale index must raise ToolError, never act
    on a different element. Methods return a short factual result such as "Clicked [12] <button> Save".
    """

    async def get_browser_state(self, signal: AbortSignal) -> BrowserState: ...

    def element_info(self, index: int) -> ElementInfo | None:
        """The element behind ``index`` in the most recent state, as the model saw it; None if there is none."""
        ...

    def drain_events(self) -> list[str]:
        """Page events since the last call (navigation, new tab, dialog handled, download) as plain sentences."""
        ...

    async def perform(self, action: PageAction, signal: AbortSignal, gate: ActGate | None = None) -> str:
        """Does what ``action`` (a page tool's input, app/core/tools/page_tools.py) says, as real trusted input.

        ``gate``, when given, is called with what the action is about to set off (app/core/safety/risky.py ``Act``:
        the element clicked, the option chosen, the control a key activates, the submit control of a form that
        Enter submits) at the moment of acting, and the action is not done when it raises."""
        ...

    async def screenshot(self, signal: AbortSignal) -> Screenshot:
        """The viewport as the last state listed it, each element's [index] drawn on it (ToolError if it cannot)."""
        ...
