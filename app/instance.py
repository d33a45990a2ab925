"""One running panel per user, reached over a local socket only that user can open.

The panel listens on a socket in the user's runtime folder (a folder of mode 0700, checked and set), one per data
folder: a PAGE_AGENT_HOME of its own is an instance of its own, with a Chromium profile of its own. Two things knock
on it: a second launch of the desktop app (``show``: the running panel comes to the front, and no second Chromium
starts), and ``page-agent-desktop mcp`` (``run``: an MCP client's task runs in the panel, where the person sees it
and can stop it, take over, or finish a hand-off).

Whoever knocks checks before sending anything that the folder is this user's alone (not a link, owned by them, no
other user can write in it), so is the socket, and that the process listening runs as this user (``peer_uid``:
SO_PEERCRED on Linux, LOCAL_PEERCRED on macOS); the panel checks the last of whoever knocks. Without
XDG_RUNTIME_DIR the folder is in the shared temporary folder, where another user could have made it first: then
nothing is sent (``UntrustedPanel``).

Messages are JSON objects, one per line, typed by the pydantic models below. ``run`` keeps its connection open:
the panel sends ``PanelUpdate`` lines until ``finished``; the client may send ``cancel`` on it meanwhile. No Qt here.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import socket
import stat
import struct
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, Field, TypeAdapter

from app.core.types import RunOutcome
from app.run_progress import RunProgress
from app.settings.paths import AppPaths, runtime_dir

log = logging.getLogger(__name__)

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


class Finished(BaseModel):
    """The run ended so, with the agent's final words (``data``)."""

    kind: Literal["finished"] = "finished"
    outcome: RunOutcome
    data: str
    steps: int
    run_id: str = ""  # the run in History the task was saved to ("" when it was not)


PanelUpdate = Annotated[Shown | Refused | RunProgress | Finished, Field(discriminator="kind")]
PanelHandler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
_REQUEST: TypeAdapter[Show | RunRequest | Cancel] = TypeAdapter(Request)
_UPDATE: TypeAdapter[Shown | Refused | RunProgress | Finished] = TypeAdapter(PanelUpdate)


def socket_path(paths: AppPaths) -> Path:
    """The panel's socket for this data folder (short: a socket's path is limited to about 100 bytes)."""
    digest = hashlib.sha256(str(paths.data_dir.resolve()).encode()).hexdigest()[:16]
    return runtime_dir() / f"panel-{digest}.sock"


class UntrustedPanel(Exception):
    """The panel's socket, its folder or the process listening is not this user's alone: nothing was sent there.
    The message says why, in plain words."""


def private_folder(folder: Path) -> Path:
    """``folder``, created if needed, of mode 0700 and owned by this user (ValueError otherwise)."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    info = folder.lstat()
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise ValueError(f"{folder} is not a folder (a link?); the panel cannot listen there.")
    if info.st_uid != os.getuid():
        raise ValueError(f"{folder} belongs to another user; the panel cannot listen there.")
    if stat.S_IMODE(info.st_mode) != 0o700:
        folder.chmod(0o700)
    return folder


def peer_uid(sock: socket.socket) -> int | None:
    """The user id of the process at the other end of a connected Unix socket, from the kernel; None where the
    system does not tell it (then the folder's and the socket's owner are all that is checked)."""
    if sys.platform == "linux":
        _pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
        return int(uid)
    if sys.platform == "darwin":  # struct xucred {u_int cr_version; uid_t cr_uid; ...} at level SOL_LOCAL (0)
        return int(struct.unpack_from("=II", sock.getsockopt(0, socket.LOCAL_PEERCRED, 76))[1])
    return None


def check_panel(path: Path) -> bool:
    """Whether a panel's socket is there to knock on: False when there is none; UntrustedPanel when the socket or
    its folder is not this user's alone (another user could be listening: nothing may be sent)."""
    if not hasattr(socket, "AF_UNIX"):
        return False
    try:
        folder = path.parent.lstat()
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(folder.st_mode) or not stat.S_ISDIR(folder.st_mode):
        raise UntrustedPanel(f"{path.parent} is not a folder but a link or a file.")
    if folder.st_uid != os.getuid():
        raise UntrustedPanel(f"{path.parent} belongs to another user (user id {folder.st_uid}).")
    if stat.S_IMODE(folder.st_mode) & 0o022:  # they could put a socket of theirs in it
        raise UntrustedPanel(f"Other users can write in {path.parent} (mode {stat.S_IMODE(folder.st_mode):04o}).")
    try:
        sock = path.lstat()
    except FileNotFoundError:
        return False
    if not stat.S_ISSOCK(sock.st_mode) or sock.st_uid != os.getuid():
        raise UntrustedPanel(f"{path} is not a socket of this user's.")
    return True


def check_peer(sock: socket.socket, path: Path) -> None:
    """UntrustedPanel when the process at the other end of ``sock`` runs as another user."""
    uid = peer_uid(sock)
    if uid is not None and uid != os.getuid():
        raise UntrustedPanel(f"The process at the other end of {path} runs as another user (user id {uid}).")


def encode(message: BaseModel) -> bytes:
    return message.model_dump_json().encode() + b"\n"


def read_request(line: bytes) -> Show | RunRequest | Cancel:
    return _REQUEST.validate_json(line)


def read_update(line: bytes) -> Shown | Refused | RunProgress | Finished:
    return _UPDATE.validate_json(line)


def bring_to_front(path: Path) -> bool:
    """A second launch: ask the running panel to come to the front. True when one answered (this launch then ends);
    False when none is running; UntrustedPanel (nothing sent) when the socket is not this user's alone. Blocking and
    short: before the panel shows or Chromium starts."""
    if not check_panel(path):
        return False
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(KNOCK_TIMEOUT)
        try:
            sock.connect(str(path))
            check_peer(sock, path)
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
    """A connection to the running panel, or None when no panel is running; UntrustedPanel (nothing sent) when the
    socket, its folder or the process listening is not this user's alone."""
    if not await asyncio.to_thread(check_panel, path):
        return None
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_unix_connection(str(path), limit=LINE_LIMIT), KNOCK_TIMEOUT
        )
    except (OSError, TimeoutError):
        return None
    try:
        check_peer(writer.get_extra_info("socket"), path)
    except BaseException:
        writer.close()
        raise
    return reader, writer


async def listen(handler: PanelHandler, path: Path) -> asyncio.AbstractServer:
    """Serve ``handler`` on the panel's socket: a stale socket from a panel that died is replaced; the folder is
    private to the user, and the socket itself readable and writable by the user only. OSError where there are no
    Unix sockets (Windows): there the app runs without a single instance, and MCP tasks run headless."""
    if not hasattr(socket, "AF_UNIX"):
        raise OSError("this system has no Unix sockets")
    await asyncio.to_thread(_clear, path)

    async def ours_only(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            check_peer(writer.get_extra_info("socket"), path)
        except UntrustedPanel as exc:
            log.warning("a knock on the panel's socket was refused: %s", exc)
            writer.close()
            return
        await handler(reader, writer)

    server = await asyncio.start_unix_server(ours_only, str(path), limit=LINE_LIMIT)
    await asyncio.to_thread(path.chmod, 0o600)
    return server


def _clear(path: Path) -> None:
    """The socket's folder, private; a socket left by a panel that died, gone."""
    private_folder(path.parent)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
