"""The app's own icon for the window, the taskbar and the About dialog: the SVG, plus the drawn PNG sizes that
taskbars and window switchers pick from (resources/icons/app/, made by packaging/make_icons.py)."""

from __future__ import annotations

from functools import cache

from PySide6.QtGui import QIcon

from app.assets import resource_path, resources_root


@cache
def app_icon() -> QIcon:
    icon = QIcon(str(resource_path("icons/app.svg")))
    for png in sorted((resources_root() / "icons" / "app").glob("*.png")):
        icon.addFile(str(png))
    return icon
