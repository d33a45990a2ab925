"""An MCP client in a process of its own, as Claude Desktop is: `python -m tests.mcp.client_script TASK` starts
`python -m app mcp` over stdio (with this process's environment), calls run_task without waiting, then get_task
waiting up to 60 s for the end, and prints both answers as JSON lines on stdout.

The panel's tests use it: the SDK's client may not share the panel's process, whose Qt event loop is asyncio's."""

from __future__ import annotations

import asyncio
import json
import os
import sys

from mcp import Client, StdioServerParameters

from tests.cli.test_cli import ROOT
from tests.mcp.helpers import CALL_TIMEOUT, data, server_args


async def main(task: str) -> None:
    params = StdioServerParameters(command=sys.executable, args=server_args(), env=dict(os.environ), cwd=ROOT)
    async with Client(params, read_timeout_seconds=CALL_TIMEOUT) as client:
        first = data(await client.call_tool("run_task", {"task": task, "wait_s": 0}))
        print(json.dumps(first), flush=True)
        last = data(await client.call_tool("get_task", {"task_id": first["task_id"], "wait_s": 60}))
        print(json.dumps(last), flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
