#!/usr/bin/env python3
"""How much of a hand-mined suite `mneme-gate draft` proposes on its own.

For each repository of tests/realrepos/ (hand-mined scenarios, each naming its
commit's full hash in its `description`, with hand-judged `expect`), runs
`draft` over a clone of the repository checked out at the commit its
decisions were copied at, and measures:

- coverage: the share of hand-mined governed scenarios whose commit `draft`
  also drafts as a governed scenario (target >= 60 %);
- first proposed id: of those drafted scenarios, the share whose first
  proposed id the hand-judged `expect` has (every kind of evidence);
- strong precision: of the ids `draft` proposes from strong evidence (the
  decision's file edited in the same commit) on those commits, the share the
  hand-judged `expect` has (target >= 90 %); in `acceptable` is counted apart.

    python3 bench/draft_realrepos.py --bin target/debug/mneme-gate \
        --realrepos tests/realrepos --clones DIR [--max N] [--repo NAME]

DIR/<name> is a clone of the repository (a work tree with at least the
decision folder checked out, HEAD at the commit of SOURCE.md); the decision
folder is read from SOURCE.md's `path` row. A clone without its large blobs
will do, since `draft` reads trees, not file contents:

    git clone -q --shared --no-checkout URL-OR-MIRROR DIR/NAME
    git -C DIR/NAME reset -q --soft COMMIT           # HEAD at the commit
    git -C DIR/NAME checkout -q COMMIT -- PATH       # the decision folder only
"""
import argparse, pathlib, re, subprocess, sys, tempfile

def hand_suite(folder):
    text = "".join(p.read_text() for p in sorted((folder / "suite").glob("*.yaml")))
    out = []
    for block in re.split(r"\n  - id: ", text)[1:]:
        commit = re.search(r'description: "commit ([0-9a-f]{40})', block) or re.search(r"([0-9a-f]{40})", block)
        ids = lambda key: re.findall(r"[A-Za-z0-9_.-]+", (re.search(rf"\n    {key}: \[(.*?)\]", block) or [None, ""])[1])
        control = re.search(r"^    category: control\s*$", block, re.M) is not None  # not control-plane, controllers
        out.append({"commit": commit.group(1) if commit else None, "expect": ids("expect"),
                    "acceptable": ids("acceptable"), "control": control})
    return out

def drafted(text):
    out = {}
    for block in re.split(r"\n  - id: ", text)[1:]:
        commit = re.search(r'commit: "([0-9a-f]{40})"', block).group(1)
        strong = set(re.findall(r"# expect (\S+) \(.*\(strong\)\n", block))
        expect = re.findall(r'"([^"]+)"', re.search(r"\n    expect: \[(.*)\]", block).group(1))
        out[commit] = {"expect": expect, "strong": strong, "control": re.search(r"^    category: control\s*$", block, re.M) is not None}
    return out

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--realrepos", required=True)
    ap.add_argument("--clones", required=True)
    ap.add_argument("--max", default="12000")
    ap.add_argument("--repo", action="append")
    a = ap.parse_args()
    binary = str(pathlib.Path(a.bin).resolve())
    rows, total = [], [0, 0, 0, 0, 0, 0, 0]
    for folder in sorted(p for p in pathlib.Path(a.realrepos).iterdir() if (p / "SOURCE.md").is_file()):
        if a.repo and folder.name not in a.repo:
            continue
        source = (folder / "SOURCE.md").read_text()
        path = re.search(r"^\| path \| `([^`]+)`", source, re.M).group(1)
        clone = pathlib.Path(a.clones) / folder.name
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(clone / ".draft-measure.yaml")
            run = subprocess.run([binary, "draft", "--memory", f"adr:{path}", "--max", a.max, "--out", out.name],
                                 cwd=clone, capture_output=True, text=True)
            if run.returncode != 0:
                sys.exit(f"{folder.name}: draft exited {run.returncode}: {run.stderr}")
            d = drafted(out.read_text())
            out.unlink()
        hand = [s for s in hand_suite(folder) if not s["control"]]
        found = [s for s in hand if s["commit"] in d and not d[s["commit"]]["control"]]
        strong = [(i, s) for s in found for i in d[s["commit"]]["strong"]]
        right = sum(1 for i, s in strong if i in s["expect"])
        acceptable = sum(1 for i, s in strong if i not in s["expect"] and i in s["acceptable"])
        governed = sum(1 for v in d.values() if not v["control"])
        first = sum(1 for s in found if d[s["commit"]]["expect"][0] in s["expect"])
        rows.append((folder.name, len(hand), len(found), len(strong), right, acceptable, governed, first))
        for j, v in enumerate((len(hand), len(found), len(strong), right, acceptable, governed, first)):
            total[j] += v
    print("| repository | hand-mined governed | drafted too | coverage | strong ids | in expect | in acceptable | strong precision | drafted governed | first proposed id in expect |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, hand, found, strong, right, acc, governed, first in rows + [("all", *total)]:
        cov = f"{found / hand:.1%}" if hand else "-"
        prec = f"{right / strong:.1%}" if strong else "-"
        firsts = f"{first / found:.1%}" if found else "-"
        print(f"| {name} | {hand} | {found} | {cov} | {strong} | {right} | {acc} | {prec} | {governed} | {firsts} |")

if __name__ == "__main__":
    main()
