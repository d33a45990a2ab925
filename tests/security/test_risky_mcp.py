"""A risky moment in a task from an MCP client, with no panel open: nobody can be asked, so it is refused, and the
client is never asked. The page's button asks confirm("Delete all 120 customers?"); the model obeys the page."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_cli import home  # noqa: F401  (fixture)
from tests.fakes.llm_server import FakeLLMServer
from tests.mcp.helpers import data, stdio_client
from tests.security.conftest import HostileSite
from tests.security.test_risky_cli import DELETED, tidy_up_then_done, told_to_model

pytestmark = pytest.mark.slow


async def test_without_a_panel_a_confirm_is_refused_not_asked_of_the_client(
    home: Path, llm_server: FakeLLMServer, hostile: HostileSite
) -> None:
    tidy_up_then_done(llm_server)

    # The SDK's client here answers no elicitation: the question could only have gone to the panel or nowhere.
    async with stdio_client(home, llm_server) as client:
        result = data(
            await client.call_tool(
                "run_task", {"task": "Look at my customers", "start_url": f"{hostile.page}/risky-confirm.html"}
            )
        )

    assert result["status"] == "completed"
    assert not hostile.received(DELETED)
    assert "the user answered Cancel (not allowed)" in told_to_model(llm_server)
