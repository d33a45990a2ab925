"""The panel's local socket (app/instance.py): private to the user, answered by the running panel, and a socket left
by a panel that died is not mistaken for one."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.instance import (
    Show,
    Shown,
    UntrustedPanel,
    bring_to_front,
    encode,
    listen,
    open_panel,
    private_folder,
    read_request,
    read_update,
    socket_path,
)
from app.settings.paths import AppPaths
from tests.fakes.foreign_user import NOBODY, needs_root, stranger_knocks, stranger_listening


@pytest.fixture
def path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    # A runtime folder as short as /run/user/1000: pytest's own folders are too long for a socket's path.
    runtime = Path(tempfile.mkdtemp(prefix="pa-"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    yield socket_path(AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs"))
    shutil.rmtree(runtime)


async def answer_show(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    assert isinstance(read_request(await reader.readline()), Show)
    writer.write(encode(Shown()))
    await writer.drain()
    writer.close()


async def test_the_running_panel_answers_a_second_launch_over_a_private_socket(path: Path) -> None:
    server = await listen(answer_show, path)
    try:
        modes = await asyncio.to_thread(lambda: (path.parent.stat().st_mode, path.stat().st_mode))
        assert [stat.S_IMODE(mode) for mode in modes] == [0o700, 0o600]
        assert await asyncio.to_thread(bring_to_front, path)
    finally:
        server.close()
        await server.wait_closed()


async def test_no_panel_or_a_dead_ones_socket_is_no_panel(path: Path) -> None:
    assert not await asyncio.to_thread(bring_to_front, path)
    assert await open_panel(path) is None
    path.parent.mkdir(parents=True)
    dead = socket.socket(socket.AF_UNIX)
    dead.bind(str(path))  # bound and never listening: what a panel that died leaves behind
    dead.close()
    assert not await asyncio.to_thread(bring_to_front, path)
    assert await open_panel(path) is None
    server = await listen(answer_show, path)  # the next panel replaces it
    try:
        assert await asyncio.to_thread(bring_to_front, path)
    finally:
        server.close()
        await server.wait_closed()


def test_each_data_folder_has_its_own_short_socket(tmp_path: Path) -> None:
    one = socket_path(AppPaths(tmp_path / "c", tmp_path / ("a" * 60) / "data", tmp_path / "l"))
    other = socket_path(AppPaths(tmp_path / "c", tmp_path / "data", tmp_path / "l"))
    assert one != other and one.parent == other.parent
    assert len(one.name) < 40


def test_a_line_that_is_not_a_message_is_refused() -> None:
    with pytest.raises(ValueError):
        read_request(b'{"op": "format-disk"}\n')
    with pytest.raises(ValueError):
        read_update(b"not json\n")


@pytest.fixture
def shared_tmp(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """No XDG_RUNTIME_DIR: the socket's folder falls back to the temporary folder, which every user shares (as /tmp,
    sticky and open to all)."""
    shared = Path(tempfile.mkdtemp(prefix="pa-"))
    shared.chmod(0o1777)
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    yield shared
    shutil.rmtree(shared)


def fallback_path(tmp_path: Path, shared: Path) -> Path:
    path = socket_path(AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs"))
    assert path.parent.parent == shared  # the temporary folder's fallback
    return path


@needs_root
@pytest.mark.parametrize(
    ("owner", "mode", "why"),
    [(NOBODY, 0o777, "belongs to another user"), (0, 0o777, r"Other users can write in .* \(mode 0777\)")],
    ids=["another-users-folder", "an-open-folder"],
)
async def test_a_socket_in_a_folder_that_is_not_ours_alone_is_never_knocked_on(
    tmp_path: Path, shared_tmp: Path, owner: int, mode: int, why: str
) -> None:
    """Another user made the folder first (or it is open to all) and listens where the panel would: a second launch
    and the MCP server send them nothing, and the panel does not listen there either."""
    path = fallback_path(tmp_path, shared_tmp)
    with stranger_listening(path) as stranger:
        os.chown(path.parent, owner, owner)
        path.parent.chmod(mode)
        with pytest.raises(UntrustedPanel, match=why):
            await asyncio.to_thread(bring_to_front, path)
        with pytest.raises(UntrustedPanel, match=why):
            await open_panel(path)
        if owner != 0:
            with pytest.raises(ValueError, match="belongs to another user"):
                await listen(answer_show, path)
        assert stranger.received() == []


@needs_root
async def test_a_socket_served_by_another_users_process_is_refused_before_anything_is_sent(
    tmp_path: Path, shared_tmp: Path
) -> None:
    """The folder and the socket are ours (0700, our user), but the process listening is not: the kernel's word on
    the peer (SO_PEERCRED) decides."""
    path = fallback_path(tmp_path, shared_tmp)
    elsewhere = shared_tmp / "theirs" / "s.sock"
    with stranger_listening(elsewhere) as stranger:
        await asyncio.to_thread(private_folder, path.parent)
        elsewhere.rename(path)  # what a race on the folder could leave: their listening socket under our name
        os.chown(path, os.getuid(), os.getgid())
        with pytest.raises(UntrustedPanel, match=r"runs as another user \(user id 65534\)"):
            await asyncio.to_thread(bring_to_front, path)
        with pytest.raises(UntrustedPanel, match=r"runs as another user \(user id 65534\)"):
            await open_panel(path)
        await asyncio.to_thread(stranger.wait_closed, 2)  # both connected, then hung up without a word
        assert stranger.received() == []


@needs_root
async def test_the_panel_answers_no_knock_from_another_users_process(path: Path) -> None:
    """Even where the socket's own mode is not enforced (some systems ignore it), the panel serves only its user."""
    server = await listen(answer_show, path)
    try:
        for folder in (path.parent.parent, path.parent):
            os.chmod(folder, 0o755)
        os.chmod(path, 0o777)
        answer = await asyncio.to_thread(stranger_knocks, path, encode(Show()))
        assert answer == b""  # hung up: no "shown"
        assert await asyncio.to_thread(bring_to_front, path)  # the panel's own user is still answered
    finally:
        server.close()
        await server.wait_closed()
