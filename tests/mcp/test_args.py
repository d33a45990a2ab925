"""The mcp command's arguments, and what the rest of the app pays for it: nothing (the SDK loads with the command)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from app.main import build_parser
from tests.cli.test_cli import ROOT


def test_the_flags_are_runs_own_plus_the_transport() -> None:
    args = build_parser().parse_args(
        ["mcp", "--http", "8765", "--token-env", "T", "--allowed-domains", "example.com", "--headed"]
    )
    assert (args.command, args.http, args.token_env, args.allowed_domains, args.headless) == (
        "mcp",
        8765,
        "T",
        ["example.com"],
        False,
    )
    assert build_parser().parse_args(["mcp"]).http is None and build_parser().parse_args(["mcp"]).headless


@pytest.mark.parametrize("port", ["80", "0", "70000", "http"])
def test_a_port_it_cannot_serve_on_is_refused(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["mcp", "--http", port])
    assert exited.value.code == 2 and "--http" in capsys.readouterr().err


@pytest.mark.slow
def test_the_app_starts_without_importing_the_sdk() -> None:
    probe = (
        "import sys; from app.main import build_parser; build_parser().parse_args(['run', 'x']); "
        "print([m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'uvicorn', 'starlette'))])"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
