"""Draws the app's icon (resources/icons/app.svg) at every size the systems ask for, with Qt's SVG renderer.

    .venv/bin/python tools/make_icons.py          (after changing app.svg; writes the files below, the same each time)

resources/icons/app/<N>.png   16 to 512 pixels: the window and taskbar (app/ui/app.py), the Linux desktop entry
                              (hicolor theme); resources/icons/app.png is the 256-pixel one
resources/icons/app.ico       Windows: the executables, the installer and its shortcuts (PNG entries, Vista and later)
resources/icons/app.icns      macOS: the .app and the disk image
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons"
PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 256)
# icns chunk types holding PNG data, by pixel size (the @2x types reuse the larger pictures).
ICNS_TYPES = ((b"icp4", 16), (b"icp5", 32), (b"icp6", 64), (b"ic07", 128), (b"ic08", 256), (b"ic09", 512),
              (b"ic11", 32), (b"ic12", 64), (b"ic13", 256), (b"ic14", 512))  # fmt: skip


def render(renderer: QSvgRenderer, size: int) -> bytes:
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(data.data())


def ico(pngs: dict[int, bytes]) -> bytes:
    """An ICO file whose entries are PNG pictures (a width or height of 256 is written as 0)."""
    header = struct.pack("<HHH", 0, 1, len(ICO_SIZES))
    offset = len(header) + 16 * len(ICO_SIZES)
    entries, pictures = b"", b""
    for size in ICO_SIZES:
        png = pngs[size]
        side = size % 256
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(png), offset + len(pictures))
        pictures += png
    return header + entries + pictures


def icns(pngs: dict[int, bytes]) -> bytes:
    chunks = b"".join(kind + struct.pack(">I", 8 + len(pngs[size])) + pngs[size] for kind, size in ICNS_TYPES)
    return b"icns" + struct.pack(">I", 8 + len(chunks)) + chunks


def main() -> None:
    app = QGuiApplication(sys.argv[:1])  # noqa: F841  (Qt's painting needs the application)
    renderer = QSvgRenderer(str(ICONS / "app.svg"))
    if not renderer.isValid():
        sys.exit(f"cannot read {ICONS / 'app.svg'}")
    pngs = {size: render(renderer, size) for size in sorted({*PNG_SIZES, *ICO_SIZES})}
    (ICONS / "app").mkdir(exist_ok=True)
    for size in PNG_SIZES:
        (ICONS / "app" / f"{size}.png").write_bytes(pngs[size])
    (ICONS / "app.png").write_bytes(pngs[256])
    (ICONS / "app.ico").write_bytes(ico(pngs))
    (ICONS / "app.icns").write_bytes(icns(pngs))
    print(f"wrote {len(PNG_SIZES)} PNG sizes, app.png, app.ico and app.icns in {ICONS}")


if __name__ == "__main__":
    main()
