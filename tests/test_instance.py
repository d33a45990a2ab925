"""The panel's local socket (app/instance.py): private to the user, answered by the running panel, and a socket left
by a panel that died is not mistaken for one."""

from __future__ import annotations

import asyncio
import shutil
import socket
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.instance import Show, Shown, bring_to_front, encode, listen, open_panel, read_request, read_update, socket_path
from app.settings.paths import AppPaths


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
