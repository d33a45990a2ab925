"""The agent's profile keeps password, translate and "Restore pages?" bubbles off the page, without losing the user's
preferences."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.async_api import BrowserType

from app.browser.processes import profile_pids
from app.browser.profile import quiet_profile
from app.browser.session import BrowserSession, LaunchOptions


def _prefs(profile: Path) -> dict[str, object]:
    return json.loads((profile / "Default" / "Preferences").read_text(encoding="utf-8"))


def test_a_new_profile_gets_the_quiet_preferences(tmp_path: Path) -> None:
    quiet_profile(tmp_path)
    prefs = _prefs(tmp_path)
    assert prefs["credentials_enable_service"] is False
    assert prefs["profile"] == {"password_manager_enabled": False, "exit_type": "Normal", "exited_cleanly": True}
    assert prefs["translate"] == {"enabled": False}


def test_existing_preferences_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "Default" / "Preferences"
    path.parent.mkdir(parents=True)
    path.write_text(
        json.dumps({"profile": {"name": "Work", "password_manager_enabled": True}, "homepage": "https://example.org"}),
        encoding="utf-8",
    )
    quiet_profile(tmp_path)
    prefs = _prefs(tmp_path)
    assert prefs["profile"] == {
        "name": "Work",
        "password_manager_enabled": False,
        "exit_type": "Normal",
        "exited_cleanly": True,
    }
    assert prefs["homepage"] == "https://example.org"


def test_a_damaged_file_is_left_for_chromium_to_recover(tmp_path: Path) -> None:
    path = tmp_path / "Default" / "Preferences"
    path.parent.mkdir(parents=True)
    path.write_text("{not json", encoding="utf-8")
    quiet_profile(tmp_path)
    assert path.read_text(encoding="utf-8") == "{not json"


def test_a_profile_left_by_a_killed_chromium_is_marked_cleanly_closed(tmp_path: Path) -> None:
    # What Chromium leaves when it is killed: the mark that makes the next start offer "Restore pages?".
    path = tmp_path / "Default" / "Preferences"
    path.parent.mkdir(parents=True)
    path.write_text(
        json.dumps({"profile": {"exit_type": "Crashed", "exited_cleanly": False, "name": "Work"}}), encoding="utf-8"
    )
    quiet_profile(tmp_path)
    profile = _prefs(tmp_path)["profile"]
    assert profile["exit_type"] == "Normal" and profile["exited_cleanly"] is True and profile["name"] == "Work"


async def test_the_next_launch_after_a_kill_starts_from_a_cleanly_closed_profile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = LaunchOptions(profile_dir=tmp_path / "profile", downloads_dir=tmp_path / "downloads", headless=True)
    # What a killed (headed) Chromium leaves behind: the mark that makes its next start offer "Restore pages?".
    path = options.profile_dir / "Default" / "Preferences"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"profile": {"exit_type": "Crashed", "exited_cleanly": False}}), encoding="utf-8")

    seen: list[object] = []
    original = BrowserType.launch_persistent_context

    async def launch(self: BrowserType, *args: object, **kwargs: object) -> object:
        seen.append(_prefs(options.profile_dir)["profile"])
        seen.append(kwargs.get("args"))
        return await original(self, *args, **kwargs)

    monkeypatch.setattr(BrowserType, "launch_persistent_context", launch)
    session = await BrowserSession.launch(options)
    await session.close()
    profile, args = seen
    assert profile["exit_type"] == "Normal" and profile["exited_cleanly"] is True  # type: ignore[index]
    assert "--hide-crash-restore-bubble" in args  # type: ignore[operator]
    assert await profile_pids(options.profile_dir) == []
