"""Record a real run's model answers to a cassette, and replay one through the real engine.

Each answer that acts on an element also records that element's line as the model saw it; on replay a line with the
same text must be on the page, so a replay that no longer matches the page fails clearly instead of clicking the
wrong thing. Indices are not compared: they shift with the window's size (a taller window lists more elements), so
the answer is pointed at the matching element's index of this run.
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
from app.settings.atomic import write_atomic

_INDEX = re.compile(r'"index"\s*:\s*(\d+)')
_LINE_INDEX = re.compile(r"^\[(\d+)\]")
_BROWSER_STATE = "<browser_state>"
RERECORD_HINT = "Record it again with --record."


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
    state = user[user.rfind(_BROWSER_STATE):] if _BROWSER_STATE in user else user
    return [line.strip().lstrip("*") for line in state.splitlines()]


def _acted_index(reply: LLMReply) -> int | None:
    text = reply.tool_calls[0].arguments if reply.tool_calls else (reply.content or "")
    match = _INDEX.search(text)
    return int(match.group(1)) if match else None


def _unindexed(line: str) -> str:
    return _LINE_INDEX.sub("[]", line, count=1)


def _pointed_at(reply: LLMReply, index: int) -> LLMReply:
    """``reply`` acting on element ``index`` instead of the one it was recorded with."""
    def repoint(text: str) -> str:
        return _INDEX.sub(f'"index": {index}', text, count=1)

    if reply.tool_calls:
        calls = [reply.tool_calls[0].model_copy(update={"arguments": repoint(reply.tool_calls[0].arguments)}),
                 *reply.tool_calls[1:]]
        return reply.model_copy(update={"tool_calls": calls})
    return reply.model_copy(update={"content": repoint(reply.content or "")})


class RecordingClient:
    """Wraps a real client and writes every answer to ``path`` as it arrives, so a crash keeps what was recorded."""

    def __init__(self, inner: LLMClient, path: Path) -> None:
        self._inner = inner
        self._path = path
        self.cassette = Cassette()

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
    ``hint`` ends the message of a replay that no longer matches the page (what the user can do about it); ``end``
    replaces the message when the recording has no more answers."""

    def __init__(self, cassette: Cassette, pace: float = 0.0, hint: str = RERECORD_HINT, end: str = "") -> None:
        self._cassette = cassette
        self._pace = pace
        self._hint = hint
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
                self._end or f"The replay has no more recorded answers (it holds {len(entries)}). The run went "
                "further than the recording did.",
            )
        entry = entries[self._position]
        reply = entry.reply
        if entry.expect is not None:
            reply = self._matched(entry, _page_lines(messages))
        self._position += 1
        return reply

    def _matched(self, entry: CassetteEntry, lines: list[str]) -> LLMReply:
        assert entry.expect is not None
        wanted = _unindexed(entry.expect)
        found = [match for line in lines if _unindexed(line) == wanted and (match := _LINE_INDEX.match(line))]
        if len(found) == 1:
            return _pointed_at(entry.reply, int(found[0].group(1)))
        where = "is not on the page now" if not found else f"is on the page {len(found)} times now"
        raise LLMError(
            LLMErrorKind.CONFIG,
            f"The replay no longer matches the page at answer {self._position + 1}: the recording acted on "
            f"{json.dumps(wanted.removeprefix('[]'), ensure_ascii=False)}, which {where}. {self._hint}",
        )
