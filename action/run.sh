#!/usr/bin/env bash
# The action's `mneme-gate run`: turns the action's inputs into flags, accepts a re-pin of the
# baseline when the pull request carries the accept label, runs the gate and maps its exit code
# to the step's. Called by action.yml; tested by tests/e2e/action_run.sh.
#
# Environment (action.yml passes each input through env:, never into the script's text):
#   MNEME_GATE_BIN            the binary
#   INPUT_CONFIG, INPUT_MEMORY, INPUT_SCENARIOS, INPUT_BASELINE_REF, INPUT_JUNIT, INPUT_JSON,
#   INPUT_SUMMARY, INPUT_ANNOTATIONS, INPUT_FAIL_ON_REGRESSION, INPUT_ACCEPT_LABEL, INPUT_ARGS
#                             the inputs of action.yml
#   GITHUB_EVENT_PATH         the event payload: on a pull request, its labels, number and author
#   GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP
#                             as GitHub Actions sets them
#
# Exit status: mneme-gate's (0 passed, 1 the gate failed, 2 usage, configuration or input
# error, 3 infrastructure error), except that 1 is 0 with a warning when fail-on-regression is
# 'false'.
set -euo pipefail

is_bool() {
  case "$2" in
    true | false) ;;
    *)
      echo "::error title=mneme-gate::input $1 must be 'true' or 'false', not '$2'"
      exit 2
      ;;
  esac
}
is_bool summary "$INPUT_SUMMARY"
is_bool annotations "$INPUT_ANNOTATIONS"
is_bool fail-on-regression "$INPUT_FAIL_ON_REGRESSION"

# Prints who accepted a re-pin when the pull request of this event carries the label `$1`:
# "the label `L` on pull request #N (opened by @USER)"; nothing otherwise. Who added the label
# is not in the event payload; only people who can triage the repository can label a pull
# request, so the label itself is the acceptance.
label_acceptance() {
  local label="$1" event="${GITHUB_EVENT_PATH:-}"
  if [ -z "$label" ] || [ -z "$event" ] || [ ! -f "$event" ]; then
    return 0
  fi
  if ! command -v jq >/dev/null 2>&1; then
    echo "::warning title=mneme-gate::jq is not on PATH, so the labels of the pull request cannot be read: accept-label is ignored" >&2
    return 0
  fi
  jq -r --arg wanted "$label" '
    .pull_request // empty
    | select(any(.labels[]?; .name == $wanted))
    | "the label `\($wanted)` on pull request #\(.number) (opened by @\(.user.login // "unknown"))"
    | gsub("[[:cntrl:]]"; " ")
  ' "$event" || echo "::warning title=mneme-gate::cannot read the labels of the pull request from $event: accept-label is ignored" >&2
}

args=(run)
if [ -n "$INPUT_CONFIG" ]; then args+=(--config "$INPUT_CONFIG"); fi
if [ -n "$INPUT_MEMORY" ]; then args+=(--memory "$INPUT_MEMORY"); fi
# Whitespace-separated, never glob-expanded. The ${a[@]+"${a[@]}"} form keeps an empty
# array safe under `set -u` in bash 3.2 (macOS runners).
read -r -d '' -a roots <<< "$INPUT_SCENARIOS" || true
for root in ${roots[@]+"${roots[@]}"}; do args+=(--scenarios "$root"); done
if [ -n "$INPUT_BASELINE_REF" ]; then args+=(--baseline-ref "$INPUT_BASELINE_REF"); fi

json="${INPUT_JSON:-$RUNNER_TEMP/mneme-gate/report.json}"
mkdir -p "$(dirname "$json")"
args+=(--json "$json")
if [ -n "$INPUT_JUNIT" ]; then
  mkdir -p "$(dirname "$INPUT_JUNIT")"
  args+=(--junit "$INPUT_JUNIT")
fi
# mneme-gate appends to the job summary, which every step of the job shares.
if [ "$INPUT_SUMMARY" = true ]; then args+=(--markdown "$GITHUB_STEP_SUMMARY"); fi
if [ "$INPUT_ANNOTATIONS" = true ]; then
  args+=(--annotations github)
else
  args+=(--annotations off)
fi
args+=(--github-output "$GITHUB_OUTPUT")
read -r -d '' -a extra <<< "$INPUT_ARGS" || true

# The accept label: only a run that compares with the base revision's baseline has a re-pin
# to accept.
if [ -n "$INPUT_BASELINE_REF" ]; then
  accepted_by="$(label_acceptance "${INPUT_ACCEPT_LABEL:-}")"
  if [ -n "$accepted_by" ]; then
    echo "mneme-gate: a re-pin of the baseline is accepted by $accepted_by"
    accepts=0
    for arg in ${extra[@]+"${extra[@]}"}; do
      if [ "$arg" = --accept-baseline-change ]; then accepts=1; fi
    done
    if [ "$accepts" = 0 ]; then args+=(--accept-baseline-change); fi
    args+=(--accepted-by "$accepted_by")
  fi
fi
args+=(${extra[@]+"${extra[@]}"})

echo "mneme-gate ${args[*]}"
status=0
"$MNEME_GATE_BIN" "${args[@]}" || status=$?
case "$status" in
  0) ;;
  1)
    if [ "$INPUT_FAIL_ON_REGRESSION" = true ]; then
      exit 1
    fi
    echo "::warning title=mneme-gate::the gate failed; not failing the step because fail-on-regression is 'false'"
    ;;
  *) exit "$status" ;;
esac
