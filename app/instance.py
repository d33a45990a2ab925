"""One running panel per user, reached over a local socket only that user can open.

The panel listens on a socket in the user's runtime folder (a folder of mode 0700, checked and set), one per data
folder: a PAGE_AGENT_HOME of its own is an instance of its own, with a Chromium profile of its own. Two
things knock on it: a second launch of the desktop app (``show``: the running panel comes to the front, and no
second Chromium starts), and ``page-agent-desktop mcp`` (``run``: an MCP client's task runs in the panel, where the
person sees it and can stop it, take over, or finish a hand-off).

Messages are JSON objects, one per line, typed by the pydantic models below. ``run`` keeps its connection open:
the panel sends ``PanelUpdate`` lines until ``finished``; the client may send ``cancel`` on it meanwhile. No Qt here.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import socket
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, Field, TypeAdapter

from app.settings.paths import AppPaths, runtime_dir

# A panel that does not answer within this long is treated as not there (a stale socket, a hung process).
KNOCK_TIMEOUT = 2.0
# One message: a task's text and a result's final words are far below this.
LINE_LIMIT = 1 << 20


class Show(BaseModel):
    op: Literal["show"] = "show"


class RunRequest(BaseModel):
    op: Literal["run"] = "run"
    task: str
    start_url: str = ""
    client: str = ""  # the MCP client's name, for the timeline ("from Claude Desktop")


class Cancel(BaseModel):
    op: Literal["cancel"] = "cancel"


Request = Annotated[Show | RunRequest | Cancel, Field(discriminator="op")]


class Shown(BaseModel):
    kind: Literal["shown"] = "shown"


class Refused(BaseModel):
    kind: Literal["refused"] = "refused"
    reason: str


class Progress(BaseModel):
    """The run moved on: ``steps`` taken so far, ``words`` what it does now; ``needs_person`` while it waits for the
    person's hand-off (``reason`` says what they are asked to do)."""

    kind: Literal["progress"] = "progress"
    steps: int
    words: str
    needs_person: bool = False
    reason: str = ""


class Finished(BaseModel):
    kind: Literal["finished"] = "finished"
    status: str
    success: bool
    data: str
    steps: int
    run_id: str = ""  # the run in History the task was saved to ("" when it was not)


PanelUpdate = Annotated[Shown | Refused | Progress | Finished, Field(discriminator="kind")]
PanelHandler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
_REQUEST: TypeAdapter[Show | RunRequest | Cancel] = TypeAdapter(Request)
_UPDATE: TypeAdapter[Shown | Refused | Progress | Finished] = TypeAdapter(PanelUpdate)


def socket_path(paths: AppPaths) -> Path:
    """The panel's socket for this data folder (short: a socket's path is limited to about 100 bytes)."""
    digest = hashlib.sha256(str(paths.data_dir.resolve()).encode()).hexdigest()[:16]
    return runtime_dir() / f"panel-{digest}.sock"


def private_folder(folder: Path) -> Path:
    """``folder``, created if needed, of mode 0700 and owned by this user (ValueError otherwise)."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    info = folder.stat()
    if info.st_uid != os.getuid():
        raise ValueError(f"{folder} belongs to another user; the panel cannot listen there.")
    if stat.S_IMODE(info.st_mode) != 0o700:
        folder.chmod(0o700)
    return folder


def encode(message: BaseModel) -> bytes:
    return message.model_dump_json().encode() + b"\n"


def read_request(line: bytes) -> Show | RunRequest | Cancel:
    return _REQUEST.validate_json(line)


def read_update(line: bytes) -> Shown | Refused | Progress | Finished:
    return _UPDATE.validate_json(line)


def bring_to_front(path: Path) -> bool:
    """A second launch: ask the running panel to come to the front. True when one answered (this launch then ends);
    False when none is running. Blocking and short: before the panel shows or Chromium starts."""
    if not hasattr(socket, "AF_UNIX") or not path.exists():
        return False
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(KNOCK_TIMEOUT)
        try:
            sock.connect(str(path))
            sock.sendall(encode(Show()))
            with sock.makefile("rb") as answers:
                line = answers.readline(LINE_LIMIT)
        except OSError:
            return False
    try:
        return isinstance(read_update(line), Shown)
    except ValueError:
        return False


async def open_panel(path: Path) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
    """A connection to the running panel, or None when no panel is running."""
    if not hasattr(socket, "AF_UNIX"):
        return None
    try:
        return await asyncio.wait_for(asyncio.open_unix_connection(str(path), limit=LINE_LIMIT), KNOCK_TIMEOUT)
    except (OSError, TimeoutError):
        return None


async def listen(handler: PanelHandler, path: Path) -> asyncio.AbstractServer:
    """Serve ``handler`` on the panel's socket: a stale socket from a panel that died is replaced; the folder is
    private to the user, and the socket itself readable and writable by the user only. OSError where there are no
    Unix sockets (Windows): there the app runs without a single instance, and MCP tasks run headless."""
    if not hasattr(socket, "AF_UNIX"):
        raise OSError("this system has no Unix sockets")
    await asyncio.to_thread(_clear, path)
    server = await asyncio.start_unix_server(handler, str(path), limit=LINE_LIMIT)
    await asyncio.to_thread(path.chmod, 0o600)
    return server


def _clear(path: Path) -> None:
    """The socket's folder, private; a socket left by a panel that died, gone."""
    private_folder(path.parent)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
