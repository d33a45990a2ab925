"""Settings persist without the key; the key lives in the keyring; an environment variable overrides it."""

from __future__ import annotations

import json
from pathlib import Path

import keyring
import pytest

from app.llm.settings import ToolChoiceMode
from app.settings import secrets
from app.settings.model import Settings, load_settings, save_settings
from tests.fakes.memory_keyring import LockedKeyring, MemoryKeyring

KEY = "sk-persist-secret-abcdef"


def test_round_trip_keeps_the_key_out_of_the_file(tmp_path: Path, memory_keyring: MemoryKeyring) -> None:
    path = tmp_path / "config" / "settings.json"
    settings = Settings(provider="deepseek", base_url="https://api.deepseek.com/v1", model="deepseek-chat",
                        tool_choice=ToolChoiceMode.JSON_TEXT, max_steps=12, language="zh", allow_javascript=True)
    save_settings(path, settings)
    secrets.set_api_key("deepseek", KEY)
    assert load_settings(path) == settings
    assert KEY not in path.read_text()
    assert not any("key" in name for name in json.loads(path.read_text()))
    assert memory_keyring.passwords == {(secrets.SERVICE, "api-key:deepseek"): KEY}
    assert secrets.get_api_key("deepseek") == KEY
    assert secrets.get_api_key("openai") is None  # keys are per provider


def test_environment_overrides_the_keyring(memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch) -> None:
    secrets.set_api_key("openai", KEY)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    assert secrets.get_api_key("openai") == "sk-from-env"


def test_clearing_the_key_deletes_it(memory_keyring: MemoryKeyring) -> None:
    secrets.set_api_key("openai", KEY)
    secrets.set_api_key("openai", "")
    secrets.set_api_key("openai", "")  # nothing left to delete: fine
    assert memory_keyring.passwords == {}


def test_no_keyring_is_reported_plainly(memory_keyring: MemoryKeyring) -> None:
    keyring.set_keyring(LockedKeyring())
    with pytest.raises(secrets.KeyringUnavailable, match="OPENAI_API_KEY"):
        secrets.set_api_key("openai", KEY)
