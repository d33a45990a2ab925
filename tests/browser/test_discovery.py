"""Finding the user's browser on Windows, macOS and Linux: the one table, searched against fake file systems."""

from __future__ import annotations

import stat
from collections.abc import Iterable
from pathlib import Path, PurePath, PurePosixPath, PureWindowsPath

import pytest

from app.browser.chromium import ChromiumNotFoundError, locate
from app.browser.discovery import (
    INSTALL_MARKER,
    BrowserKind,
    FoundBrowser,
    Host,
    RealFileSystem,
    System,
    discover,
)


class FakeFiles:
    """A file system holding only the given executables (and the folders above them). A browser in a Playwright
    folder gets the marker of a finished download unless ``plain_files`` says otherwise."""

    def __init__(self, system: System, executables: Iterable[str], plain_files: Iterable[str] | None = None) -> None:
        self._pure: type[PurePath] = PureWindowsPath if system == "win32" else PurePosixPath
        self.executables = {str(self._pure(p)) for p in executables}
        if plain_files is None:
            plain_files = [str(self._marker(p)) for p in self.executables if self._marker(p) is not None]
        self._all = self.executables | {str(self._pure(p)) for p in plain_files}

    def _marker(self, executable: str) -> PurePath | None:
        for folder in self._pure(executable).parents:
            if folder.name.startswith("chromium-"):
                return folder / INSTALL_MARKER
        return None

    def is_executable(self, path: str) -> bool:
        return str(self._pure(path)) in self.executables

    def list_dir(self, path: str) -> list[str]:
        folder = self._pure(path)
        names = set()
        for file in self._all:
            pure = self._pure(file)
            if folder in pure.parents:
                names.add(pure.relative_to(folder).parts[0])
        return sorted(names)


WINDOWS_ENV = {
    "LOCALAPPDATA": r"C:\Users\ann\AppData\Local",
    "PROGRAMFILES": r"C:\Program Files",
    "PROGRAMFILES(X86)": r"C:\Program Files (x86)",
    "HOMEDRIVE": "C:",
    "PATH": r"C:\Windows\system32;C:\Windows",
}
WINDOWS_DATA = r"C:\Users\ann\AppData\Local\page-agent-desktop\page-agent-desktop"
MAC_HOME = "/Users/ann"
MAC_DATA = "/Users/ann/Library/Application Support/page-agent-desktop"
LINUX_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin"}
LINUX_HOME = "/home/ann"
LINUX_DATA = "/home/ann/.local/share/page-agent-desktop"


def windows(*executables: str, env: dict[str, str] | None = None) -> FoundBrowser | None:
    files = FakeFiles("win32", executables)
    return discover(Host("win32", WINDOWS_ENV if env is None else env, r"C:\Users\ann", WINDOWS_DATA, files))


def mac(*executables: str) -> FoundBrowser | None:
    return discover(Host("darwin", {"PATH": "/usr/bin:/bin"}, MAC_HOME, MAC_DATA, FakeFiles("darwin", executables)))


def linux(
    *executables: str, env: dict[str, str] | None = None, plain: Iterable[str] | None = None
) -> FoundBrowser | None:
    files = FakeFiles("linux", executables, plain)
    return discover(Host("linux", LINUX_ENV if env is None else env, LINUX_HOME, LINUX_DATA, files))


# --- Windows -----------------------------------------------------------------------------------------------------

WIN_CHROME_USER = r"C:\Users\ann\AppData\Local\Google\Chrome\Application\chrome.exe"
WIN_CHROME = r"C:\Program Files\Google\Chrome\Application\chrome.exe"
WIN_EDGE = r"C:\Program Files (x86)\Microsoft\Edge\Application\msedge.exe"
WIN_CHROMIUM = r"C:\Users\ann\AppData\Local\Chromium\Application\chrome.exe"
WIN_PLAYWRIGHT = r"C:\Users\ann\AppData\Local\ms-playwright\chromium-1255\chrome-win64\chrome.exe"
WIN_DOWNLOADED = WINDOWS_DATA + r"\browsers\chromium-1255\chrome-win64\chrome.exe"


def test_windows_takes_chrome_then_edge_then_chromium_then_playwrights_browser() -> None:
    everything = [WIN_CHROME, WIN_EDGE, WIN_CHROMIUM, WIN_PLAYWRIGHT]
    assert windows(*everything) == FoundBrowser(WIN_CHROME, BrowserKind.CHROME)
    assert windows(*everything[1:]) == FoundBrowser(WIN_EDGE, BrowserKind.EDGE)
    assert windows(*everything[2:]) == FoundBrowser(WIN_CHROMIUM, BrowserKind.CHROMIUM)
    assert windows(*everything[3:]) == FoundBrowser(WIN_PLAYWRIGHT, BrowserKind.PLAYWRIGHT)
    assert windows() is None


def test_windows_finds_a_per_user_chrome_first_and_edge_in_program_files_x86() -> None:
    assert windows(WIN_CHROME, WIN_CHROME_USER) == FoundBrowser(WIN_CHROME_USER, BrowserKind.CHROME)
    assert windows(WIN_EDGE) == FoundBrowser(WIN_EDGE, BrowserKind.EDGE)


def test_windows_without_program_files_variables_looks_under_the_home_drive() -> None:
    env = {"HOMEDRIVE": "D:", "PATH": ""}
    edge = r"D:\Program Files\Microsoft\Edge\Application\msedge.exe"
    assert windows(edge, env=env) == FoundBrowser(edge, BrowserKind.EDGE)


def test_a_browser_the_app_downloaded_comes_before_playwrights_own_folder() -> None:
    assert windows(WIN_PLAYWRIGHT, WIN_DOWNLOADED) == FoundBrowser(WIN_DOWNLOADED, BrowserKind.DOWNLOADED)


# --- macOS -------------------------------------------------------------------------------------------------------

MAC_CHROME = "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"
MAC_USER_CHROME = "/Users/ann/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"
MAC_EDGE = "/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge"
MAC_CHROMIUM = "/Users/ann/Applications/Chromium.app/Contents/MacOS/Chromium"
MAC_PLAYWRIGHT = (
    "/Users/ann/Library/Caches/ms-playwright/chromium-1255/chrome-mac-arm64/"
    "Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing"
)


def test_macos_looks_in_applications_and_the_users_applications() -> None:
    assert mac(MAC_CHROME, MAC_EDGE) == FoundBrowser(MAC_CHROME, BrowserKind.CHROME)
    assert mac(MAC_USER_CHROME, MAC_EDGE) == FoundBrowser(MAC_USER_CHROME, BrowserKind.CHROME)
    assert mac(MAC_EDGE, MAC_CHROMIUM) == FoundBrowser(MAC_EDGE, BrowserKind.EDGE)
    assert mac(MAC_CHROMIUM, MAC_PLAYWRIGHT) == FoundBrowser(MAC_CHROMIUM, BrowserKind.CHROMIUM)
    assert mac(MAC_PLAYWRIGHT) == FoundBrowser(MAC_PLAYWRIGHT, BrowserKind.PLAYWRIGHT)
    assert mac() is None


# --- Linux -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/usr/bin/chromium",  # Debian, Ubuntu's deb, Arch
        "/usr/bin/chromium-browser",  # Fedora
        "/usr/lib64/chromium-browser/chromium-browser",  # Fedora's binary
        "/snap/bin/chromium",
        "/var/lib/flatpak/exports/bin/org.chromium.Chromium",
        "/home/ann/.local/share/flatpak/exports/bin/org.chromium.Chromium",
        "/usr/local/bin/chromium",  # on the PATH
    ],
)
def test_linux_finds_the_systems_chromium_wherever_the_distribution_puts_it(path: str) -> None:
    assert linux(path) == FoundBrowser(path, BrowserKind.CHROMIUM)


def test_linux_takes_chrome_then_edge_then_chromium() -> None:
    chrome, edge, chromium = "/opt/google/chrome/chrome", "/opt/microsoft/msedge/msedge", "/usr/bin/chromium"
    assert linux(chromium, edge, chrome) == FoundBrowser(chrome, BrowserKind.CHROME)
    assert linux(chromium, edge) == FoundBrowser(edge, BrowserKind.EDGE)
    assert linux("/usr/local/bin/google-chrome", chromium) == FoundBrowser(
        "/usr/local/bin/google-chrome", BrowserKind.CHROME
    )


def test_a_file_that_cannot_be_run_is_passed_over() -> None:
    assert linux("/snap/bin/chromium", plain=["/usr/bin/chromium"]) == FoundBrowser(
        "/snap/bin/chromium", BrowserKind.CHROMIUM
    )


def test_playwrights_folder_takes_the_newest_revision_and_follows_its_variables() -> None:
    old = "/home/ann/.cache/ms-playwright/chromium-1100/chrome-linux/chrome"
    new = "/home/ann/.cache/ms-playwright/chromium-1255/chrome-linux64/chrome"
    shell = "/home/ann/.cache/ms-playwright/chromium_headless_shell-1300/chrome-linux64/chrome"
    assert linux(old, new, shell) == FoundBrowser(new, BrowserKind.PLAYWRIGHT)
    moved = "/srv/browsers/chromium-1255/chrome-linux64/chrome"
    assert linux(moved, env={"PLAYWRIGHT_BROWSERS_PATH": "/srv/browsers"}) == FoundBrowser(
        moved, BrowserKind.PLAYWRIGHT
    )
    cached = "/var/cache/ann/ms-playwright/chromium-1255/chrome-linux64/chrome"
    assert linux(cached, env={"XDG_CACHE_HOME": "/var/cache/ann"}) == FoundBrowser(cached, BrowserKind.PLAYWRIGHT)


class RealFilesUnder(RealFileSystem):
    """The real file system, seen only below one folder (this machine's own browsers stay out of the test)."""

    def __init__(self, root: Path) -> None:
        self.root = str(root)

    def is_executable(self, path: str) -> bool:
        return path.startswith(self.root) and super().is_executable(path)

    def list_dir(self, path: str) -> list[str]:
        return super().list_dir(path) if path.startswith(self.root) else []


def test_a_real_folder_with_a_downloaded_browser(tmp_path: Path) -> None:
    chrome = tmp_path / "data" / "browsers" / "chromium-1255" / "chrome-linux64" / "chrome"
    chrome.parent.mkdir(parents=True)
    chrome.write_text("#!/bin/sh\n")
    host = Host("linux", {}, str(tmp_path / "home"), str(tmp_path / "data"), RealFilesUnder(tmp_path))
    assert discover(host) is None  # not executable yet
    chrome.chmod(chrome.stat().st_mode | stat.S_IXUSR)
    assert discover(host) is None  # its download did not finish
    (chrome.parent.parent / INSTALL_MARKER).write_text("")
    assert discover(host) == FoundBrowser(str(chrome), BrowserKind.DOWNLOADED)


def test_a_download_cut_short_is_not_a_browser() -> None:
    new = "/home/ann/.cache/ms-playwright/chromium-1255/chrome-linux64/chrome"
    old = "/home/ann/.cache/ms-playwright/chromium-1100/chrome-linux/chrome"
    assert linux(new, old, plain=["/home/ann/.cache/ms-playwright/chromium-1100/INSTALLATION_COMPLETE"]) == (
        FoundBrowser(old, BrowserKind.PLAYWRIGHT)
    )


# --- the browser set in Settings ----------------------------------------------------------------------------------


def test_the_browser_set_in_settings_comes_first_and_a_wrong_one_is_said_plainly(tmp_path: Path) -> None:
    mine = tmp_path / "my-chrome"
    mine.write_text("#!/bin/sh\n")
    mine.chmod(0o755)
    assert locate(str(mine), tmp_path) == FoundBrowser(str(mine), BrowserKind.CONFIGURED)
    with pytest.raises(ChromiumNotFoundError, match="does not exist or cannot be run"):
        locate(str(tmp_path / "gone"), tmp_path)
