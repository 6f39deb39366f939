#!/usr/bin/env python3
"""Differential test: `mneme-gate retrieve` against the Python reference.

For each seed, a random memory file and a random query set are generated
(deterministically from the seed), then both

    mneme-gate retrieve --memory F --queries Q --profile P --k K
    python3 mneme_ref.py --memory F --queries Q --profile P --k K

are run for P in {default, classic, mneme} (profile default against
bm25_ref.py, the others against mneme_ref.py) and every output line is compared: the
query id, the retrieved ids in order and their scores (compared as exact
decimals, so 7.5 and 7.50 are equal but 7.5 and 7.499 are not). Keys other
than `id`, `retrieved[].id` and `retrieved[].score` are ignored.

    python3 tests/reference/differential.py [--seeds 30] [--bin target/debug/mneme-gate]

On any disagreement the seed, the query and both outputs are printed, the
corpus and the queries are saved to a folder for reproduction (together with
a corpus shrunk to the records needed to reproduce the first disagreement),
and the exit status is 1. Otherwise one summary line is printed:

    differential: N corpora, M queries, 0 disagreements

The generator stays inside what the contract pins down: it never produces a
load error (no invalid globs, no missing ids or titles, no wrong field types)
and no query with a `null` or empty `file`.

Python 3.11, standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from decimal import Decimal
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
REFERENCE = HERE / "mneme_ref.py"

PROFILES = ("default", "classic", "mneme")
# Profile `default` (BM25F) has its own reference; `classic` and `mneme` are
# mneme_ref.py's.
REFERENCE_OF = {"default": HERE / "bm25_ref.py"}

# --------------------------------------------------------------------------
# Random vocabulary
# --------------------------------------------------------------------------

# Shared domain words (so records and queries overlap often), words that
# differ between the two tokenizers, non-ASCII letters, stopwords and tokens
# that are too short for one profile or both.
WORDS = [
    "ledger", "ledger", "payments", "payment", "refund", "refunds", "orders",
    "order", "kafka", "events", "cache", "token", "tokens", "deploy", "schema",
    "client", "retry", "webhook", "invoice", "pipeline", "warehouse",
    "terraform", "mobile", "checkout", "stripe", "database", "postgres",
    "LedgerClient", "HTTP", "Kafka", "ORDERS", "Payments",
    "MeshTimeout", "HTTPServerError", "parseJSONBody", "v2Api", "OrderID", "ledger.Client",
    "SNIs", "SNI", "APIs", "URLsByHost", "HTTPSession", "HTTPsession", "DPPs_by_mesh", "IDs",
    "Remove", "remove", "update", "Fix", "refactor", "Added", "support", "feat", "migrate",
    "snake_case_name", "payments-ledger", "order_id", "k8s", "e2e", "x86_64",
    "v2", "api", "sql", "css", "dbt", "GPT-4o", "3.11", "2024", "100",
    "café", "Café", "straße", "STRASSE", "größe", "über", "naïve", "Élan",
    "ÉLAN", "résumé", "öl", "éé", "ßx", "ééé", "åbc", "€19.99", "naïveté",
    "the", "and", "not", "with", "for", "should", "use", "add", "get", "set",
    "run", "also", "must", "into", "of", "a", "is",
    "db", "io", "x", "ab", "ok", "go", "abc", "abcd", "data", "text",
    # chores (docs/retrieval.md): in tasks they silence profile default, in
    # titles they say the team decided about that kind of chore
    "typo", "Bump", "prettier", "changelog", "docs", "lint", "format", "dependencies",
    "ADR", "12", "ADR-7",
    # a version update as Renovate titles it: `Update X to ~> 7.44.0`
    "Upgrade", "to", "to", "~>", "[SECURITY]", "(major)", "7.44.0",
    # plurals, folded to their singular by profile default, and words that
    # only look plural
    "policies", "Policies", "policy", "flushes", "flush", "classes", "class", "status",
    "statuses", "indexes", "index", "analysis", "improvements", "entries", "keys",
    # the words of reference labels and credits, which tasks then do not score
    "feature", "bug", "Issue", "ticket", "minor", "SomeAuthor",
]
SEPARATORS = [" ", " ", " ", ", ", "-", "_", ".", "/", ": ", " (", ") ", "! ", "? ", "'", " — ", "\t"]

SEGMENTS = [
    "services", "payments", "orders", "web", "src", "lib", "tests", "api",
    "data", "dags", "infra", "k8s", "mobile", "a", "b", "ab", "deep", "x",
    "café", "é", "Services", "gen",
    # one path word, several tokens (each counts once, by its best token)
    "payments-ledger", "LedgerClient", "order_service", "refunds.api",
]
FILENAMES = [
    "x.py", "handler.py", "refunds.py", "main.go", "main_test.go", "index.tsx",
    "Button.tsx", "util.ts", "Dockerfile", "deploy.yaml", "deploy.yml",
    "schema.sql", "README.md", "café.py", "é.ts", "a", "b.c", ".env",
    "CHANGELOG.md", "LICENSE", "Contributing.md",
    "LedgerClient.py", "payments_ledger.go", "refund-orders.ts", "docs.md",
]

TYPES_ELIGIBLE = ["decision", "rule", "anti_pattern"]
TYPES_OTHER = ["preference", "fact", "example", "architecture_decision", "note"]
STATUSES_ACTIVE = ["accepted", "active", "proposed", "Accepted"]
STATUSES_INACTIVE = ["superseded", "Superseded", "DEPRECATED", "deprecated", "rejected", "retired", "Retired", " superseded "]


def words(rnd: random.Random, lo: int, hi: int) -> str:
    n = rnd.randint(lo, hi)
    out = []
    for i in range(n):
        if i:
            out.append(rnd.choice(SEPARATORS))
        out.append(rnd.choice(WORDS))
    return "".join(out)


def word_list(rnd: random.Random, lo: int, hi: int, wlo: int = 1, whi: int = 4) -> list[str]:
    return [words(rnd, wlo, whi) for _ in range(rnd.randint(lo, hi))]


def random_path(rnd: random.Random) -> str:
    segs = [rnd.choice(SEGMENTS) for _ in range(rnd.randint(0, 4))]
    return "/".join(segs + [rnd.choice(FILENAMES)])


# --------------------------------------------------------------------------
# Globs: derived from a path so that they often match, in every form the
# contract names: *, ?, ** as a whole segment (leading, inner, trailing),
# ** inside a segment, {a,b}, [ab], [!ab], a trailing '/'.
# --------------------------------------------------------------------------


def glob_segment(rnd: random.Random, seg: str) -> str:
    r = rnd.random()
    if r < 0.35 or not seg:
        return seg
    if r < 0.45:
        return "*"
    if r < 0.52:
        return seg[0] + "*"
    if r < 0.57:
        return seg[: max(1, len(seg) // 2)] + "**"  # '**' inside a segment is a plain '*'
    if r < 0.64:
        i = rnd.randrange(len(seg))
        return seg[:i] + "?" + seg[i + 1:]
    if r < 0.71:
        first = seg[0]
        other = rnd.choice("abxsdp")
        return "[" + first + other + "]" + seg[1:]
    if r < 0.78:
        first = seg[0]
        other = rnd.choice("abxsdp")
        return "[!" + other + "]" + seg[1:] if other != first else "[!q]" + seg[1:]
    if r < 0.85:
        alt = rnd.choice(SEGMENTS + FILENAMES)
        return "{" + seg + "," + alt + "}" if rnd.random() < 0.5 else "{" + alt + "," + seg + "}"
    if r < 0.90 and "." in seg:
        stem, ext = seg.rsplit(".", 1)
        return "*." + "{" + ext + "," + rnd.choice(["ts", "tsx", "go", "py"]) + "}"
    if r < 0.95:
        return "[a-z]" + seg[1:]
    return seg.upper() if rnd.random() < 0.5 else seg  # case sensitivity


def random_glob(rnd: random.Random, sources: list[str]) -> str:
    """A glob derived from a random path; the path is remembered in `sources`."""
    source = random_path(rnd)
    sources.append(source)
    segs = source.split("/")
    r = rnd.random()
    if r < 0.12:
        return rnd.choice(["**", "*", "**/*.py", "**/*.{ts,tsx}", "**/tests/**", "*/**", "**/Dockerfile"])
    if r < 0.27 and len(segs) > 1:
        # a folder: trailing '/', or '/**'
        cut = rnd.randint(1, len(segs) - 1)
        folder = "/".join(glob_segment(rnd, s) if rnd.random() < 0.3 else s for s in segs[:cut])
        return folder + ("/" if rnd.random() < 0.6 else "/**")
    if r < 0.37:
        # leading **/
        keep = segs[rnd.randint(0, len(segs) - 1):]
        return "**/" + "/".join(glob_segment(rnd, s) for s in keep)
    if r < 0.47 and len(segs) > 2:
        # inner /**/
        i = rnd.randint(1, len(segs) - 2)
        j = rnd.randint(i, len(segs) - 1)
        return "/".join(segs[:i]) + "/**/" + "/".join(glob_segment(rnd, s) for s in segs[j:])
    return "/".join(glob_segment(rnd, s) for s in segs)


def query_path(rnd: random.Random, sources: list[str]) -> str:
    # Half the time a path some glob of the corpus was derived from.
    path = rnd.choice(sources) if sources and rnd.random() < 0.5 else random_path(rnd)
    r = rnd.random()
    if r < 0.12:
        path = "./" + path
    elif r < 0.20:
        path = path.replace("/", "\\")
    elif r < 0.24:
        path = ".\\" + path.replace("/", "\\")
    elif r < 0.26:
        path = "././" + path
    elif r < 0.28:
        path = "/" + path
    return path


# --------------------------------------------------------------------------
# Corpus and queries
# --------------------------------------------------------------------------


def gen_id(rnd: random.Random, n: int) -> str:
    # A small id space now and then, so that duplicates happen.
    if rnd.random() < 0.12:
        return rnd.choice(["ADR-001", "DUP-1", "PAY-003", "dup"])
    prefix = rnd.choice(["ADR", "PAY", "ORD", "WEB", "rule", "anti", "d"])
    sep = rnd.choice(["-", "_", "."])
    return f"{prefix}{sep}{n:03d}"


def gen_status(rnd: random.Random) -> str | None:
    r = rnd.random()
    if r < 0.55:
        return None
    if r < 0.80:
        return rnd.choice(STATUSES_ACTIVE)
    return rnd.choice(STATUSES_INACTIVE)


def gen_tags(rnd: random.Random) -> list[str]:
    tags = []
    for _ in range(rnd.randint(0, 4)):
        r = rnd.random()
        if r < 0.6:
            tags.append(rnd.choice(WORDS))
        elif r < 0.85:
            tags.append(words(rnd, 2, 3))
        else:
            tags.append(rnd.choice(["the", "a", "ab", "", "of-the", "payments-ledger", "snake_case"]))
    if tags and rnd.random() < 0.1:
        tags.append(tags[0])  # the same tag twice
    return tags


def gen_decision_record(rnd: random.Random, n: int) -> dict:
    rec: dict = {"id": gen_id(rnd, n), "decision": words(rnd, 1, 6)}
    if rnd.random() < 0.8:
        rec["rationale"] = words(rnd, 0, 12)
    if rnd.random() < 0.8:
        rec["scope"] = gen_tags(rnd)
    if rnd.random() < 0.7:
        rec["constraints"] = word_list(rnd, 0, 3)
    if rnd.random() < 0.7:
        rec["anti_patterns"] = word_list(rnd, 0, 3)
    if rnd.random() < 0.2:
        rec["rules"] = [{"type": "FORBID_LITERAL", "value": rnd.choice(WORDS)}]
    if rnd.random() < 0.5:
        rec["created_at"] = "2024-01-%02dT00:00:00Z" % rnd.randint(1, 28)
    if rnd.random() < 0.2:
        rec["source"] = "adr/%04d.md" % n
    status = gen_status(rnd)
    if status is not None:
        rec["status"] = status
    return rec


def gen_item_record(rnd: random.Random, n: int, in_decisions: bool, sources: list[str]) -> dict:
    rec: dict = {"id": gen_id(rnd, n)}
    r = rnd.random()
    if in_decisions and r < 0.6:
        pass  # type defaults to "decision"
    elif r < 0.85:
        rec["type"] = rnd.choice(TYPES_ELIGIBLE)
    else:
        rec["type"] = rnd.choice(TYPES_OTHER)
    rec["title"] = words(rnd, 1, 6)
    if rnd.random() < 0.85:
        rec["content"] = words(rnd, 0, 12)
    if rnd.random() < 0.7:
        rec["constraint"] = words(rnd, 1, 5) if rnd.random() < 0.4 else word_list(rnd, 0, 3)
    if rnd.random() < 0.8:
        rec["tags"] = gen_tags(rnd)
    if rnd.random() < 0.6:
        rec["anti_patterns"] = word_list(rnd, 0, 3)
    if rnd.random() < 0.55:
        if rnd.random() < 0.4:
            rec["scope"] = random_glob(rnd, sources)
        else:
            rec["scope"] = [random_glob(rnd, sources) for _ in range(rnd.randint(0, 3))]
    if rnd.random() < 0.3:
        rec["priority"] = rnd.choice(["high", "medium", "low"])
    status = gen_status(rnd)
    if status is not None:
        rec["status"] = status
    return rec


def gen_corpus(rnd: random.Random, sources: list[str]):
    n = 0
    decisions = []
    for _ in range(rnd.randint(0, 10)):
        n += 1
        if rnd.random() < 0.25:
            decisions.append(gen_item_record(rnd, n, True, sources))
        else:
            decisions.append(gen_decision_record(rnd, n))
    items = []
    for _ in range(rnd.randint(0, 16)):
        n += 1
        items.append(gen_item_record(rnd, n, False, sources))

    if rnd.random() < 0.2:
        return items  # top-level array shape

    doc: dict = {}
    keys = ["meta", "decisions", "items", "examples", "notes"]
    rnd.shuffle(keys)  # key order in the file must not matter
    for key in keys:
        if key == "meta" and rnd.random() < 0.7:
            doc["meta"] = {"name": "random", "version": "0.0.%d" % rnd.randint(0, 9)}
        elif key == "decisions" and (decisions or rnd.random() < 0.5):
            doc["decisions"] = decisions
        elif key == "items" and (items or rnd.random() < 0.5):
            doc["items"] = items
        elif key == "examples" and rnd.random() < 0.3:
            # never retrievable
            doc["examples"] = [{"id": "ex-1", "task": words(rnd, 2, 5), "decision": words(rnd, 2, 5), "tags": gen_tags(rnd)}]
        elif key == "notes" and rnd.random() < 0.2:
            doc["notes"] = "ignored key"
    return doc


def corpus_words(corpus) -> list[str]:
    """Words appearing in the corpus, so that queries hit records often."""
    text = json.dumps(corpus, ensure_ascii=False)
    return [w for w in WORDS if w in text]


def gen_queries(rnd: random.Random, corpus, sources: list[str], count: int) -> list[dict]:
    present = corpus_words(corpus) or WORDS
    queries = []
    for i in range(count):
        q: dict = {"id": f"q{i:02d}"}
        r = rnd.random()
        if r < 0.06:
            q["task"] = ""
        elif r < 0.12:
            q["task"] = rnd.choice(["the and of", "a b cd", "Should we?", "it is not", "use add get set run", "x y z"])
        else:
            parts = []
            for j in range(rnd.randint(1, 8)):
                if j:
                    parts.append(rnd.choice(SEPARATORS))
                parts.append(rnd.choice(present) if rnd.random() < 0.7 else rnd.choice(WORDS))
            q["task"] = "".join(parts)
            if rnd.random() < 0.08:
                # a version update as Renovate titles it, or a task that only looks like one
                q["task"] = (rnd.choice(["Update ", "upgrade ", "UPDATE the ", "Updates "]) + q["task"] + " to "
                             + rnd.choice(["v4", "~> 7.44.0", "^5.0", "1.2", "2", "v2 of it", "v18 and fix it"])
                             + rnd.choice(["", "", " (#12)", " (major)", " [SECURITY]", "."]))
            if rnd.random() < 0.25:
                # a reference label that opens the task, and a credit that ends it
                q["task"] = rnd.choice(["feature #123 ", "bug #7 ", "PR #42: ", "[API] minor #9 ",
                                        "(On x) Task #5: ", "Fix #3 "]) + q["task"]
                if rnd.random() < 0.5:
                    q["task"] += rnd.choice([" (SomeAuthor)", " (a-b, C_d)", " (dependabot[bot])", " (#12)",
                                             " (when it fails)", " (Ledger)"])
        if rnd.random() < 0.45:
            q["file"] = query_path(rnd, sources)
            if rnd.random() < 0.15:
                # a task that names documentation, on a document or on code
                q["task"] += rnd.choice([" in the docs", " README update", " documentation"])
                q["file"] = q["file"].rsplit(".", 1)[0] + rnd.choice([".md", ".rst", ".py"])
        queries.append(q)
    return queries


# --------------------------------------------------------------------------
# Running and comparing
# --------------------------------------------------------------------------


def write_case(folder: Path, corpus, queries: list[dict], ascii_json: bool) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    mem = folder / "project_memory.json"
    qs = folder / "queries.jsonl"
    mem.write_text(json.dumps(corpus, ensure_ascii=ascii_json, indent=1) + "\n", encoding="utf-8")
    qs.write_text("".join(json.dumps(q, ensure_ascii=ascii_json) + "\n" for q in queries), encoding="utf-8")
    return mem, qs


def run(cmd: list[str]) -> tuple[int, str, str]:
    proc = subprocess.run(cmd, capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


def parse_lines(stdout: str) -> list:
    """[(query id, [(decision id, Decimal score), ...]), ...] or raises ValueError."""
    out = []
    for line in stdout.splitlines():
        if not line.strip():
            continue
        obj = json.loads(line, parse_float=Decimal, parse_int=Decimal)
        if not isinstance(obj, dict) or "retrieved" not in obj:
            raise ValueError(f"not a result line: {line[:200]}")
        hits = [(h["id"], Decimal(h["score"])) for h in obj["retrieved"]]
        out.append((obj.get("id"), hits))
    return out


def compare(bin_path: str, mem: Path, qs: Path, profile: str, k: int, queries: list[dict]):
    """None when both agree, else a list of (query, bin_line, ref_line, why)."""
    args = ["--memory", str(mem), "--queries", str(qs), "--profile", profile, "--k", str(k)]
    rc_b, out_b, err_b = run([bin_path, "retrieve", *args])
    rc_r, out_r, err_r = run([sys.executable, str(REFERENCE_OF.get(profile, REFERENCE)), *args])
    if rc_r != 0:
        raise SystemExit(f"reference failed on {mem}: {err_r}")
    if rc_b != 0:
        return [(None, f"exit {rc_b}: {err_b.strip()[:2000]}", out_r, "binary failed")]
    try:
        got = parse_lines(out_b)
    except (ValueError, KeyError, TypeError, json.JSONDecodeError) as exc:
        return [(None, out_b[:2000], out_r[:2000], f"unparseable binary output: {exc}")]
    want = parse_lines(out_r)
    if len(got) != len(want):
        return [(None, out_b[:2000], out_r[:2000], f"{len(got)} lines from the binary, {len(want)} expected")]
    b_lines = [l for l in out_b.splitlines() if l.strip()]
    r_lines = [l for l in out_r.splitlines() if l.strip()]
    problems = []
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            why = "different query id" if g[0] != w[0] else "different ranking or scores"
            problems.append((queries[i], b_lines[i], r_lines[i], why))
    return problems or None


def shrink(bin_path: str, corpus, query: dict, profile: str, k: int, folder: Path, ascii_json: bool):
    """Greedily drop records while the single query still disagrees."""

    def records(c):
        if isinstance(c, list):
            return [("items", i) for i in range(len(c))]
        return [(key, i) for key in ("decisions", "items") for i in range(len(c.get(key) or []))]

    def without(c, where):
        c = json.loads(json.dumps(c))
        key, i = where
        if isinstance(c, list):
            del c[i]
        else:
            del c[key][i]
        return c

    def still_fails(c) -> bool:
        mem, qs = write_case(folder, c, [query], ascii_json)
        return bool(compare(bin_path, mem, qs, profile, k, [query]))

    current = corpus
    changed = True
    while changed:
        changed = False
        for where in reversed(records(current)):
            candidate = without(current, where)
            if still_fails(candidate):
                current = candidate
                changed = True
                break
    mem, qs = write_case(folder, current, [query], ascii_json)
    return current, mem, qs


def resolve_bin(path: str) -> str:
    p = Path(path)
    if p.is_absolute() or p.exists():
        return str(p.resolve())
    return str((REPO / p).resolve())


def main() -> int:
    ap = argparse.ArgumentParser(description="mneme-gate retrieve vs the Python reference")
    ap.add_argument("--seeds", type=int, default=30, help="number of random corpora (default 30)")
    ap.add_argument("--first-seed", type=int, default=1, help="first seed (default 1)")
    ap.add_argument("--queries", type=int, default=24, help="queries per corpus (default 24)")
    ap.add_argument("--bin", default="target/debug/mneme-gate", help="mneme-gate binary")
    ap.add_argument("--keep", default=None, help="folder for reproduction cases (default: a new folder under target/)")
    args = ap.parse_args()

    bin_path = resolve_bin(args.bin)
    if not os.access(bin_path, os.X_OK):
        print(f"differential: no executable binary at {bin_path}", file=sys.stderr)
        return 2

    # Failing cases are written for a rerun: to --keep, else to a new folder under the repository's
    # target/ (nothing is written outside the repository).
    target = Path(__file__).resolve().parents[2] / "target"
    n_corpora = n_queries = 0
    failures = []  # (seed, profile, k, corpus, problems, ascii_json)
    with tempfile.TemporaryDirectory(prefix="mneme-diff-") as tmp:
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            rnd = random.Random(seed)
            sources: list[str] = []
            corpus = gen_corpus(rnd, sources)
            queries = gen_queries(rnd, corpus, sources, args.queries)
            k = rnd.choice([1, 2, 3, 3, 3, 5, 10])
            ascii_json = rnd.random() < 0.3
            mem, qs = write_case(Path(tmp) / f"seed{seed}", corpus, queries, ascii_json)
            n_corpora += 1
            for profile in PROFILES:
                n_queries += len(queries)
                problems = compare(bin_path, mem, qs, profile, k, queries)
                if problems:
                    failures.append((seed, profile, k, corpus, queries, problems, ascii_json))

    total = sum(len(f[5]) for f in failures)
    if not failures:
        print(f"differential: {n_corpora} corpora, {n_queries} queries, 0 disagreements")
        return 0

    if args.keep:
        keep_root = Path(args.keep)
    else:
        target.mkdir(exist_ok=True)
        keep_root = Path(tempfile.mkdtemp(prefix="differential-cases.", dir=target))
    for seed, profile, k, corpus, queries, problems, ascii_json in failures[:5]:
        print(f"=== DISAGREEMENT seed={seed} profile={profile} k={k} ({len(problems)} queries)")
        for query, b_line, r_line, why in problems[:3]:
            print(f"  why:       {why}")
            print(f"  query:     {json.dumps(query, ensure_ascii=False) if query else '(whole run)'}")
            print(f"  binary:    {b_line}")
            print(f"  reference: {r_line}")
        folder = keep_root / f"seed{seed}-{profile}"
        write_case(folder, corpus, queries, ascii_json)
        print(f"  full case: {folder}/project_memory.json, {folder}/queries.jsonl")
        first_query = problems[0][0]
        if first_query is not None:
            small, mem, qs = shrink(bin_path, corpus, first_query, profile, k, folder / "min", ascii_json)
            print(f"  shrunk:    {mem} and {qs}")
            print(f"  rerun:     {bin_path} retrieve --memory {mem} --queries {qs} --profile {profile} --k {k}")
            print("  shrunk corpus: " + json.dumps(small, ensure_ascii=False))
    print(
        f"differential: {n_corpora} corpora, {n_queries} queries, {total} disagreements "
        f"(in {len(failures)} runs; seeds {sorted({f[0] for f in failures})})"
    )
    return 1


if __name__ == "__main__":
    sys.exit(main())
