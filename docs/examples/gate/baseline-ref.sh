#!/usr/bin/env bash
# The baseline in git, step by step (docs/gate.md): pins a baseline on `main`
# in a throw-away repository, rewords a decision on a branch, and shows what
# `--baseline-ref`, `--memory-ref` and `--accept-baseline-change` do.
# Needs git and mneme-gate on PATH. Prints each command and its exit code;
# the output of `run` is shortened to the corpus changes, the baseline it was
# compared with, the re-pin notice, the gate's rules and the headline.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(mktemp -d)"
trap 'rm -rf "$repo"' EXIT
cd "$repo" || exit 2
export GIT_AUTHOR_NAME=docs GIT_AUTHOR_EMAIL=docs@example.invalid
export GIT_COMMITTER_NAME=docs GIT_COMMITTER_EMAIL=docs@example.invalid
export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"

step() {
  printf '\n+ %s\n' "$*"
  "$@" > out.txt; local code=$?
  if [ "$1 $2" = "mneme-gate run" ]; then
    awk '/^Decision corpus changes/ { show = 1 } show && /^$/ { show = 0 } show
         /^Compared with the baseline/
         /^THIS CHANGE/ { print; getline; print }
         /^(ok|FAIL|warn|off) / { rules = 1 } rules' out.txt
  else
    cat out.txt
  fi
  printf '(exit %s)\n' "$code"
}

git init -q -b main
cp "$here/memory-v1.json" project_memory.json
mkdir scenarios && cp "$here/scenarios/payments.yaml" scenarios/
printf 'memory: project_memory.json\nscenarios: [scenarios/]\nbaseline: reports/baseline.json\nretrieval:\n  profile: classic\n' > mneme-gate.yaml
echo "# On main: pin the first baseline and commit it."
step mneme-gate baseline
git add mneme-gate.yaml project_memory.json scenarios reports && git commit -qm "Pin the mneme-gate baseline"

git checkout -qb reword-pay-002
echo
echo "# On a branch, PAY-002 is reworded (memory-v2.json)."
cp "$here/memory-v2.json" project_memory.json
step mneme-gate run --baseline-ref main --memory-ref main

echo
echo "# The scenario is updated to the new wording and the baseline re-pinned."
sed 's/Call the payment provider from the checkout page/Call the PSP from the checkout gateway/' \
  "$here/scenarios/payments.yaml" > scenarios/payments.yaml
step mneme-gate baseline
step mneme-gate run --quiet --baseline-ref main
step mneme-gate run --quiet --baseline-ref main --accept-baseline-change
