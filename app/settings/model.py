"""The persisted settings (no secrets: the API key lives in the OS keyring)."""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal
from urllib.parse import urlparse

from pydantic import BaseModel, Field, ValidationError

from app.core.config import AgentConfig
from app.core.limits import MAX_ROUTINE_CALLS, MAX_ROUTINE_COST, MAX_TOKEN_PRICE
from app.llm.settings import LLMSettings, ToolChoiceMode
from app.settings.atomic import write_atomic

log = logging.getLogger(__name__)

MAX_HAND_OFF_MINUTES = 1440  # a day


class SecretEntry(BaseModel):
    """A named secret the agent may type as ``<secret>name</secret>``; its value lives in the keyring only."""

    name: str
    domains: list[str] = Field(default_factory=list)  # empty: any site


ThemeChoice = Literal["system", "light", "dark"]


class Settings(BaseModel):
    """What the user chose, saved as settings.json. Each single-valued setting has its place and field in the Settings
    dialog, its label, its help, and the flag and environment variable that override it declared in
    app/settings/catalog.py (app/README.md, "Adding a setting"); the Safety page's lists have a page of their own."""

    provider: str = "openai"
    base_url: str = "https://api.openai.com/v1"
    model: str = "gpt-4.1-mini"
    temperature: float | None = Field(default=None, ge=0, le=2)
    request_timeout: float = Field(default=90.0, gt=0)
    # What the model costs per million tokens, in the money the person pays in (0: not known); a known provider's
    # own model has its price already (presets.py). A routine estimates and limits its cost with it.
    price_per_million_tokens: float = Field(default=0.0, ge=0, le=MAX_TOKEN_PRICE)
    # A routine pauses and asks the person once it has made this many model calls, or cost this much (0: no limit).
    routine_max_calls: int = Field(default=0, ge=0, le=MAX_ROUTINE_CALLS)
    routine_max_cost: float = Field(default=0.0, ge=0, le=MAX_ROUTINE_COST)
    tool_choice: ToolChoiceMode = ToolChoiceMode.NAMED
    max_steps: int = Field(default=40, ge=1, le=500)
    language: str = "en"  # a code of app/core/languages.py: the UI's and the agent's, from the next start on
    # The language this run of the app started in: a language chosen in Settings applies only at the next start
    # (the panel says so), so the agent keeps this one until then. Never saved.
    running_language: str | None = Field(default=None, exclude=True)
    theme: ThemeChoice = "system"  # "system" follows the OS's light or dark scheme
    hand_off_sound: bool = False  # a sound, besides the notification, when the agent hands the browser over
    # Minutes a routine's row waits for the person at a hand-off before it ends needs_person (0: until answered);
    # set here or with `run --rows … --hand-off-timeout MIN`.
    hand_off_timeout: int = Field(default=0, ge=0, le=MAX_HAND_OFF_MINUTES)
    start_url: str = ""
    allow_javascript: bool = False
    vision: bool = False  # show the model a labelled screenshot with each step (models that accept images)
    browser_path: str = ""  # empty: found automatically
    # Safety (see README "Safety"): hosts the agent may open (empty: any http/https site), folders it may upload
    # from, named secrets, and whether an irreversible click waits for the user.
    allowed_domains: list[str] = Field(default_factory=list)
    upload_dirs: list[str] = Field(default_factory=list)
    secrets: list[SecretEntry] = Field(default_factory=list)
    ask_before_irreversible: bool = True
    # Safety settings that were in the file but could not be read (FAIL_CLOSED): no task runs until they are set
    # again, since their defaults would allow more than the user did. Never saved.
    unreadable_safety: tuple[str, ...] = Field(default=(), exclude=True)
    first_run_done: bool = False
    # The API key typed last could not be kept (no keyring): the next start asks for it again (it is never saved).
    api_access_not_kept: bool = False
    panel_geometry: str = ""  # Qt's saveGeometry(), base64

    def llm_settings(self, api_key: str | None) -> LLMSettings:
        from pydantic import SecretStr

        return LLMSettings(
            base_url=self.base_url,
            api_key=SecretStr(api_key) if api_key else None,
            model=self.model,
            temperature=self.temperature,
            request_timeout=self.request_timeout,
            tool_choice=self.tool_choice,
        )

    def agent_config(self) -> AgentConfig:
        return AgentConfig(
            max_steps=self.max_steps,
            language=self.running_language or self.language,
            enable_javascript=self.allow_javascript,
            vision=self.vision,
        )


_LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


def endpoint_ready(settings: Settings, api_key: str | None) -> bool:
    """Whether a model can be called at all: a key, or a local server (Ollama, LM Studio) that needs none."""
    return bool(api_key) or urlparse(settings.base_url).hostname in _LOCAL_HOSTS


# Safety settings whose default allows more than a value the user set: "any site", a secret typed on any site. One
# that is damaged is never reset to its default; the others' defaults are the safe ones (ask, no uploads, no scripts).
FAIL_CLOSED = ("allowed_domains", "secrets")
# How a saved file writes one of them when it was left empty.
_EMPTY = {name: re.compile(rf'"{name}"\s*:\s*\[\s*\]'.encode()) for name in FAIL_CLOSED}


class SettingsUnreadable(Exception):
    """The settings file is there but cannot be read at all (a folder, no permission)."""


@dataclass(frozen=True)
class LoadedSettings:
    settings: Settings
    reset: tuple[str, ...] = ()  # the saved values that were damaged and are back to their defaults
    kept_aside: Path | None = None  # the damaged file, as it was, for the user to look at
    damaged: bool = False


def read_settings(path: Path) -> LoadedSettings:
    """The saved settings. A damaged file is kept aside, every valid value is kept, and ``reset`` names the rest;
    a file that cannot be read at all raises SettingsUnreadable with a plain message."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return LoadedSettings(Settings())
    except OSError as exc:
        raise SettingsUnreadable(
            f"The settings file {path} cannot be read ({exc.strerror or exc}). Move it away "
            "or fix its permissions; the app then starts with its defaults."
        ) from exc
    try:
        data = json.loads(raw.decode("utf-8"))  # bad UTF-8 is a ValueError too
    except ValueError:
        data = None
    if not isinstance(data, dict):
        # What it held cannot be told: a safety list that was not left empty may have been set.
        unsafe = tuple(name for name in FAIL_CLOSED if name.encode() in raw and not _EMPTY[name].search(raw))
        return _damaged(path, Settings(unreadable_safety=unsafe), ())
    try:
        return LoadedSettings(Settings.model_validate(data))
    except ValidationError as exc:
        bad = {str(error["loc"][0]) for error in exc.errors() if error["loc"]}
    unsafe = tuple(name for name in FAIL_CLOSED if name in bad)
    kept = {name: value for name, value in data.items() if name not in bad}
    settings = Settings.model_validate({**kept, "unreadable_safety": unsafe})
    return _damaged(path, settings, tuple(sorted(bad & set(Settings.model_fields))))


def _damaged(path: Path, settings: Settings, reset: tuple[str, ...]) -> LoadedSettings:
    """Keep the damaged file beside the new one, and save what could be kept so the next start reads it. A file
    whose safety settings could not be read stays as it is: saving the defaults would allow more from the next
    start on."""
    if settings.unreadable_safety:
        log.warning(
            "settings file is damaged: %s could not be read; no task runs until they are set again",
            ", ".join(name.replace("_", " ") for name in settings.unreadable_safety),
        )
        return LoadedSettings(settings, reset, None, damaged=True)
    aside = path.with_name(f"{path.name}.damaged-{datetime.now():%Y%m%d-%H%M%S-%f}")
    try:
        path.replace(aside)
        save_settings(path, settings)
    except OSError as exc:
        log.warning("could not keep the damaged settings file aside: %s", exc)
    kept = aside if aside.exists() else None
    # On stderr in the CLI (a JSON "log" line with --events); the panel says it in its own words.
    log.warning(
        "settings file was damaged; back to their defaults: %s; the damaged file was kept as %s",
        ", ".join(name.replace("_", " ") for name in reset) or "every setting",
        kept or "(nowhere)",
    )
    return LoadedSettings(settings, reset, kept, damaged=True)


def load_settings(path: Path) -> Settings:
    """The saved settings (see ``read_settings``)."""
    return read_settings(path).settings


def save_settings(path: Path, settings: Settings) -> None:
    write_atomic(path, settings.model_dump_json(indent=2))
