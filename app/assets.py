"""One way to reach files under resources/, from a checkout and from an installed wheel alike.

In a wheel (and an editable install) resources/ is the package ``app.resources``; in a bare checkout it is the
folder beside ``app/``.
"""

from __future__ import annotations

from functools import cache
from importlib.util import find_spec
from pathlib import Path


@cache
def resources_root() -> Path:
    # app.resources is a namespace package (data only, no __init__.py): its folder is its search location.
    spec = find_spec("app.resources")
    for location in (spec.submodule_search_locations or []) if spec else []:
        if Path(location).is_dir():
            return Path(location)
    return Path(__file__).resolve().parent.parent / "resources"


def resource_path(relative: str) -> Path:
    path = resources_root() / relative
    if not path.exists():
        raise FileNotFoundError(f"bundled resource missing: {relative} (looked in {resources_root()})")
    return path


@cache
def read_resource(relative: str) -> str:
    return resource_path(relative).read_text(encoding="utf-8")
