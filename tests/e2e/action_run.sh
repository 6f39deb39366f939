#!/usr/bin/env bash
# End to end: the action's run step (action/run.sh) in temporary git repositories, with the
# environment GitHub Actions gives it and a fake event payload (GITHUB_EVENT_PATH).
#
#   tests/e2e/action_run.sh [--bin target/debug/mneme-gate]
#
# 1. The pull request that adopts mneme-gate (`init` on a branch) passes its own gate, and the
#    job summary says that it pins the first baseline. 2. A pull request that re-pins the
#    baseline fails, then passes once it carries the accept label, without any change to the
#    workflow: the job summary (appended to what earlier steps wrote) says which label on which
#    pull request accepted it. Another label, an empty accept-label input and a push do not
#    accept. 3. fail-on-regression 'false' turns exit 1 into a warning; an error (exit 2) is an
#    ::error annotation; a bad boolean input is refused.
# Exit status: 0 when every check passes, 1 otherwise.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="$root/target/debug/mneme-gate"
if [ "${1:-}" = "--bin" ]; then
  bin="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
fi
[ -x "$bin" ] || { echo "e2e: no binary at $bin" >&2; exit 1; }
command -v jq >/dev/null 2>&1 || { echo "e2e: needs jq (the action reads the pull request's labels with it)" >&2; exit 1; }
run_sh="$root/action/run.sh"

work="$(mktemp -d "${TMPDIR:-/tmp}/mneme-gate-action-e2e.XXXXXX")"
trap 'rm -rf "$work"' EXIT
export NO_COLOR=1 GIT_CONFIG_NOSYSTEM=1 HOME="$work"
git() { command git -c user.name=e2e -c user.email=e2e@example.com -c init.defaultBranch=main "$@"; }

# event FILE [LABEL...]: a pull_request event payload (#7, opened by @octo) with these labels.
event() {
  local file="$1"; shift
  local labels="[]"
  if [ $# -gt 0 ]; then labels="$(printf '%s\n' "$@" | jq -R '{name: .}' | jq -s .)"; fi
  jq -n --argjson labels "$labels" \
    '{action: "labeled", number: 7, pull_request: {number: 7, user: {login: "octo"}, labels: $labels, base: {sha: "main"}}}' \
    > "$file"
}
event "$work/unlabelled.json"
event "$work/labelled.json" bug mneme-gate:accept-baseline
event "$work/other-label.json" bug
echo '{"ref": "refs/heads/main", "commits": []}' > "$work/push.json"

failures=0
step() { echo "e2e: $1"; }
# check DESCRIPTION EXPECTED_CODE ACTUAL_CODE [FILE NEEDLE...]
check() {
  local what="$1" want="$2" got="$3"; shift 3
  local ok=1 file="$work/out.txt"
  [ "$want" = "$got" ] || { echo "  FAIL $what: exit $got, expected $want"; ok=0; }
  if [ $# -gt 0 ]; then
    file="$1"; shift
    for needle in "$@"; do
      grep -qF -- "$needle" "$file" || { echo "  FAIL $what: $(basename "$file") lacks: $needle"; ok=0; }
    done
  fi
  if [ "$ok" = 1 ]; then
    echo "  ok   $what"
  else
    failures=$((failures + 1))
    sed 's/^/  | /' "$work/out.txt" | tail -40
  fi
}
absent() { # absent DESCRIPTION FILE NEEDLE
  if grep -qF -- "$3" "$2"; then
    echo "  FAIL $1: $(basename "$2") has: $3"; failures=$((failures + 1))
  else
    echo "  ok   $1"
  fi
}

# action [VAR=VALUE...]: action/run.sh in the current repository with the inputs' defaults
# (action.yml), the pull request's base `main`, the unlabelled event, and the assignments;
# prints its exit code. The job summary starts with what an earlier step wrote.
action() {
  local code=0
  rm -rf "$work/runner" && mkdir -p "$work/runner"
  printf '## An earlier step\n\nIt wrote this.\n' > "$work/runner/summary.md"
  : > "$work/runner/output"
  env GITHUB_ACTIONS=true MNEME_GATE_BIN="$bin" \
    INPUT_CONFIG= INPUT_MEMORY= INPUT_SCENARIOS= INPUT_BASELINE_REF=main \
    INPUT_JUNIT=reports/junit.xml INPUT_JSON= INPUT_SUMMARY=true INPUT_ANNOTATIONS=true \
    INPUT_FAIL_ON_REGRESSION=true INPUT_ACCEPT_LABEL=mneme-gate:accept-baseline INPUT_ARGS= \
    GITHUB_EVENT_PATH="$work/unlabelled.json" GITHUB_OUTPUT="$work/runner/output" \
    GITHUB_STEP_SUMMARY="$work/runner/summary.md" RUNNER_TEMP="$work/runner" "$@" \
    bash "$run_sh" > "$work/out.txt" 2>&1 || code=$?
  echo "$code"
}
summary="$work/runner/summary.md"

step "the pull request that adopts mneme-gate"
mkdir "$work/repo" && cd "$work/repo"
git init -q
cp "$root/fixtures/project_memory.json" .
git add -A && git commit -qm "the team's decisions"
git checkout -qb adopt-mneme-gate
"$bin" init > /dev/null
git add -A && git commit -qm "adopt mneme-gate"
check "passes its own gate" 0 "$(action)" "$work/out.txt" \
  "THIS CHANGE PINS THE FIRST BASELINE (main has none)" "ok   baseline_change"
check "the job summary says it pins the first baseline" 0 0 "$summary" \
  "## An earlier step" "> **This change pins the first baseline**: \`main\` has none"
check "the step outputs" 0 0 "$work/runner/output" "result=passed" "junit-report=reports/junit.xml"

step "a pull request that re-pins the baseline"
git checkout -q main && git merge -q --ff-only adopt-mneme-gate
git checkout -qb more-scenarios
printf '  - id: readme-typo\n    task: Fix a typo in the README\n    expect: []\n' >> scenarios/starter.yaml
"$bin" baseline > /dev/null
git commit -qam "a control scenario, re-pinned"
check "fails without the label" 1 "$(action)" "$work/out.txt" "FAIL baseline_change"
absent "nothing was accepted" "$summary" "Accepted with"
check "fails with another label" 1 "$(action GITHUB_EVENT_PATH="$work/other-label.json")"
check "fails when the accept-label input is empty" 1 \
  "$(action GITHUB_EVENT_PATH="$work/labelled.json" INPUT_ACCEPT_LABEL=)"
check "fails on a push (no pull request in the event)" 1 "$(action GITHUB_EVENT_PATH="$work/push.json")"
echo 'not JSON' > "$work/broken.json"
check "an unreadable event accepts nothing, with a warning" 1 "$(action GITHUB_EVENT_PATH="$work/broken.json")" \
  "$work/out.txt" "::warning title=mneme-gate::cannot read the labels of the pull request" "FAIL baseline_change"
check "passes with the label, the workflow unchanged" 0 "$(action GITHUB_EVENT_PATH="$work/labelled.json")" \
  "$work/out.txt" \
  "a re-pin of the baseline is accepted by the label \`mneme-gate:accept-baseline\` on pull request #7 (opened by @octo)" \
  "accepted with --accept-baseline-change, by the label \`mneme-gate:accept-baseline\` on pull request #7 (opened by @octo)" \
  "ok   baseline_change"
check "the job summary says who accepted what" 0 0 "$summary" \
  "## An earlier step" \
  "> **This change re-pins the baseline** of \`main\`" \
  "Accepted with \`--accept-baseline-change\`, by the label \`mneme-gate:accept-baseline\` on pull request #7 (opened by @octo)."
json="$(sed -n 's/^json-report=//p' "$work/runner/output")"
if [ "$(jq -r '.comparison.baseline_change.accepted_by' "$json")" = \
  "the label \`mneme-gate:accept-baseline\` on pull request #7 (opened by @octo)" ]; then
  echo "  ok   the JSON report's baseline_change.accepted_by"
else
  echo "  FAIL the JSON report's baseline_change.accepted_by"; failures=$((failures + 1))
fi
check "the label and --accept-baseline-change in args together" 0 \
  "$(action GITHUB_EVENT_PATH="$work/labelled.json" INPUT_ARGS="--accept-baseline-change --quiet")"

step "the step's exit code"
check "fail-on-regression 'false' warns" 0 "$(action INPUT_FAIL_ON_REGRESSION=false)" "$work/out.txt" \
  "::warning title=mneme-gate::the gate failed; not failing the step because fail-on-regression is 'false'"
check "an error is an annotation" 2 "$(action INPUT_CONFIG=missing.yaml)" "$work/out.txt" \
  "::error title=mneme-gate::"
check "a bad boolean input" 2 "$(action INPUT_SUMMARY=yes)" "$work/out.txt" \
  "::error title=mneme-gate::input summary must be 'true' or 'false', not 'yes'"

if [ "$failures" -gt 0 ]; then
  echo "e2e: $failures check(s) failed"
  exit 1
fi
echo "e2e: action run: every check passed"
