"""Where model-driven navigation may go: http(s) only (and about:blank), and, when set, only the allowed hosts."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class NavigationPolicy:
    # Host patterns: "example.com" (that host only), "*.example.com" (its subdomains), optionally with ":port".
    allowed_domains: tuple[str, ...] = ()

    def check(self, url: str) -> str | None:
        """None when ``url`` may be opened; otherwise the reason, in words the model can act on."""
        # SKELETON: filled in by the navigation work (issue 8, item 1-2).
        return None
