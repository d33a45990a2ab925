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
    settings = Settings(
        provider="deepseek",
        base_url="https://api.deepseek.com/v1",
        model="deepseek-chat",
        tool_choice=ToolChoiceMode.JSON_TEXT,
        max_steps=12,
        language="zh",
        allow_javascript=True,
    )
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


def test_theme_and_sound_persist_and_older_files_still_load(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    save_settings(path, Settings(theme="dark", hand_off_sound=True))
    loaded = load_settings(path)
    assert loaded.theme == "dark" and loaded.hand_off_sound
    path.write_text(json.dumps({"provider": "openai", "model": "gpt-4.1-mini", "language": "zh"}), encoding="utf-8")
    older = load_settings(path)  # written before these settings existed
    assert older.theme == "system" and older.hand_off_sound is False and older.language == "zh"
    assert not path.with_suffix(".damaged.json").exists()


def test_the_running_language_is_the_agents_until_the_next_start_and_never_saved(tmp_path: Path) -> None:
    chosen = Settings(language="zh").model_copy(update={"running_language": "en"})
    assert chosen.agent_config().language == "en"
    path = tmp_path / "settings.json"
    save_settings(path, chosen)
    assert "running_language" not in path.read_text(encoding="utf-8")
    assert load_settings(path).agent_config().language == "zh"  # the next start
