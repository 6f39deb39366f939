#!/usr/bin/env bash
# The Markdown summary as a reviewer sees it: screenshots of the job summary
# GitHub would show, kept as CI artefacts for anyone reviewing a change to
# the report.
#
#   tests/e2e/summary_screenshot.sh [--bin target/debug/mneme-gate] [--out target/artefacts]
#
# On a copy of the bundled example, as a GitHub Actions job would run it
# (GITHUB_* set, so files are linked):
#   1. the passing run            -> summary-passing.{md,html,png}
#   2. the run with decision PAY-003 removed from the memory file (two
#      scenarios lose an expected decision, seven warn about the id)
#                                 -> summary-regression.{md,html,png}
# Each summary is rendered as GitHub renders Markdown (`mneme-gate-dev
# render-md`: GFM with comrak, a GitHub-like stylesheet, Mermaid drawn when
# its bundle can be had from npm) and photographed with headless Chromium.
#
# Needs: python3, chromium (Debian: `apt-get install -y chromium`; the status
# marks need an emoji font: `apt-get install -y fonts-noto-color-emoji`),
# and npm for the Mermaid chart (optional: without it the chart stays code;
# MERMAID_JS=/path/to/mermaid.min.js uses a copy you have).
# Exit status: 0 with both screenshots written, 1 when a run or a check of
# the summaries fails, 2 when a tool is missing.
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
if [ -z "$chrome" ]; then
  echo "summary_screenshot: no Chromium found; install it (Debian: apt-get install -y chromium fonts-noto-color-emoji) and run again" >&2
  exit 2
fi
command -v python3 > /dev/null || { echo "summary_screenshot: python3 is needed" >&2; exit 2; }

if [ -z "$bin" ]; then
  (cd "$root" && cargo build --quiet --bin mneme-gate)
  bin="$root/target/debug/mneme-gate"
fi
(cd "$root" && cargo build --quiet -p mneme-gate-dev --bin mneme-gate-dev)
dev="$root/target/debug/mneme-gate-dev"
mkdir -p "$out"

# Mermaid's browser bundle, pinned, cached under target/.
mermaid="${MERMAID_JS:-}"
if [ -z "$mermaid" ]; then
  cache="$root/target/mermaid-11.12.2"
  if [ ! -f "$cache/node_modules/mermaid/dist/mermaid.min.js" ] && command -v npm > /dev/null; then
    npm install --silent --no-save --no-audit --no-fund --ignore-scripts --prefix "$cache" mermaid@11.12.2 > /dev/null 2>&1 \
      || echo "summary_screenshot: npm could not install mermaid; the chart stays code" >&2
  fi
  [ -f "$cache/node_modules/mermaid/dist/mermaid.min.js" ] && mermaid="$cache/node_modules/mermaid/dist/mermaid.min.js"
fi
[ -n "$mermaid" ] || echo "summary_screenshot: no Mermaid bundle; the chart stays code" >&2

work="$(mktemp -d "${TMPDIR:-/tmp}/mneme-gate-summary.XXXXXX")"
profile="$(mktemp -d "${TMPDIR:-/tmp}/mneme-gate-chromium.XXXXXX")"
trap 'rm -rf "$work" "$profile"' EXIT
# Chromium keeps a certificate store in $HOME/.pki, crash reports in $XDG_CONFIG_HOME and a cache in
# $XDG_CACHE_HOME: all three are its profile folder, removed at the end.
export HOME="$profile" XDG_CONFIG_HOME="$profile/.config" XDG_CACHE_HOME="$profile/.cache"
cp -R "$root/scenarios" "$root/fixtures" "$root/mneme-gate.yaml" "$root/reports" "$work/"

sha="$(git -C "$root" rev-parse HEAD 2> /dev/null || printf '0%.0s' $(seq 40))"
run() { # run EXPECTED_CODE NAME
  local code=0
  (cd "$work" && env NO_COLOR=1 MNEME_GATE_GIT=off GITHUB_ACTIONS=true GITHUB_SERVER_URL=https://github.com \
    GITHUB_REPOSITORY=mneme-gate/mneme-gate GITHUB_SHA="$sha" GITHUB_WORKSPACE="$work" \
    "$bin" run --quiet --annotations off --markdown "$out/$2.md" > "$work/$2.txt" 2>&1) || code=$?
  if [ "$code" != "$1" ]; then
    echo "summary_screenshot: the $2 run exited $code, expected $1" >&2
    sed 's/^/  | /' "$work/$2.txt" >&2
    exit 1
  fi
}

shoot() { # shoot NAME HEIGHT
  local args=()
  [ -n "$mermaid" ] && args=(--mermaid "$mermaid")
  "$dev" render-md "$out/$1.md" "$out/$1.html" ${args[@]+"${args[@]}"}
  rm -f "$out/$1.png"
  "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$profile" --hide-scrollbars \
    --virtual-time-budget=15000 --window-size="1100,$2" --screenshot="$out/$1.png" "file://$out/$1.html" \
    > "$work/chromium.txt" 2>&1 || true
  if [ ! -s "$out/$1.png" ]; then
    echo "summary_screenshot: Chromium wrote no screenshot of $1" >&2
    sed 's/^/  | /' "$work/chromium.txt" >&2
    exit 1
  fi
  echo "summary_screenshot: $out/$1.png"
}

run 0 summary-passing
python3 - "$work/fixtures/project_memory.json" <<'PY'
import json, sys
path = sys.argv[1]
memory = json.load(open(path, encoding="utf-8"))
before = len(memory["items"])
memory["items"] = [d for d in memory["items"] if d.get("id") != "PAY-003"]
assert len(memory["items"]) == before - 1, "PAY-003 is an item of the bundled memory file"
json.dump(memory, open(path, "w", encoding="utf-8"), indent=2)
PY
run 1 summary-regression

# What a reviewer must see, checked on the Markdown before it is photographed.
failures=0
expect() { # expect FILE NEEDLE
  grep -qF -- "$2" "$out/$1.md" || { echo "summary_screenshot: $1.md lacks: $2" >&2; failures=$((failures + 1)); }
}
expect summary-passing "## ✅ mneme-gate: gate passed — all 51 scenarios pass"
expect summary-regression "## ❌ mneme-gate: gate FAILED — 2 scenarios lost an expected decision (recall@3 1.000 → 0.965)"
expect summary-regression "(https://github.com/mneme-gate/mneme-gate/blob/$sha/scenarios/payments.yaml#L26)"
expect summary-regression "xychart-beta"
expect summary-regression "- 7 scenarios expect or accept \`PAY-003\`"
[ "$failures" = 0 ] || exit 1

# The page's fonts draw figures as text: a digit or a space drawn in an emoji font (a font list
# that reaches an emoji font, or a generic family that fontconfig maps to one, before a text
# font) is about 1.2 em wide where a text font's is at most 0.7 em, so "51" shows as "5 1".
# The same stylesheet measures digits and spaces in a paragraph, a table cell and code.
"$dev" render-md "$out/summary-passing.md" "$work/page.html"
python3 - "$work/page.html" "$work/fonts.html" <<'PY'
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
style = re.search(r"<style>(.*?)</style>", page, re.S).group(1)
open(sys.argv[2], "w", encoding="utf-8").write(f"""<!DOCTYPE html><html><head><meta charset="utf-8">
<style>{style} .probe {{ white-space: pre; }}</style></head><body><main class="markdown-body">
<p><span class="probe" data-what="paragraph">0123456789</span></p>
<table><tr><td><span class="probe" data-what="table cell">0123456789</span></td></tr></table>
<p><code><span class="probe" data-what="code">0123456789</span></code></p>
</main><pre id="widths"></pre><script>
const out = [];
for (const el of document.querySelectorAll(".probe")) {{
  const em = parseFloat(getComputedStyle(el).fontSize);
  const digits = el.getBoundingClientRect().width / 10 / em;
  el.textContent = "x          x";
  const spaced = el.getBoundingClientRect().width;
  el.textContent = "xx";
  const spaces = (spaced - el.getBoundingClientRect().width) / 10 / em;
  out.push(el.dataset.what + "=" + digits.toFixed(3) + "," + spaces.toFixed(3));
}}
document.getElementById("widths").textContent = "widths:" + out.join(";");
</script></body></html>
""")
PY
"$chrome" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --user-data-dir="$profile" --virtual-time-budget=5000 \
  --dump-dom "file://$work/fonts.html" > "$work/fonts.txt" 2> "$work/chromium.txt" || true
widths="$(sed -n 's/.*widths:\([^<]*\)<.*/\1/p' "$work/fonts.txt")"
if [ -z "$widths" ]; then
  echo "summary_screenshot: Chromium measured no glyph widths" >&2
  sed 's/^/  | /' "$work/chromium.txt" >&2
  exit 1
fi
if ! python3 - "$widths" <<'PY'
import sys
bad = []
for item in sys.argv[1].split(";"):
    what, figures = item.split("=")
    digit, space = (float(f) for f in figures.split(","))
    if digit > 0.7 or space > 0.7:
        bad.append(f"{what}: a digit {digit:.2f} em, a space {space:.2f} em wide")
for b in bad:
    print(f"summary_screenshot: figures are not drawn in a text font ({b}; a text font's are at most 0.7 em): "
          "the page's font list reaches an emoji font first", file=sys.stderr)
sys.exit(1 if bad else 0)
PY
then
  exit 1
fi

shoot summary-passing 900
shoot summary-regression 2600
