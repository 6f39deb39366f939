#!/usr/bin/env python3
"""No note addressed to the people who build mneme-gate lands in a file it ships.

A product file is read by users: the README, docs/, the source, the Action,
the example suite, templates, the Dockerfile. A line that speaks to one of
the people building it (an instruction to a role, or to remove the line
itself), a coordination file left at the root, a path of the machine the
checkout sits on, the tracker's issue numbers, or an `XXX` marker left for
someone is a defect there. Third-party data (fixtures, vendored conformance files, fuzz seeds)
is not ours to word and is not checked. In a Markdown page (README.md,
docs/, not the example inputs under docs/examples/) an HTML comment is
flagged whatever it says: GitHub does not show it, so it can only speak to
whoever edits the page.

    python3 .ci/team_notes.py [REPO_ROOT]

Exits 1 and prints each finding as `path:line: text` when there is one.
"""
import pathlib
import re
import subprocess
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()

# Files that are third-party data or that quote these phrases on purpose.
SKIP_PREFIXES = (
    "fixtures/",
    "fuzz/seeds/",
    "tests/conformance/",
    "tests/fixtures/",
    "tests/realrepos/",
    ".ci/team_notes.py",
)
# Files that only the team would read and that have no place in a release.
FORBIDDEN_NAMES = re.compile(
    r"^(ENGINEER|LEAD|HELPER|COORDINATOR|HANDOFF|SESSION)[-_ ]?(NOTES?|TODO)?\.(md|txt)$", re.I
)
PATTERNS = [
    # a note to a role of the team
    re.compile(r"\b(lead |dear |attention[: ]+)?(engineers?|helpers?|coordinator|reviewers?|maintainers?|editors?|readers?|team|everyone)\s*:\s*(read|do|delete|remove|fix|don't|please|keep|move|update|note)\b", re.I),
    # a note to someone by name of role
    re.compile(r"\bnote (to|for) (the )?(engineers?|helpers?|coordinator|reviewers?|maintainers?|editors?|team|whoever)\b", re.I),
    # a coordination file named in the text
    re.compile(r"\b(ENGINEER|LEAD|HELPER|COORDINATOR|HANDOFF)[-_]NOTES?\b", re.I),
    # an instruction to delete the very line or file it is in
    re.compile(r"\b(then )?(delete|remove) this (line|note|comment|file)\b", re.I),
    # coordination vocabulary that no user needs
    re.compile(r"\b(this worktree|your worktree|the coordinator|helper session)\b", re.I),
    # markers addressed to someone
    re.compile(r"\bXXX\b"),
    # the tracker's numbers: a user has no access to them; say what the thing is
    re.compile(r"\b(issue|ticket) #?\d+\b", re.I),
]
# A path of this machine: this checkout, or a folder beside it (another
# checkout, notes, a scratch clone), written out in full.
try:
    _beside = sorted(p.name for p in root.parent.iterdir() if p.is_dir())
except OSError:
    _beside = [root.name]
PATTERNS.append(
    re.compile(re.escape(str(root.parent).rstrip("/") + "/") + "(" + "|".join(map(re.escape, _beside)) + r")\b")
)


def tracked_files():
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=root, check=True, capture_output=True
        ).stdout
        return [p for p in out.decode("utf-8", "replace").split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        return [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and ".git" not in p.parts and "target" not in p.parts]


findings = []
for rel in sorted(tracked_files()):
    if rel.startswith(SKIP_PREFIXES):
        continue
    name = rel.rsplit("/", 1)[-1]
    if FORBIDDEN_NAMES.match(name):
        findings.append(f"{rel}: a note to the team is not a product file; remove it")
        continue
    path = root / rel
    try:
        data = path.read_bytes()
    except OSError:
        continue
    if b"\0" in data[:8192] or len(data) > 4 * 1024 * 1024:
        continue
    text = data.decode("utf-8", "replace")
    page = rel.endswith(".md") and not rel.startswith("docs/examples/")
    for number, line in enumerate(text.splitlines(), 1):
        if page and "<!--" in line:
            findings.append(f"{rel}:{number}: an HTML comment in a page is read only by whoever edits it: {line.strip()[:120]}")
            continue
        for pattern in PATTERNS:
            if pattern.search(line):
                findings.append(f"{rel}:{number}: {line.strip()[:160]}")
                break

for f in findings:
    print(f)
print(f"{len(findings)} note(s) addressed to the team in product files")
sys.exit(1 if findings else 0)
