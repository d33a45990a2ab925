"""A tool: a name the model calls, a pydantic input model, and an async function that returns a short result."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from app.core.abort import AbortError, AbortSignal
from app.core.errors import BrowserClosedError, DeclinedError, HandOffNeeded, ToolError
from app.core.page import PageController
from app.core.safety.guardrails import Guardrails
from app.core.types import FAILURE_MARK

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ToolResult:
    """What a tool call came to: its text for the model, and whether it worked."""

    text: str
    ok: bool = True
    declined: bool = False  # not done because the person did not allow it (DeclinedError)
    hand_off: str = ""  # only the person can go on (HandOffNeeded): the app's words for them


AskUserHandler = Callable[[str, AbortSignal], Awaitable[str]]

InputT = TypeVar("InputT", bound=BaseModel)


@dataclass(frozen=True)
class ToolContext:
    signal: AbortSignal
    page: PageController
    ask_user: AskUserHandler | None = None
    # The person's own words for this task: the policies honour what they asked for (a site named for a secret that
    # names none, a file named to upload, an irreversible act asked for). The task, unless others wrote some of it:
    # a routine's template without its cells, nothing of what an MCP client wrote (Agent.execute).
    own_words: str = ""
    guardrails: Guardrails = field(default_factory=Guardrails)


@dataclass(frozen=True)
class ToolWords:
    """How a person reads a use of the tool: a sentence for the timeline (``action``), the status pill's words while
    it runs (``doing``) and once it worked (``done``; ``doing`` when empty). English templates, each translated whole
    (resources/i18n/zh/tools.json) and filled by app/text/tool_words.py: ``{field}`` is the input field of that name,
    ``{field:spec}`` renders it (``quote``, ``typed``, ``clip``, ``said`` for the agent's own words, quoted,
    ``pages``, ``host``, ``file``, ``yes|no`` for a yes/no field, or a number format), ``{target}`` is the element
    acted on as a person names it (``{target:list}`` for a list), and ``[...]`` is left out when a value in it is
    missing. ``element`` names an element that has no name a person could read."""

    action: str
    doing: str
    done: str = ""
    element: str = "an element on the page"


@dataclass(frozen=True)
class Tool(Generic[InputT]):
    """Everything about a tool lives in its definition: what the model is told (name, description, input model),
    what it does (``run``), how a person reads it (``words``) and what a use of it means for a routine (``may_send``
    and below); lists, schema, validation, wording and a routine's path follow."""

    name: str
    description: str
    input_model: type[InputT]
    run: Callable[[ToolContext, InputT], Awaitable[str]]
    words: ToolWords
    # Runs before anything about the call is shown or recorded: a tool that learns a secret from its input (a
    # password typed without a placeholder) registers it here, so that every output from then on masks it.
    prepare: Callable[[ToolContext, InputT], None] | None = None
    # What a use of it means for a routine (app/routine/path.py), read by the path and the row's runner:
    # whether it may send a form's data somewhere (a click, a key, a choice, a page opened, a script, an upload).
    # Only a tool that cannot says False: once an action that may send has begun, a row is never run blindly again.
    may_send: bool = True
    replayed: bool = True  # a learned path holds it; False for a run's own ending and the person's moments
    value_field: str | None = None  # the input field with a value typed, chosen or uploaded: a cell there is its column
    url_field: str | None = None  # the input field with an address: the cells written in it are their columns
    picks_element: bool = False  # the element acted on may be a row's choice: a radio button a cell names, a box ticked
    picks_option: bool = False  # the value field names one of the page's options: the cell there picks it

    def input_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = _compact(self.input_model.model_json_schema())
        return schema

    def single_field(self) -> str | None:
        """The field a bare value fills: the only required field, else the only field."""
        fields = self.input_model.model_fields
        required = [name for name, field in fields.items() if field.is_required()]
        if len(required) == 1:
            return required[0]
        if len(fields) == 1:
            return next(iter(fields))
        return None

    def describe_fields(self) -> str:
        parts = []
        for name, info in self.input_model.model_fields.items():
            kind = getattr(info.annotation, "__name__", str(info.annotation))
            parts.append(f"{name} ({kind}{', required' if info.is_required() else ''})")
        return ", ".join(parts) or "no fields"


def _compact(schema: Any) -> Any:
    """The schema as the model needs it, sent with every step. Pydantic adds a title to every node (noise; some
    endpoints reject unknown keys), and writes an optional field as anyOf [its type, null] with a null default: a
    field left out says that already. Defaults and bounds go too: validation fills the one in and enforces the
    other, telling the model what was wrong, and grammar-constrained decoding (a local server) ignores bounds."""
    if isinstance(schema, list):
        return [_compact(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    nullable = schema.get("anyOf")
    if isinstance(nullable, list) and {"type": "null"} in nullable and len(nullable) == 2:
        rest = {key: value for key, value in schema.items() if key not in ("anyOf", "default")}
        return _compact({**next(item for item in nullable if item != {"type": "null"}), **rest})
    return {key: _compact(value) for key, value in schema.items() if key != "title" and not _goes_without(key, value)}


_VALIDATION_ONLY = frozenset({"default", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength"})


def _goes_without(key: str, value: Any) -> bool:
    # A tool without input needs no empty property list.
    return key in _VALIDATION_ONLY or (key == "properties" and value == {})


async def run_tool(tool: Tool[Any], ctx: ToolContext, params: BaseModel) -> ToolResult:
    """Run a tool; expected failures come back as a failed result the model can read (its text led by ❌), never as
    an exception.

    An abort, and a browser that is gone, still raise: neither is something the model can fix.
    """
    try:
        return ToolResult(await tool.run(ctx, params))
    except (AbortError, BrowserClosedError):
        raise
    except DeclinedError as exc:
        return ToolResult(f"{FAILURE_MARK} {exc}", ok=False, declined=True)
    except HandOffNeeded as exc:
        return ToolResult(f"{FAILURE_MARK} {exc}", ok=False, hand_off=exc.words)
    except ToolError as exc:
        return ToolResult(f"{FAILURE_MARK} {exc}", ok=False)
    except Exception as exc:
        log.exception("tool %s failed", tool.name)
        return ToolResult(f"{FAILURE_MARK} {tool.name} failed unexpectedly: {type(exc).__name__}: {exc}", ok=False)
