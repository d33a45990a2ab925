"""The .deb and the tarball as a user receives them: the .deb's control fields and contents (the app under /opt, the
command on the PATH, the desktop entry, hicolor icons, AppStream metainfo, no maintainer scripts), unpacked into a
throw-away root where the app runs and the desktop entry and the metainfo validate."""

from __future__ import annotations

import os
import subprocess
import tarfile
from pathlib import Path

import pytest

from tests.packaging.conftest import Built
from tests.packaging.smoke import bare_env

pytestmark = pytest.mark.timeout(1800)

METAINFO = "io.github.page_agent_desktop.page_agent_desktop.metainfo.xml"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def deb_field(deb: Path, field: str) -> str:
    return subprocess.run(
        ["dpkg-deb", "-f", str(deb), field], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_the_control_fields(built: Built) -> None:
    assert deb_field(built.deb, "Package") == "page-agent-desktop"
    assert deb_field(built.deb, "Version") == built.version
    assert deb_field(built.deb, "Architecture") == "amd64"
    depends = deb_field(built.deb, "Depends")
    # A Chromium-family browser, whichever the system has.
    assert "chromium | google-chrome-stable | microsoft-edge-stable | chromium-browser" in depends
    assert depends.startswith("libc6 (>= 2.")
    assert int(deb_field(built.deb, "Installed-Size")) > 100_000  # in KiB: the app is inside


def test_no_maintainer_scripts(built: Built) -> None:
    """dpkg's triggers refresh the menu, icons and AppStream; nothing runs as root at install."""
    listing = subprocess.run(["dpkg-deb", "--ctrl-tarfile", str(built.deb)], capture_output=True, check=True).stdout
    names = subprocess.run(["tar", "-t"], input=listing, capture_output=True, check=True).stdout.decode().split()
    assert sorted(n for n in names if n not in ("./",)) == ["./control"]


def test_contents_and_a_throwaway_install(built: Built, tmp_path: Path) -> None:
    listing = subprocess.run(["dpkg-deb", "-c", str(built.deb)], capture_output=True, text=True, check=True).stdout
    lines = listing.splitlines()
    assert all(" root/root " in line for line in lines), "every file owned by root"
    root = tmp_path / "root"
    subprocess.run(["dpkg-deb", "-x", str(built.deb), str(root)], check=True)
    app = root / "opt" / "page-agent-desktop" / "page-agent-desktop"
    assert app.is_file() and os.access(app, os.X_OK)
    command = root / "usr" / "bin" / "page-agent-desktop"
    assert command.is_symlink() and os.readlink(command) == "/opt/page-agent-desktop/page-agent-desktop"
    entry = root / "usr" / "share" / "applications" / "page-agent-desktop.desktop"
    text = entry.read_text(encoding="utf-8")
    assert "\nExec=page-agent-desktop\n" in text and "\nIcon=page-agent-desktop\n" in text
    for size in ICON_SIZES:
        assert (root / f"usr/share/icons/hicolor/{size}x{size}/apps/page-agent-desktop.png").is_file()
    assert (root / "usr/share/icons/hicolor/scalable/apps/page-agent-desktop.svg").is_file()
    assert (root / "usr/share/doc/page-agent-desktop/copyright").is_file()
    metainfo = root / "usr" / "share" / "metainfo" / METAINFO
    subprocess.run(["desktop-file-validate", str(entry)], check=True)
    checked = subprocess.run(
        ["appstreamcli", "validate", "--no-net", "--pedantic", str(metainfo)], capture_output=True, text=True
    )
    assert checked.returncode == 0 and "Validation was successful." in checked.stdout, checked.stdout
    assert '<launchable type="desktop-id">page-agent-desktop.desktop</launchable>' in metainfo.read_text()
    # The installed copy runs from where the package put it.
    done = subprocess.run([str(app), "--version"], env=bare_env(tmp_path), capture_output=True, text=True, timeout=60)
    assert done.stdout == f"page-agent-desktop {built.version}\n"


def test_the_tarball_holds_the_app_in_a_versioned_folder(built: Built) -> None:
    with tarfile.open(built.tarball) as archive:
        names = archive.getnames()
        member = archive.getmember(f"page-agent-desktop-{built.version}/page-agent-desktop")
    assert member.mode & 0o111 and member.uid == 0
    assert all(name.startswith(f"page-agent-desktop-{built.version}") for name in names)
