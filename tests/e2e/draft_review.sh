#!/usr/bin/env bash
# The review page of `mneme-gate draft --html` as a reviewer sees it: drafted
# from a throw-away repository whose history holds a strong, a named and a
# scoped change, a control, and a subject full of markup; loaded in headless
# Chromium, checked (every scenario shown, nothing from the repository run
# as markup, nothing fetched), and photographed into target/artefacts/.
#
#   tests/e2e/draft_review.sh [--bin target/debug/mneme-gate] [--out target/artefacts]
#
# Needs: git, chromium (Debian: `apt-get install -y chromium`).
# Exit status: 0 with the screenshot written, 1 when a check fails, 2 when a
# tool is missing.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin=""
out="$root/target/artefacts"
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift 2 ;;
    --out) mkdir -p "$2"; out="$(cd "$2" && pwd)"; shift 2 ;;
    *) echo "usage: $0 [--bin PATH] [--out DIR]" >&2; exit 2 ;;
  esac
done
chrome=""
for name in chromium chromium-browser google-chrome; do
  if command -v "$name" > /dev/null; then chrome="$(command -v "$name")"; break; fi
done
[ -n "$chrome" ] || { echo "draft_review: no Chromium found (Debian: apt-get install -y chromium)" >&2; exit 2; }
command -v git > /dev/null || { echo "draft_review: git is needed" >&2; exit 2; }
if [ -z "$bin" ]; then
  (cd "$root" && cargo build --quiet --bin mneme-gate)
  bin="$root/target/debug/mneme-gate"
fi
mkdir -p "$out"

work="$(mktemp -d "${TMPDIR:-/tmp}/mneme-gate-draft.XXXXXX")"
profile="$(mktemp -d "${TMPDIR:-/tmp}/mneme-gate-chromium.XXXXXX")"
trap 'rm -rf "$work" "$profile"' EXIT
# Chromium keeps a certificate store in $HOME/.pki, crash reports in $XDG_CONFIG_HOME and a cache in
# $XDG_CACHE_HOME: all three are its profile folder, removed at the end.
export XDG_CONFIG_HOME="$profile/.config" XDG_CACHE_HOME="$profile/.cache"
export GIT_CONFIG_NOSYSTEM=1 HOME="$work" GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z
g() { git -C "$work/repo" -c user.name=Test -c user.email=test@example.com -c init.defaultBranch=main "$@"; }
put() { mkdir -p "$(dirname "$work/repo/$1")"; printf '%s\n' "$2" > "$work/repo/$1"; g add "$1"; }
mkdir -p "$work/repo"
g init -q
put docs/adr/0012-store-orders-in-postgres.md "# 12. Store orders in Postgres

## Status

Accepted

## Decision

The orders service stores orders in Postgres, never in Redis."
put docs/adr/0003-outbox.md "# 3. Publish payment events through the outbox

## Status

Accepted

## Decision

Payment events go through the transactional outbox table."
put .cursor/rules/web.mdc '---
description: Web components use the design system
globs: "web/**"
alwaysApply: false
---
# Web components use the design system

Every button comes from the design system package.'
g commit -q -m "Add the decisions"
put docs/adr/0012-store-orders-in-postgres.md "# 12. Store orders in Postgres

## Status

Accepted

## Decision

The orders service stores orders in Postgres, in one transaction per order."
put services/orders/store.py "def save(order): pass"
g commit -q -m "Write each order in one Postgres transaction"
put services/payments/refunds.py "def refund(): pass"
g commit -q -m 'Emit refund events <img src=x onerror=alert(1)> "now" (adr 3)'
put web/checkout/Button.tsx "export const B = 1;"
g commit -q -m "Add a checkout button"
put README.md "Hello"
g commit -q -m "Fix a typo in the README"

(cd "$work/repo" && "$bin" draft --memory adr:docs/adr/ --memory cursor:.cursor/rules/ \
  --out scenarios/drafted.yaml --html review.html > "$work/draft.txt" 2>&1) \
  || { echo "draft_review: draft failed" >&2; sed 's/^/  | /' "$work/draft.txt" >&2; exit 1; }
cp "$work/repo/review.html" "$out/draft-review.html"

failures=0
check() { # check DESCRIPTION COMMAND...
  local what="$1"; shift
  "$@" || { echo "draft_review: $what" >&2; failures=$((failures + 1)); }
}
page="$work/repo/review.html"
check "the page has an <img> from a commit subject" bash -c "! grep -q '<img' '$page'"
check "the subject is not shown escaped" grep -qF '&lt;img src=x onerror=alert(1)&gt;' "$page"
check "the page names an external resource" bash -c "! grep -Eq '(src|href)=\"|https?://|@import|url\\(' '$page'"
# What Chromium renders: every scenario, as text.
"$chrome" --headless --no-sandbox --disable-gpu --disable-background-networking --no-first-run \
  --disable-component-update --disable-sync --user-data-dir="$profile" --dump-dom "file://$page" \
  > "$work/dom.html" 2> "$work/chromium.txt" || true
sections="$(grep -c '<section' "$work/dom.html" || true)"
check "Chromium shows $sections scenario(s), not 4" [ "$sections" = 4 ]
check "the rendered page has no <img>" bash -c "! grep -q '<img' '$work/dom.html'"
check "the rendered page lacks the strong evidence" grep -qF 'the commit edits its file docs/adr/0012-store-orders-in-postgres.md (strong)' "$work/dom.html"
check "the rendered page lacks the scope evidence" grep -qF 'web/checkout/Button.tsx is in its scope web/**' "$work/dom.html"
check "the rendered page lacks the control" grep -qF 'a typo fix' "$work/dom.html"
[ "$failures" = 0 ] || exit 1

rm -f "$out/draft-review.png"
"$chrome" --headless --no-sandbox --disable-gpu --disable-background-networking --no-first-run \
  --disable-component-update --disable-sync --user-data-dir="$profile" --hide-scrollbars \
  --window-size=1200,1800 --screenshot="$out/draft-review.png" "file://$page" > "$work/chromium.txt" 2>&1 || true
if [ ! -s "$out/draft-review.png" ]; then
  echo "draft_review: Chromium wrote no screenshot" >&2
  sed 's/^/  | /' "$work/chromium.txt" >&2
  exit 1
fi
echo "draft_review: $out/draft-review.png"
