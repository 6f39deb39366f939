#!/usr/bin/env python3
"""SciPy and statsmodels reproduce the statistics of mneme-gate's comparisons.

docs/metrics.md, "Comparisons with statistics", defines them; this script checks
every one against an independent implementation on the same inputs:

- the paired randomization test, when mneme-gate enumerates every sign
  assignment (at most 16 non-zero differences): equal to
  scipy.stats.permutation_test(permutation_type='samples', n_resamples=inf)
  to 1e-12;
- the sampled randomization test (more than 16): equal to a Python replica of
  its seeded draws (SplitMix64, below) to the bit, and within five Monte Carlo
  standard errors of SciPy's exact p-value (which SciPy enumerates up to 2^20);
- the paired-bootstrap percentile interval: equal to the replica's own
  resamples with numpy.percentile (method='linear') to 1e-12, and within 0.02
  of scipy.stats.bootstrap(method='percentile') on other resamples;
- McNemar's exact test: equal to scipy.stats.binomtest and to statsmodels'
  mcnemar(exact=True) to 1e-12;
- the Wilson interval: equal to statsmodels' proportion_confint(method='wilson')
  to 1e-12;
- the detectable-change constant (6 scenarios) and the planning figure
  (scenarios needed), from scipy.stats.norm;
- end to end: `mneme-gate diff --json` on two real reports (the bundled example
  at k = 1 and k = 3, and a generated suite of 300 scenarios at k = 2 and 4)
  carries the figures recomputed from the reports' own per-scenario metrics.

  tests/reference/stats_check.py --bin target/debug/mneme-gate --dev-bin target/debug/mneme-gate-dev

SciPy and statsmodels are installed from PyPI into target/stats-venv (reused
when there); the script re-runs itself inside it. Exit: 0 agreement, 1
disagreement, 2 usage or setup error. With MNEME_GATE_OFFLINE=1 a failed
install skips the check (exit 0) instead.
"""

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / "target" / "stats-venv"
PACKAGES = ["numpy==2.2.6", "scipy==1.14.1", "statsmodels==0.14.4"]
EXACT = 1e-12
MASK = (1 << 64) - 1
SEED = 29
RESAMPLES = 10_000
TIE = 1e-12


def ensure_venv() -> None:
    python = VENV / "bin" / "python"
    if Path(sys.prefix).resolve() == VENV.resolve():
        return
    probe = [str(python), "-c", "import scipy, statsmodels, numpy"]
    if not (python.exists() and subprocess.run(probe, capture_output=True).returncode == 0):
        try:
            subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
            subprocess.run([str(python), "-m", "pip", "install", "-q", *PACKAGES], check=True)
            subprocess.run(probe, check=True)
        except subprocess.CalledProcessError as e:
            if os.environ.get("MNEME_GATE_OFFLINE") == "1":
                print(f"stats_check: skipped: cannot install {PACKAGES} ({e}) and MNEME_GATE_OFFLINE=1")
                sys.exit(0)
            print(f"stats_check: cannot install {PACKAGES} from PyPI: {e}", file=sys.stderr)
            sys.exit(2)
    os.execv(str(python), [str(python), __file__, *sys.argv[1:]])


# --- the replica of mneme-gate's seeded draws (src/metrics/stats.rs) ---------------------------

class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n):
        threshold = ((1 << 64) - n) % n
        while True:
            x = self.next()
            if x >= threshold:
                return x % n


def seq_sum(values):
    s = 0.0
    for v in values:
        s += v
    return s


def replica_sampled_p(diffs, seed, resamples):
    d = [x for x in diffs if abs(x) > TIE and math.isfinite(x)]
    observed = abs(seq_sum(d))
    bar = observed - 1e-9 * seq_sum(abs(x) for x in d)
    rng = SplitMix64(seed)
    nwords = (len(d) + 63) // 64
    count = 0
    for _ in range(resamples):
        words = [rng.next() for _ in range(nwords)]
        s = 0.0
        for i, v in enumerate(d):
            s = s - v if (words[i // 64] >> (i % 64)) & 1 else s + v
        if abs(s) >= bar:
            count += 1
    return (count + 1.0) / (resamples + 1.0)


def replica_bootstrap(diffs, seed, resamples):
    import numpy as np
    n = len(diffs)
    rng = SplitMix64(seed)
    means = []
    for _ in range(resamples):
        s = 0.0
        for _ in range(n):
            s += diffs[rng.below(n)]
        means.append(s / n)
    means = np.sort(np.array(means))
    return float(np.percentile(means, 2.5, method="linear")), float(np.percentile(means, 97.5, method="linear"))


# --- the independent implementations ---------------------------------------------------------

def scipy_exact_p(diffs):
    import numpy as np
    from scipy import stats
    # A zero difference swaps to itself: leaving it out halves the assignments and the count alike,
    # so the p-value is that of the non-zero differences (and SciPy need not enumerate 2^60 of them).
    d = np.array([x for x in diffs if x != 0.0], dtype=float)
    if len(d) == 0:
        return 1.0
    if len(d) == 1:
        d = np.append(d, 0.0)  # SciPy wants two observations; a zero changes no p-value
    res = stats.permutation_test(
        (d, np.zeros_like(d)), lambda x, y, axis: np.mean(x - y, axis=axis), vectorized=True,
        permutation_type="samples", n_resamples=np.inf, alternative="two-sided", batch=1 << 15)
    return float(res.pvalue)


def mc_tolerance(p, resamples):
    return 5.0 * math.sqrt(max(p * (1 - p), 1e-4) / resamples) + 2.0 / resamples


failures = []


def agree(label, ours, theirs, tol):
    if ours is None or theirs is None:
        if ours != theirs:
            failures.append(f"{label}: mneme-gate {ours}, reference {theirs}")
        return
    if not abs(ours - theirs) <= tol:
        failures.append(f"{label}: mneme-gate {ours!r}, reference {theirs!r} (|diff| {abs(ours - theirs):.3g} > {tol})")


def recall_like(rng):
    e = rng.choice([1, 1, 1, 2, 3])
    return rng.randint(0, e) / e


def rr_like(rng):
    r = rng.choice([0, 1, 1, 2, 3, 4, 5])
    return 0.0 if r == 0 else 1.0 / r


def ndcg_like(rng):
    e = rng.choice([1, 2, 3])
    k = 3
    ranks = rng.sample(range(k + 2), e)
    dcg = seq_sum(1.0 / math.log2(r + 2) for r in sorted(ranks) if r < k)
    idcg = seq_sum(1.0 / math.log2(i + 2) for i in range(min(e, k)))
    return dcg / idcg


def cases(seed):
    rng = random.Random(seed)
    out = []
    # Exact enumeration: up to 16 non-zero differences among up to 40 scenarios.
    for n_changed, n_total in [(1, 5), (3, 10), (6, 6), (5, 35), (8, 35), (12, 40), (16, 16), (16, 60)]:
        for figure in (recall_like, rr_like, ndcg_like):
            d = [0.0] * n_total
            for i in rng.sample(range(n_total), n_changed):
                while d[i] == 0.0:
                    d[i] = figure(rng) - figure(rng)
            out.append(d)
    out.append([1.0] * 6)
    out.append([1.0] * 5)
    out.append([1.0, -1.0])
    out.append([0.0] * 10)
    # Sampled: 17 to 20 non-zero differences (SciPy still enumerates them exactly).
    for n_changed in (17, 18, 20):
        for figure in (recall_like, rr_like):
            d = [0.0] * (n_changed + 10)
            for i in rng.sample(range(len(d)), n_changed):
                while d[i] == 0.0:
                    d[i] = figure(rng) - figure(rng) + (0.3 if rng.random() < 0.3 else 0.0)
            out.append(d)
    return out


def check_pure(dev_bin):
    from scipy import stats
    from statsmodels.stats.contingency_tables import mcnemar
    from statsmodels.stats.proportion import proportion_confint

    paired = cases(2029)
    mcn = [(0, 0), (0, 1), (1, 4), (6, 0), (3, 3), (7, 19), (40, 61), (200, 260), (1000, 1100), (2, 9)]
    wil = [(0, 1), (1, 1), (5, 10), (0, 3), (9, 12), (33, 35), (700, 1000), (1, 10000), (10000, 10000)]
    request = {"paired": paired, "mcnemar": mcn, "wilson": wil, "seed": SEED, "resamples": RESAMPLES}
    done = subprocess.run([dev_bin, "stats"], input=json.dumps(request), capture_output=True, text=True)
    if done.returncode != 0:
        print(f"stats_check: mneme-gate-dev stats exited {done.returncode}:\n{done.stderr}", file=sys.stderr)
        sys.exit(2)
    got = json.loads(done.stdout)
    exact_cases = sampled_cases = 0
    for i, (d, ours) in enumerate(zip(paired, got["paired"])):
        label = f"paired case {i} ({sum(1 for x in d if x != 0)} of {len(d)} changed)"
        wins = sum(1 for x in d if x > TIE)
        losses = sum(1 for x in d if x < -TIE)
        if (ours["wins"], ours["losses"], ours["ties"]) != (wins, losses, len(d) - wins - losses):
            failures.append(f"{label}: win/loss/tie {ours['wins']}/{ours['losses']}/{ours['ties']}")
        agree(f"{label}: mean", ours["mean"], seq_sum(d) / len(d), EXACT)
        reference = scipy_exact_p(d) if any(d) else 1.0
        if ours["exact"]:
            exact_cases += 1
            agree(f"{label}: exact permutation p", ours["p_value"], reference, EXACT)
        else:
            sampled_cases += 1
            agree(f"{label}: sampled permutation p (replica)", ours["p_value"], replica_sampled_p(d, SEED, RESAMPLES), 0.0)
            agree(f"{label}: sampled permutation p (SciPy exact)", ours["p_value"], reference,
                  mc_tolerance(reference, RESAMPLES))
        lo, hi = replica_bootstrap(d, SEED, RESAMPLES)
        agree(f"{label}: bootstrap low (same resamples)", ours["ci"][0], lo, EXACT)
        agree(f"{label}: bootstrap high (same resamples)", ours["ci"][1], hi, EXACT)
        if len(set(d)) > 1:
            import numpy as np
            b = stats.bootstrap((np.array(d),), np.mean, n_resamples=RESAMPLES, method="percentile",
                                random_state=np.random.default_rng(7), vectorized=True)
            agree(f"{label}: bootstrap low (SciPy's resamples)", ours["ci"][0], float(b.confidence_interval.low), 0.02)
            agree(f"{label}: bootstrap high (SciPy's resamples)", ours["ci"][1], float(b.confidence_interval.high), 0.02)
        z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
        m = seq_sum(d) / len(d)
        needed = None
        if len(d) >= 2 and abs(m) > TIE:
            sd = math.sqrt(seq_sum((x - m) * (x - m) for x in d) / (len(d) - 1))
            if sd > TIE:
                needed = math.ceil((z * sd / abs(m)) ** 2)
        if ours["scenarios_needed"] != needed:
            failures.append(f"{label}: scenarios needed {ours['scenarios_needed']}, reference {needed}")
    for (b, c), ours in zip(mcn, got["mcnemar"]):
        n = b + c
        reference = 1.0 if n == 0 else float(stats.binomtest(min(b, c), n, 0.5).pvalue)
        agree(f"McNemar {b}/{c} (binomtest)", ours, reference, EXACT)
        if n > 0:
            table = [[10, b], [c, 10]]
            agree(f"McNemar {b}/{c} (statsmodels)", ours, float(mcnemar(table, exact=True).pvalue), EXACT)
    for (x, n), ours in zip(wil, got["wilson"]):
        lo, hi = proportion_confint(x, n, alpha=0.05, method="wilson")
        agree(f"Wilson {x}/{n} low", ours[0], float(lo), EXACT)
        agree(f"Wilson {x}/{n} high", ours[1], float(hi), EXACT)
    # Six equal moves are the fewest a two-sided exact test calls significant at 5 %.
    if not (scipy_exact_p([1.0] * 6) < 0.05 <= scipy_exact_p([1.0] * 5)):
        failures.append("the fewest significant scenarios is not 6 by SciPy")
    print(f"stats_check: {exact_cases} exact and {sampled_cases} sampled permutation tests, "
          f"{len(paired)} bootstrap intervals, {len(mcn)} McNemar tests, {len(wil)} Wilson intervals checked")


def run_report(binary, args, out):
    cmd = [binary, "run", "--quiet", "--no-baseline", "--json", str(out), *args]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env={**os.environ, "MNEME_GATE_GIT": "off"})
    if done.returncode not in (0, 1):
        print(f"stats_check: {' '.join(cmd)} exited {done.returncode}:\n{done.stderr}", file=sys.stderr)
        sys.exit(2)


def check_diff(binary, old, new, label):
    done = subprocess.run([binary, "diff", "--allow-incompatible", "--json", "-", str(old), str(new)],
                          capture_output=True, text=True, cwd=ROOT)
    if done.returncode not in (0, 1):
        print(f"stats_check: {label}: diff exited {done.returncode}:\n{done.stderr}", file=sys.stderr)
        sys.exit(2)
    statistics = json.loads(done.stdout)["statistics"]
    a = {s["id"]: s for s in json.loads(Path(old).read_text())["scenarios"]}
    b = {s["id"]: s for s in json.loads(Path(new).read_text())["scenarios"]}
    ids = sorted(set(a) & set(b))
    if statistics["paired"] != len(ids):
        failures.append(f"{label}: {statistics['paired']} paired, the reports share {len(ids)}")
    for i, figure in enumerate(statistics["figures"]):
        name = figure["name"]
        d = [b[x]["metrics"][name] - a[x]["metrics"][name] for x in ids
             if a[x]["metrics"][name] is not None and b[x]["metrics"][name] is not None]
        changed = sum(1 for x in d if abs(x) > TIE)
        agree(f"{label}: {name} mean change", figure["mean_change"], seq_sum(d) / len(d), EXACT)
        if changed <= 16:
            reference = scipy_exact_p(d) if changed else 1.0
            agree(f"{label}: {name} exact p", figure["p_value"], reference, EXACT)
        else:
            agree(f"{label}: {name} sampled p (replica)", figure["p_value"],
                  replica_sampled_p(d, SEED + i, RESAMPLES), 0.0)
        lo, hi = replica_bootstrap(d, SEED + i, RESAMPLES)
        agree(f"{label}: {name} bootstrap low", figure["ci_low"], lo, EXACT)
        agree(f"{label}: {name} bootstrap high", figure["ci_high"], hi, EXACT)
    from scipy import stats
    lost = sum(1 for x in ids if a[x]["verdict"] == "PASS" and b[x]["verdict"] != "PASS")
    gained = sum(1 for x in ids if a[x]["verdict"] != "PASS" and b[x]["verdict"] == "PASS")
    v = statistics["verdicts"]
    if (v["lost_pass"], v["gained_pass"]) != (lost, gained):
        failures.append(f"{label}: verdicts {v}, the reports give lost {lost}, gained {gained}")
    reference = 1.0 if lost + gained == 0 else float(stats.binomtest(min(lost, gained), lost + gained, 0.5).pvalue)
    agree(f"{label}: McNemar p", v["p_value"], reference, EXACT)
    print(f"stats_check: {label}: {len(ids)} paired scenarios, figures "
          + ", ".join(f"{f['name']} {f['mean_change']:+.4f} p={f['p_value']:.4f}" for f in statistics["figures"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--dev-bin", required=True)
    args = ap.parse_args()
    ensure_venv()
    binary, dev_bin = str(Path(args.bin).resolve()), str(Path(args.dev_bin).resolve())
    check_pure(dev_bin)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        run_report(binary, ["--k", "1"], tmp / "k1.json")
        run_report(binary, ["--k", "3"], tmp / "k3.json")
        check_diff(binary, tmp / "k1.json", tmp / "k3.json", "bundled example, k 1 → 3")
        synth = tmp / "synth"
        done = subprocess.run([dev_bin, "synth", "--decisions", "500", "--scenarios", "300", "--seed", "3",
                               "--out", str(synth)], capture_output=True, text=True)
        if done.returncode != 0:
            print(f"stats_check: synth exited {done.returncode}:\n{done.stderr}", file=sys.stderr)
            sys.exit(2)
        suite = ["--memory", str(synth / "project_memory.json"), "--scenarios", str(synth / "scenarios")]
        run_report(binary, [*suite, "--k", "2"], tmp / "s2.json")
        run_report(binary, [*suite, "--k", "4"], tmp / "s4.json")
        check_diff(binary, tmp / "s2.json", tmp / "s4.json", "generated suite, k 2 → 4")
    if failures:
        print(f"stats_check: {len(failures)} disagreement(s):", file=sys.stderr)
        for f in failures:
            print(f"  {f}", file=sys.stderr)
        sys.exit(1)
    print("stats_check: every statistic agrees")


if __name__ == "__main__":
    main()
