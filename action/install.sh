#!/usr/bin/env bash
# Installs the released mneme-gate binary that matches the action's own ref, so that the
# action does not build from source. Called by action.yml; tested by tests/e2e/action_install.sh.
#
#   action/install.sh DEST
#
# Installs DEST/bin/mneme-gate (mneme-gate.exe on Windows) and prints its path. The release is
# the one tagged with the action's ref (`uses: OWNER/REPO@v0.1.0` installs release v0.1.0); its
# asset for this runner is mneme-gate-<version>-<target>.tar.gz (.zip on Windows), verified
# against the asset's .sha256 file before anything is unpacked.
#
# Environment:
#   MNEME_GATE_ACTION_REF         the action's ref (github.action_ref), for example v0.1.0
#   MNEME_GATE_ACTION_REPOSITORY  the action's owner/repo (github.action_repository)
#   GITHUB_ACTION_PATH            the action's checkout, .../_actions/OWNER/REPO/REF: the ref and
#                                 the repository when the two above are empty (GitHub leaves them
#                                 empty in some composite actions), and the version of its
#                                 Cargo.toml, which must be the ref's
#   MNEME_GATE_RELEASE_BASE_URL   where releases are, as <base>/<tag>/<asset> (default
#                                 $GITHUB_SERVER_URL/OWNER/REPO/releases/download); a mirror,
#                                 or file:// for tests
#   RUNNER_OS, RUNNER_ARCH        the runner (Linux, macOS, Windows; X64, ARM64); uname otherwise
#
# Exit status:
#   0   installed and verified
#   10  no release binary matches: a ref that is not a version tag (a branch, a commit, `./`),
#       a runner without a release binary, no such release (404), or a failed download.
#       action.yml then builds from source.
#   1   a release binary was found but cannot be trusted (its SHA-256 differs from its .sha256
#       file, the archive is broken, the binary is not the ref's version): nothing is installed,
#       and the step fails
#   2   usage error
set -euo pipefail

FALLBACK=10
say() { echo "mneme-gate install: $*" >&2; }
fallback() {
  say "$*; building from source instead"
  exit "$FALLBACK"
}
refuse() {
  # One line: a workflow command ends at the line break.
  echo "::error title=mneme-gate::$*" >&2
  exit 1
}

[ $# -eq 1 ] && [ -n "$1" ] || { say "usage: install.sh DEST"; exit 2; }
dest="$1"

ref="${MNEME_GATE_ACTION_REF:-}"
repository="${MNEME_GATE_ACTION_REPOSITORY:-}"
action_path="${GITHUB_ACTION_PATH:-}"
# A remote action is checked out at .../_actions/OWNER/REPO/REF.
case "$action_path" in
  */_actions/*/*/*)
    if [ -z "$ref" ]; then ref="$(basename "$action_path")"; fi
    if [ -z "$repository" ]; then
      repository="$(basename "$(dirname "$(dirname "$action_path")")")/$(basename "$(dirname "$action_path")")"
    fi
    ;;
esac

# Only a version tag names a release: v1.2.3, or v1.2.3-rc.1.
if ! [[ "$ref" =~ ^v([0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?)$ ]]; then
  fallback "the action's ref '${ref:-(none)}' is not a release tag (vX.Y.Z)"
fi
version="${BASH_REMATCH[1]}"
if [ -z "$repository" ]; then
  fallback "the action's repository is unknown"
fi
if [ -n "$action_path" ] && [ -f "$action_path/Cargo.toml" ]; then
  source_version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$action_path/Cargo.toml" | head -n 1)"
  if [ "$source_version" != "$version" ]; then
    fallback "the action's source is version ${source_version:-(unknown)}, not $version"
  fi
fi

os="${RUNNER_OS:-$(uname -s)}"
arch="${RUNNER_ARCH:-$(uname -m)}"
exe=""
archive="tar.gz"
case "$os/$arch" in
  Linux/X64 | Linux/x86_64) target=x86_64-unknown-linux-musl ;;
  Linux/ARM64 | Linux/aarch64) target=aarch64-unknown-linux-musl ;;
  macOS/X64 | Darwin/x86_64) target=x86_64-apple-darwin ;;
  macOS/ARM64 | Darwin/arm64) target=aarch64-apple-darwin ;;
  Windows/X64 | MINGW*/x86_64 | MSYS*/x86_64 | CYGWIN*/x86_64)
    target=x86_64-pc-windows-msvc
    exe=".exe"
    archive="zip"
    ;;
  *) fallback "no release binary for $os/$arch" ;;
esac

name="mneme-gate-$version-$target"
asset="$name.$archive"
server="${GITHUB_SERVER_URL:-https://github.com}"
base="${MNEME_GATE_RELEASE_BASE_URL:-$server/$repository/releases/download}"
url="${base%/}/$ref/$asset"

command -v curl >/dev/null 2>&1 || fallback "curl is not on PATH"
sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d ' ' -f 1
  else
    openssl dgst -sha256 -r "$1" | cut -d ' ' -f 1
  fi
}

work="$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/mneme-gate-install.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# fetch URL FILE: 0 fetched, 1 not there (HTTP 404, or no such file:// file), 2 other failure.
fetch() {
  local code status=0
  code="$(curl --silent --show-error --location --retry 2 --connect-timeout 10 --max-time 300 \
    --output "$2" --write-out '%{http_code}' "$1")" || status=$?
  if [ "$status" = 0 ] && { [ "$code" = 200 ] || [ "$code" = 000 ]; }; then
    return 0
  fi
  if [ "$code" = 404 ] || [ "$status" = 37 ]; then
    return 1
  fi
  say "downloading $1 failed (HTTP $code, curl exit $status)"
  return 2
}

status=0
fetch "$url" "$work/$asset" || status=$?
case "$status" in
  0) ;;
  1) fallback "no release binary at $url" ;;
  *)
    echo "::warning title=mneme-gate::cannot download the release binary $url; building from source instead" >&2
    exit "$FALLBACK"
    ;;
esac
status=0
fetch "$url.sha256" "$work/$asset.sha256" || status=$?
if [ "$status" != 0 ]; then
  refuse "the release binary $asset has no checksum file ($url.sha256): not installed"
fi

expected="$(tr -d '\r' < "$work/$asset.sha256" | awk 'NR == 1 { print tolower($1) }')"
if ! [[ "$expected" =~ ^[0-9a-f]{64}$ ]]; then
  refuse "$url.sha256 holds no SHA-256: $asset not installed"
fi
actual="$(sha256 "$work/$asset" | tr 'A-F' 'a-f')"
if [ "$actual" != "$expected" ]; then
  refuse "checksum mismatch for $asset: SHA-256 $actual, but $url.sha256 says $expected; not installed"
fi

mkdir -p "$work/unpacked"
if [ "$archive" = zip ]; then
  if command -v unzip >/dev/null 2>&1; then
    unzip -q "$work/$asset" -d "$work/unpacked" || refuse "$asset is not a valid zip archive: not installed"
  elif command -v 7z >/dev/null 2>&1; then
    7z x -y -o"$work/unpacked" "$work/$asset" >/dev/null || refuse "$asset is not a valid zip archive: not installed"
  else
    fallback "neither unzip nor 7z is on PATH to unpack $asset"
  fi
else
  tar -xzf "$work/$asset" -C "$work/unpacked" || refuse "$asset is not a valid tar.gz archive: not installed"
fi
binary="$work/unpacked/$name/mneme-gate$exe"
[ -f "$binary" ] || refuse "$asset holds no $name/mneme-gate$exe: not installed"

mkdir -p "$dest/bin"
installed="$dest/bin/mneme-gate$exe"
cp "$binary" "$installed.partial"
chmod 0755 "$installed.partial"
shown="$("$installed.partial" --version 2>/dev/null || true)"
if [ "$shown" != "mneme-gate $version" ]; then
  rm -f "$installed.partial"
  refuse "the binary in $asset says '${shown:-nothing}' to --version, not 'mneme-gate $version': not installed"
fi
mv -f "$installed.partial" "$installed"
say "installed $asset (SHA-256 $actual) as $installed"
echo "$installed"
