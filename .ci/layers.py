#!/usr/bin/env python3
"""No module imports one above it in the pipeline.

The order below is the pipeline of src/lib.rs (leaves first, the command line
last). A module may import only modules before it; an upward import is a
cycle waiting to happen. Comments are ignored, test code counts, and both
`crate::x` and `crate::{x, y}` are read.

It also fails on any file under src/ with more than MAX_LINES (800) lines
before its first `#[cfg(test)]` line (the whole file when it has none),
printing the file and the count: one concept per file, split into a folder
module when a file grows past it.

    python3 .ci/layers.py [REPO_ROOT]
"""
import pathlib, re, sys

ORDER = [
    # leaves beside the pipeline: they import nothing from the crate
    "describe", "digest", "atomic", "confine", "profile", "tokenize", "chore", "git",
    # the pipeline
    "memory", "retrieval", "context", "cache", "hook", "scenarios", "model", "verdict", "metrics",
    "run", "suggest", "tune", "gate", "report", "baseline", "evaluate", "coverage", "draft",
    # beside it, gathering stages
    "config", "init", "error",
    # the only module that prints
    "cli",
]
RANK = {m: i for i, m in enumerate(ORDER)}
root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".") / "src"

def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)   # block and /*! */ docs
    text = re.sub(r"//[^\n]*", "", text)                  # line, /// and //! docs
    return text

bad = 0
for path in sorted(root.rglob("*.rs")):
    rel = path.relative_to(root)
    if rel.name in ("lib.rs", "main.rs"):
        continue
    module = rel.parts[0].removesuffix(".rs")
    if module not in RANK:
        print(f"{rel}: module `{module}` is not in the order; add it"); bad += 1; continue
    code = strip_comments(path.read_text())
    # crate::x and crate::{x, y::z}
    names = set(re.findall(r"\bcrate::([a-z_][a-z0-9_]*)", code))
    for group in re.findall(r"\bcrate::\{([^}]*)\}", code):
        names |= set(re.findall(r"(?:^|,)\s*([a-z_][a-z0-9_]*)", group))
    for name in sorted(names):
        if name not in RANK:
            print(f"{rel}: crate::{name} is not a module in the order"); bad += 1
        elif RANK[name] > RANK[module]:
            print(f"{rel}: imports crate::{name}, which comes after `{module}`"); bad += 1
print(f"{bad} upward import(s) in {len(list(root.rglob('*.rs')))} files; order: {' -> '.join(ORDER)}")

# One concept per file: the lines before the tests stay under MAX_LINES.
MAX_LINES = 800
long = 0
for path in sorted(root.rglob("*.rs")):
    lines = path.read_text().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    n = next((i for i, line in enumerate(lines) if line.strip() == "#[cfg(test)]"), len(lines))
    if n > MAX_LINES:
        print(f"{path.relative_to(root.parent)}: {n} lines before its tests; at most {MAX_LINES} (split it into a folder module)")
        long += 1
print(f"{long} file(s) over {MAX_LINES} lines before their tests")
sys.exit(1 if bad or long else 0)
