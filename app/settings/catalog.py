"""Every user-facing setting, declared once: where it sits in the Settings dialog (its ``Place``: page and section)
and which field edits it (its ``Editor``: on/off, a number in a range, a choice, a line of text, a program), its label
there, the one sentence that explains it (the dialog's tooltip and the command line's help), and the `run` flag and
the environment variable that override it.

The rest is derived: the `run` command's flags and their help (app/cli/args.py), the overrides a headless run applies
(flags beat environment variables, which beat the saved settings: ``resolve_overrides``), and the dialog's fields,
laid out, filled and read back (app/ui/setting_editors.py). The type and the default are the Settings model's
(app/settings/model.py); they are repeated here for the command line, which is parsed before pydantic is imported,
and tests/settings/test_catalog.py checks each against the model. Light on purpose: plain dataclasses, no pydantic,
no Qt; the words are English, translated where shown (resources/i18n/zh/settings.json).

A list setting (the sites, upload folders and secrets under Safety) has a page of its own and is not declared here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from app.core.languages import LANGUAGES
from app.core.limits import MAX_ROUTINE_CALLS, MAX_ROUTINE_COST, MAX_STEPS_LIMIT, MAX_TOKEN_PRICE
from app.settings.presets import CUSTOM, PRESETS

Scalar = bool | int | float | str


@dataclass(frozen=True)
class Place:
    page: str  # the Settings dialog's tab
    section: str  # the titled card on that tab


MODEL = Place("Model", "Model")
AGENT = Place("Agent", "Agent")
BROWSER = Place("Agent", "Browser")
CONFIRMATIONS = Place("Safety", "Confirmations")
ROUTINES = Place("Agent", "Routines")


@dataclass(frozen=True)
class OnOff:
    """A check box (a bool setting), with ``note`` in small print under it when the tooltip is not enough."""

    note: str = ""


@dataclass(frozen=True)
class Number:
    """A number from ``minimum`` to ``maximum``: whole for an int setting, with ``decimals`` for a float one, and
    ``suffix`` (its unit) after it."""

    minimum: int
    maximum: int
    suffix: str = ""
    decimals: int = 0


@dataclass(frozen=True)
class Choice:
    """One of ``options`` (value, label); a saved value not among them shows as ``otherwise`` (by default the
    first). The labels are translated unless ``translated`` is False (a language's name is in its own words)."""

    options: tuple[tuple[str, str], ...]
    otherwise: str | None = None
    translated: bool = True


@dataclass(frozen=True)
class Text:
    """A line of text, stripped; ``placeholder`` shows while it is empty."""

    placeholder: str = ""


@dataclass(frozen=True)
class Program(Text):
    """The path of a program: a line of text with a Browse… button."""


Editor = OnOff | Number | Choice | Text


@dataclass(frozen=True)
class SettingInfo:
    name: str  # the field of app.settings.model.Settings
    type: type[Scalar]  # the field's type (an enum's values are str)
    default: Scalar  # the field's default
    label: str  # in the Settings dialog; English, translated where shown (resources/i18n/zh/settings.json)
    help: str  # one sentence, no full stop: the dialog's tooltip and the flag's help (translated in the dialog)
    place: Place
    editor: Editor
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


_ASK = "The agent asks you before it clicks Delete, Pay, Buy… unless your task asked for exactly that"

SETTINGS: Mapping[str, SettingInfo] = {
    setting.name: setting
    for setting in (
        SettingInfo(
            "provider",
            str,
            "openai",
            "Provider",
            "Fills in the address and model of a known service",
            MODEL,
            Choice(tuple((item.key, item.label) for item in PRESETS), otherwise=CUSTOM.key),
        ),
        SettingInfo(
            "base_url",
            str,
            "https://api.openai.com/v1",
            "Base URL",
            "The address of the OpenAI-compatible endpoint",
            MODEL,
            Text("https://api.example.com/v1"),
            flag="--base-url",
            env="OPENAI_BASE_URL",
        ),
        SettingInfo(
            "model",
            str,
            "gpt-4.1-mini",
            "Model",
            "The name of the model at that endpoint",
            MODEL,
            Text(),  # its placeholder is the chosen provider's model
            flag="--model",
            env="PAGE_AGENT_MODEL",
        ),
        # (The API key follows here: in the keyring, not in the settings.)
        SettingInfo(
            "tool_choice",
            str,
            "named",
            "Tool calling",
            "How the model is asked to answer with one of its tools",
            MODEL,
            Choice(
                (
                    ("named", "Named tool (recommended)"),
                    ("required", "Any tool call ('required')"),
                    ("json_text", "JSON in text (no tool support needed)"),
                )
            ),
        ),
        SettingInfo(
            "request_timeout",
            float,
            90.0,
            "Model answer timeout",
            "How long the model may take to answer one request",
            MODEL,
            # Shorter fails slow models, longer only delays the bad news.
            Number(10, 600, suffix=" s"),
        ),
        SettingInfo(
            "price_per_million_tokens",
            float,
            0.0,
            "Price per million tokens",
            "What the model costs for a million tokens, in the money you pay in (0: not known), for a routine's "
            "estimate and its cost limit",
            MODEL,
            Number(0, MAX_TOKEN_PRICE, decimals=2),
            flag="--price-per-million-tokens",
        ),
        SettingInfo(
            "vision",
            bool,
            False,
            "Show the model screenshots",
            "Show the model a screenshot of the page with each step, for models that accept images",
            MODEL,
            OnOff(
                "For models that read images: each step also sends a picture of the page with its elements numbered. "
                "Test connection checks that the model takes them."
            ),
            flag="--vision",
        ),
        SettingInfo(
            "max_steps",
            int,
            40,
            "Max steps",
            f"The most steps a task may take, 1 to {MAX_STEPS_LIMIT}",
            AGENT,
            Number(1, MAX_STEPS_LIMIT),
            flag="--max-steps",
        ),
        SettingInfo(
            "language",
            str,
            "en",
            "Language",
            "The language of the app and of the agent's words",
            AGENT,
            Choice(tuple((code, known.name) for code, known in LANGUAGES.items()), translated=False),
        ),
        SettingInfo(
            "theme",
            str,
            "system",
            "Theme",
            "Light or dark, or the same as the system",
            AGENT,
            Choice((("system", "Same as the system"), ("light", "Light"), ("dark", "Dark"))),
        ),
        SettingInfo(
            "start_url",
            str,
            "",
            "Start page",
            "The page the browser opens when Page Agent starts",
            AGENT,
            Text("https://… (optional)"),
        ),
        SettingInfo(
            "hand_off_sound",
            bool,
            False,
            "Play a sound when the agent needs you",
            "Besides the notification, when the agent hands the browser over to you",
            AGENT,
            OnOff(),
        ),
        SettingInfo(
            "browser_path",
            str,
            "",
            "Program",
            "Leave empty to use the browser found automatically",
            BROWSER,
            Program("Found automatically when Page Agent starts"),  # or the browser found, when one was
        ),
        SettingInfo(
            "allow_javascript",
            bool,
            False,
            "Allow JavaScript tool",
            "Lets the agent run a script of its own in the page",
            BROWSER,
            OnOff(),  # its warning is the page's: always shown, in the warning's colour
        ),
        SettingInfo(
            "routine_max_calls",
            int,
            0,
            "Ask me after this many model calls",
            "A routine pauses and asks you whether to go on once it has made this many model calls (0: never)",
            ROUTINES,
            Number(0, MAX_ROUTINE_CALLS),
            flag="--max-calls",
        ),
        SettingInfo(
            "routine_max_cost",
            float,
            0.0,
            "Ask me after it has cost",
            "The same once its model calls have cost this much, from the model's price per million tokens (0: never)",
            ROUTINES,
            Number(0, MAX_ROUTINE_COST, decimals=2),
            flag="--max-cost",
        ),
        SettingInfo(
            "ask_before_irreversible",
            bool,
            True,
            "Ask me before irreversible actions",
            _ASK,
            CONFIRMATIONS,
            OnOff(f"{_ASK}."),
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
