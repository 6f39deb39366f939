#!/usr/bin/env python3
"""An independent reference implementation of profile `default` (BM25F).

Written from docs/retrieval.md ("Profile default"), not from the Rust code:
the tokenizer with identifier splitting, the integer BM25F arithmetic (a
fixed-point log2 by repeated squaring, every division rounded down), the
path taken apart from the task, the tag boost and the abstention threshold.
Loading a memory file and matching scope globs are the contract's, shared
with mneme_ref.py (imported from it).

    python3 bm25_ref.py --memory F --queries Q [--k 3]
    python3 bm25_ref.py --self-test

Prints one line per query, as `mneme-gate retrieve --profile default` does.
Python 3.9+, standard library only.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mneme_ref  # noqa: E402  (loading and globs: the contract's)

# Profile `default`, in thousandths.
WEIGHTS = {
    "title": 5000,
    "tags": 2500,
    "constraint": 1000,
    "anti_patterns": 1500,
    "content": 1500,
    # ADR sections (always empty in a JSON memory file)
    "summary": 2000,
    "decision": 500,
    "context": 750,
    "options": 1000,
    "consequences": 500,
}
FIELDS = tuple(WEIGHTS)
TAG_BOOST = 1000
MIN_TOKEN_LEN = 3
MIN_SCORE = 5000
K1 = 10000
B = 500
PATH_WEIGHT = 500
PATH_MAX_DF = 500
FRACTION_BITS = 16
JOINERS = "_-."
# The task words that say what kind of change it is (docs/retrieval.md, "The
# query"): never scored as task words.
TASK_VERBS = frozenset("""
add added adding adds allow allows change changed changes chore clean cleanup create created delete deleted
disable disabled enable enabled feat fix fixed fixes handle implement implemented improve improved improvements
initial introduce introduced introduces make merge merged move moved moves refactor refactored refactoring remove
removed removes removing rename renamed replace replaced revert set support update updated updates updating upgrade
upgraded use
""".split())


# --------------------------------------------------------------------------
# Tokens
# --------------------------------------------------------------------------


def _is_word_char(c: str) -> bool:
    return c.isalnum() or c in JOINERS


def _acronym_of_plural(part: str):
    """`SNI` for `SNIs`: two or more capitals and a final `s`; else None."""
    if len(part) >= 3 and part.endswith("s") and all(c.isupper() for c in part[:-1]):
        return part[:-1]
    return None


def _case_parts(segment: str) -> list[str]:
    """Cut before an upper-case letter after a lower-case letter or a digit,
    and before the last capital of a run of capitals followed by a lower-case
    letter, unless that letter is a lone `s` (the end of the segment, or an
    `s` before a capital or a digit): capitals and an `s` are an acronym's
    plural, which gives its acronym too. Empty when there is one part and it
    is no plural."""
    cuts = []
    for i in range(1, len(segment)):
        prev, cur = segment[i - 1], segment[i]
        nxt = segment[i + 1] if i + 1 < len(segment) else ""
        after = segment[i + 2] if i + 2 < len(segment) else ""
        lone_s = nxt == "s" and not after.islower()
        if cur.isupper() and (prev.islower() or prev.isnumeric() or (prev.isupper() and nxt.islower() and not lone_s)):
            cuts.append(i)
    if not cuts:
        acronym = _acronym_of_plural(segment)
        return [acronym] if acronym else []
    parts, start = [], 0
    for c in cuts + [len(segment)]:
        part = segment[start:c]
        parts.append(part)
        acronym = _acronym_of_plural(part)
        if acronym:
            parts.append(acronym)
        start = c
    return parts


def pieces(text: str) -> list[str]:
    out: list[str] = []
    word: list[str] = []
    for c in text + " ":
        if _is_word_char(c):
            word.append(c)
            continue
        w = "".join(word).strip(JOINERS)
        word = []
        if not w:
            continue
        if any(j in w for j in JOINERS):
            out.append(w)
        seg = []
        for c2 in w + "_":
            if c2 in JOINERS:
                if seg:
                    s = "".join(seg)
                    out.append(s)
                    out.extend(_case_parts(s))
                seg = []
            else:
                seg.append(c2)
    return out


def fold_plural(word: str) -> str:
    """An English plural as its singular, by its ending (docs/retrieval.md,
    "Identifiers"): only a word of ASCII lower-case letters, four or more."""
    n = len(word)
    if n < 4 or not word.endswith("s") or not all("a" <= c <= "z" for c in word):
        return word
    if n >= 5 and word.endswith("ies") and not word.endswith(("aies", "eies")):
        return word[:-3] + "y"
    if word.endswith("sses") or (n >= 5 and word.endswith(("shes", "ches", "xes", "zzes"))):
        return word[:-2]
    if word.endswith(("ss", "us", "is")):
        return word
    return word[:-1]


def tokens(value) -> set[str]:
    if value is None:
        return set()
    if isinstance(value, list):
        out: set[str] = set()
        for v in value:
            out |= tokens(v)
        return out
    result = set()
    for p in pieces(value):
        t = p.lower()
        if len(t) >= MIN_TOKEN_LEN and t not in mneme_ref.STOPWORDS:
            result.add(fold_plural(t))
    return result


def about(task: str) -> str:
    """The task without the label of a reference number it opens with (a
    word of ASCII letters, spaces, `#` and digits, after any leading `[...]`
    or `(...)` groups; then a `:`) and, when it has one, without a last
    `(...)` that lists names (docs/retrieval.md, "The score")."""
    i = 0
    while True:
        while i < len(task) and task[i] in " \t\n\r\x0b\x0c":
            i += 1
        if i < len(task) and task[i] in "[(":
            close = task.find("]" if task[i] == "[" else ")", i)
            if close < 0:
                break
            i = close + 1
        else:
            break
    start = i
    while i < len(task) and task[i].isascii() and task[i].isalpha():
        i += 1
    if i == start:
        return task
    while i < len(task) and task[i] == " ":
        i += 1
    if i >= len(task) or task[i] != "#":
        return task
    i += 1
    digits = i
    while i < len(task) and task[i].isascii() and task[i].isdigit():
        i += 1
    if i == digits or (i < len(task) and task[i].isascii() and task[i].isalnum()):
        return task
    if i < len(task) and task[i] == ":":
        i += 1
    rest = task[i:]
    body = rest.rstrip(" \t\n\r\x0b\x0c")
    if body.endswith(")"):
        body = body[:-1]
        open_at = body.rfind("(")
        if open_at >= 0:
            names = body[open_at + 1:]
            ok = not names.lstrip().startswith("#") and all(
                n.strip() and all(c.isalnum() or c in "-_.[]" for c in n.strip()) for n in names.split(","))
            if ok:
                rest = body[:open_at]
    return task[:start] + rest


# --------------------------------------------------------------------------
# Integer arithmetic
# --------------------------------------------------------------------------


def log2_q(a: int, b: int) -> int:
    """log2(a/b) in units of 2**-16: integer part from the bit length, then
    one bit per squaring of a 2.62 fixed-point mantissa (truncated)."""
    if b == 0 or a <= b:
        return 0
    x = (a << 64) // b
    n = x.bit_length() - 1 - 64
    y = (x >> n) >> 2
    one = 1 << 62
    frac = 0
    for _ in range(FRACTION_BITS):
        y = (y * y) >> 62
        frac <<= 1
        if y >= 2 * one:
            y >>= 1
            frac |= 1
    return (n << FRACTION_BITS) + frac


IDF_PRIOR = 16


def idf(n: int, df: int) -> int:
    n += IDF_PRIOR
    return (log2_q(2 * n + 2, 2 * df + 1) * 1000) // (1 << FRACTION_BITS)


def norm(length: int, total: int, n: int) -> int:
    if total == 0:
        return 1000
    return max(1, ((1000 - B) * total + B * length * n) // total)


def saturate(x: int) -> int:
    return 0 if x <= 0 else (x * (K1 + 1000)) // (K1 + x)


# --------------------------------------------------------------------------
# Chores (docs/retrieval.md, "Chores")
# --------------------------------------------------------------------------

CHORE_WORDS = {
    "typo": {"typo", "typos", "spelling", "misspelling", "misspellings", "misspelled", "misspelt"},
    "dependency": {"dependabot"},
    "formatting": {"whitespace", "formatting", "formatted", "reformat", "reformats", "reformatted",
                   "reformatting", "prettier", "rustfmt", "gofmt", "indentation"},
    "changelog": {"changelog"},
}
BUMP = {"bump", "bumps", "bumped"}
FORMATTING_FIRST = {"format", "fmt", "lint"}
# What a decision's title says when the team decided about a kind of chore.
TITLE_WORDS = {
    "typo": CHORE_WORDS["typo"],
    "dependency": BUMP | CHORE_WORDS["dependency"] | {"dependency", "dependencies", "renovate"},
    "formatting": CHORE_WORDS["formatting"] | {"lint", "linting", "linter", "linters", "fmt"},
    "changelog": CHORE_WORDS["changelog"],
    "docs": {"docs", "documentation", "readme", "readmes"},
    "papers": {"readme", "contributing", "contributors", "licence", "license", "licensing", "conduct"},
}
# `dependency` before one of these names a design pattern, not the project's dependencies.
DEPENDENCY_PATTERN = {"injection", "injections", "inversion"}
ROOT_PAPERS = {"README", "LICENSE", "LICENCE", "COPYING", "AUTHORS", "CONTRIBUTORS", "MAINTAINERS"}
# GitHub's community health files, read at the root, in .github/ or in docs/.
COMMUNITY_HEALTH = {"CODE_OF_CONDUCT", "CONTRIBUTING", "FUNDING", "GOVERNANCE", "SECURITY", "SUPPORT",
                    "PULL_REQUEST_TEMPLATE"}
PAPER_EXTENSIONS = {"MD", "MARKDOWN", "TXT", "RST", "ADOC"}
CHANGELOG_FILES = {"CHANGELOG", "CHANGES", "NEWS", "HISTORY"}


def _words(text: str) -> list[str]:
    """Runs of letters, digits, '-' and '_', without '-' and '_' at their ends."""
    out, cur = [], []
    for c in text.lower() + " ":
        if c.isalnum() or c in "-_":
            cur.append(c)
        elif cur:
            w = "".join(cur).strip("-_")
            if w:
                out.append(w)
            cur = []
    return out


def _digits(s: str) -> bool:
    return bool(s) and s.isascii() and s.isdigit()


def _names_a_decision(words: list[str]) -> bool:
    for i, w in enumerate(words):
        if w.startswith("adr"):
            rest = w[3:].lstrip("-_")
            if _digits(rest):
                return True
            if not rest and i + 1 < len(words) and _digits(words[i + 1]):
                return True
    return False


def _is_version(piece: str) -> bool:
    digits = piece[1:] if piece.startswith("v") else piece
    return (bool(digits) and "0" <= digits[0] <= "9" and all(c in "0123456789." for c in digits)
            and (piece.startswith("v") or "." in digits))


def _strip_punct(piece: str) -> str:
    a, b = 0, len(piece)
    while a < b and not piece[a].isalnum():
        a += 1
    while b > a and not piece[b - 1].isalnum():
        b -= 1
    return piece[a:b]


def _conventional(task: str):
    lower = task.lower()
    if ": " not in lower:
        return None
    head = lower.split(": ", 1)[0].lstrip()
    if head.endswith("!"):
        head = head[:-1]
    scope = ""
    if "(" in head:
        kind, rest = head.split("(", 1)
        if not rest.endswith(")"):
            return None
        scope = rest[:-1]
    else:
        kind = head
    if not kind or not all("a" <= c <= "z" for c in kind):
        return None
    if scope == "deps" or scope.startswith("deps-"):
        return "dependency"
    if scope in CHORE_WORDS["formatting"] or scope in ("fmt", "lint"):
        return "formatting"
    if scope in CHORE_WORDS["typo"]:
        return "typo"
    if scope in CHORE_WORDS["changelog"]:
        return "changelog"
    return {"docs": "docs", "style": "formatting"}.get(kind)


def _pieces(task: str) -> list[str]:
    """The task's whitespace-separated pieces, lower-cased, without the punctuation around them,
    the empty ones left out."""
    return [p for p in (_strip_punct(p) for p in task.lower().split()) if p]


def _renovate_update(task: str, words: list[str]) -> bool:
    """`Update X to ~> 7.44.0`: update or upgrade first, `to` and a version last (but for a
    reference number, `(major)` or `[SECURITY]`)."""
    if not words or words[0] not in ("update", "upgrade"):
        return False
    pieces = _pieces(task)
    while pieces and ((pieces[-1].isascii() and pieces[-1].isdigit()) or pieces[-1] in ("major", "security")):
        pieces.pop()
    return len(pieces) >= 4 and _is_version(pieces[-1]) and pieces[-2] == "to"


def chore_of_task(task: str):
    words = _words(task)
    if _names_a_decision(words):
        return None
    kind = _conventional(task)
    if kind:
        return kind
    if any(w in CHORE_WORDS["typo"] for w in words):
        return "typo"
    for at, w in enumerate(words):
        if w in BUMP:
            after = words[at + 1:]
            from_to = "from" in after and "to" in after[after.index("from"):]
            version = any(_is_version(p) for p in _pieces(task))
            if from_to or version:
                return "dependency"
            break
    if any(w in CHORE_WORDS["dependency"] for w in words) or _renovate_update(task, words):
        return "dependency"
    if any(w in CHORE_WORDS["formatting"] for w in words) or (words and words[0] in FORMATTING_FIRST):
        return "formatting"
    if any(w in CHORE_WORDS["changelog"] for w in words):
        return "changelog"
    return None


def chore_of_file(path: str):
    folder, _, name = path.replace("\\", "/").rpartition("/")
    name = name.upper()
    stem = name.split(".")[0]
    folder = folder.lower()
    if stem in CHANGELOG_FILES:
        return "changelog"
    if stem in ROOT_PAPERS and not folder:
        return "papers"
    paper = "." not in name or name.rsplit(".", 1)[1] in PAPER_EXTENSIONS
    if paper and folder in ("", ".github", "docs") and stem in COMMUNITY_HEALTH:
        return "papers"
    if folder in (".github/issue_template", ".github/pull_request_template"):
        return "papers"
    return None


def docs_edit(task: str, path: str):
    """A task that names documentation, on a document anywhere."""
    name = path.replace("\\", "/").rpartition("/")[2].upper()
    if "." not in name or name.rsplit(".", 1)[1] not in PAPER_EXTENSIONS:
        return None
    return "docs" if any(w in TITLE_WORDS["docs"] for w in _words(task)) else None


def title_names(title: str, kind: str) -> bool:
    words = _words(title)
    for i, w in enumerate(words):
        if w in TITLE_WORDS[kind]:
            if (kind == "dependency" and w in ("dependency", "dependencies", "renovate") and i + 1 < len(words)
                    and words[i + 1] in DEPENDENCY_PATTERN):
                continue
            return True
    return False


def chore_of_query(task: str, path, titles) -> str | None:
    """The first kind of chore the query is (by its task, then by its file)
    that no decision's title names."""
    if _names_a_decision(_words(task)):
        return None
    kinds = [chore_of_task(task)]
    if path:
        kinds += [chore_of_file(path), docs_edit(task, path)]
    for kind in kinds:
        if kind is not None and not any(title_names(title, kind) for title in titles):
            return kind
    return None


# --------------------------------------------------------------------------
# Retrieval
# --------------------------------------------------------------------------


def field_value(rec, name: str):
    return getattr(rec, name, "") if name in ("title", "tags", "constraint", "anti_patterns", "content") else ""


class Corpus:
    def __init__(self, pool):
        self.pool = pool
        self.n = len(pool)
        self.fields = [{f: tokens(field_value(r, f)) for f in FIELDS} for r in pool]
        self.total = {f: sum(len(fs[f]) for fs in self.fields) for f in FIELDS}
        self.df: dict[str, int] = {}
        for fs in self.fields:
            for t in set().union(*fs.values()):
                self.df[t] = self.df.get(t, 0) + 1

    def term(self, d: int, t: str) -> int:
        fs = self.fields[d]
        x = 0
        for f in FIELDS:
            if t in fs[f]:
                x += (WEIGHTS[f] * 1000) // norm(len(fs[f]), self.total[f], self.n)
        return (idf(self.n, self.df[t]) * saturate(x)) // 1000

    def score(self, d: int, task: set[str], path: list[set[str]]) -> tuple[int, bool]:
        fs = self.fields[d]
        holds = set().union(*fs.values())
        total, touched = 0, False
        for t in task & holds:
            total += self.term(d, t)
            touched = True
        # Each word of the path counts once: its best token in this decision.
        for word in path:
            held = word & holds
            if held:
                total += max((self.term(d, t) * PATH_WEIGHT) // 1000 for t in held)
                touched = True
        for tag in self.pool[d].tags:
            tt = tokens(tag)
            if tt and tt <= task:
                total += TAG_BOOST
                touched = True
        return total, touched


def retrieve(corpus: Corpus, task: str, path: str | None, k: int):
    if path is not None:
        path = mneme_ref.normalise_path(path) or None
    task_tokens = tokens(about(task))
    path_tokens = tokens(path) if path is not None else set()
    if not tokens(task) and not path_tokens:
        return []
    # The words that say what kind of change the task is are not scored.
    task_tokens -= {fold_plural(v) for v in TASK_VERBS}
    if chore_of_query(task, path, [rec.title for rec in corpus.pool]):
        return []
    # The path's words (its '/'-separated parts), each with its informative
    # tokens that are not task tokens; a token in several words is the first's.
    path_words, seen = [], set(task_tokens)
    for part in (path or "").split("/"):
        if not part:
            continue
        word = {t for t in tokens(part) - seen
                if t in corpus.df and corpus.df[t] * 1000 <= PATH_MAX_DF * corpus.n}
        seen |= tokens(part)
        path_words.append(word)
    hits = []
    for d, rec in enumerate(corpus.pool):
        if path is not None and rec.globs:
            if not any(g.match(path.encode("utf-8")) for g in rec.globs):
                continue
        s, _ = corpus.score(d, task_tokens, path_words)
        if s > MIN_SCORE:
            hits.append((rec.id, s, d))
    hits.sort(key=lambda h: (-h[1], h[2]))
    return hits[:k]


def self_test() -> int:
    checks = 0

    def eq(got, want, what):
        nonlocal checks
        checks += 1
        if got != want:
            raise SystemExit(f"self-test failed: {what}: got {got!r}, want {want!r}")

    eq(sorted(tokens("MeshTimeout")), ["mesh", "meshtimeout", "timeout"], "camel")
    eq(sorted(tokens("HTTPServerError")), ["error", "http", "httpservererror", "server"], "capitals")
    eq(sorted(tokens("src/Mesh/MeshTimeout.cs")), ["mesh", "meshtimeout", "meshtimeout.cs", "src", "timeout"], "path")
    eq(sorted(tokens("SNIs")), ["sni", "snis"], "an acronym's plural")
    eq(sorted(tokens("URLsByHost")), ["host", "url", "urlsbyhost"], "a plural within a word")
    eq(sorted(tokens("HTTPService")), ["http", "httpservice", "service"], "an s that begins a word")
    eq(sorted(tokens("flushes MeshPolicies classes status")),
       ["class", "flush", "mesh", "meshpolicy", "policy", "status"], "plurals folded")
    eq(about("feature #15063 [API] Allow overriding xml (NoResponseMate)"), " [API] Allow overriding xml ", "label and credit")
    eq(about("(On getgov-za) Task #2158: Use biometric auth"), "(On getgov-za)  Use biometric auth", "a label after a group")
    eq(about("Support IPv6 #123"), "Support IPv6 #123", "no label")
    eq(about("bug #1 Handle the timeout (when retrying)"), " Handle the timeout (when retrying)", "no credit")
    eq(log2_q(2, 1), 1 << 16, "log2 2")
    eq(idf(34, 1), 5087, "idf rare")
    eq(idf(34, 25), 1000, "idf half")
    eq(idf(1, 1), 3584, "idf of a one-decision pool")
    eq(saturate(3000), 2538, "saturation")
    eq(chore_of_query("Fix a typo", "src/a.py", ["Store orders"]), "typo", "a typo fix")
    eq(chore_of_query("Fix a typo", "src/a.py", ["Fix every typo"]), None, "a decided chore")
    eq(chore_of_query("Add a link", "README.md", []), "papers", "the root README")
    eq(chore_of_query("Add a link", "README.md", ["Documentation"]), "papers", "a docs decision is not about the README")
    eq(chore_of_query("Add a link", "README.md", ["One README per package"]), None, "a README decision")
    eq(chore_of_query("Fix indent", ".github/PULL_REQUEST_TEMPLATE.md", []), "papers", "a community health file")
    eq(chore_of_query("Fix it", "src/security.py", []), None, "a source file named like a paper")
    eq(chore_of_query("Bump a from 1 to 2", None, ["Usage of Dependency Injection"]), "dependency",
       "dependency injection is no decision about dependencies")
    eq(chore_of_query("Bump a from 1 to 2", None, ["Keep dependencies current"]), None, "a dependency decision")
    eq(chore_of_query("Add a link", "docs/README.md", []), None, "a deeper README")
    eq(chore_of_query("README update: add steps", "web/README.md", []), "docs", "a README task on a document")
    eq(chore_of_query("Fix a link in docs", "web/docs/a.rst", ["Documentation"]), None, "a docs decision")
    eq(chore_of_query("Add docs to the client", "src/client.cs", []), None, "docs on code")
    eq(chore_of_query("chore(deps): pin x per ADR-7", None, []), None, "a task that names a decision")
    eq(chore_of_query("docs: fix the links", "README.md", ["Documentation Automation"]), "papers",
       "a chore of a kind no decision decided")
    eq(chore_of_query("docs(api): describe refunds", None, []), "docs", "a conventional docs header")
    eq(chore_of_query("Bump serde to 1.0.200", None, []), "dependency", "a bump with a version")
    eq(chore_of_query("Bump x from 8 to 9", None, []), "dependency", "a bump from and to")
    eq(chore_of_query("Bump the base image and deploy it", None, []), None, "a bump of no version")
    eq(chore_of_query("Add typo-tolerant search", None, []), None, "a compound word")
    print(f"self-test: {checks} checks passed")
    return 0


def main(argv=None) -> int:
    if argv is None and sys.argv[1:] == ["--self-test"]:
        return self_test()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memory", required=True)
    ap.add_argument("--queries", required=True)
    ap.add_argument("--profile", choices=["default"], default="default")
    ap.add_argument("--k", type=int, default=3)
    args = ap.parse_args(argv)
    try:
        with open(args.memory, encoding="utf-8") as fh:
            data = json.load(fh)
        pool = mneme_ref.load_pool(data, "default")
    except (mneme_ref.LoadError, json.JSONDecodeError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    corpus = Corpus(pool)
    with open(args.queries, encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            q = json.loads(line)
            hits = retrieve(corpus, q.get("task") or "", q.get("file") or None, args.k)
            out = {"id": q.get("id"), "retrieved": [{"id": i, "score": s / 1000} for i, s, _ in hits]}
            print(json.dumps(out, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
