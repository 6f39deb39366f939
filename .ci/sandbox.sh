# shellcheck shell=bash
# Sourced by .ci/run: every step writes inside this checkout only.
#
#   . .ci/sandbox.sh; sandbox_enter; ...steps...; sandbox_check
#
# sandbox_enter points HOME at an empty folder under target/ci-sandbox/, TMPDIR at a new empty
# folder of this run's own (`mktemp -d`: outside the checkout, because the tests make throw-away
# folders there that must not sit inside this checkout's git repository; unique, so two runs on one
# machine never share a file; removed when the run ends), and the caches (pip, npm, fontconfig, mneme-gate's compiled index cache) at target/ci-cache/. The
# tools keep reading the user's own configuration (git, npm, pip, pyenv) and toolchains
# (rustup's, and cargo's CARGO_HOME, where cargo keeps the crates it downloads and
# .ci/fuzz.sh installs cargo-fuzz): they only write nowhere else. sandbox_check then fails,
# listing what it finds, when a step left anything in that HOME or TMPDIR (a step removes
# its temporary folders), and removes both when they are empty.

sandbox_enter() {
  local root real_home
  root="$(pwd)"
  real_home="${HOME:?HOME is not set}"
  export CARGO_HOME="${CARGO_HOME:-$real_home/.cargo}"
  export RUSTUP_HOME="${RUSTUP_HOME:-$real_home/.rustup}"
  if [ -z "${PYENV_ROOT:-}" ] && [ -d "$real_home/.pyenv" ]; then export PYENV_ROOT="$real_home/.pyenv"; fi
  if [ -z "${GIT_CONFIG_GLOBAL:-}" ] && [ -f "$real_home/.gitconfig" ]; then
    export GIT_CONFIG_GLOBAL="$real_home/.gitconfig"
  fi
  if [ -z "${NPM_CONFIG_USERCONFIG:-}" ] && [ -f "$real_home/.npmrc" ]; then
    export NPM_CONFIG_USERCONFIG="$real_home/.npmrc"
  fi
  local pip_conf
  for pip_conf in "${XDG_CONFIG_HOME:-$real_home/.config}/pip/pip.conf" "$real_home/.pip/pip.conf"; do
    if [ -z "${PIP_CONFIG_FILE:-}" ] && [ -f "$pip_conf" ]; then export PIP_CONFIG_FILE="$pip_conf"; fi
  done
  MNEME_GATE_SANDBOX="$root/target/ci-sandbox"
  export MNEME_GATE_SANDBOX
  rm -rf "$MNEME_GATE_SANDBOX"
  mkdir -p "$MNEME_GATE_SANDBOX/home" "$root/target/ci-cache"
  MNEME_GATE_TMP="$(mktemp -d "${TMPDIR:-/tmp}/mneme-gate-ci.XXXXXXXX")"
  export MNEME_GATE_TMP
  # However the run ends, its temporary folder goes with it.
  trap 'rm -rf "$MNEME_GATE_TMP"' EXIT
  export HOME="$MNEME_GATE_SANDBOX/home" TMPDIR="$MNEME_GATE_TMP"
  export XDG_CACHE_HOME="$root/target/ci-cache" XDG_CONFIG_HOME="$MNEME_GATE_SANDBOX/home/.config"
  export XDG_DATA_HOME="$MNEME_GATE_SANDBOX/home/.local/share" XDG_STATE_HOME="$MNEME_GATE_SANDBOX/home/.local/state"
  export npm_config_cache="$root/target/ci-cache/npm" PIP_CACHE_DIR="$root/target/ci-cache/pip"
}

sandbox_check() {
  local left total
  left="$(
    { (cd "$MNEME_GATE_SANDBOX" && find home -mindepth 1 2>/dev/null)
      (cd "$MNEME_GATE_TMP" && find . -mindepth 1 2>/dev/null | sed 's|^\./|TMPDIR/|'); } | LC_ALL=C sort
  )"
  if [ -n "$left" ]; then
    echo ".ci/run: a step wrote outside the checkout (into HOME or TMPDIR) and left, under $MNEME_GATE_SANDBOX and $MNEME_GATE_TMP:" >&2
    # The first 20 paths, and how many more there are.
    total="$(printf '%s\n' "$left" | wc -l | tr -d ' ')"
    printf '%s\n' "$left" | sed -n '1,20s/^/  /p' >&2
    if [ "$total" -gt 20 ]; then
      echo "  ... and $((total - 20)) more" >&2
    fi
    return 1
  fi
  rm -rf "$MNEME_GATE_SANDBOX" "$MNEME_GATE_TMP"
}
