"""Where model-driven navigation may go: http(s) only (and about:blank), and, when set, only the allowed hosts."""

from __future__ import annotations

import re
from dataclasses import dataclass

# One host pattern: an optional "*." then host labels (or an IPv4 address), an optional ":port".
_PATTERN = re.compile(r"^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:[0-9]{1,5})?$")


def parse_domains(text: str) -> list[str]:
    """Host patterns from what a person typed (commas, spaces or lines between them); ValueError names a bad one."""
    patterns = [part.strip().lower() for part in re.split(r"[,\s]+", text) if part.strip()]
    for pattern in patterns:
        if not _PATTERN.match(pattern):
            raise ValueError(f'"{pattern}" is not a site name. Write names like example.com or *.example.com '
                             "(optionally with :port), without http:// or a path.")
    return patterns


@dataclass(frozen=True)
class NavigationPolicy:
    # Host patterns: "example.com" (that host only), "*.example.com" (its subdomains), optionally with ":port".
    allowed_domains: tuple[str, ...] = ()

    def check(self, url: str) -> str | None:
        """None when ``url`` may be opened; otherwise the reason, in words the model can act on."""
        # SKELETON: filled in by the navigation work (issue 8, item 1-2).
        return None
