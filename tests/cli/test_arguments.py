"""The command line's parsing: options given before or after "run" mean the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.main import build_parser


@pytest.mark.parametrize("argv", [["--replay", "demo.json", "run", "Do it"], ["run", "Do it", "--replay", "demo.json"]])
def test_replay_before_or_after_run(argv: list[str]) -> None:
    args = build_parser().parse_args(argv)
    assert args.command == "run" and args.replay == Path("demo.json") and args.record is None


def test_the_panel_takes_demo_record_and_replay() -> None:
    args = build_parser().parse_args(["--demo", "--record", "out.json"])
    assert args.command is None and args.demo and args.record == Path("out.json") and args.replay is None
