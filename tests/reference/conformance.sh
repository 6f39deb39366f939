#!/usr/bin/env bash
# Mneme conformance: Layer-1 retrieval of mneme-gate (profile `mneme`, k = 3)
# must reproduce, for each of Mneme's benchmark scenarios, the retrieved ids
# (in order) that mneme-hq 0.10.0 printed (expected-mneme-0.10.0-benchmark.json).
# The Python reference (tests/reference/mneme_ref.py) is checked the same way.
#
#   tests/reference/conformance.sh [--bin target/debug/mneme-gate] [--reference-only]
#
# The benchmark is vendored at tests/conformance/mneme (Mneme's MIT licence
# beside it), so the check always runs.
# Exit status: 0 pass, 1 mismatch, 2 usage error or missing binary.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(git -C "$here" rev-parse --show-toplevel 2>/dev/null || (cd "$here/../.." && pwd))"

bin="target/debug/mneme-gate"
reference_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="${2:?--bin needs a path}"; shift 2 ;;
    --bin=*) bin="${1#--bin=}"; shift ;;
    --reference-only) reference_only=1; shift ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "conformance: unknown argument: $1" >&2; exit 2 ;;
  esac
done
case "$bin" in
  /*) ;;
  *) [ -e "$bin" ] || bin="$root/$bin" ;;
esac

conf="$root/tests/conformance/mneme"
if [ ! -d "$conf/benchmarks" ]; then
  echo "conformance: $conf/benchmarks is missing: the vendored benchmark is part of the repository" >&2
  exit 2
fi
conf="$(cd "$conf" && pwd)"
python="${PYTHON:-python3}"

work="$(mktemp -d "${TMPDIR:-/tmp}/mneme-conformance.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# One query per benchmark folder: id = folder name, task = stripped query.txt.
"$python" - "$conf/benchmarks" > "$work/queries.jsonl" <<'PY'
import json, sys
from pathlib import Path
for folder in sorted(Path(sys.argv[1]).iterdir()):
    query = folder / "query.txt"
    if folder.is_dir() and query.is_file():
        task = query.read_text(encoding="utf-8").strip()
        print(json.dumps({"id": folder.name, "task": task}, ensure_ascii=False))
PY

# Compare one implementation's output with the expected ids; prints a report.
check() {
  local label="$1" output="$2"
  "$python" - "$conf/expected-mneme-0.10.0-benchmark.json" "$work/queries.jsonl" "$output" "$label" <<'PY'
import json, sys
expected_file, queries_file, output_file, label = sys.argv[1:5]
expected = {r["name"]: r["layer1"]["retrieved_ids"] for r in json.load(open(expected_file, encoding="utf-8"))["results"]}
names = [json.loads(l)["id"] for l in open(queries_file, encoding="utf-8") if l.strip()]
got = {}
for line in open(output_file, encoding="utf-8"):
    if line.strip():
        obj = json.loads(line)
        got[obj["id"]] = [h["id"] for h in obj["retrieved"]]
bad = 0
for name in sorted(set(names) | set(expected)):
    want = expected.get(name)
    have = got.get(name)
    if want is None:
        print(f"  {label}: {name}: no expected result in the benchmark file")
        bad += 1
    elif have != want:
        print(f"  {label}: {name}: retrieved {have}, expected {want}")
        bad += 1
if bad:
    print(f"{label}: FAIL ({bad} of {len(expected)} scenarios differ)")
    sys.exit(1)
print(f"{label}: PASS ({len(expected)} scenarios, retrieved ids identical)")
PY
}

status=0
args=(--memory "$conf/project_memory.json" --queries "$work/queries.jsonl" --profile mneme --k 3)

if "$python" "$here/mneme_ref.py" "${args[@]}" > "$work/reference.jsonl" 2> "$work/reference.err"; then
  check "reference" "$work/reference.jsonl" || status=1
else
  cat "$work/reference.err" >&2
  echo "reference: FAIL (mneme_ref.py exited with an error)"
  status=1
fi

if [ "$reference_only" -eq 0 ]; then
  if [ ! -x "$bin" ]; then
    echo "mneme-gate: FAIL (no executable at $bin; build it or pass --bin)"
    echo "conformance: FAIL"
    exit 2
  fi
  if "$bin" retrieve "${args[@]}" > "$work/binary.jsonl" 2> "$work/binary.err"; then
    check "mneme-gate" "$work/binary.jsonl" || status=1
  else
    cat "$work/binary.err" >&2
    echo "mneme-gate: FAIL (retrieve exited with an error)"
    status=1
  fi
fi

if [ "$status" -eq 0 ]; then
  echo "conformance: PASS"
else
  echo "conformance: FAIL"
fi
exit "$status"
