#!/usr/bin/env bash
# End to end: the action's install step (action/install.sh) against fake releases served on
# 127.0.0.1 by `python3 -m http.server`, as the action meets real ones.
#
#   tests/e2e/action_install.sh [--bin target/debug/mneme-gate]
#
# A release is a tarball of the binary given (the debug build) with its .sha256 file and a
# SHA256SUMS, laid out as GitHub serves them (<base>/<tag>/<asset>). Checks: the matching
# release installs in seconds and the installed binary runs; the ref and repository are read
# from the action's checkout path when GitHub leaves them empty; a file:// mirror works; a
# wrong checksum, a missing checksum file and a binary of another version are refused (exit 1,
# a clear ::error, nothing installed); no release for the ref (HTTP 404), a ref that is not a
# release tag, source of another version and a runner without a release binary fall back to
# building from source (exit 10).
# Exit status: 0 when every check passes, 1 otherwise.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="$root/target/debug/mneme-gate"
if [ "${1:-}" = "--bin" ]; then
  bin="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
fi
[ -x "$bin" ] || { echo "e2e: no binary at $bin" >&2; exit 1; }
install="$root/action/install.sh"

work="$(mktemp -d "${TMPDIR:-/tmp}/mneme-gate-install-e2e.XXXXXX")"
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -n 1)"
tag="v$version"
target=x86_64-unknown-linux-musl
name="mneme-gate-$version-$target"
asset="$name.tar.gz"

# release DIR BINARY: a release of BINARY under DIR/<tag>/, with its checksum files.
release() {
  local dir="$1/$tag"
  mkdir -p "$dir" "$work/stage/$name"
  cp "$2" "$work/stage/$name/mneme-gate"
  cp "$root/LICENSE" "$work/stage/$name/"
  # gzip -1: the debug binary is large, and the archive need not be small.
  tar -cf - -C "$work/stage" "$name" | gzip -1 > "$dir/$asset"
  rm -rf "$work/stage"
  (cd "$dir" && sha256sum "$asset" > "$asset.sha256" && cat ./*.sha256 > SHA256SUMS)
}
www="$work/www"
release "$www/good" "$bin"
release "$www/tampered" "$bin"
printf '%s  %s\n' "$(printf '0%.0s' $(seq 64))" "$asset" > "$www/tampered/$tag/$asset.sha256"
release "$www/unchecked" "$bin"
rm "$www/unchecked/$tag/$asset.sha256"
printf '#!/bin/sh\necho "mneme-gate 0.0.1"\n' > "$work/other-version"
chmod +x "$work/other-version"
release "$www/other-version" "$work/other-version"
mkdir -p "$www/empty"

# The server, on a port the system chooses, said on its first line.
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$www" > "$work/server.log" 2>&1 &
server=$!
port=""
for _ in $(seq 100); do
  port="$(sed -n 's/.* port \([0-9][0-9]*\).*/\1/p' "$work/server.log" | head -n 1)"
  [ -n "$port" ] && curl -fsS -o /dev/null "http://127.0.0.1:$port/good/$tag/$asset.sha256" && break
  sleep 0.1
done
[ -n "$port" ] || { echo "e2e: the release server did not start" >&2; cat "$work/server.log" >&2; exit 1; }
url="http://127.0.0.1:$port"

failures=0
step() { echo "e2e: $1"; }
verify() { # verify DESCRIPTION COMMAND...: the command succeeds
  local what="$1"; shift
  if "$@"; then echo "  ok   $what"; else echo "  FAIL $what"; failures=$((failures + 1)); fi
}
absent() { [ ! -e "$1" ]; }
# check DESCRIPTION EXPECTED_CODE ACTUAL_CODE [NEEDLE...]: the needles are looked for in the
# output of the last `attempt`.
check() {
  local what="$1" want="$2" got="$3"; shift 3
  local ok=1
  [ "$want" = "$got" ] || { echo "  FAIL $what: exit $got, expected $want"; ok=0; }
  for needle in "$@"; do
    grep -qF -- "$needle" "$work/out.txt" || { echo "  FAIL $what: output lacks: $needle"; ok=0; }
  done
  if [ "$ok" = 1 ]; then
    echo "  ok   $what"
  else
    failures=$((failures + 1))
    head -n 40 "$work/out.txt" | sed 's/^/  | /'
  fi
}
# attempt DEST [VAR=VALUE...]: runs install.sh into DEST with a GitHub-like environment (the
# action at this checkout, ref $tag, a Linux x64 runner, the good release) changed by the
# assignments; prints its exit code.
attempt() {
  local dest="$1"; shift
  local code=0
  env -u GITHUB_ACTIONS \
    MNEME_GATE_ACTION_REF="$tag" MNEME_GATE_ACTION_REPOSITORY=mneme-gate/mneme-gate \
    GITHUB_ACTION_PATH="$root" MNEME_GATE_RELEASE_BASE_URL="$url/good" \
    RUNNER_OS=Linux RUNNER_ARCH=X64 RUNNER_TEMP="$work" "$@" \
    bash "$install" "$dest" > "$work/out.txt" 2>&1 || code=$?
  echo "$code"
}

step "the matching release installs in seconds, and the binary runs"
started="$(date +%s)"
code="$(attempt "$work/good")"
elapsed=$(($(date +%s) - started))
check "installed" 0 "$code" "$work/good/bin/mneme-gate" "installed $asset (SHA-256 "
installed="$work/good/bin/mneme-gate"
verify "the installed binary runs" test "$("$installed" --version 2>&1)" = "mneme-gate $version"
# A generous margin on a shared machine: what it catches is a download
# left to time out (curl's --max-time 300), not a slow one.
verify "well within curl's time-out ($elapsed s)" test "$elapsed" -le 60
verify "the last line is the binary's path" test "$(tail -n 1 "$work/out.txt")" = "$installed"

step "GitHub left the ref and repository empty: read from the action's checkout path"
checkout="$work/_actions/mneme-gate/mneme-gate/$tag"
mkdir -p "$checkout" && cp "$root/Cargo.toml" "$checkout/"
check "installed from .../_actions/mneme-gate/mneme-gate/$tag" 0 \
  "$(attempt "$work/derived" MNEME_GATE_ACTION_REF= MNEME_GATE_ACTION_REPOSITORY= GITHUB_ACTION_PATH="$checkout")"

step "a mirror on file://"
check "installed from file://" 0 "$(attempt "$work/file" MNEME_GATE_RELEASE_BASE_URL="file://$www/good")"

step "a wrong checksum is refused"
check "refused" 1 "$(attempt "$work/tampered" MNEME_GATE_RELEASE_BASE_URL="$url/tampered")" \
  "::error title=mneme-gate::checksum mismatch for $asset"
verify "nothing installed" absent "$work/tampered/bin/mneme-gate"

step "a release without its checksum file is refused"
check "refused" 1 "$(attempt "$work/unchecked" MNEME_GATE_RELEASE_BASE_URL="$url/unchecked")" \
  "::error title=mneme-gate::the release binary $asset has no checksum file"

step "a binary of another version is refused"
check "refused" 1 "$(attempt "$work/other" MNEME_GATE_RELEASE_BASE_URL="$url/other-version")" \
  "says 'mneme-gate 0.0.1' to --version, not 'mneme-gate $version'"
verify "nothing installed" absent "$work/other/bin/mneme-gate"

step "no release for the ref (404): build from source"
check "falls back" 10 "$(attempt "$work/none" MNEME_GATE_RELEASE_BASE_URL="$url/empty")" \
  "no release binary at $url/empty/$tag/$asset; building from source instead"

step "refs that name no release, and runners without a release binary: build from source"
check "a branch" 10 "$(attempt "$work/x" MNEME_GATE_ACTION_REF=main)" "the action's ref 'main' is not a release tag"
check "uses: ./" 10 "$(attempt "$work/x" MNEME_GATE_ACTION_REF= GITHUB_ACTION_PATH="$root")" "the action's ref '(none)'"
sed "s/^version = \"$version\"$/version = \"9.9.9\"/" "$root/Cargo.toml" > "$checkout/Cargo.toml"
check "source of another version" 10 "$(attempt "$work/x" GITHUB_ACTION_PATH="$checkout")" \
  "the action's source is version 9.9.9, not $version"
check "another runner" 10 "$(attempt "$work/x" RUNNER_OS=Plan9 RUNNER_ARCH=MIPS)" "no release binary for Plan9/MIPS"
verify "nothing installed" absent "$work/x"

step "usage"
check "no destination" 2 "$(attempt "")"

if [ "$failures" -gt 0 ]; then
  echo "e2e: $failures check(s) failed"
  exit 1
fi
echo "e2e: action install: every check passed"
