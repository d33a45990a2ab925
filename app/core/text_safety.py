"""Text that can always be encoded: lone UTF-16 surrogates replaced with U+FFFD.

A web page's strings are UTF-16 and may hold half of a surrogate pair (a title cut in the middle of an emoji, a
hostile page); JSON carries such a half as an escape, and Python decodes it, and bytes of a command line that are
not UTF-8, into a lone surrogate. Such a string cannot be written as UTF-8: the run would die when it is saved,
printed or sent. Text is made valid where it enters (the page's observation, the model's answer) and once more where
it leaves (the request, the CLI's output, saved and exported runs).
"""

from __future__ import annotations

import json
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
