"""Named secrets: the model sees ``<secret>name</secret>``; the value exists only at the moment of typing."""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import SecretStr


@dataclass(frozen=True)
class Secret:
    name: str
    value: SecretStr
    # Hosts (same patterns as NavigationPolicy) on whose pages the secret may be typed; empty: any.
    domains: tuple[str, ...] = ()


@dataclass
class SecretVault:
    secrets: list[Secret] = field(default_factory=list)

    def mask(self, text: str) -> str:
        """``text`` with every known secret value replaced by its placeholder (or ••••)."""
        # SKELETON: filled in by the secrets work (issue 8, item 3).
        return text
