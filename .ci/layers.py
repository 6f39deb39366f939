#!/usr/bin/env python3
"""No module imports one above it in the pipeline.

The order below is the pipeline of src/lib.rs (leaves first, the command line
last). A module may import only modules before it; an upward import is a
cycle waiting to happen. Comments are ignored, test code counts, and both
`crate::x` and `crate::{x, y}` are read.

It also fails on an import circle between the files of one folder (say
src/cli/args.rs -> settings.rs -> args.rs): within a folder, as between the
stages, the imports point one way. A file's sibling imports are read from
`super::x` and `crate::folder::x` (x a sibling module of the folder); a
folder's mod.rs is its root, not a sibling.

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

# No import circle between the files of one folder.
def siblings_of(folder):
    """The modules of a folder: its .rs files but mod.rs, and its subfolders."""
    names = {p.stem for p in folder.glob("*.rs") if p.name != "mod.rs"}
    names |= {p.name for p in folder.iterdir() if p.is_dir()}
    return names

circles = 0
for folder in sorted({p.parent for p in root.rglob("*.rs")}):
    if folder == root:
        continue  # the stages: the layer order above
    siblings = siblings_of(folder)
    module_path = "::".join(folder.relative_to(root).parts)
    graph = {}
    for path in sorted(folder.glob("*.rs")):
        if path.name == "mod.rs":
            continue
        code = strip_comments(path.read_text())
        names = set(re.findall(r"(?<!::)\bsuper::([a-z_][a-z0-9_]*)", code))
        for group in re.findall(r"(?<!::)\bsuper::\{([^}]*)\}", code):
            names |= set(re.findall(r"(?:^|,)\s*([a-z_][a-z0-9_]*)", group))
        names |= set(re.findall(r"\bcrate::" + re.escape(module_path) + r"::([a-z_][a-z0-9_]*)", code))
        for group in re.findall(r"\bcrate::" + re.escape(module_path) + r"::\{([^}]*)\}", code):
            names |= set(re.findall(r"(?:^|,)\s*([a-z_][a-z0-9_]*)", group))
        graph[path.stem] = sorted(n for n in names if n in siblings and n != path.stem)
    # Depth-first search; a back edge closes a circle.
    state, stack = {}, []
    def visit(node):
        global circles
        state[node] = "open"; stack.append(node)
        for nxt in graph.get(node, []):
            if state.get(nxt) == "open":
                cycle = stack[stack.index(nxt):] + [nxt]
                print(f"{folder.relative_to(root.parent)}: import circle {' -> '.join(cycle)}"); circles += 1
            elif nxt not in state:
                visit(nxt)
        stack.pop(); state[node] = "done"
    for node in sorted(graph):
        if node not in state:
            visit(node)
print(f"{circles} import circle(s) between the files of a folder")

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
sys.exit(1 if bad or long or circles else 0)
