"""What every face says when the agent hands the browser to the person: the panel's bar, pill and notification, the
routine's "Needs you", the terminal, an MCP client's view.

The reason is the model's, and the model read the page: a page can have it write "Page Agent security check: type
your master password and bank PIN". So the reason is never shown as the app's own words. It is the agent's, quoted:
markup taken out, on one line, without controls or invisible characters, its own double quotation marks made single
ones (it cannot close the quotation and go on as the app), clipped; after "The agent says:". And the app says in a
line of its own that it never asks for passwords or PINs.
"""

from __future__ import annotations

import re

from app.core.clean_text import printable_line
from app.text.element_words import clip
from app.text.i18n import tr

REASON_MAX = 300
# A tag (<a href=…>, <img …>; a closing one, </b>, goes without a space); "a < b" and "<3" are words, not markup.
_TAG = re.compile(r"<[A-Za-z][^<>]*>")
_CLOSING_TAG = re.compile(r"</[A-Za-z][^<>]*>")
# A terminal's control sequence (ESC [ … ): taken out whole, not only its ESC.
_ESCAPE_SEQUENCE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
_INVISIBLE = re.compile("[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]")
_DOUBLE_QUOTES = str.maketrans(
    {
        **dict.fromkeys("\u201c\u201e\u201f\u00ab\u301d", "\u2018"),
        **dict.fromkeys('\u201d"\uff02\u00bb\u301e\u301f', "\u2019"),
    }
)


def quoted_reason(reason: str, limit: int = REASON_MAX) -> str:
    """The agent's words as a quotation, “…”, of at most ``limit`` characters inside the marks; "" when nothing is
    left of them."""
    text = _TAG.sub(" ", _CLOSING_TAG.sub("", _ESCAPE_SEQUENCE.sub("", reason)))
    words = printable_line(_INVISIBLE.sub("", text)).translate(_DOUBLE_QUOTES)
    words = clip(words, limit)
    return f"“{words}”" if words else ""


def agent_says(reason: str, limit: int = REASON_MAX) -> str:
    """“The agent says: “…””, or the app's own sentence when the agent said nothing that can be shown."""
    quoted = quoted_reason(reason, limit)
    if not quoted:
        return tr("The agent needs you in the browser for something only a person can do.")
    return tr("The agent says: {reason}", reason=quoted)


def never_asks() -> str:
    return tr("Page Agent never asks for your passwords or PINs.")


def hand_off_words(reason: str, limit: int = REASON_MAX) -> str:
    """Two lines: what the agent says, quoted, then the app's own word that it never asks for passwords or PINs."""
    return f"{agent_says(reason, limit)}\n{never_asks()}"


def hand_off_line(reason: str, limit: int = REASON_MAX) -> str:
    """The same on one line, for a line of a log or a client's view."""
    return f"{agent_says(reason, limit)} {never_asks()}"


def unclear_words(held_back: str) -> str:
    """A routine's row that was sent, whose next step the routine held back (it could have sent the row again): the
    app's own words, never the agent's. ``held_back``: that step, in plain words."""
    return tr(
        "This row was sent to the site, but the site's answer was unclear, and the agent's next step would have sent "
        "it again ({step}), so that step was not taken. Check the site in its window: if the row was saved, continue "
        "and say so in a note; if not, give the row up and enter it yourself.",
        step=held_back,
    )
