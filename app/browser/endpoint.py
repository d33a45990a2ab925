"""A browser endpoint's address (a routine's --browser-endpoint, a run's --cdp-url) as it may be shown.

Its query often carries a token (browserless, Browserbase, Steel, a Playwright server's ``?token=``) and its address
may carry a user and a password: a key to someone's browser. Every error, event and results file shows the address
through ``shown_endpoint``; and since a library's error may quote the whole address, ``hide_endpoint_secrets`` masks
those values wherever ``mask_everywhere`` cleans (the log, the command line's output, History, the results).
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

from app.core.safety.secrets import hide_everywhere, plain_words


def shown_endpoint(endpoint: str) -> str:
    """``endpoint`` without its query, its fragment and its user:password (``wss://u:p@host/x?token=…`` is shown as
    ``wss://host/x``): which browser, never the key to it."""
    head = endpoint.split("?", 1)[0].split("#", 1)[0]
    scheme, slashes, rest = head.partition("//")
    if not slashes:
        return head
    authority, slash, path = rest.partition("/")
    return f"{scheme}//{authority.rpartition('@')[2]}{slash}{path}"


def hide_endpoint_secrets(endpoint: str) -> None:
    """Mask the endpoint's user, password and query values everywhere from now on, except those that read as
    ordinary words (``headless=true``), which masking would garble in every text."""
    try:
        parts = urlsplit(endpoint)
        found = [parts.username, parts.password, parts.fragment, *(value for _, value in parse_qsl(parts.query))]
    except ValueError:  # an address urlsplit cannot read: its whole query
        found = [endpoint.partition("?")[2]]
    for value in found:
        if value and not plain_words(value):
            hide_everywhere(value)
