"""Text that can always be encoded (lone UTF-16 surrogates replaced with U+FFFD), and text safe to print on a
terminal (no control sequences).

A web page's strings are UTF-16 and may hold half of a surrogate pair (a title cut in the middle of an emoji, a
hostile page); JSON carries such a half as an escape, and Python decodes it, and bytes of a command line that are
not UTF-8, into a lone surrogate. Such a string cannot be written as UTF-8: the run would die when it is saved,
printed or sent. Text is made valid where it enters (the page's observation, the model's answer) and once more where
it leaves (the request, the CLI's output, saved and exported runs).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pydantic is imported by whoever has a model to write; the command line checks text without it
    from pydantic import BaseModel

REPLACEMENT = "\ufffd"


def valid_text(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD; a surrogate pair split over two code points is joined."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # Through UTF-16, where a pair of surrogates is a character again and a lone one is an error to replace.
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def is_valid_text(text: str) -> bool:
    return valid_text(text) is text


def valid_data(value: Any) -> Any:
    """Decoded JSON (dicts, lists, strings, numbers) with every string, keys included, made ``valid_text``."""
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, dict):
        return {valid_data(key): valid_data(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [valid_data(item) for item in value]
    return value


def valid_json(model: BaseModel, indent: int | None = None) -> str:
    """``model`` as JSON text, valid even when one of its strings is not."""
    from pydantic_core import PydanticSerializationError

    try:
        return model.model_dump_json(indent=indent)
    except PydanticSerializationError:  # pydantic refuses to write a lone surrogate
        return json.dumps(valid_data(model.model_dump(mode="json")), indent=indent, ensure_ascii=False)


# What a terminal acts on instead of showing: C0 controls (ESC starts the sequences that move the cursor, erase lines
# and retitle the window; BEL, backspace, carriage return), DEL, C1 controls (0x9b is a one-byte CSI), and the bidi
# controls that make text read in another order than it is written.
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_CONTROLS = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}]")
_CONTROLS_AND_BREAKS = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}\u2028\u2029]+")
# In JSON text: what json.dumps(ensure_ascii=False) leaves raw (C1 and bidi controls; DEL), written as escapes.
_RAW_IN_JSON = re.compile(f"[\x7f-\x9f{_BIDI}\u2028\u2029]")


def printable(text: str) -> str:
    """``text`` for a terminal: control and bidi characters taken out; line breaks and tabs kept."""
    return _CONTROLS.sub("", text.replace("\r\n", "\n"))


def printable_line(text: str) -> str:
    """One line for a terminal (a question, a notice): control characters and line breaks become one space."""
    return _CONTROLS_AND_BREAKS.sub(" ", text)


def terminal_json(text: str) -> str:
    """JSON text (from json.dumps) with the characters a terminal would act on written as \\u escapes: the data
    stays exact."""
    return _RAW_IN_JSON.sub(lambda match: f"\\u{ord(match[0]):04x}", text)
