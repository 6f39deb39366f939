#!/usr/bin/env python3
"""Runs every console example of README.md and docs/*.md and checks its output.

A console example is a fenced block opened with ```console. Each line that
starts with "$ " is a command; the lines after it, up to the next "$ " line or
the end of the block, are its expected standard output. Commands run with bash
from the repository root, with the directory of the mneme-gate binary first on
PATH, NO_COLOR set and GITHUB_ACTIONS unset. To show standard error, the
command says so itself (`2>&1`); to show an exit code, it ends with
`; echo "exit $?"`. A command that exits non-zero without printing its exit
code this way is reported as a failure. An output line must not start with
"$ " (it would be taken for a command).

The pages write their scratch files under /tmp/, as a reader would; the check
writes nothing outside the repository: every "/tmp/" in a command is a folder
it makes under target/ (and removes), shown as "/tmp/" again in the output.

    python3 docs/examples/check.py [--bin target/debug/mneme-gate] [--update] [FILE.md ...]

--update rewrites each block with the output the commands give now (review the
diff and the prose around it before committing). Exit status: 0 when every
example matches, 1 otherwise, 2 on a usage error.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^( *)```console\s*$")


def blocks(text):
    """Yields (start, end, indent) for the body of every console block (a
    block may be indented, inside a list item)."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m:
            j = i + 1
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            yield i + 1, j, m.group(1)
            i = j
        i += 1


def commands(body):
    """Splits a block body into [(command, expected_lines)]."""
    out = []
    for line in body:
        if line.startswith("$ "):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line)
        elif line.strip():
            raise ValueError(f"output before the first command: {line!r}")
    return out


def run(command, env, scratch):
    command = command.replace("/tmp/", f"{scratch}/")
    p = subprocess.run(["bash", "-c", command], cwd=ROOT, env=env, capture_output=True, text=True)
    # The tool shows a path under the working folder relative to it.
    paths = [str(scratch), str(scratch.relative_to(ROOT))]

    def shown(text):
        for path in paths:
            text = text.replace(f"{path}/", "/tmp/").replace(path, "/tmp")
        return text
    return p.returncode, shown(p.stdout), shown(p.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default="target/debug/mneme-gate")
    ap.add_argument("--update", action="store_true")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()

    binary = (ROOT / args.bin).resolve() if not os.path.isabs(args.bin) else Path(args.bin)
    if not binary.is_file():
        print(f"check: {binary} does not exist; run `cargo build` first", file=sys.stderr)
        return 2
    env = dict(os.environ)
    env.pop("GITHUB_ACTIONS", None)
    env["NO_COLOR"] = "1"
    env["PATH"] = f"{binary.parent}{os.pathsep}{env.get('PATH', '')}"

    files = [Path(f) for f in args.files] or [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
    (ROOT / "target").mkdir(exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="docs-examples.", dir=ROOT / "target"))
    try:
        return check(files, args, env, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def check(files, args, env, scratch):
    failures = 0
    checked = 0
    for path in files:
        text = path.read_text(encoding="utf-8")
        lines = text.split("\n")
        replacements = []
        for start, end, indent in blocks(text):
            body = [line[len(indent):] if line.startswith(indent) else line.lstrip(" ") for line in lines[start:end]]
            try:
                cmds = commands(body)
            except ValueError as e:
                print(f"{path}:{start + 1}: {e}")
                failures += 1
                continue
            new_body = []
            for command, expected in cmds:
                checked += 1
                code, stdout, stderr = run(command, env, scratch)
                actual = stdout.rstrip("\n").split("\n") if stdout.strip("\n") else []
                expected_trimmed = expected[:]
                while expected_trimmed and not expected_trimmed[-1].strip():
                    expected_trimmed.pop()
                new_body.append("$ " + command)
                new_body.extend(actual)
                if code != 0:
                    print(f"{path}:{start + 1}: `{command}` exited {code} (end it with `; echo \"exit $?\"` "
                          f"if that is intended)\n{stderr}")
                    failures += 1
                elif actual != expected_trimmed:
                    failures += 1
                    print(f"{path}:{start + 1}: `{command}` printed something else:")
                    import difflib
                    for d in difflib.unified_diff(expected_trimmed, actual, "documented", "actual", lineterm=""):
                        print("  " + d)
            replacements.append((start, end, [(indent + line) if line else "" for line in new_body]))
        if args.update and replacements:
            for start, end, body in reversed(replacements):
                lines[start:end] = body
            path.write_text("\n".join(lines), encoding="utf-8")
    print(f"check: {checked} example command(s), {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
