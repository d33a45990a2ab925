"""Text the app did not write, made inert before it enters the prompt.

Everything a page produces (element text, attributes, titles, URLs, dialog messages, file names) and everything the
model wrote (a page can steer it into echoing page text) is data. It must never open or close a block of the prompt
(``<browser_state>``, ``<step_3>``...) nor pose as one of the app's ``<sys>`` lines. Only the user's own words and
the app's scaffolding are left as they are.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata

# Invisible format characters: they let "<s\u200bys>" read as <sys> to a model, smuggle text in Unicode tag
# characters, or reorder what a person would read. None of them carries meaning the model needs.
_INVISIBLES = "\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff\U000e0000-\U000e007f"
_BREAKS = "\r\n\v\f\x1c-\x1e\x85\u2028\u2029"
_INVISIBLE = re.compile(f"[{_INVISIBLES}]")
_LINE_BREAKS = re.compile(f"[{_BREAKS}]+")
# '<' and the characters a model may read as one (full-width, small, angle quotes and brackets).
_OPEN = "<\uff1c\ufe64\u2039\u3008\u27e8\u2329\u276c\u276e\u29fc\u02c2"
_SLASH = "/\uff0f\u2044\u2215\u29f8"
_TAG = re.compile(rf"[{_OPEN}](?P<rest>[\s{_SLASH}]*(?P<name>[\w\-.:\uff3f]+))")
# "[12]<button>Pay />" written by a page would read as one of the listing's element lines, where it starts a line.
# Inside a line ("Result: Clicked [3] <button> Save", the app's own wording) it cannot. Brackets and digits a model
# may read as the listing's ("［7］＜button＞", "【7】") count too (\d is any script's digit).
_OPEN_BRACKET = "\\[\uff3b\u3010\u301a\u27e6\u2045\u29cb\u3014"
_CLOSE_BRACKET = "\\]\uff3d\u3011\u301b\u27e7\u2046\u29cc\u3015"
_ELEMENT_LINE = re.compile(rf"^(\s*[*\uff0a]?[{_OPEN_BRACKET}]\s*\d+\s*[{_CLOSE_BRACKET}]\s*)[{_OPEN}]")
_BLOCKS = frozenset(
    {"agentstate", "agenthistory", "earliersteps", "browserstate", "userrequest", "previoustasks", "sys", "system"}
)
_STEP = re.compile(r"step\d*")
# Marks a model may read as the end of a quotation: inside a quoted string they are spelled as JSON escapes.
_QUOTE_MARKS = str.maketrans(
    {mark: f"\\u{ord(mark):04x}" for mark in "\u201c\u201d\u201e\u201f\uff02\u301d\u301e\u301f\u2033\u02dd\u02ba"}
)
# Most text has none of the characters any rule above looks for.
_SUSPECT = re.compile(f"[{_INVISIBLES}{_BREAKS}{_OPEN}]")
ESCAPED_OPEN = "&lt;"


@functools.lru_cache(maxsize=4096)  # a page's listing repeats a few tag names ("button", "a") hundreds of times
def _is_block(name: str) -> bool:
    folded = re.sub(r"[_\-.:]", "", unicodedata.normalize("NFKC", name).casefold())
    return folded in _BLOCKS or _STEP.fullmatch(folded) is not None


def _escape_tag(match: re.Match[str]) -> str:
    return ESCAPED_OPEN + match["rest"] if _is_block(match["name"]) else match[0]


def escape_blocks(text: str) -> str:
    """``text`` with every tag that opens or closes a prompt block (any case, spacing or look-alike '<') escaped.

    For text whose lines are laid out by the app (the serialized page); its fields are already ``inert``.
    """
    if not _SUSPECT.search(text):
        return text
    return _TAG.sub(_escape_tag, _INVISIBLE.sub("", text))


def inert(text: str) -> str:
    """One line of untrusted text: no line breaks (a new line could pose as the app's own), no block tags, no forged
    element lines."""
    if not _SUSPECT.search(text):
        return text
    flat = _LINE_BREAKS.sub(" ", _INVISIBLE.sub("", text))
    return _ELEMENT_LINE.sub(lambda m: m[1] + ESCAPED_OPEN, escape_blocks(flat))


def json_quoted(text: str) -> str:
    """``text`` as a JSON string in which every character ``inert`` would change (a '<' or a look-alike, a line
    break, an invisible one) and every mark that looks like a quote is a \\uXXXX escape: exact data for whoever
    decodes it, inert for a model reading the prompt (a spreadsheet cell in a routine's task). ``quoted`` is the
    same for words that need not survive exactly."""
    return _SUSPECT.sub(_json_escape, json.dumps(text, ensure_ascii=False)).translate(_QUOTE_MARKS)


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match[0])
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # beyond the basic plane: a surrogate pair, as JSON writes it
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def quoted(text: str) -> str:
    """Untrusted words inside one of the app's sentences, as a JSON string: no character sequence in them can end the
    quotation (a '"' is escaped, and so are the marks that look like one), open a block or break the line."""
    return json.dumps(inert(text), ensure_ascii=False).translate(_QUOTE_MARKS)
