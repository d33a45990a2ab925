"""The app's own icon for the window, the taskbar and the About dialog: the sizes drawn from app.svg
(resources/icons/app/, made by tools/make_icons.py), from which taskbars and window switchers pick."""

from __future__ import annotations

from functools import cache

from PySide6.QtGui import QIcon

from app.assets import resource_path


@cache
def app_icon() -> QIcon:
    icon = QIcon()
    for png in sorted(resource_path("icons/app").glob("*.png")):
        icon.addFile(str(png))
    return icon
