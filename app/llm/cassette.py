"""Record a real run's model answers to a cassette, and replay one through the real engine.

Each answer that acts on an element also records that element's line as the model saw it; on replay a line with the
same text must be on the page, so a replay that no longer matches the page fails clearly instead of clicking the
wrong thing. Indices are not compared: they shift with the window's size (a taller window lists more elements), so
the answer is pointed at the matching element's index of this run.

A recording that handed the browser to the person (hand_off_to_user) goes on from the page the person left it on; if
they hand it back before the page got there (a captcha not solved yet), the hand-off is replayed again instead of
failing: the person gets another turn.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

from pydantic import BaseModel, Field

from app.core.abort import AbortSignal
from app.core.llm import LLMClient, LLMError, LLMErrorKind, LLMReply, Message, RetryCallback, ToolSpec
from app.core.safety.secrets import mask_everywhere, masked_model
from app.core.tools.control import HAND_OFF
from app.settings.atomic import write_atomic

_INDEX = re.compile(r'"index"\s*:\s*(\d+)')
_LINE_INDEX = re.compile(r"^\[(\d+)\]")
_LINE = re.compile(r"^(?:\[\d*\])?<(?P<tag>[\w-]+)(?P<attrs>[^>]*?)(?:>(?P<text>.*?))?\s*/>$")
_ATTR = re.compile(r'([\w-]+)=("[^"]*"|\S+)')
# What forms add to a field's label: "Email *", "Company optional".
_LABEL_MARKS = re.compile(r"(\s*\*|\s+\(?optional\)?)+$", re.IGNORECASE)
_BROWSER_STATE = "<browser_state>"
# {element}: the element the recording acts on next, in plain words; {where}: why it cannot; {answer}: its number.
MISMATCH = (
    "The replay no longer matches the page at answer {answer}: the recording acts on {element}, which {where}. "
    "Record it again with --record."
)


class CassetteEntry(BaseModel):
    reply: LLMReply
    # The acted-on element's line as the model saw it (without indentation or the "new" marker).
    expect: str | None = None


class Cassette(BaseModel):
    version: int = 1
    entries: list[CassetteEntry] = Field(default_factory=list)

    @classmethod
    def load(cls, path: Path) -> Cassette:
        try:
            return cls.model_validate_json(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ValueError(f"Cannot read the cassette {path}: {exc}") from exc

    def save(self, path: Path) -> None:
        """Written without any secret value: a model may echo one, or type a password the vault learns only
        after the answer arrived (the whole cassette is masked again at every save, and once more on close)."""
        write_atomic(path, masked_model(self, mask_everywhere).model_dump_json(indent=2))


def _page_lines(messages: list[Message]) -> list[str]:
    """The element lines of the page the model is shown now (not the history, which quotes earlier pages)."""
    user = next((m.content for m in reversed(messages) if m.role == "user"), "")
    state = user[user.rfind(_BROWSER_STATE) :] if _BROWSER_STATE in user else user
    return [line.strip().lstrip("*") for line in state.splitlines()]


def _answer_text(reply: LLMReply) -> str:
    return reply.tool_calls[0].arguments if reply.tool_calls else (reply.content or "")


def _acted_index(reply: LLMReply) -> int | None:
    match = _INDEX.search(_answer_text(reply))
    return int(match.group(1)) if match else None


def element_words(line: str) -> str:
    """An element line as a person names the element: "the Email field", "the Save customer button"."""
    match = _LINE.match(line.strip())
    if match is None:
        return "an element"
    tag = match["tag"]
    attrs = {key: value.strip('"') for key, value in _ATTR.findall(match["attrs"])}
    kind = attrs.get("type", "") if tag == "input" else ""
    if attrs.get("role") == "combobox" or tag == "select":
        noun = "list"
    elif tag == "button" or attrs.get("role") == "button" or kind in ("button", "submit", "reset"):
        noun = "button"
    elif tag == "a":
        noun = "link"
    elif kind in ("checkbox", "radio"):
        noun = kind
    elif tag in ("input", "textarea"):
        noun = "field"
    else:
        noun = "element"
    # A field's value is what was typed, never its name; a button input's value is its caption.
    value = attrs.get("value") if noun == "button" else None
    name = attrs.get("label") or attrs.get("aria-label") or match["text"] or value or attrs.get("placeholder") or ""
    name = _LABEL_MARKS.sub("", name)
    return f"the {name} {noun}" if name else f"the {noun}"


def _action_name(reply: LLMReply) -> str:
    """The tool an answer calls ("" when that cannot be read)."""
    try:
        action = json.loads(_answer_text(reply)).get("action")
    except (ValueError, AttributeError):
        return ""
    return next(iter(action), "") if isinstance(action, dict) else ""


def _unindexed(line: str) -> str:
    return _LINE_INDEX.sub("[]", line, count=1)


def _pointed_at(reply: LLMReply, index: int) -> LLMReply:
    """``reply`` acting on element ``index`` instead of the one it was recorded with."""

    def repoint(text: str) -> str:
        return _INDEX.sub(f'"index": {index}', text, count=1)

    if reply.tool_calls:
        calls = [
            reply.tool_calls[0].model_copy(update={"arguments": repoint(reply.tool_calls[0].arguments)}),
            *reply.tool_calls[1:],
        ]
        return reply.model_copy(update={"tool_calls": calls})
    return reply.model_copy(update={"content": repoint(reply.content or "")})


class RecordingClient:
    """Wraps a real client and writes every answer to ``path`` as it arrives, so a crash keeps what was recorded."""

    def __init__(self, inner: LLMClient, path: Path) -> None:
        self._inner = inner
        self._path = path
        self.cassette = Cassette()

    async def prepare(self) -> None:
        prepare = getattr(self._inner, "prepare", None)
        if prepare is not None:
            await prepare()

    async def close(self) -> None:
        if self.cassette.entries:
            await asyncio.to_thread(self.cassette.save, self._path)
        close = getattr(self._inner, "close", None)
        if close is not None:
            await close()

    async def invoke(
        self, messages: list[Message], tool: ToolSpec, signal: AbortSignal, on_retry: RetryCallback | None = None
    ) -> LLMReply:
        reply = await self._inner.invoke(messages, tool, signal, on_retry)
        index = _acted_index(reply)
        expect = None
        if index is not None:
            expect = next((line for line in _page_lines(messages) if line.startswith(f"[{index}]<")), None)
        self.cassette.entries.append(CassetteEntry(reply=reply, expect=expect))
        await asyncio.to_thread(self.cassette.save, self._path)
        return reply


class ReplayClient:
    """Plays a cassette back in order. ``pace`` seconds of "thinking" before each answer keep a demo watchable;
    ``mismatch`` is the message of a replay that no longer matches the page (see MISMATCH for its fields); ``end``
    replaces the message when the recording has no more answers."""

    def __init__(self, cassette: Cassette, pace: float = 0.0, mismatch: str = MISMATCH, end: str = "") -> None:
        self._cassette = cassette
        self._pace = pace
        self._mismatch = mismatch
        self._end = end
        self._position = 0

    @property
    def position(self) -> int:
        return self._position

    def rewind(self) -> None:
        self._position = 0

    async def invoke(
        self, messages: list[Message], tool: ToolSpec, signal: AbortSignal, on_retry: RetryCallback | None = None
    ) -> LLMReply:
        await signal.sleep(self._pace)
        entries = self._cassette.entries
        if self._position >= len(entries):
            raise LLMError(
                LLMErrorKind.CONFIG,
                self._end
                or f"The replay has no more recorded answers (it holds {len(entries)}). The run went "
                "further than the recording did.",
            )
        entry = entries[self._position]
        reply = entry.reply
        if entry.expect is not None:
            found = self._found(entry.expect, _page_lines(messages))
            if len(found) != 1:
                again = self._previous_hand_off()
                if again is not None:
                    return again
                raise self._mismatched(entry.expect, len(found))
            reply = _pointed_at(reply, found[0])
        self._position += 1
        return reply

    @staticmethod
    def _found(expect: str, lines: list[str]) -> list[int]:
        wanted = _unindexed(expect)
        return [
            int(match.group(1)) for line in lines if _unindexed(line) == wanted and (match := _LINE_INDEX.match(line))
        ]

    def _previous_hand_off(self) -> LLMReply | None:
        """The hand-off the recording made just before this answer, if it did: the person handed the browser back
        before the page got where the recording went on from, so they get it again."""
        if self._position == 0:
            return None
        previous = self._cassette.entries[self._position - 1].reply
        return previous if _action_name(previous) == HAND_OFF else None

    def _mismatched(self, expect: str, count: int) -> LLMError:
        where = "is not on the page now" if count == 0 else f"is on the page {count} times now"
        return LLMError(
            LLMErrorKind.CONFIG,
            self._mismatch.format(answer=self._position + 1, element=element_words(_unindexed(expect)), where=where),
        )
