#!/usr/bin/env bash
# Builds Page Agent Desktop for this system into dist/, from a checkout. Safe to run again: the build environment is
# reused while the lock files are unchanged, and PyInstaller reuses what did not change.
#
#   bash packaging/build.sh              the app and this system's packages
#   bash packaging/build.sh --app-only   only the app: dist/page-agent-desktop/ (Linux, Windows) or the .app (macOS)
#
# Linux:   dist/page-agent-desktop/ (run dist/page-agent-desktop/page-agent-desktop),
#          dist/page-agent-desktop-VERSION-linux-x86_64.tar.gz, dist/page-agent-desktop_VERSION_amd64.deb
# Windows (Git Bash, as on CI): dist/page-agent-desktop/, dist/page-agent-desktop-VERSION-windows-x86_64.zip
#          (portable) and dist/page-agent-desktop-VERSION-windows-x86_64-setup.exe (NSIS, per user, no admin rights)
# macOS:   dist/Page Agent Desktop.app and dist/page-agent-desktop-VERSION-macos-ARCH.dmg; signed when
#          MACOS_SIGN_IDENTITY is set, notarized when APPLE_ID, APPLE_TEAM_ID and APPLE_APP_PASSWORD are set too.
#
# DEB_COMPRESSION=gzip makes the .deb in a minute instead of several, a third larger (the tests do; default: xz).
#
# The build environment (build/venv) holds the app's dependencies at the versions in requirements.lock and
# PyInstaller at the versions in packaging/build-requirements.txt. Nothing else is downloaded, and no browser is
# bundled: the app finds the user's Chrome, Edge or Chromium (app/browser/discovery.py).
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=packaging/common.sh
source "$REPO_ROOT/packaging/common.sh"
NAME="page-agent-desktop"
DIST="$REPO_ROOT/dist"
BUILD="$REPO_ROOT/build"
BUILD_VENV="$BUILD/venv"
LINUX_DIR="$REPO_ROOT/packaging/linux"
METAINFO_ID="io.github.page_agent_desktop.page_agent_desktop"
# Tools the Linux packages need on Debian/Ubuntu: dpkg-deb, and the validators of the desktop entry and metainfo.
BUILD_APT_PACKAGES=(python3-venv dpkg-dev desktop-file-utils appstream)

APP_ONLY=0
while (($#)); do
  case "$1" in
    --app-only) APP_ONLY=1; shift ;;
    -h|--help) sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option: $1 (see --help)" ;;
  esac
done

case "$(uname -s)" in
  Linux) SYSTEM=linux ;;
  Darwin) SYSTEM=macos ;;
  MINGW*|MSYS*|CYGWIN*) SYSTEM=windows ;;
  *) die "cannot build on $(uname -s): Linux, macOS and Windows (Git Bash) are supported" ;;
esac
if [[ "$SYSTEM" == windows ]]; then BIN="$BUILD_VENV/Scripts"; EXE=".exe"; else BIN="$BUILD_VENV/bin"; EXE=""; fi

# --- the build environment ------------------------------------------------------------------------------------------

build_tools() {
  if [[ "$SYSTEM" == linux ]] && is_debian_like; then
    local missing
    mapfile -t missing < <(missing_packages "${BUILD_APT_PACKAGES[@]}")
    apt_install ${missing[@]+"${missing[@]}"}
  fi
}

checksum() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum; else shasum -a 256; fi | cut -d' ' -f1
}

build_env() {
  local stamp="$BUILD_VENV/.build-stamp" want python
  want="$(cat "$REPO_ROOT/pyproject.toml" "$REPO_ROOT/requirements.lock" "$REPO_ROOT/packaging/build-requirements.txt" \
    | checksum)"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    say "The build environment is up to date ($BUILD_VENV)"
    return
  fi
  if [[ ! -x "$BIN/python$EXE" ]]; then
    python="$(find_python)" || die "Python ${MIN_PYTHON} or newer is needed to build (set PYTHON=/path/to/python)"
    say "Creating the build environment with $python"
    "$python" -m venv "$BUILD_VENV"
  fi
  say "Installing the app's locked dependencies and PyInstaller into the build environment"
  # Only the app's own dependencies (not its test tools); the app itself is frozen from the checkout.
  "$BIN/python$EXE" -c 'import sys, tomllib; print("\n".join(tomllib.load(open(sys.argv[1], "rb"))["project"]["dependencies"]))' \
    "$REPO_ROOT/pyproject.toml" >"$BUILD/runtime-requirements.txt"
  "$BIN/python$EXE" -m pip install --quiet --disable-pip-version-check --constraint "$REPO_ROOT/requirements.lock" \
    -r "$BUILD/runtime-requirements.txt" -r "$REPO_ROOT/packaging/build-requirements.txt"
  printf '%s\n' "$want" >"$stamp"
}

# --- the app --------------------------------------------------------------------------------------------------------

freeze() {
  say "Freezing the app with PyInstaller (onedir)"
  local started=$SECONDS
  "$BIN/pyinstaller$EXE" --noconfirm --log-level WARN --distpath "$DIST" --workpath "$BUILD/pyinstaller" \
    "$REPO_ROOT/packaging/pyinstaller/$NAME.spec"
  note "Frozen in $((SECONDS - started)) s: $(du -sh "$DIST/$NAME" | cut -f1) in $DIST/$NAME"
}

# --- Linux ----------------------------------------------------------------------------------------------------------

check_linux_metadata() {
  say "Checking the desktop entry and the AppStream metainfo"
  desktop-file-validate "$LINUX_DIR/$NAME.desktop"
  appstreamcli validate --no-net --pedantic "$LINUX_DIR/$METAINFO_ID.metainfo.xml"
}

tarball() {
  local out="$DIST/$NAME-$VERSION-linux-x86_64.tar.gz"
  say "Writing $(basename "$out")"
  # Files in a stable order, owned by root, dated by the last commit: the same checkout gives the same archive.
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
    --transform "s|^$NAME|$NAME-$VERSION|" -C "$DIST" -cf - "$NAME" | gzip -n -6 >"$out"
}

deb() {
  local arch root out libc size
  arch="$(dpkg --print-architecture)"
  root="$BUILD/deb/root"
  out="$DIST/${NAME}_${VERSION}_${arch}.deb"
  say "Writing $(basename "$out")"
  rm -rf "$BUILD/deb"
  mkdir -p "$root/DEBIAN" "$root/opt" "$root/usr/bin" "$root/usr/share/applications" "$root/usr/share/metainfo" \
    "$root/usr/share/doc/$NAME"
  cp -a "$DIST/$NAME" "$root/opt/$NAME"
  ln -s "/opt/$NAME/$NAME" "$root/usr/bin/$NAME"
  install -m 0644 "$LINUX_DIR/$NAME.desktop" "$root/usr/share/applications/$NAME.desktop"
  install -m 0644 "$LINUX_DIR/$METAINFO_ID.metainfo.xml" "$root/usr/share/metainfo/$METAINFO_ID.metainfo.xml"
  install -D -m 0644 "$REPO_ROOT/resources/icons/app.svg" "$root/usr/share/icons/hicolor/scalable/apps/$NAME.svg"
  local png size_px
  for png in "$REPO_ROOT"/resources/icons/app/*.png; do
    size_px="$(basename "$png" .png)"
    install -D -m 0644 "$png" "$root/usr/share/icons/hicolor/${size_px}x${size_px}/apps/$NAME.png"
  done
  sed "s/@VERSION@/$VERSION/" "$LINUX_DIR/copyright" >"$root/usr/share/doc/$NAME/copyright"
  chmod -R u=rwX,go=rX "$root"
  # The bundled libraries were built against this system's C library: the package needs at least its version.
  libc="$(dpkg-query -W -f='${Version}' libc6 | cut -d- -f1)"
  size="$(du -sk --exclude=DEBIAN "$root" | cut -f1)"
  sed -e "s/@VERSION@/$VERSION/" -e "s/@ARCH@/$arch/" -e "s/@LIBC@/$libc/" -e "s/@SIZE@/$size/" \
    "$LINUX_DIR/control" >"$root/DEBIAN/control"
  # No maintainer scripts: dpkg's triggers refresh the menu, the icon cache and the AppStream catalogue.
  dpkg-deb --root-owner-group -Z"${DEB_COMPRESSION:-xz}" --build "$root" "$out" >/dev/null
  note "$(du -h "$out" | cut -f1) $out"
}

# --- Windows --------------------------------------------------------------------------------------------------------

windows_packages() {
  local zip="$DIST/$NAME-$VERSION-windows-x86_64.zip" setup="$DIST/$NAME-$VERSION-windows-x86_64-setup.exe"
  say "Writing $(basename "$zip") (portable)"
  rm -f "$zip"
  (cd "$DIST" && powershell.exe -NoProfile -Command "Compress-Archive -Path '$NAME' -DestinationPath '$(basename "$zip")'")
  say "Writing $(basename "$setup") (NSIS)"
  makensis -V2 -DVERSION="$VERSION" -DAPPDIR="$(cygpath -w "$DIST/$NAME")" -DOUTFILE="$(cygpath -w "$setup")" \
    -DICON="$(cygpath -w "$REPO_ROOT/resources/icons/app.ico")" "$(cygpath -w "$REPO_ROOT/packaging/windows/installer.nsi")"
}

# --- macOS ----------------------------------------------------------------------------------------------------------

macos_packages() {
  local app="$DIST/Page Agent Desktop.app" dmg="$DIST/$NAME-$VERSION-macos-$(uname -m).dmg"
  if [[ -n "${MACOS_SIGN_IDENTITY:-}" ]]; then
    say "Signing the app as $MACOS_SIGN_IDENTITY"
    codesign --force --deep --options runtime --timestamp --sign "$MACOS_SIGN_IDENTITY" \
      --entitlements "$REPO_ROOT/packaging/macos/entitlements.plist" "$app"
  else
    note "MACOS_SIGN_IDENTITY is not set: the app is not signed (macOS asks the user to confirm the first start)."
  fi
  say "Writing $(basename "$dmg")"
  rm -rf "$BUILD/dmg" "$dmg"
  mkdir -p "$BUILD/dmg"
  cp -R "$app" "$BUILD/dmg/"
  ln -s /Applications "$BUILD/dmg/Applications"
  hdiutil create -quiet -volname "Page Agent Desktop" -srcfolder "$BUILD/dmg" -ov -format UDZO "$dmg"
  if [[ -n "${MACOS_SIGN_IDENTITY:-}" ]]; then
    codesign --force --timestamp --sign "$MACOS_SIGN_IDENTITY" "$dmg"
    if [[ -n "${APPLE_ID:-}" && -n "${APPLE_TEAM_ID:-}" && -n "${APPLE_APP_PASSWORD:-}" ]]; then
      say "Notarizing $(basename "$dmg")"
      xcrun notarytool submit "$dmg" --apple-id "$APPLE_ID" --team-id "$APPLE_TEAM_ID" \
        --password "$APPLE_APP_PASSWORD" --wait
      xcrun stapler staple "$dmg"
    else
      note "APPLE_ID, APPLE_TEAM_ID or APPLE_APP_PASSWORD is not set: the disk image is signed, not notarized."
    fi
  fi
}

# --- main -----------------------------------------------------------------------------------------------------------

cd "$REPO_ROOT"
mkdir -p "$BUILD" "$DIST"
build_tools
build_env
VERSION="$("$BIN/python$EXE" -c 'import app; print(app.__version__)')"
SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}"
export SOURCE_DATE_EPOCH
say "Building Page Agent Desktop $VERSION for $SYSTEM"
started=$SECONDS
freeze
if ((!APP_ONLY)); then
  case "$SYSTEM" in
    linux)
      check_linux_metadata
      # Each compresses on one core: side by side.
      tarball &
      deb
      wait $! || die "the tarball could not be written"
      ;;
    windows) windows_packages ;;
    macos) macos_packages ;;
  esac
fi
say "Done in $((SECONDS - started)) s. Try it: $DIST/$NAME/$NAME$EXE --self-test"
