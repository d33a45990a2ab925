"""The agent's Chromium profile: preferences that keep browser pop-ups off the page the agent is working on, and
that stop Chromium loading pages ahead of a click.

A "Save password?" or "Translate this page?" bubble covers part of the page, so the elements under it drop out of
the observation (covered elements are left out) and the agent cannot click them. The profile is also marked as
cleanly closed before each launch, so that a Chromium that was killed (a crash, a power cut) never greets the user
with "Restore pages? Chromium didn't shut down correctly".

"Preload pages" is off (network_prediction_options 2): a page's speculation rules would otherwise prefetch and
prerender other sites' pages, with their addresses and queries, in renderers no tab shows and no navigation route
sees, past "Only these sites". Command-line switches cannot do it: Playwright passes its own --disable-features,
and only the last one counts.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from app.settings.atomic import write_atomic

log = logging.getLogger(__name__)

QUIET_PREFERENCES: dict[str, Any] = {
    "credentials_enable_service": False,
    "profile": {"password_manager_enabled": False, "exit_type": "Normal", "exited_cleanly": True},
    "translate": {"enabled": False},
    "net": {"network_prediction_options": 2},
}


def _merged(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    result = dict(base)
    for key, value in overrides.items():
        current = result.get(key)
        result[key] = _merged(current, value) if isinstance(value, dict) and isinstance(current, dict) else value
    return result


def quiet_profile(profile_dir: Path) -> None:
    """Merge QUIET_PREFERENCES into the profile's Preferences, keeping everything else the user has there."""
    path = profile_dir / "Default" / "Preferences"
    try:
        current = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (OSError, ValueError) as exc:
        # Chromium rewrites a damaged file itself; ours would only lose what it could still recover.
        log.warning("left the browser preferences alone (%s)", exc)
        return
    if not isinstance(current, dict):
        return
    wanted = _merged(current, QUIET_PREFERENCES)
    if wanted != current:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(wanted))
