#!/usr/bin/env python3
"""Coordinate descent over profile `default`'s settings on the tuning set of
tests/realrepos/ (docs/retrieval.md, "How the constants were tuned").

Each candidate is run as `mneme-gate run` on a copy of every repository's
folder (in a temporary folder) with a `retrieval:` block of overrides; the
objective is mean recall@3 + 1/2 mean recall@1 - 0.02 per control that got
anything, over the repositories whose SOURCE.md says `role | tuning`. The
held-out repositories are not run unless --measure-held-out is given, which
prints their figures for the final settings once, after the search.

    python3 bench/realrepos_tune.py --bin target/debug/mneme-gate [--passes 3]
        [--start JSON] [--measure-held-out] [--over NAME,NAME,...] [--leave-one-out]

Prints each accepted move and, last, the settings as JSON (the `retrieval:`
block to paste, in YAML's flow style). Python 3.9+, standard library only.
Deterministic: the grid and the order of the moves are fixed.

--over searches the repositories named (`all`: every one) instead of the
tuning set, with a stricter rule for a move, since each repository then
counts alike: the mean of the repositories' objectives (each with its own
control penalty) must rise by more than 0.005 (half a scenario of forty at
recall@1), and more of them must gain than lose. --leave-one-out asks
whether such a search generalises: for each repository of --over (default
all), it searches the others and scores the result on the one left out,
against the settings searched from; a search whose moves score worse on
the repositories left out fits the ones searched, not a new one.
"""
import argparse, copy, json, os, pathlib, re, shutil, subprocess, sys, tempfile

K = 3
GRID = {
    ("weights", "title"): [1.0, 2.0, 3.0, 4.0, 5.0],
    ("weights", "tags"): [0.5, 1.5, 2.5, 3.5],
    ("weights", "constraint"): [0.25, 0.5, 1.0, 1.5, 2.0],
    ("weights", "anti_patterns"): [0.5, 1.0, 1.5],
    ("weights", "content"): [0.25, 0.5, 1.0, 1.5, 2.0],
    ("weights", "summary"): [0.5, 1.0, 2.0, 3.0],
    ("weights", "decision"): [0.5, 1.0, 1.5, 2.0, 3.0],
    ("weights", "context"): [0.25, 0.5, 0.75, 1.0, 1.5],
    ("weights", "options"): [0.0, 0.25, 0.5, 1.0],
    ("weights", "consequences"): [0.0, 0.25, 0.5, 1.0],
    ("bm25f", "k1"): [0.8, 1.2, 2.0, 3.0, 4.0, 6.0, 10.0],
    ("bm25f", "b"): [0.3, 0.5, 0.75, 0.9, 1.0],
    ("bm25f", "path_weight"): [0.0, 0.25, 0.5, 1.0],
    ("bm25f", "path_max_df"): [0.05, 0.1, 0.25, 0.5],
    ("min_score",): [3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
    ("tag_boost",): [0.0, 1.0, 2.0],
}
# Profile `default` as published: the search starts here unless --start says otherwise.
PUBLISHED = {
    "weights": {"title": 5.0, "tags": 2.5, "constraint": 1.0, "anti_patterns": 1.5, "content": 1.5,
                "summary": 2.0, "decision": 0.5, "context": 0.75, "options": 1.0, "consequences": 0.5},
    "bm25f": {"k1": 10.0, "b": 0.5, "path_weight": 0.5, "path_max_df": 0.5},
    "min_score": 5.0, "tag_boost": 1.0,
}


def role(folder):
    text = (folder / "SOURCE.md").read_text(encoding="utf-8")
    return "tuning" if re.search(r"^\| role \| .*tuning", text, re.M | re.I) else "held-out"


def run(binary, folder, settings):
    cfg = folder / "tune.yaml"
    lines = ["memory:", "  - adr: decisions/", "scenarios:", "  - suite/", "retrieval:", "  profile: default",
             f"  k: {K}"]
    for key, value in settings.items():
        if isinstance(value, dict):
            lines.append(f"  {key}: {{" + ", ".join(f"{a}: {b}" for a, b in value.items()) + "}")
        else:
            lines.append(f"  {key}: {value}")
    cfg.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = folder / "tune.json"
    out.unlink(missing_ok=True)
    p = subprocess.run([binary, "run", "--config", str(cfg), "--json", str(out), "--quiet", "--annotations", "off"],
                       env=dict(os.environ, MNEME_GATE_GIT="off"), capture_output=True, text=True)
    if not out.exists():
        sys.exit(f"{folder.name}: no report:\n{p.stdout}{p.stderr}")
    report = json.loads(out.read_text(encoding="utf-8"))
    recall, first, controls = [], [], 0
    for s in report["scenarios"]:
        ids = [x["id"] for x in s["retrieved"]][:K]
        if not s["expected"]:
            controls += 1 if ids else 0
            continue
        e = set(s["expected"])
        recall.append(len([i for i in ids if i in e]) / len(e))
        first.append(1 / len(e) if ids and ids[0] in e else 0.0)
    return sum(recall) / len(recall), sum(first) / len(first), controls


def evaluate(binary, folders, settings):
    return {f.name: run(binary, f, settings) for f in folders}


def objective(results):
    n = len(results)
    return (sum(r[0] for r in results.values()) / n + 0.5 * sum(r[1] for r in results.values()) / n
            - 0.02 * sum(r[2] for r in results.values()))


def shown(results):
    return "  ".join(f"{name} {r[0]:.3f}/{r[1]:.3f}/{r[2]}" for name, r in results.items())


def setting(settings, key):
    """The value of a GRID key (`("min_score",)` or `("weights", "title")`) in settings."""
    return settings[key[0]] if len(key) == 1 else settings[key[0]][key[1]]


def with_setting(settings, key, value):
    """A copy of settings with the GRID key set to value."""
    candidate = copy.deepcopy(settings)
    if len(key) == 1:
        candidate[key[0]] = value
    else:
        candidate[key[0]][key[1]] = value
    return candidate


def objective_of(r):
    return r[0] + 0.5 * r[1] - 0.02 * r[2]


def cached(binary, folders, settings, cache):
    """evaluate(), each repository run once per settings across searches."""
    key = json.dumps(settings, sort_keys=True)
    for f in folders:
        if (f.name, key) not in cache:
            cache[(f.name, key)] = run(binary, f, settings)
    return {f.name: cache[(f.name, key)] for f in folders}


def search_alike(binary, folders, start, passes, cache):
    """The --over search: every repository alike (see the module's text)."""
    ev = lambda settings: cached(binary, folders, settings, cache)
    settings = copy.deepcopy(start)
    results = ev(settings)
    mean = lambda res: sum(objective_of(r) for r in res.values()) / len(res)
    best = mean(results)
    moves = []
    for _ in range(passes):
        moved = False
        for key, values in GRID.items():
            here = setting(settings, key)
            for value in values:
                if value == here:
                    continue
                candidate = with_setting(settings, key, value)
                r = ev(candidate)
                gain = sum(objective_of(r[n]) > objective_of(results[n]) + 1e-9 for n in r)
                loss = sum(objective_of(r[n]) < objective_of(results[n]) - 1e-9 for n in r)
                if mean(r) > best + 0.005 and gain > loss:
                    settings, results, best, moved = candidate, r, mean(r), True
                    moves.append(f"{'.'.join(key)} -> {value} ({best:.4f}, {gain} gain, {loss} lose)")
                    here = value
        if not moved:
            break
    return settings, best, moves


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--start", help="settings as JSON (default: profile default as published)")
    ap.add_argument("--measure-held-out", action="store_true")
    ap.add_argument("--over", help="search these repositories (comma-separated, or `all`), every one alike")
    ap.add_argument("--leave-one-out", action="store_true")
    a = ap.parse_args()
    binary = str(pathlib.Path(a.bin).resolve())
    source = pathlib.Path(__file__).resolve().parent.parent / "tests" / "realrepos"
    with tempfile.TemporaryDirectory() as tmp:
        copy_root = pathlib.Path(tmp) / "realrepos"
        shutil.copytree(source, copy_root)
        folders = sorted(p for p in copy_root.iterdir() if (p / "SOURCE.md").is_file())
        tuning = [f for f in folders if role(f) == "tuning"]
        held = [f for f in folders if role(f) != "tuning"]
        settings = json.loads(a.start) if a.start else copy.deepcopy(PUBLISHED)
        if a.over or a.leave_one_out:
            names = [f.name for f in folders] if a.over in (None, "all") else a.over.split(",")
            over = [f for f in folders if f.name in names]
            if len(over) != len(names):
                sys.exit(f"--over: no such repository among {[f.name for f in folders]}")
            cache = {}
            if not a.leave_one_out:
                found, best, moves = search_alike(binary, over, settings, a.passes, cache)
                start = sum(objective_of(r) for r in cached(binary, over, settings, cache).values()) / len(over)
                print(f"start {start:.4f}")
                for m in moves:
                    print(m, flush=True)
                print(f"mean objective {best:.4f}")
                print(json.dumps(found))
                return
            total_start = total_found = 0.0
            for out in over:
                found, _, moves = search_alike(binary, [f for f in over if f is not out], settings, a.passes, cache)
                before, after = (objective_of(cached(binary, [out], s, cache)[out.name]) for s in (settings, found))
                total_start, total_found = total_start + before, total_found + after
                print(f"{out.name}: {before:.4f} -> {after:.4f} searched without it ({'; '.join(moves) or 'no move'})",
                      flush=True)
            print(f"left out, mean objective: {total_start / len(over):.4f} as searched from, "
                  f"{total_found / len(over):.4f} as searched without each")
            return
        results = evaluate(binary, tuning, settings)
        best = objective(results)
        print(f"start {best:.4f}  {shown(results)}", flush=True)
        for n in range(a.passes):
            moved = False
            for key, values in GRID.items():
                here = setting(settings, key)
                for value in values:
                    if value == here:
                        continue
                    candidate = with_setting(settings, key, value)
                    r = evaluate(binary, tuning, candidate)
                    if objective(r) > best + 1e-9:
                        settings, results, best, moved = candidate, r, objective(r), True
                        print(f"pass {n + 1}: {'.'.join(key)} -> {value}  {best:.4f}  {shown(r)}", flush=True)
            if not moved:
                break
        if a.measure_held_out:
            print(f"held out: {shown(evaluate(binary, held, settings))}")
        print(json.dumps(settings))


if __name__ == "__main__":
    main()
