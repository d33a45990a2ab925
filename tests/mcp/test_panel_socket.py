"""The MCP server and a panel's socket that is not the person's: with XDG_RUNTIME_DIR unset, the socket's folder is in
the shared temporary folder, where another local user made it first and listens, ready to answer a task with a
forged "completed". The client's task is never sent there: it runs headless, and says why."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.instance import socket_path
from app.settings.paths import AppPaths
from tests.cli.test_cli import (  # noqa: F401  (fixtures)
    PageServer,
    home,
    page_server,
    press_then_done,
)
from tests.fakes.foreign_user import needs_root, stranger_listening
from tests.fakes.llm_server import FakeLLMServer
from tests.mcp.helpers import data, stdio_client

pytestmark = [pytest.mark.slow, needs_root]


@pytest.fixture
def shared_tmp(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The temporary folder every user shares (sticky and open to all, as /tmp), for this test and the server."""
    shared = Path(tempfile.mkdtemp(prefix="pa-"))
    shared.chmod(0o1777)
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setenv("TMPDIR", str(shared))
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    yield shared
    shutil.rmtree(shared)


async def test_a_task_is_never_sent_to_a_socket_another_user_listens_on(
    home: Path, shared_tmp: Path, llm_server: FakeLLMServer, page_server: PageServer
) -> None:
    llm_server.fallback = press_then_done()
    panel = socket_path(AppPaths(home / "config", home / "data", home / "logs"))
    assert panel.parent.parent == shared_tmp
    with stranger_listening(panel) as stranger:
        async with stdio_client(home, llm_server) as client:
            view = data(await client.call_tool("run_task", {"task": "Press the button", "start_url": page_server.url}))
        assert stranger.received() == []

    assert view["status"] == "completed" and view["outcome"]["final_words"] == "Pressed it.", view
    assert view["where"] == "headless"
    assert view["note"].startswith("Runs headless: nothing was sent to the panel's socket, which is not yours alone.")
    assert f"{panel.parent} belongs to another user (user id 65534)" in view["note"]
