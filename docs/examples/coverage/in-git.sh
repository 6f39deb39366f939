#!/usr/bin/env bash
# Coverage in a git repository (docs/coverage.md): copies the coverage example
# into a throw-away repository with one storefront file, shows which scope
# globs match no file git tracks, then turns the gate's `no_new_ungated` rule
# on, pins a baseline on `main`, adds a decision on a branch that no scenario
# expects, and runs the gate against the base revision. Needs git, jq and
# mneme-gate on PATH. Prints each command (shortened to the lines that matter
# here) and its exit code.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(mktemp -d)"
trap 'rm -rf "$repo"' EXIT
cd "$repo" || exit 2
export GIT_AUTHOR_NAME=docs GIT_AUTHOR_EMAIL=docs@example.invalid
export GIT_COMMITTER_NAME=docs GIT_COMMITTER_EMAIL=docs@example.invalid
export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"

step() {
  printf '+ %s\n' "$*"
  "$@" > out.txt 2>&1; local code=$?
  case "$2" in
    coverage) awk '/^Scope:/ { show = 1 } /^No tokens:/ { show = 0 } show' out.txt ;;
    run) grep -A1 '^FAIL no_new_ungated' out.txt ;;
    *) cat out.txt ;;
  esac
  printf '(exit %s)\n' "$code"
}

git init -q -b main
cp -r "$here/project_memory.json" "$here/scenarios" .
mkdir -p web/src/components && echo 'export const ProductCard = () => null;' > web/src/components/ProductCard.tsx
# Profile classic, as the example's own configuration: the page's scores are its.
printf 'memory: project_memory.json\nscenarios: scenarios/\nbaseline: reports/baseline.json\nretrieval:\n  profile: classic\ngate:\n  no_new_ungated: fail\n' > mneme-gate.yaml
git add . && git commit -qm "The coverage example"
step mneme-gate coverage
mneme-gate baseline > /dev/null && git add reports && git commit -qm "Pin the baseline"

git checkout -qb locale-cache-keys
jq '.items += [{"id": "CACHE-010", "type": "rule", "title": "Cache keys include the locale",
                "content": "A page cached for one locale must never be served in another."}]' \
  project_memory.json > memory.tmp && mv memory.tmp project_memory.json
git commit -qam "Add CACHE-010"
echo
step mneme-gate run --quiet --baseline-ref main
