"""The agent's profile keeps password and translate bubbles off the page, without losing the user's preferences."""

from __future__ import annotations

import json
from pathlib import Path

from app.browser.profile import quiet_profile


def _prefs(profile: Path) -> dict[str, object]:
    return json.loads((profile / "Default" / "Preferences").read_text(encoding="utf-8"))


def test_a_new_profile_gets_the_quiet_preferences(tmp_path: Path) -> None:
    quiet_profile(tmp_path)
    prefs = _prefs(tmp_path)
    assert prefs["credentials_enable_service"] is False
    assert prefs["profile"] == {"password_manager_enabled": False}
    assert prefs["translate"] == {"enabled": False}


def test_existing_preferences_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "Default" / "Preferences"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"profile": {"name": "Work", "password_manager_enabled": True},
                                "homepage": "https://example.org"}), encoding="utf-8")
    quiet_profile(tmp_path)
    prefs = _prefs(tmp_path)
    assert prefs["profile"] == {"name": "Work", "password_manager_enabled": False}
    assert prefs["homepage"] == "https://example.org"


def test_a_damaged_file_is_left_for_chromium_to_recover(tmp_path: Path) -> None:
    path = tmp_path / "Default" / "Preferences"
    path.parent.mkdir(parents=True)
    path.write_text("{not json", encoding="utf-8")
    quiet_profile(tmp_path)
    assert path.read_text(encoding="utf-8") == "{not json"
