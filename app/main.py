"""Composition root: parses the command line, then runs the headless CLI or the panel.

Only light modules are imported before ``main`` has caught the stop signals (``app/stop_signals.py``): a Ctrl+C in
the first moment of ``run`` stops the run, never a half-done import with a traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app import __version__, stop_signals
from app.malloc_arenas import limit_malloc_arenas


def build_parser() -> argparse.ArgumentParser:
    from app.cli.args import add_run_parser
    from app.mcp.args import add_mcp_parser

    parser = argparse.ArgumentParser(
        prog="page-agent-desktop",
        description="A panel beside Chromium where an AI agent does your web task step by step, in plain sight.",
    )
    parser.add_argument(
        "--demo", action="store_true", help="Replay a recorded run on a bundled demo site (offline, no API key)."
    )
    parser.add_argument("--version", action="version", version=f"page-agent-desktop {__version__}")
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="Check that the app works on this computer (its parts, a browser, its folders), then exit 0 or 1.",
    )
    parser.add_argument("--record", type=Path, metavar="FILE", help="Save the model's answers as a cassette.")
    parser.add_argument("--replay", type=Path, metavar="FILE", help="Replay a cassette instead of calling a model.")
    subparsers = parser.add_subparsers(dest="command")
    add_run_parser(subparsers)
    add_mcp_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Each face hands the stop signals caught from here on to its event loop (``stop_signals.on_stop_signals``);
    whatever returns without a loop gives them back."""
    limit_malloc_arenas()  # before any thread starts
    stop_signals.catch()
    try:
        return _face(sys.argv[1:] if argv is None else argv)
    finally:
        stop_signals.release()


def _face(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)  # --help, --version and a wrong argument exit here
    if args.command == "run":
        from app.cli.start import run_cli

        return run_cli(args)
    if args.command == "mcp":
        from app.mcp.main import run_mcp  # the SDK only for this command

        return run_mcp(args)
    if args.self_test:
        stop_signals.release()
        from app.self_test import main as self_test

        return self_test()
    from app.ui.app import run_gui  # Qt only when the panel is wanted

    return run_gui(args)
