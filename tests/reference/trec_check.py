#!/usr/bin/env python3
"""trec_eval-style tools reproduce mneme-gate's figures from its TREC export.

Runs `mneme-gate run --json J --trec-run R --trec-qrels Q` on a suite, then
computes with ir_measures (backed by pytrec_eval, trec_eval's C code) R@k,
RR and nDCG@k over the governed scenarios and compares them, query by query
and as means, with `metrics.recall_at_k`, `reciprocal_rank`, `ndcg_at_k` and
the summary of the JSON report (tolerance 1e-9). A governed scenario that
retrieved nothing has no run line; it counts as 0, as `trec_eval -c` would.

  tests/reference/trec_check.py --bin target/debug/mneme-gate --memory M --scenarios S [--profile P]
  tests/reference/trec_check.py --bin target/debug/mneme-gate --synth DECISIONS,SCENARIOS,SEED [--dev-bin B]

--synth generates the suite with the development tool (`mneme-gate-dev synth`,
cargo build -p mneme-gate-dev).

ir_measures is installed from PyPI into target/trec-venv (reused when there).
Exit: 0 agreement, 1 disagreement, 2 usage or setup error. With
MNEME_GATE_OFFLINE=1 a failed install skips the check (exit 0) instead.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / "target" / "trec-venv"
PACKAGE = "ir_measures==0.4.3"
TOLERANCE = 1e-9


def venv_python() -> Path:
    python = VENV / "bin" / "python"
    probe = [str(python), "-c", "import ir_measures, pytrec_eval"]
    if python.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return python
    try:
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", PACKAGE], check=True)
        subprocess.run(probe, check=True)
    except subprocess.CalledProcessError as e:
        if os.environ.get("MNEME_GATE_OFFLINE") == "1":
            print(f"trec_check: skipped: cannot install {PACKAGE} ({e}) and MNEME_GATE_OFFLINE=1")
            sys.exit(0)
        print(f"trec_check: cannot install {PACKAGE} from PyPI: {e}", file=sys.stderr)
        sys.exit(2)
    return python


# Runs inside the venv: reads qrels and run, prints {qid: {measure: value}}.
MEASURE = r"""
import json, sys
import ir_measures
from ir_measures import R, RR, nDCG
k = int(sys.argv[3])
qrels = list(ir_measures.read_trec_qrels(sys.argv[1]))
run = list(ir_measures.read_trec_run(sys.argv[2]))
measures = [R @ k, RR, nDCG @ k]
out = {}
for m in ir_measures.iter_calc(measures, qrels, run):
    out.setdefault(m.query_id, {})[str(m.measure)] = m.value
print(json.dumps(out))
"""


def check(binary: str, memory: str, scenarios: str, profile: str | None, label: str) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        report_path, run_path, qrels_path = tmp / "r.json", tmp / "run.trec", tmp / "qrels.trec"
        cmd = [binary, "run", "--quiet", "--no-baseline", "--memory", memory, "--scenarios", scenarios,
               "--json", str(report_path), "--trec-run", str(run_path), "--trec-qrels", str(qrels_path)]
        if profile:
            cmd += ["--profile", profile]
        done = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "MNEME_GATE_GIT": "off"})
        if done.returncode not in (0, 1):
            print(f"trec_check: {label}: mneme-gate exited {done.returncode}:\n{done.stderr}", file=sys.stderr)
            return 2
        report = json.loads(report_path.read_text(encoding="utf-8"))
        k = report["fingerprint"]["k"]
        measured = subprocess.run([str(venv_python()), "-c", MEASURE, str(qrels_path), str(run_path), str(k)],
                                  capture_output=True, text=True)
        if measured.returncode != 0:
            print(f"trec_check: {label}: ir_measures failed:\n{measured.stderr}", file=sys.stderr)
            return 2
        theirs = json.loads(measured.stdout)

    names = {"recall_at_k": f"R@{k}", "reciprocal_rank": "RR", "ndcg_at_k": f"nDCG@{k}"}
    means = {"recall_at_k": "mean_recall_at_k", "reciprocal_rank": "mrr", "ndcg_at_k": "mean_ndcg_at_k"}
    bad = []
    sums = {m: [] for m in names}
    governed = [s for s in report["scenarios"] if s["expected"]]
    for s in governed:
        for ours_name, their_name in names.items():
            ours = s["metrics"][ours_name]
            theirs_value = theirs.get(s["id"], {}).get(their_name, 0.0)  # no run line: 0 (trec_eval -c)
            sums[ours_name].append(theirs_value)
            if ours is None or abs(ours - theirs_value) > TOLERANCE:
                bad.append(f"{s['id']}: {ours_name} mneme-gate {ours}, ir_measures {their_name} {theirs_value}")
    for ours_name, values in sums.items():
        ours = report["summary"][means[ours_name]]
        theirs_mean = sum(values) / len(values) if values else None
        if (ours is None) != (theirs_mean is None) or (ours is not None and abs(ours - theirs_mean) > TOLERANCE):
            bad.append(f"mean {ours_name}: mneme-gate {ours}, ir_measures {theirs_mean}")
    if bad:
        for line in bad[:50]:
            print(f"  {label}: {line}")
        print(f"trec_check: {label}: FAIL ({len(bad)} disagreement(s))")
        return 1
    print(f"trec_check: {label}: PASS ({len(governed)} governed scenarios; R@{k}, RR and nDCG@{k} agree with ir_measures)")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=str(ROOT / "target" / "debug" / "mneme-gate"))
    parser.add_argument("--memory")
    parser.add_argument("--scenarios")
    parser.add_argument("--profile")
    parser.add_argument("--synth", help="DECISIONS,SCENARIOS,SEED: check a generated suite")
    parser.add_argument("--dev-bin", default=str(ROOT / "target" / "debug" / "mneme-gate-dev"),
                        help="the mneme-gate-dev binary that generates the --synth suite")
    args = parser.parse_args()
    if not Path(args.bin).exists():
        print(f"trec_check: no binary at {args.bin}; build it or pass --bin", file=sys.stderr)
        return 2
    if args.synth:
        if not Path(args.dev_bin).exists():
            print(f"trec_check: no binary at {args.dev_bin}; build it (cargo build -p mneme-gate-dev) "
                  "or pass --dev-bin", file=sys.stderr)
            return 2
        decisions, scenarios, seed = args.synth.split(",")
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([args.dev_bin, "synth", "--decisions", decisions, "--scenarios", scenarios, "--seed", seed,
                            "--out", tmp], check=True, capture_output=True)
            return check(args.bin, f"{tmp}/project_memory.json", f"{tmp}/scenarios", args.profile,
                         f"synth {args.synth}")
    if not (args.memory and args.scenarios):
        parser.error("give --memory and --scenarios, or --synth")
    return check(args.bin, args.memory, args.scenarios, args.profile, args.scenarios)


if __name__ == "__main__":
    sys.exit(main())
