# Shared by packaging/setup.sh and packaging/build.sh (sourced, not run): messages, root, apt, Python.

if [[ -t 1 ]]; then BOLD=$'\033[1m' RED=$'\033[31m' PLAIN=$'\033[0m'; else BOLD="" RED="" PLAIN=""; fi
say() { printf '%s==>%s %s\n' "$BOLD" "$PLAIN" "$*"; }
note() { printf '    %s\n' "$*"; }
die() { printf '%serror:%s %s\n' "$RED" "$PLAIN" "$*" >&2; exit 1; }

MIN_PYTHON="3.11"

as_root() {
  if [[ $EUID -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    return 127
  fi
}

is_debian_like() {
  command -v dpkg >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1
}

is_installed() {
  dpkg -s "$1" 2>/dev/null | grep -q '^Status: install ok installed'
}

has_candidate() {
  local candidate
  candidate="$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ {print $2}')"
  [[ -n "$candidate" && "$candidate" != "(none)" ]]
}

# The names among "$@" that dpkg does not have installed, one per line.
missing_packages() {
  local pkg
  for pkg in "$@"; do
    is_installed "$pkg" || printf '%s\n' "$pkg"
  done
}

apt_update() {
  if [[ -z "${APT_UPDATED:-}" ]]; then
    say "Updating the package lists (apt-get update)"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    APT_UPDATED=1
  fi
}

apt_install() {
  ((${#})) || return 0
  if [[ $EUID -ne 0 ]] && ! command -v sudo >/dev/null 2>&1; then
    die "not root and sudo is not available. As root, run: apt-get install $*"
  fi
  apt_update
  say "Installing: $*"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "$@"
}

python_is_recent() {
  "$1" -c "import sys; sys.exit(0 if sys.version_info >= (${MIN_PYTHON/./, }) else 1)" >/dev/null 2>&1
}

find_python() {
  local candidate
  for candidate in ${PYTHON:-} python3 python3.13 python3.12 python3.11 python; do
    # Ask the interpreter itself: pyenv shims exist for versions that are not installed.
    if command -v "$candidate" >/dev/null 2>&1 && python_is_recent "$candidate"; then
      command -v "$candidate"
      return
    fi
  done
  return 1
}
