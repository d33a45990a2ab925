"""The settings catalog (app/settings/catalog.py) against what it describes: the Settings model's fields, types and
defaults, the `run` command's flags, the overrides a headless run applies, and the README."""

from __future__ import annotations

import enum
import typing
from pathlib import Path

import pytest

from app.engine_args import resolve_settings
from app.main import build_parser
from app.settings.catalog import FLAGS, SETTINGS, Choice, Number, OnOff, SettingInfo, Text, resolve_overrides
from app.settings.model import Settings

ROOT = Path(__file__).resolve().parents[2]
# Scalar fields that are not settings a person chooses: bookkeeping the app keeps, or a value set only in the file.
NOT_IN_THE_CATALOG = {
    "temperature": "set only in the settings file (None: the model's own)",
    "first_run_done": "bookkeeping",
    "api_access_not_kept": "bookkeeping",
    "panel_geometry": "the panel's place on the screen",
    "hand_off_timeout": "a routine's option: --hand-off-timeout, else the settings file",
}


def _plain_type(annotation: object) -> type:
    """The type a field's values have: an enum's or a Literal's values are text."""
    if typing.get_origin(annotation) is typing.Literal:
        (kind,) = {type(value) for value in typing.get_args(annotation)}
        return kind
    if isinstance(annotation, type) and issubclass(annotation, enum.StrEnum):
        return str
    assert isinstance(annotation, type)
    return annotation


@pytest.mark.parametrize("info", SETTINGS.values(), ids=list(SETTINGS))
def test_each_entry_matches_the_settings_model(info: SettingInfo) -> None:
    field = Settings.model_fields[info.name]
    assert _plain_type(field.annotation) is info.type
    assert field.get_default(call_default_factory=True) == info.default
    assert info.label and info.help and not info.help.endswith(".")


@pytest.mark.parametrize("info", SETTINGS.values(), ids=list(SETTINGS))
def test_each_field_takes_what_the_model_takes(info: SettingInfo) -> None:
    """The dialog's field offers only values the model accepts, the default among them."""
    editor = info.editor
    annotation = Settings.model_fields[info.name].annotation
    if isinstance(editor, OnOff):
        assert info.type is bool
    elif isinstance(editor, Number):
        assert info.type in (int, float) and editor.minimum <= info.default <= editor.maximum
        assert (info.type is float) or editor.decimals == 0
        for bound in (editor.minimum, editor.maximum):
            Settings.model_validate({info.name: bound})  # within the model's bounds
    elif isinstance(editor, Choice):
        values = [value for value, _label in editor.options]
        assert info.type is str and info.default in values and (editor.otherwise or values[0]) in values
        if typing.get_origin(annotation) is typing.Literal:
            assert values == list(typing.get_args(annotation))
        elif isinstance(annotation, type) and issubclass(annotation, enum.StrEnum):
            assert values == [member.value for member in annotation]
    else:
        assert isinstance(editor, Text) and info.type is str


def test_every_scalar_setting_is_in_the_catalog() -> None:
    scalar = {
        name
        for name, field in Settings.model_fields.items()
        if typing.get_origin(field.annotation) not in (list, tuple) and not field.exclude
    }
    assert scalar - NOT_IN_THE_CATALOG.keys() == set(SETTINGS)


def test_an_environment_variable_overrides_only_text() -> None:
    assert all(info.type is str for info in SETTINGS.values() if info.env is not None)


def test_every_flag_is_a_run_option_with_the_catalog_help() -> None:
    run = build_parser()._subparsers._group_actions[0].choices["run"]  # type: ignore[union-attr]
    options = {option: action for action in run._actions for option in action.option_strings}
    for info in FLAGS:
        assert info.flag is not None
        action = options[info.flag]
        assert action.dest == info.name and action.help == info.flag_help() and action.default is None


def test_flags_beat_the_environment_which_beats_the_saved_settings() -> None:
    environ = {"OPENAI_BASE_URL": "http://env.example/v1", "PAGE_AGENT_MODEL": "env-model"}
    flags = {"base_url": "http://flag.example/v1", "model": None, "max_steps": None, "vision": None}
    assert resolve_overrides(flags, environ) == {"base_url": "http://flag.example/v1", "model": "env-model"}
    assert resolve_overrides({"model": "", "max_steps": 7, "vision": True}, {}) == {"max_steps": 7, "vision": True}


def test_a_run_takes_the_flags_over_the_saved_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("PAGE_AGENT_MODEL", "env-model")
    args = build_parser().parse_args(["run", "Do it", "--max-steps", "12", "--vision", "--api-key-env", "NO_SUCH"])
    saved = Settings(base_url="http://saved.example/v1", model="saved-model", max_steps=30)
    settings, _key = resolve_settings(args, saved)
    assert (settings.base_url, settings.model, settings.max_steps, settings.vision) == (
        "http://saved.example/v1",
        "env-model",
        12,
        True,
    )
    unset, _key = resolve_settings(build_parser().parse_args(["run", "Do it", "--api-key-env", "NO_SUCH"]), saved)
    assert (unset.max_steps, unset.vision) == (30, False)


def test_the_readme_names_every_flag_and_variable() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    names = [info.flag for info in FLAGS] + [info.env for info in SETTINGS.values() if info.env is not None]
    assert [name for name in names if f"`{name}" not in readme and f"[{name}" not in readme] == []
