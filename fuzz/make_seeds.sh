#!/usr/bin/env bash
# Rebuilds the committed seed corpora (fuzz/seeds/<target>/) from the
# repository's fixtures. Seeds stay small (a few KB): large fixtures are cut
# down to a few records. Needs jq and a stable cargo; run from anywhere:
#
#   bash fuzz/make_seeds.sh
#
# The seeds are committed; run this again only when the fixtures change in a
# way the fuzzers should know about, and commit the result.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seeds="$root/fuzz/seeds"
cd "$root"
command -v jq >/dev/null || { echo "make_seeds.sh: jq is needed" >&2; exit 1; }

rm -rf "$seeds"
mkdir -p "$seeds"/{memory,native_suite,mneme_folder,baseline,config,partial}

# memory: project_memory.json files, both shapes, good and broken.
cp tests/fixtures/memory/small.json "$seeds/memory/small.json"
cp tests/fixtures/memory/broken.json "$seeds/memory/broken.json"
cp tests/fixtures/memory/warnings.json "$seeds/memory/warnings.json"
cp tests/fixtures/suites/broken/project_memory.json "$seeds/memory/suite-broken.json"
# The bundled example and Mneme's own memory: three decision records and one
# item of each type.
jq '{meta: .meta, decisions: .decisions[:3], items: [.items | group_by(.type)[] | .[0]]}' \
  fixtures/project_memory.json >"$seeds/memory/example.json"
jq '{meta: {name: .meta.name}, decisions: .decisions[:2], items: [.items | group_by(.type)[] | .[0]]}' \
  tests/conformance/mneme/project_memory.json >"$seeds/memory/mneme-conformance.json"
# A top-level array of items, with scope globs of every form.
cat >"$seeds/memory/items-array.json" <<'EOF'
[
  {"id": "R-1", "type": "rule", "title": "Money moves through the ledger", "tags": ["ledger"],
   "scope": ["services/payments/", "**/*.py", "web/{src,lib}/**", "infra/[a-z]*.tf"], "status": "Accepted",
   "rules": [{"type": "FORBID_LITERAL", "value": "psycopg2"}]},
  {"id": "A-1", "type": "anti_pattern", "title": "Raw SQL in handlers", "content": "never", "scope": "db/"},
  {"id": "R-1", "type": "rule", "title": "A duplicate", "status": null},
  {"id": "F-1", "type": "fact", "title": "Not retrievable"},
  {"id": "D-1", "type": "decision", "title": "Retired", "status": "RETIRED"}
]
EOF

# native_suite: suite files of the example and of the test fixtures.
for f in payments web controls infra; do
  cp "scenarios/$f.yaml" "$seeds/native_suite/example-$f.yaml"
done
for f in tests/fixtures/suites/*/*.yaml; do
  dir="$(basename "$(dirname "$f")")"
  cp "$f" "$seeds/native_suite/$dir-$(basename "$f")"
done

# mneme_folder: Mneme benchmark folders, encoded for `arbitrary`.
(cd fuzz && cargo run --quiet --example encode_mneme_folder -- "$seeds/mneme_folder" \
  "$root"/tests/conformance/mneme/benchmarks/* "$root"/tests/fixtures/suites/broken/mneme-*) >/dev/null

# baseline: small reports made by running the example suites, cut down to a
# few scenarios (reports/baseline.json itself is over 100 KB).
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cargo build --quiet --bin mneme-gate
gate="$root/target/debug/mneme-gate"
conformance=(--memory "$root/tests/conformance/mneme/project_memory.json" --profile mneme
  --scenarios "$root/tests/conformance/mneme/benchmarks" --quiet --annotations off)
(cd "$tmp" && "$gate" run "${conformance[@]}" --json mneme.json >/dev/null) || true
(cd "$tmp" && "$gate" run --memory "$root/tests/fixtures/suites/broken/project_memory.json" \
  --scenarios "$root/tests/fixtures/suites/broken" --quiet --annotations off --json broken.json >/dev/null) || true
# A baseline with one verdict and one ranking changed, so that the next run
# has a comparison section.
jq '.scenarios[0].verdict = "FAIL" | .scenarios[0].retrieved[0].rank = 2
    | .scenarios[1].retrieved |= .[1:] | .fingerprint.memory.sha256 = "0000"' \
  "$tmp/mneme.json" >"$tmp/pinned.json"
(cd "$tmp" && "$gate" run "${conformance[@]}" --baseline pinned.json --json comparison.json >/dev/null) || true
cut() { # REPORT KEEP-IDS-JSON [jq flags]: the scenarios kept and what they need
  local report="$1" keep="$2"
  shift 2
  jq "$@" --argjson keep "$keep" '
    .scenarios |= [.[] | select(.id as $i | $keep | index($i))]
    | (.scenarios | map(.retrieved[].id, .expected[], .acceptable[])) as $ids
    | .decisions |= with_entries(select(.key as $k | $ids | index($k)))
    | .gate.rules[].details |= .[:1]
    | if .comparison then .comparison.scenarios |= .[:2] | .comparison.metrics |= .[:6] else . end
  ' "$report" | sed "s#$root/##g; s#$tmp/##g"
}
two='["feature_boundary_violation", "openai_provider_violation"]'
cut "$tmp/mneme.json" "$two" >"$seeds/baseline/mneme-conformance.json"
cut "$tmp/comparison.json" "$two" -c >"$seeds/baseline/with-comparison.json"
cut "$tmp/broken.json" '["fail-governed-hard", "malformed-invalid-json", "weak-retrieval-clean-but-missed", "weak-soft-only"]' -c \
  >"$seeds/baseline/broken-verdicts.json"
cut reports/baseline.json "$(jq -c '[.scenarios[0, 5].id]' reports/baseline.json)" -c >"$seeds/baseline/example.json"
printf '{"schema": "mneme-gate.report/v2"}\n' >"$seeds/baseline/future-schema.json"

# partial: the partial reports of `run --partition K/N` on the small example suites, compact.
for k in 1 2 3; do
  (cd "$tmp" && "$gate" run "${conformance[@]}" --partition "$k/3" --json "part-$k.json" >/dev/null 2>&1)
  jq -c . "$tmp/part-$k.json" | sed "s#$root/##g; s#$tmp/##g" >"$seeds/partial/mneme-conformance-$k-of-3.json"
done
for k in 2 8; do
  (cd "$tmp" && "$gate" run --memory "$root/tests/fixtures/suites/broken/project_memory.json" \
    --scenarios "$root/tests/fixtures/suites/broken" --quiet --partition "$k/8" --json "broken-$k.json" >/dev/null 2>&1)
  jq -c . "$tmp/broken-$k.json" | sed "s#$root/##g; s#$tmp/##g" >"$seeds/partial/broken-$k-of-8.json"
done
printf '{"schema": "mneme-gate.partial/v2"}\n' >"$seeds/partial/future-schema.json"

# config: mneme-gate.yaml files, and one that sets every key.
cp mneme-gate.yaml "$seeds/config/example.yaml"
for f in tests/fixtures/config/*.yaml; do cp "$f" "$seeds/config/$(basename "$f")"; done
cat >"$seeds/config/every-key.yaml" <<'EOF'
memory: fixtures/project_memory.json
scenarios: [scenarios/, ../more/scenarios]
baseline: reports/baseline.json
retrieval:
  profile: mneme
  k: 5
  min_score: 0.5
  tag_boost: 1.25
  min_token_len: 3
  stem: false
  weights: {title: 4, tags: 2.5, constraint: 1.5, anti_patterns: 1, content: 0.125}
gate:
  recall: fail
  weak_retrieval: advisory
  malformed: fail
  pass_rate: off
  verdict_regression: fail
  missing_scenarios: advisory
  suite_means: fail
  baseline_change: fail
  tolerance: 0.01
  tolerances:
    mean_recall_at_1: 0.05
    mean_precision_at_k: 0
    mrr: 1
    mean_ndcg_at_k: 0.5
    irrelevant_injection_rate: 0.25
    ungoverned_injection_rate: 0.125
EOF

# Every input kept as a regression (tests/fixtures/fuzz/<target>-<what>) is
# a seed of its target too, so each run replays it first.
for f in tests/fixtures/fuzz/*; do
  name="$(basename "$f")"
  target="${name%%-*}"
  [ -d "$seeds/$target" ] || { echo "make_seeds.sh: $f names no target" >&2; exit 1; }
  cp "$f" "$seeds/$target/regression-${name#*-}"
done

du -sh "$seeds"
find "$seeds" -type f | sort | xargs wc -c | tail -1
