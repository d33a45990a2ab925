"""The app's icon in every size the systems ask for (tools/make_icons.py draws them from app.svg), the Linux
desktop entry and AppStream metainfo as shipped, and the icon the window and the taskbar get."""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path

from PySide6.QtWidgets import QApplication

from app.assets import resources_root
from app.ui.app_icon import app_icon

ROOT = Path(__file__).resolve().parents[2]
ICONS = resources_root() / "icons"
LINUX = ROOT / "packaging" / "linux"


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_every_png_size_is_there_and_square() -> None:
    for size in (16, 24, 32, 48, 64, 128, 256, 512):
        assert png_size((ICONS / "app" / f"{size}.png").read_bytes()) == (size, size)
    assert (ICONS / "app.png").read_bytes() == (ICONS / "app" / "256.png").read_bytes()


def test_the_windows_and_macos_icons_hold_their_sizes() -> None:
    ico = (ICONS / "app.ico").read_bytes()
    reserved, kind, count = struct.unpack("<HHH", ico[:6])
    assert (reserved, kind) == (0, 1)
    sizes = []
    for entry in range(count):
        width, _height, _colours, _reserved, _planes, _bits, length, offset = struct.unpack(
            "<BBBBHHII", ico[6 + 16 * entry : 22 + 16 * entry]
        )
        assert png_size(ico[offset : offset + length]) == ((width or 256), (width or 256))
        sizes.append(width or 256)
    assert sizes == [16, 24, 32, 48, 64, 256]
    icns = (ICONS / "app.icns").read_bytes()
    assert icns[:4] == b"icns" and struct.unpack(">I", icns[4:8])[0] == len(icns)
    assert b"ic09" in icns and b"ic10" not in icns  # 512 px, and no 1024 px picture claimed


def test_the_window_icon_offers_the_drawn_sizes(qapp: QApplication) -> None:
    sizes = {(size.width(), size.height()) for size in app_icon().availableSizes()}
    assert {(16, 16), (32, 32), (48, 48), (256, 256)} <= sizes


def test_the_desktop_entry_and_the_metainfo_validate() -> None:
    subprocess.run(["desktop-file-validate", str(LINUX / "page-agent-desktop.desktop")], check=True)
    metainfo = LINUX / "io.github.page_agent_desktop.page_agent_desktop.metainfo.xml"
    done = subprocess.run(["appstreamcli", "validate", "--no-net", "--pedantic", str(metainfo)], capture_output=True)
    assert done.returncode == 0, done.stdout
