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
mkdir -p "$seeds"/{memory,native_suite,mneme_folder,baseline,config,hook,compiled_index,markdown_source,partial,init_inputs,query_file}

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

# config: mneme-gate.yaml files, one with a list of decision sources, and one that sets every key.
cp mneme-gate.yaml "$seeds/config/example.yaml"
for f in tests/fixtures/config/*.yaml; do cp "$f" "$seeds/config/$(basename "$f")"; done
cat >"$seeds/config/sources.yaml" <<'EOF'
memory:
  - project_memory.json
  - adr: docs/adr/
    id_prefix: DEC-
    proposed: inactive
  - cursor: .cursor/rules/
  - copilot: .github/
  - claude: .
scenarios: scenarios/
EOF
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

# hook: what Claude Code and Gemini CLI write on a hook's standard input.
printf '%s' '{"session_id":"s1","cwd":"/repo","hook_event_name":"UserPromptSubmit","prompt":"Add a refund endpoint"}' \
  >"$seeds/hook/prompt.json"
printf '%s' '{"session_id":"s1","cwd":"/repo","hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"/repo/services/payments/refunds.py","old_string":"a","new_string":"ledger.refund(order)"}}' \
  >"$seeds/hook/edit.json"
printf '%s' '{"session_id":"s1","cwd":"/repo","hook_event_name":"PreToolUse","tool_name":"MultiEdit","tool_input":{"file_path":"../outside.py","edits":[{"old_string":"x","new_string":"y"}]}}' \
  >"$seeds/hook/multiedit.json"
printf '%s' '{"session_id":"s2","cwd":"C:\\repo","hook_event_name":"PreToolUse","tool_name":"NotebookEdit","tool_input":{"notebook_path":"C:\\repo\\nb\\a.ipynb","new_source":"import pandas"}}' \
  >"$seeds/hook/notebook.json"
printf '%s' '{"session_id":"g","cwd":"/r","hook_event_name":"BeforeAgent","prompt":"migrate the database"}' >"$seeds/hook/gemini.json"
printf '%s' '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}' >"$seeds/hook/ignored.json"

# compiled_index: the directory of the bundled example's compiled index, as
# `context` caches it (the header is docs/agents.md's "The cache").
MNEME_GATE_CACHE_DIR="$tmp/cache" "$gate" context --memory fixtures/project_memory.json --profile default \
  --task "refund a payment" >/dev/null
python3 - "$tmp"/cache/index/*.idx "$seeds/compiled_index/bundled-example-directory" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
at = 8 + 4 + 32 + 32 + 1 + 56  # magic, format, settings, content, stamped, stamp
length = struct.unpack("<Q", data[at:at + 8])[0]
start = at + 24  # directory length, its XXH64, records length
open(sys.argv[2], "wb").write(data[start:start + length])
PY
# markdown_source: Markdown decision files of the real fixture sets, each behind the byte that
# picks its kind (fuzz_targets/markdown_source.rs: 0 ADR, 1 Cursor rule, 2 .cursorrules,
# 3 Copilot instructions, 4 copilot-instructions.md, 5 CLAUDE.md, 6 Claude rule).
md_seed() { # PICK FILE NAME
  { printf "\\$(printf '%03o' "$1")"; head -c 6000 "$2"; } >"$seeds/markdown_source/$3"
}
f=fixtures/sources
md_seed 0 "$f/govuk-aws/docs/architecture/decisions/0010-terraform-directory-structure.md" adr-nygard.md
md_seed 0 "$f/govuk-aws/docs/architecture/decisions/0004-dns-definitions-for-hosts-and-services.md" adr-superseded.md
md_seed 0 "$f/log4brains/docs/adr/20200926-use-the-adr-number-as-its-unique-id.md" adr-madr2.md
md_seed 0 "$f/madr/docs/decisions/0005-use-dashes-in-filenames.md" adr-madr4.md
md_seed 1 "$f/awesome-cursorrules/.cursor/rules/go.mdc" cursor-go.mdc
md_seed 1 "$f/awesome-cursorrules/.cursor/rules/docker.mdc" cursor-docker.mdc
md_seed 2 "$f/awesome-cursorrules/.cursor/rules/codequality.mdc" cursorrules.md
md_seed 3 "$f/awesome-copilot/.github/instructions/pcf-tooling.instructions.md" copilot-pcf.md
md_seed 4 "$f/awesome-copilot/.github/copilot-instructions.md" copilot-repository.md
md_seed 5 "$f/2anki/CLAUDE.md" claude-memory.md
md_seed 6 "$f/2anki/.claude/rules/email-templates.md" claude-rule.md
printf '\006---\npaths:\n  - *.sql\n  - "src/**"\ndescription: `x`: y\n---\n# T\n\n- never z\n' \
  >"$seeds/markdown_source/claude-paths.md"

# init_inputs: `.adr-dir`, `.gitignore` and `.claude/settings.json`, split at NUL bytes.
printf 'doc/arch\n\0target/\n*.log\n\0{"hooks": {"UserPromptSubmit": []}, "model": "x"}\n' \
  >"$seeds/init_inputs/typical"
# query_file: `retrieve --queries` lines whose ids and paths carry workflow
# commands and control characters, and one of the wrong type.
cat >"$seeds/query_file/hostile.jsonl" <<'EOF'
{"id": "q1\n::add-mask::SECRET-QUERY\r::error file=x::y\u001b[31m\u0007\u0000 ##[add-mask]LEGACY", "task": "refund ledger reversal"}
{"id": "::add-mask::SECRET-QLINESTART", "task": "refund ledger reversal", "file": "services/payments/\n::error::x.py"}
EOF
cat >"$seeds/query_file/bad.jsonl" <<'EOF'
{"id": "q-bad\n::add-mask::SECRET-BADQUERY\u001b[31m\u0007", "task": 5}
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
