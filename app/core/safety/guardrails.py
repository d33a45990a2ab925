"""One agent's safety policies, handed to the tools (ToolContext) and to the page controller by the composition root."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.core.safety.files import UploadPolicy
from app.core.safety.navigation import NavigationPolicy
from app.core.safety.risky import ConfirmHandler
from app.core.safety.secrets import SecretVault


@dataclass(frozen=True)
class Guardrails:
    navigation: NavigationPolicy = field(default_factory=NavigationPolicy)
    secrets: SecretVault = field(default_factory=SecretVault)
    uploads: UploadPolicy = field(default_factory=UploadPolicy)
    # Asks the person about a risky moment (a page's confirm(), an irreversible click); None: nobody can be asked,
    # so the risky thing is refused.
    confirm: ConfirmHandler | None = None
    ask_before_irreversible: bool = True
