"""Every user-facing setting, declared once: its label in the Settings dialog, the one sentence that explains it (the
dialog's tooltip and the command line's help), and the `run` flag and the environment variable that override it.

The rest is derived: the `run` command's flags and their help (app/cli/args.py), the overrides a headless run applies
(flags beat environment variables, which beat the saved settings: ``resolve_overrides``), the dialog's labels and
tooltips (``setting_row`` and ``setting_check`` in app/ui/dialog_widgets.py). The type and the default are the
Settings model's (app/settings/model.py); they are repeated here for the command line, which is parsed before
pydantic is imported, and tests/settings/test_catalog.py checks each against the model. Light on purpose: plain
dataclasses, no pydantic.

A list setting (the sites, upload folders and secrets under Safety) has a page of its own and is not declared here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from app.core.limits import MAX_STEPS_LIMIT

Scalar = bool | int | float | str


@dataclass(frozen=True)
class SettingInfo:
    name: str  # the field of app.settings.model.Settings
    type: type[Scalar]  # the field's type (an enum's values are str)
    default: Scalar  # the field's default
    label: str  # in the Settings dialog; English, translated where shown (resources/i18n/zh/settings.json)
    help: str  # one sentence, no full stop: the dialog's tooltip and the flag's help (translated in the dialog)
    flag: str | None = None  # the `run` flag that overrides it for one run
    env: str | None = None  # the environment variable that overrides the saved value in a headless run

    def flag_help(self) -> str:
        """The flag's help: the sentence and where the value comes from when the flag is left out."""
        if self.env is not None:
            where = f"{self.env} or settings"
        elif self.type is bool:
            where = f"settings, {'on' if self.default else 'off'}"
        else:
            where = f"settings, {self.default}"
        return f"{self.help} (default: {where})."


SETTINGS: Mapping[str, SettingInfo] = {
    setting.name: setting
    for setting in (
        # The Model page.
        SettingInfo("provider", str, "openai", "Provider", "Fills in the address and model of a known service"),
        SettingInfo(
            "base_url",
            str,
            "https://api.openai.com/v1",
            "Base URL",
            "The address of the OpenAI-compatible endpoint",
            flag="--base-url",
            env="OPENAI_BASE_URL",
        ),
        SettingInfo(
            "model",
            str,
            "gpt-4.1-mini",
            "Model",
            "The name of the model at that endpoint",
            flag="--model",
            env="PAGE_AGENT_MODEL",
        ),
        SettingInfo(
            "tool_choice", str, "named", "Tool calling", "How the model is asked to answer with one of its tools"
        ),
        SettingInfo(
            "request_timeout",
            float,
            90.0,
            "Model answer timeout (s)",
            "How long the model may take to answer one request",
        ),
        SettingInfo(
            "vision",
            bool,
            False,
            "Show the model screenshots",
            "Show the model a screenshot of the page with each step, for models that accept images",
            flag="--vision",
        ),
        # The Agent page.
        SettingInfo(
            "max_steps",
            int,
            40,
            "Max steps",
            f"The most steps a task may take, 1 to {MAX_STEPS_LIMIT}",
            flag="--max-steps",
        ),
        SettingInfo("language", str, "en", "Language", "The language of the app and of the agent's words"),
        SettingInfo("theme", str, "system", "Theme", "Light or dark, or the same as the system"),
        SettingInfo("start_url", str, "", "Start page", "The page the browser opens when Page Agent starts"),
        SettingInfo(
            "hand_off_sound",
            bool,
            False,
            "Play a sound when the agent needs you",
            "Besides the notification, when the agent hands the browser over to you",
        ),
        SettingInfo("browser_path", str, "", "Program", "Leave empty to use the browser found automatically"),
        SettingInfo(
            "allow_javascript",
            bool,
            False,
            "Allow JavaScript tool",
            "Lets the agent run a script of its own in the page",
        ),
        # The Safety page (its lists are not declared here).
        SettingInfo(
            "ask_before_irreversible",
            bool,
            True,
            "Ask me before irreversible actions",
            "The agent asks you before it clicks Delete, Pay, Buy… unless your task asked for exactly that",
        ),
    )
}

FLAGS = tuple(setting for setting in SETTINGS.values() if setting.flag is not None)


def resolve_overrides(flags: Mapping[str, Scalar | None], environ: Mapping[str, str]) -> dict[str, Scalar]:
    """The settings a headless run takes from its flags (``flags``: the parsed values by setting name, None or ""
    when left out) and from the environment (text: only a str setting names a variable), flags first; the saved
    settings keep the rest."""
    overrides: dict[str, Scalar] = {}
    for info in SETTINGS.values():
        value = flags.get(info.name)
        if (value is None or value == "") and info.env is not None:
            value = environ.get(info.env) or None
        if value is not None and value != "":
            overrides[info.name] = value
    return overrides
