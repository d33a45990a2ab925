"""How an action or a run can fail, as exceptions every layer may raise and the agent tells apart."""

from __future__ import annotations


class ToolError(Exception):
    """An expected failure of an action (stale index, element not found, navigation failed...).

    The message is shown to the model as the action's result, prefixed with ❌; it never ends the run by itself.
    """


class DeclinedError(ToolError):
    """The person did not allow the action (they said no, or let the question run out): nothing was done. The model
    reads it as any failure; the panel says it in the person's terms."""


class BrowserClosedError(Exception):
    """The browser (or the tab the agent works in) is gone: the run cannot go on and ends in ``error``."""


class HandOffNeeded(ToolError):
    """Only the person can go on from here (a password manager to unlock, a one-time code the site refused twice):
    the model reads the message as the action's result, and the run hands the browser to the person with ``words``,
    the app's own plain words for them."""

    def __init__(self, message: str, words: str) -> None:
        super().__init__(message)
        self.words = words


class CannotStart(Exception):
    """A run cannot start: a setting, a file, the model's endpoint, the browser or a safety setting that cannot be
    used. The message is the person's, in plain words; the faces say it (exit 2, an error result, the panel's line)
    where any other exception is a fault of the program and gets a crash report."""
