#!/usr/bin/env bash
# End to end: the baseline gate on a copy of the bundled example, in a
# temporary git repository, as a reviewer would meet it.
#
#   tests/e2e/baseline.sh [--bin target/debug/mneme-gate]
#
# 1. pin the baseline; 2. edit one decision so that a governed scenario loses
# its expected decision: `run` exits 1 and names the scenario, the decision
# that left the top-3, the one that entered, and shows the context diff;
# 3. revert: `run` exits 0; 4. commit a re-pinned baseline on a branch:
# `run --baseline-ref main` fails until --accept-baseline-change; 5. a
# baseline made with another k exits 2 naming k.
# Exit status: 0 when every step behaves, 1 otherwise.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="$root/target/debug/mneme-gate"
if [ "${1:-}" = "--bin" ]; then
  bin="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
fi
[ -x "$bin" ] || { echo "e2e: no binary at $bin" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/mneme-gate-e2e.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cp -R "$root/scenarios" "$root/fixtures" "$root/mneme-gate.yaml" "$work/"
cd "$work"
export NO_COLOR=1 GIT_CONFIG_NOSYSTEM=1 HOME="$work"
git() { command git -c user.name=e2e -c user.email=e2e@example.com -c init.defaultBranch=main "$@"; }

failures=0
step() { echo "e2e: $1"; }
check() { # check DESCRIPTION EXPECTED_CODE ACTUAL_CODE [OUTPUT_FILE NEEDLE...]
  local what="$1" want="$2" got="$3"; shift 3
  local ok=1
  [ "$want" = "$got" ] || { echo "  FAIL $what: exit $got, expected $want"; ok=0; }
  if [ $# -gt 0 ]; then
    local file="$1"; shift
    for needle in "$@"; do
      grep -qF -- "$needle" "$file" || { echo "  FAIL $what: output lacks: $needle"; ok=0; }
    done
  fi
  if [ "$ok" = 1 ]; then echo "  ok   $what"; else failures=$((failures + 1)); head -n 60 "${file:-/dev/null}" | sed 's/^/  | /'; fi
}
code() { set +e; "$@" > out.txt 2>&1; echo $? > code.txt; set -e; cat code.txt; }

git init -q
step "pin the baseline"
check "baseline exits 0" 0 "$(code "$bin" baseline)" out.txt "pinned 51 scenario(s) to reports/baseline.json"
git add -A && git commit -qm "example with its baseline"

step "narrow PAY-005's scope so that the refund scenario loses it"
cp fixtures/project_memory.json memory.orig
python3 - <<'PY'
from pathlib import Path
p = Path("fixtures/project_memory.json")
text = p.read_text()
old = '"scope": ["services/payments/**", "libs/ledger_client/**"],\n      "priority": "high",\n      "created_at": "2022-07-12T10:30:00Z"'
assert old in text, "PAY-005's scope is where the script expects it"
p.write_text(text.replace(old, old.replace('["services/payments/**", "libs/ledger_client/**"]', '["services/refunds-legacy/**"]'), 1))
PY
check "run exits 1 and explains the regression" 1 "$(code "$bin" run)" out.txt \
  "refund-posts-ledger-reversal (scenarios/payments.yaml:5:5): PASS → WEAK_RETRIEVAL (REGRESSED)" \
  "  - PAY-005 left (was rank 1, score 60.027) [expected]" \
  "  + ADR-001 entered at rank 3 (score 16.438)" \
  "    context block:" \
  "-1. [PAY-005] Refunds are new ledger entries" \
  "FAIL verdict_regression"

step "revert"
cp memory.orig fixtures/project_memory.json && rm memory.orig
check "run exits 0" 0 "$(code "$bin" run --quiet)" out.txt "gate passed"

step "re-pin on a branch (a retitled decision: rankings move, every verdict still passes)"
git checkout -q -b feature
python3 - <<'PY'
from pathlib import Path
p = Path("fixtures/project_memory.json")
old = '"title": "Refunds are new ledger entries, never updates to the original charge"'
text = p.read_text()
assert old in text
p.write_text(text.replace(old, '"title": "Refunds are booked by the accounting service"', 1))
PY
check "re-pin exits 0" 0 "$(code "$bin" baseline)" out.txt "changes against the baseline it replaces"
git commit -qam "retitle PAY-005 and re-pin"
check "run --baseline-ref main fails on the re-pin" 1 "$(code "$bin" run --quiet --baseline-ref main)" out.txt \
  "THIS CHANGE RE-PINS THE BASELINE of main" "FAIL baseline_change"
check "run --baseline-ref main --accept-baseline-change passes" 0 \
  "$(code "$bin" run --quiet --baseline-ref main --accept-baseline-change)" out.txt \
  "accepted with --accept-baseline-change" "gate passed"

step "a baseline made with another k"
check "run --k 5 exits 2 naming k" 2 "$(code "$bin" run --quiet --k 5)" out.txt \
  "k: the baseline has 3, this run 5"

if [ "$failures" -gt 0 ]; then
  echo "e2e baseline: FAIL ($failures step(s))"
  exit 1
fi
echo "e2e baseline: PASS"
