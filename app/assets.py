"""One way to reach files under resources/, from a checkout and from an installed wheel alike.

In a wheel (and an editable install) resources/ is the package ``app.resources``; in a bare checkout it is the
folder beside ``app/``.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path


@cache
def resources_root() -> Path:
    try:
        root = Path(str(resources.files("app.resources")))
        if root.is_dir():
            return root
    except ModuleNotFoundError:
        pass
    return Path(__file__).resolve().parent.parent / "resources"


def resource_path(relative: str) -> Path:
    path = resources_root() / relative
    if not path.exists():
        raise FileNotFoundError(f"bundled resource missing: {relative} (looked in {resources_root()})")
    return path


@cache
def read_resource(relative: str) -> str:
    return resource_path(relative).read_text(encoding="utf-8")
