"""Record a real run's model answers to a cassette, and replay one through the real engine.

Each answer that acts on an element also records which element: its identity (``ElementIdentity``: its tag, words and
naming attributes), taken from the listing that comes with the request as data (``Message.elements``), never from the
prompt's text. On replay exactly one element of the page must have that identity, so a replay that no longer matches
the page fails clearly instead of clicking the wrong thing. Indices are not compared: they shift with the window's
size (a taller window lists more elements), so the answer is pointed at the matching element's index of this run.

A recording that handed the browser to the person (hand_off_to_user) goes on from the page the person left it on; if
they hand it back before the page got there (a captcha not solved yet), the hand-off is replayed again instead of
failing: the person gets another turn.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from app.core.abort import AbortSignal
from app.core.llm import LLMClient, LLMError, LLMErrorKind, LLMReply, Message, RetryCallback, ToolCall, ToolSpec
from app.core.output import REFLECTION_FIELDS, InvalidOutput, action_names, read_action
from app.core.page import ElementIdentity
from app.core.safety.secrets import mask_everywhere, masked_model
from app.core.tools.control import HAND_OFF
from app.settings.atomic import write_atomic
from app.text.element_words import target_words

log = logging.getLogger(__name__)

# 2: the acted-on element is recorded as data (an ElementIdentity); 1 recorded the text of its line.
FORMAT = 2
# {element}: the element the recording acts on next, in plain words; {where}: why it cannot; {answer}: its number.
MISMATCH = (
    "The replay no longer matches the page at answer {answer}: the recording acts on {element}, which {where}. "
    "Record it again with --record."
)
# A hand-off made again because the person handed the browser back before the page got there; {reason}: the
# recording's own reason (empty for the line that reads the last step).
AGAIN = "Not done yet: the page still shows the same step. {reason}"


class CassetteEntry(BaseModel):
    reply: LLMReply
    # The element the answer acts on, as the page listed it then; None when it acts on none.
    expect: ElementIdentity | None = None


class _Format(BaseModel):
    version: int = 1


class Cassette(BaseModel):
    version: int = FORMAT
    entries: list[CassetteEntry] = Field(default_factory=list)

    @classmethod
    def load(cls, path: Path) -> Cassette:
        try:
            text = path.read_text(encoding="utf-8")
            version = _Format.model_validate_json(text).version
            if version != FORMAT:
                # A format-1 cassette names its elements by their lines' text, which this app no longer reads.
                raise ValueError(
                    f"it was recorded in cassette format {version}, and this version of the app replays format "
                    f"{FORMAT} only. Record it again with --record."
                )
            return cls.model_validate_json(text)
        except (OSError, ValueError) as exc:
            raise ValueError(f"Cannot read the cassette {path}: {exc}") from exc

    def save(self, path: Path) -> None:
        """Written without any secret value: a model may echo one, or type a password the vault learns only
        after the answer arrived (the whole cassette is masked again at every save, and once more on close)."""
        write_atomic(path, masked_model(self, mask_everywhere).model_dump_json(indent=2))


@dataclass(frozen=True)
class _Answer:
    """An answer as the engine reads it (app/core/output.py): its payload, its action's name and input."""

    payload: dict[str, Any]
    action: str
    input: Any

    @property
    def index(self) -> int | None:
        """The element it acts on (None: none, or its input is not an object with an index)."""
        index = self.input.get("index") if isinstance(self.input, dict) else None
        return index if isinstance(index, int) and not isinstance(index, bool) else None

    def said_again(self, words: str, reply: LLMReply, tool: ToolSpec) -> LLMReply:
        """``reply``, a hand-off, made again: its reason (and its reading of the last step) say the page is not there
        yet, so the person does not get the very same card twice."""
        reason = self.input.get("reason", "") if isinstance(self.input, dict) else ""
        again = words.format(reason=reason).strip()
        reflection = {key: self.payload[key] for key in REFLECTION_FIELDS if key in self.payload}
        reflection["evaluation_previous_goal"] = words.format(reason="").strip()
        arguments = {**reflection, "action": {self.action: {**self.input, "reason": again}}}
        call = ToolCall(name=tool.name, arguments=json.dumps(arguments, ensure_ascii=False))
        return reply.model_copy(update={"tool_calls": [call], "content": None})

    def pointed_at(self, index: int, reply: LLMReply, tool: ToolSpec) -> LLMReply:
        """``reply`` acting on element ``index`` instead: its reflection and action, the action's input re-pointed,
        as the one tool call the engine reads."""
        reflection = {key: self.payload[key] for key in REFLECTION_FIELDS if key in self.payload}
        arguments = {**reflection, "action": {self.action: {**self.input, "index": index}}}
        call = ToolCall(name=tool.name, arguments=json.dumps(arguments, ensure_ascii=False))
        return reply.model_copy(update={"tool_calls": [call], "content": None})


def _read(reply: LLMReply, tool: ToolSpec) -> _Answer | None:
    """The answer's action, or None when the engine could not read one either."""
    try:
        return _Answer(*read_action(reply, action_names(tool)))
    except InvalidOutput:
        return None


def _shown(messages: list[Message]) -> dict[int, ElementIdentity]:
    """The page's elements the model is shown now, by index (the last message carries them)."""
    listed = messages[-1].elements if messages else []
    return {element.index: element.identity() for element in listed}


class RecordingClient:
    """Wraps a real client and writes every answer to ``path`` as it arrives, so a crash keeps what was recorded.

    A cassette that can no longer be written (a full disk, a folder taken away) does not end the run: the answers go
    on to the agent, the file keeps what was written last, and ``failure`` (also handed to ``on_failure``, once) says
    what happened in plain words."""

    def __init__(self, inner: LLMClient, path: Path, on_failure: Callable[[str], None] | None = None) -> None:
        self._inner = inner
        self._path = path
        self._on_failure = on_failure
        self.cassette = Cassette()
        self.failure: str | None = None

    async def _save(self) -> None:
        if self.failure is not None:
            return
        try:
            await asyncio.to_thread(self.cassette.save, self._path)
        except OSError as exc:
            saved = len(self.cassette.entries) - 1
            self.failure = (
                f"The recording {self._path} could not be written ({exc.strerror or exc}); it holds at most the "
                f"first {saved} of the run's answers and cannot be replayed in full."
            )
            log.warning("%s", self.failure)
            if self._on_failure is not None:
                self._on_failure(self.failure)

    async def prepare(self) -> None:
        prepare = getattr(self._inner, "prepare", None)
        if prepare is not None:
            await prepare()

    async def close(self) -> None:
        if self.cassette.entries:
            await self._save()
        close = getattr(self._inner, "close", None)
        if close is not None:
            await close()

    async def invoke(
        self, messages: list[Message], tool: ToolSpec, signal: AbortSignal, on_retry: RetryCallback | None = None
    ) -> LLMReply:
        reply = await self._inner.invoke(messages, tool, signal, on_retry)
        answer = _read(reply, tool)
        index = answer.index if answer is not None else None
        expect = _shown(messages).get(index) if index is not None else None
        self.cassette.entries.append(CassetteEntry(reply=reply, expect=expect))
        await self._save()
        return reply


class ReplayClient:
    """Plays a cassette back in order. ``pace`` seconds of "thinking" before each answer keep a demo watchable;
    ``mismatch`` is the message of a replay that no longer matches the page (see MISMATCH for its fields); ``end``
    replaces the message when the recording has no more answers."""

    def __init__(
        self,
        cassette: Cassette,
        pace: float = 0.0,
        mismatch: str = MISMATCH,
        end: str = "",
        again: str = AGAIN,
        catch_up: bool = False,
    ) -> None:
        self._cassette = cassette
        self._again = again
        # The demo: when the page is ahead of the recording (the person did a step themselves while they had the
        # browser), the replay goes on from the first later answer that finds its element, instead of stopping.
        self._catch_up = catch_up
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
            shown = _shown(messages)
            found = [index for index, identity in shown.items() if identity == entry.expect]
            if len(found) != 1:
                again = self._previous_hand_off(tool)
                if again is not None:
                    return again
                ahead = self._ahead(shown) if self._catch_up else None
                if ahead is None:
                    raise self._mismatched(entry.expect, len(found))
                self._position, entry, found = ahead
                reply = entry.reply
            answer = _read(reply, tool)
            if answer is not None and answer.index != found[0]:
                reply = answer.pointed_at(found[0], reply, tool)
        self._position += 1
        return reply

    def _ahead(self, shown: dict[int, ElementIdentity]) -> tuple[int, CassetteEntry, list[int]] | None:
        """The first later answer whose element is on the page once, with its position and that element's index."""
        entries = self._cassette.entries
        for position in range(self._position + 1, len(entries)):
            expect = entries[position].expect
            if expect is None:
                continue
            found = [index for index, identity in shown.items() if identity == expect]
            if len(found) == 1:
                return position, entries[position], found
        return None

    def _previous_hand_off(self, tool: ToolSpec) -> LLMReply | None:
        """The hand-off the recording made just before this answer, if it did: the person handed the browser back
        before the page got where the recording went on from, so they get it again."""
        if self._position == 0:
            return None
        previous = self._cassette.entries[self._position - 1].reply
        answer = _read(previous, tool)
        if answer is None or answer.action != HAND_OFF:
            return None
        return answer.said_again(self._again, previous, tool)

    def _mismatched(self, expect: ElementIdentity, count: int) -> LLMError:
        where = "is not on the page now" if count == 0 else f"is on the page {count} times now"
        return LLMError(
            LLMErrorKind.CONFIG,
            self._mismatch.format(answer=self._position + 1, element=target_words(expect), where=where),
        )
