#!/usr/bin/env bash
# Retrieval quality on real repositories: runs `mneme-gate run` on
# the configuration of every repository under tests/realrepos/ (its ADRs as an
# `adr:` source, its suite of changes mined from its own history) and prints,
# per repository, recall@k, recall@1, MRR, nDCG@k over the governed scenarios
# and how many of its control changes (`expect: []`) got anything injected,
# then the means over the repositories shown.
#
# Usage: bash bench/realrepos.sh [--bin PATH] [--profile NAME] [--k N]
#                                [--repo NAME]... [--tuning | --held-out | --fresh]
#                                [--markdown] [--misses] [--keep DIR]
#                                [-- EXTRA-RUN-ARGS...]
#
#   --bin PATH      the mneme-gate binary (default target/release/mneme-gate)
#   --profile NAME  passed to `run --profile` (default: the configuration's,
#                   `default`)
#   --k N           passed to `run --k` (default 3)
#   --repo NAME     only this repository (a folder of tests/realrepos/;
#                   repeatable)
#   --tuning        only the tuning set; --held-out: only the held-out ones;
#                   --fresh: only the fresh ones (mined by someone who ran no
#                   retrieval on them; the `role` row of each SOURCE.md says
#                   which)
#   --markdown      print a Markdown table instead of the text table
#   --misses        after the table, every governed scenario whose expected
#                   decisions were not all in the top k, and every control
#                   that got something, with what was retrieved
#   --keep DIR      keep each repository's JSON report as DIR/<name>.json
#   -- ARGS         passed to `mneme-gate run` as they are
#
# The metrics are recomputed here from each scenario's `retrieved`, `expected`
# and `acceptable` in the JSON report (docs/metrics.md definitions), and
# checked against the report's own; the means are unweighted over
# repositories. Rows list the tuning set first, then the held-out ones, then
# the fresh ones. The exit code is 0 when every run produced a report, whatever
# the numbers; `run`'s own exit code (its gate) is ignored.
# Needs bash and python3 (standard library only).
set -euo pipefail
cd "$(dirname "$0")/.."

bin=target/release/mneme-gate
profile=""
k=3
repos=()
role=""
markdown=0
misses=0
keep=""
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) bin=$2; shift 2 ;;
        --profile) profile=$2; shift 2 ;;
        --k) k=$2; shift 2 ;;
        --repo) repos+=("$2"); shift 2 ;;
        --tuning) role=tuning; shift ;;
        --held-out) role=held-out; shift ;;
        --fresh) role=fresh; shift ;;
        --markdown) markdown=1; shift ;;
        --misses) misses=1; shift ;;
        --keep) keep=$2; shift 2 ;;
        --) shift; extra=("$@"); break ;;
        -h|--help) sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "realrepos.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
if [ ! -x "$bin" ]; then
    echo "realrepos.sh: no binary at $bin (build it with cargo build --release, or give --bin)" >&2
    exit 2
fi

root=tests/realrepos
role_of() {
    # the `role` row of SOURCE.md: "tuning", "held-out" or "fresh"
    if grep -qi '^| role | .*tuning' "$root/$1/SOURCE.md" 2>/dev/null; then echo tuning
    elif grep -qi '^| role | \*\*fresh' "$root/$1/SOURCE.md" 2>/dev/null; then echo fresh
    elif grep -qi '^| role | .*held' "$root/$1/SOURCE.md" 2>/dev/null; then echo held-out
    else echo unknown; fi
}
if [ ${#repos[@]} -eq 0 ]; then
    for cfg in "$root"/*/mneme-gate.yaml; do
        name=$(basename "$(dirname "$cfg")")
        if [ -z "$role" ] || [ "$(role_of "$name")" = "$role" ]; then repos+=("$name"); fi
    done
fi
if [ ${#repos[@]} -eq 0 ]; then
    echo "realrepos.sh: no repository selected" >&2
    exit 2
fi

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
list="$dir/list"
: >"$list"
for name in "${repos[@]}"; do
    cfg="$root/$name/mneme-gate.yaml"
    if [ ! -f "$cfg" ]; then
        echo "realrepos.sh: no $cfg" >&2
        exit 2
    fi
    args=(run --config "$cfg" --k "$k" --json "$dir/$name.json" --quiet --annotations off)
    if [ -n "$profile" ]; then args+=(--profile "$profile"); fi
    if [ ${#extra[@]} -gt 0 ]; then args+=("${extra[@]}"); fi
    set +e
    MNEME_GATE_GIT=off "$bin" "${args[@]}" >"$dir/$name.out" 2>&1
    set -e
    if [ ! -s "$dir/$name.json" ]; then
        echo "realrepos.sh: $name: no report; mneme-gate said:" >&2
        cat "$dir/$name.out" >&2
        exit 1
    fi
    if [ -n "$keep" ]; then
        mkdir -p "$keep"
        cp "$dir/$name.json" "$keep/$name.json"
    fi
    printf '%s\t%s\t%s\n' "$name" "$(role_of "$name")" "$dir/$name.json" >>"$list"
done

python3 - "$list" "$k" "$markdown" "$misses" "$bin" "${profile:-configuration}" <<'PY'
import json, math, sys

list_file, k, markdown, show_misses, binary, profile = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4] == "1", sys.argv[5], sys.argv[6]


def metrics(expected, acceptable, retrieved):
    r = retrieved[:k]
    e = set(expected)
    hits = [i for i, d in enumerate(r) if d in e]
    recall = len(hits) / len(e)
    r1 = (1 / len(e)) if r and r[0] in e else 0.0
    rr = 1 / (hits[0] + 1) if hits else 0.0
    dcg = sum(1 / math.log2(i + 2) for i in hits)
    idcg = sum(1 / math.log2(i + 2) for i in range(min(len(e), k)))
    return recall, r1, rr, dcg / idcg


rows, details = [], []
for line in open(list_file, encoding="utf-8"):
    name, role, path = line.rstrip("\n").split("\t")
    report = json.load(open(path, encoding="utf-8"))
    prof = report["fingerprint"]["profile"]["name"]
    gov, ctl = [], []
    for s in report["scenarios"]:
        ids = [x["id"] for x in s["retrieved"]]
        if s["expected"]:
            m = metrics(s["expected"], s["acceptable"], ids)
            own = s.get("metrics") or {}
            for key, mine in zip(("recall_at_k", "recall_at_1", "reciprocal_rank", "ndcg_at_k"), m):
                theirs = own.get(key)
                if theirs is not None and abs(theirs - mine) > 1e-9:
                    print(f"warning: {name} {s['id']}: {key} {mine} here, {theirs} in the report", file=sys.stderr)
            gov.append(m)
            if m[0] < 1:
                missed = [x for x in s["expected"] if x not in ids[:k]]
                details.append((name, s["id"], "missed " + ", ".join(missed), s["retrieved"]))
        else:
            outside = [x for x in ids if x not in s["acceptable"]]
            ctl.append(bool(ids))
            if ids:
                details.append((name, s["id"], "control got " + ", ".join(outside or ids), s["retrieved"]))
    n = len(gov)
    mean = lambda i: sum(m[i] for m in gov) / n if n else float("nan")
    rows.append(dict(name=name, role=role, profile=prof, governed=n, controls=len(ctl),
                     r3=mean(0), r1=mean(1), mrr=mean(2), ndcg=mean(3), injected=sum(ctl)))

rank = {"tuning": 0, "held-out": 1, "fresh": 2}
rows.sort(key=lambda r: (rank.get(r["role"], 2), r["name"]))
heads = ["repository", "role", "governed", f"recall@{k}", "recall@1", "MRR", f"nDCG@{k}", "controls injected"]


def cells(r):
    return [r["name"], r["role"], str(r["governed"]), f"{r['r3']:.3f}", f"{r['r1']:.3f}", f"{r['mrr']:.3f}",
            f"{r['ndcg']:.3f}", f"{r['injected']}/{r['controls']}"]


table = [cells(r) for r in rows]
if rows:
    avg = lambda key: sum(r[key] for r in rows) / len(rows)
    table.append(["mean", "", str(sum(r["governed"] for r in rows)), f"{avg('r3'):.3f}", f"{avg('r1'):.3f}",
                  f"{avg('mrr'):.3f}", f"{avg('ndcg'):.3f}",
                  f"{sum(r['injected'] for r in rows)}/{sum(r['controls'] for r in rows)}"])
profiles = sorted({r["profile"] for r in rows})
asked = f"--profile {profile}" if profile != "configuration" else "the configurations' profile"
print(f"binary {binary}; profile {', '.join(profiles)} ({asked}); k {k}")
if markdown:
    print("| " + " | ".join(heads) + " |")
    print("|" + "|".join(["---"] + ["---"] + ["---:"] * (len(heads) - 2)) + "|")
    for t in table:
        print("| " + " | ".join(t) + " |")
else:
    widths = [max(len(h), *(len(t[i]) for t in table)) for i, h in enumerate(heads)]
    fmt = lambda t: "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(t, widths)))
    print(fmt(heads))
    print("  ".join("-" * w for w in widths))
    for t in table[:-1]:
        print(fmt(t))
    print("  ".join("-" * w for w in widths))
    print(fmt(table[-1]))
if show_misses:
    print()
    for name, sid, what, retrieved in details:
        got = ", ".join(f"{x['id']} ({x['score']:g})" for x in retrieved) or "nothing"
        print(f"{name} {sid}: {what}; retrieved {got}")
PY
