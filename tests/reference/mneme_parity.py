#!/usr/bin/env python3
"""Mneme parity: `mneme-gate run --profile mneme` against Mneme 0.10.0 itself.

Generates seeded Mneme-layout suites (memory files and benchmark folders)
that exercise what profile `mneme` must reproduce: inactive statuses,
repeated ids, text-only sides judged by Mneme's prompt enforcer (typed
FORBID_LITERAL rules with and without path selectors, literal and multi-term
anti-patterns, `no X` constraints, Python's word boundaries and case
folding), structured sides with Mneme's assertions, benign scenarios and
exposure contracts, malformed scenarios, and memory files migrated to a
persisted `decision_index` by Mneme's own `mneme decision-index migrate`.
Then it runs

    mneme benchmark DIR --memory M --json F
    mneme-gate run --profile mneme --memory M --scenarios DIR --no-baseline --json F

on each suite and compares, scenario by scenario, the verdict, the retrieved
ids (in order), the violation counts and the triggers of both sides, and
every summary figure Mneme prints (rounded as Mneme rounds them). It also
checks that both tools refuse the memory files Mneme refuses (a
decision_index whose decisions[] was edited, a rule of an unknown type).

    python3 tests/reference/mneme_parity.py --bin target/debug/mneme-gate \\
        [--seed 13] [--scenarios 2400] [--mneme PATH] [--keep DIR]

Mneme comes from `tests/reference/mneme-venv.sh` (installed once from PyPI)
unless `--mneme` names an executable. Prints

    mneme parity: N scenarios compared, N agree

and, on any disagreement, the first differences with what each tool said
(the suite is kept for reproduction), exiting 1. Python 3.9+, standard
library only.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

# Words of at least four letters (Mneme's retriever drops shorter ones), so
# that queries and decisions overlap often.
DOMAIN = [
    "storage", "backend", "payments", "ledger", "refund", "invoice", "orders",
    "kafka", "events", "cache", "redis", "postgres", "mongo", "schema", "client",
    "retry", "webhook", "pipeline", "deploy", "frontend", "react", "mobile",
    "search", "index", "queue", "worker", "agents", "tools", "logging", "metrics",
    "tracing", "secrets", "tokens", "session", "config", "memory", "retrieval",
]
# Prose that none of the generated rules, anti-patterns or constraints forbids.
SAFE = [w for w in DOMAIN if w not in ("redis", "postgres", "mongo", "kafka", "agents", "tools", "session")]
FILLER = ["the", "and", "use", "add", "get", "run", "with", "for", "should", "we",
          "how", "a", "to", "of", "not", "this", "that", "into", "from", "make"]
SHORT = ["db", "ui", "api", "orm", "sql", "ci", "io"]
STATUSES = [None, None, None, "active", "active", "superseded", "deprecated", "Superseded", "rejected", "retired"]
INDEX_STATUSES = [None, None, "active", "active", "superseded", "deprecated", "inactive"]
LITERALS = ["psycopg2", "import redis", "legacy-package", "DROP TABLE", ".env", "sk_live_", "eval(",
            "pip install crewai", "mongo", "sqlalchemy", "SELECT *", "os.system", "requests.get("]
SINGLE_ANTI = ["psycopg2", "sqlalchemy", "singleton", "crewai", "langchain", "mongo", "graphql",
               "the redis", "no-cache", "ORM", "Django"]
MULTI_ANTI = ["introduce ORM", "add migration layer", "global mutable state", "open() without encoding",
              "assume awin awin us same source", "use live content", "store tokens in localStorage",
              "call the API directly", "retry without backoff", "foo and bar"]
CONSTRAINTS = ["no postgres", "No external database", "no ORM", "no the", "no global state",
               "nobody owns this", "no  kafka topics", "keep it simple", "No Redis", "no\tlangchain",
               "prefer small modules", "no sqlalchemy or alembic"]
SELECTORS = [["src/**"], ["services/*.py"], ["**/legacy/**", "tools/*"]]
# Characters that Python's `re` matches around words in ways worth checking.
EDGES = ["ſqlalchemy", "\u212aafka", "éredis", "redis\u0301", "SINGLETON", "Singleton_x", "x_singleton",
         "mongo-db", "mongodb", "psycopg2-binary", "legacy-package-next", "DROP  TABLE", "drop table",
         "global_mutable_state", "introduce-orm", "Introduce an ORM", "ORM.", "(mongo)", "\u0130nvoice"]


def words(rnd: random.Random, n: int, pool=None) -> str:
    pool = pool or DOMAIN
    return " ".join(rnd.choice(pool) for _ in range(n))


class Corpus:
    """One memory file: its records and the ids a scenario may name."""

    def __init__(self, rnd: random.Random, size: int, index: bool):
        self.index = index
        self.decisions = []
        self.items = []
        n_ids = size if index else max(3, size - size // 5)  # repeated ids unless migrated
        ids = [f"D{i:03d}" for i in range(n_ids)]
        used = set()
        for i in range(size):
            did = ids[i] if index or i < n_ids else rnd.choice(ids)
            if index and did in used:
                continue
            used.add(did)
            self.decisions.append(self.decision(rnd, did))
        for i in range(rnd.randint(2, 8)):
            kind = rnd.choice(["rule", "anti_pattern", "rule", "fact", "preference"])
            iid = f"I{i:02d}" if index or rnd.random() < 0.8 else rnd.choice(ids)
            self.items.append({
                "id": iid, "type": kind, "title": words(rnd, rnd.randint(1, 3)) if kind != "anti_pattern"
                else rnd.choice(SINGLE_ANTI + MULTI_ANTI),
                "content": rnd.choice(["", words(rnd, 4), rnd.choice(CONSTRAINTS)]),
                "tags": [rnd.choice(DOMAIN)], "priority": "medium",
            })
        self.ids = sorted({d["id"] for d in self.decisions} | {i["id"] for i in self.items})

    def decision(self, rnd: random.Random, did: str) -> dict:
        # A word of its own, most of the time, so that a query can single it out.
        own = f" topic{rnd.randint(0, 999)}" if rnd.random() < 0.6 else ""
        d = {
            "id": did,
            "decision": words(rnd, rnd.randint(2, 5)) + own,
            "rationale": words(rnd, rnd.randint(0, 6)),
            "scope": [rnd.choice(DOMAIN) for _ in range(rnd.randint(0, 3))],
            "constraints": rnd.sample(CONSTRAINTS, rnd.randint(0, 2)),
            "anti_patterns": rnd.sample(SINGLE_ANTI, rnd.randint(0, 2)) + rnd.sample(MULTI_ANTI, rnd.randint(0, 1)),
        }
        rules = []
        for value in rnd.sample(LITERALS, rnd.choice([0, 0, 1, 1, 2])):
            rule = {"type": "FORBID_LITERAL", "value": value}
            if rnd.random() < 0.25:
                rule["include_paths"] = rnd.choice(SELECTORS)
                if rnd.random() < 0.5:
                    rule["exclude_paths"] = ["src/legacy/*.py"]
            rules.append(rule)
        if rules or rnd.random() < 0.3:
            d["rules"] = rules
        status = rnd.choice(INDEX_STATUSES if self.index else STATUSES)
        if status is not None:
            d["status"] = status
        if rnd.random() < 0.2:
            d["created_at"] = "2026-04-24T00:00:00Z"
        if rnd.random() < 0.2:
            # An ADR source: Mneme resolves it against the memory file's folder.
            d["source"] = {"type": "adr", "path": f"docs/adr/{did}-{rnd.choice(DOMAIN)}.md"}
            if rnd.random() < 0.5:
                d["source"]["sha256"] = "0f" * 32
        if rnd.random() < 0.15:
            d["test_evidence"] = [{"selector": f"tests/test_{rnd.choice(DOMAIN)}.py::test_it", "sha": "ab" * 20}]
            if rnd.random() < 0.5:
                del d["test_evidence"][0]["sha"]
        return d

    def write(self, path: Path) -> None:
        doc = {"meta": {"name": "parity", "description": "generated by mneme_parity.py"},
               "items": self.items, "decisions": self.decisions, "examples": []}
        path.write_text(json.dumps(doc, indent=1, ensure_ascii=False), encoding="utf-8")


def answer_text(rnd: random.Random, corpus: Corpus, dirty: bool) -> str:
    """A text answer: prose, and when `dirty` pieces that Mneme's enforcer may flag."""
    parts = [words(rnd, rnd.randint(3, 8), SAFE + FILLER + SHORT)]
    if dirty:
        for _ in range(rnd.randint(1, 4)):
            d = rnd.choice(corpus.decisions)
            pick = rnd.random()
            if pick < 0.25 and d.get("rules"):
                parts.append(rnd.choice(d["rules"])["value"])
            elif pick < 0.5 and d["anti_patterns"]:
                ap = rnd.choice(d["anti_patterns"])
                sep = rnd.choice([" ", "-", "_", " the ", "  "])
                parts.append(sep.join(ap.split()) if rnd.random() < 0.7 else ap.upper())
            elif pick < 0.7 and d["constraints"]:
                parts.append(rnd.choice(d["constraints"]).split()[-1])
            elif pick < 0.85:
                parts.append(rnd.choice(EDGES))
            else:
                parts.append(rnd.choice(LITERALS + SINGLE_ANTI))
    parts.append(words(rnd, rnd.randint(0, 5), SAFE + FILLER))
    rnd.shuffle(parts)
    if rnd.random() < 0.03:
        return rnd.choice(["", "\n"])
    text = rnd.choice([" ", ". ", "\n", ", ", "\r\n", "\u00a0"]).join(parts)
    return rnd.choice(["", "  ", "\n", "\u2003"]) + text + rnd.choice(["", "\n", "  \n", "\r\n"])


def structured(rnd: random.Random) -> str:
    deps = rnd.sample(["psycopg2", "psycopg2-binary", "crewai", "requests", "SQLAlchemy", "redis"], rnd.randint(0, 3))
    if deps and rnd.random() < 0.2:
        deps.append(deps[0])  # Mneme lists a repeated entry twice
    files = rnd.sample(["src/agents/a.py", "src/ok.py", "migrations/001.sql", "agents/b.py"], rnd.randint(0, 2))
    doc = {"refused": rnd.random() < 0.1, "files_changed": files, "dependencies_added": deps}
    if rnd.random() < 0.3:
        doc["text"] = "notes the tools ignore"
    if rnd.random() < 0.05:
        doc["files_changed"] = None  # Mneme: a wrong type (MALFORMED)
    if rnd.random() < 0.03:
        return "{\"refused\": false,"  # invalid JSON (MALFORMED)
    return json.dumps(doc)


def scenario(rnd: random.Random, corpus: Corpus, name: str) -> dict:
    # Most queries are about one decision (so that it is often retrieved);
    # the others are about anything.
    target = rnd.choice(corpus.decisions)
    about = (target["decision"] + " " + " ".join(target["scope"])).split()
    meta: dict = {"name": name, "description": "generated"}
    if rnd.random() < 0.9:
        meta["category"] = rnd.choice(["architecture", "scope", "anti_pattern"])
    if rnd.random() < 0.7:
        meta["expected_protected_decision_ids"] = [target["id"]] + rnd.sample(corpus.ids, rnd.randint(0, 1))
    if rnd.random() < 0.3:
        meta["acceptable_decision_ids"] = rnd.sample(corpus.ids, 1)
    meta["expected_failure_terms"] = rnd.sample(SINGLE_ANTI, 2)
    kind = rnd.random()
    if kind < 0.2:
        meta["scenario_type"] = "benign"
    elif kind < 0.3:
        meta["scenario_type"] = "violation"
    elif kind < 0.32:
        meta["scenario_type"] = rnd.choice(["bening", None, 3])
    benign = meta.get("scenario_type") == "benign"
    if rnd.random() < (0.8 if benign else 0.15):
        exposed = [target["id"]] if rnd.random() < 0.8 else rnd.sample(corpus.ids, rnd.randint(1, 2))
        meta["expected_exposed_decision_ids"] = exposed
        if rnd.random() < 0.03:
            meta["expected_exposed_decision_ids"] = "D000"  # MALFORMED
    if rnd.random() < 0.3:
        meta["assertions"] = [{"type": "forbidden_dependency", "value": rnd.choice(["psycopg2", "crewai", "sql"])},
                              {"type": "forbidden_path_pattern", "value": rnd.choice(["agents/", "migrations/"])}]
        if rnd.random() < 0.05:
            meta["assertions"].append({"type": "forbidden_text", "value": "x"})  # unknown to Mneme
    if rnd.random() < 0.08:
        query = rnd.choice(["How do we add it?", "a to of the", "Use it"])  # no token of 4+ letters
    elif rnd.random() < 0.75:
        picked = rnd.sample(about, min(len(about), rnd.randint(1, 4)))
        own = [w for w in about if w.startswith("topic")]
        if own and rnd.random() < 0.8 and own[0] not in picked:
            picked.append(own[0])
        query = " ".join(picked + [rnd.choice(FILLER)] + words(rnd, rnd.randint(0, 2), DOMAIN + SHORT).split())
        query = query.capitalize() + "?"
    else:
        query = words(rnd, rnd.randint(2, 7), DOMAIN + FILLER + SHORT).capitalize() + "?"
    sides = {
        "without_mneme": answer_text(rnd, corpus, dirty=rnd.random() < (0.3 if benign else 0.85)),
        "with_mneme": answer_text(rnd, corpus, dirty=rnd.random() < 0.25),
    }
    json_sides = {s: structured(rnd) for s in sides if rnd.random() < 0.2}
    return {"meta": meta, "query": query, "sides": sides, "json": json_sides}


def write_suite(rnd: random.Random, corpus: Corpus, root: Path, count: int, prefix: str) -> None:
    for i in range(count):
        name = f"{prefix}{i:04d}"
        s = scenario(rnd, corpus, name)
        folder = root / name
        folder.mkdir(parents=True)
        meta = s["meta"]
        if rnd.random() < 0.1:
            del meta["name"]  # the folder name is the id
        (folder / "scenario.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
        (folder / "query.txt").write_text(s["query"] + "\n", encoding="utf-8")
        for side, text in s["sides"].items():
            with open(folder / f"{side}.txt", "w", encoding="utf-8", newline="") as f:
                f.write(text)
        for side, text in s["json"].items():
            (folder / f"{side}.json").write_text(text, encoding="utf-8")


def run(cmd, **kw):
    env = {**os.environ, "MNEME_GATE_GIT": "off", "NO_COLOR": "1", "PYTHONWARNINGS": "ignore"}
    return subprocess.run(cmd, capture_output=True, text=True, env=env, **kw)


def mneme_results(mneme: str, suite: Path, memory: Path, out: Path) -> dict:
    done = run([mneme, "benchmark", str(suite), "--memory", str(memory), "--json", str(out)])
    if not out.exists():
        sys.exit(f"mneme parity: mneme benchmark failed ({done.returncode}):\n{done.stdout[-1500:]}{done.stderr[-3000:]}")
    return json.loads(out.read_text(encoding="utf-8"))


def gate_results(binary: str, suite: Path, memory: Path, out: Path) -> dict:
    done = run([binary, "run", "--quiet", "--no-baseline", "--profile", "mneme", "--memory", str(memory),
                "--scenarios", str(suite), "--json", str(out)])
    if done.returncode not in (0, 1) or not out.exists():
        sys.exit(f"mneme parity: mneme-gate run failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(out.read_text(encoding="utf-8"))


def compare(theirs: dict, ours: dict, label: str) -> tuple[int, list[str]]:
    """Scenario by scenario, then the summary; returns (compared, differences)."""
    problems = []
    by_id = {s["id"]: s for s in ours["scenarios"]}
    for r in theirs["results"]:
        o = by_id.get(r["name"])
        if o is None:
            problems.append(f"{label}/{r['name']}: missing from mneme-gate's report")
            continue
        pairs = [
            ("verdict", r["verdict"], o["verdict"]),
            ("retrieved ids", r["layer1"]["retrieved_ids"], [x["id"] for x in o["retrieved"]]),
            ("control violations", r["baseline_violation_count"], o["violations"]["control"]),
            ("governed violations", r["enhanced_violation_count"], o["violations"]["governed"]),
            ("control triggers", r["baseline_triggers"], o["triggers"]["control"]),
            ("governed triggers", r["enhanced_triggers"], o["triggers"]["governed"]),
        ]
        for what, mneme, gate in pairs:
            if mneme != gate:
                problems.append(f"{label}/{r['name']}: {what}: Mneme {mneme!r}, mneme-gate {gate!r}")
    if len(by_id) != len(theirs["results"]):
        problems.append(f"{label}: Mneme has {len(theirs['results'])} scenarios, mneme-gate {len(by_id)}")
    problems += compare_summary(theirs["summary"], ours["summary"], label)
    return len(theirs["results"]), problems


def compare_summary(m: dict, o: dict, label: str) -> list[str]:
    def r(x, digits):
        return None if x is None else round(x, digits)

    checkable = o["pass"] + o["fail"]
    benign = o.get("benign") or {"total": 0, "pass": 0, "false_positive": 0, "uncheckable": 0,
                                 "false_positive_rate": None}
    pairs = [
        ("total", m["total"], o["total"]),
        ("passed", m["passed"], o["pass"]),
        ("failed", m["failed"], o["fail"]),
        ("weak", m["weak"], o["weak"]),
        ("weak_retrieval", m["weak_retrieval"], o["weak_retrieval"]),
        ("pass_rate", m["pass_rate"], round(o["pass"] / checkable, 2) if checkable else 0.0),
        ("by_category", m["by_category"],
         {c: {"pass": v["pass"], "fail": v["fail"], "total": v["total"]} for c, v in o["by_category"].items()}),
        ("layer1.scored_count", m["layer1"]["scored_count"], o["governed"]),
        ("layer1.mean_recall_at_k", m["layer1"]["mean_recall_at_k"], r(o["mean_recall_at_k"], 3) or 0.0),
        ("layer1.mean_precision_at_k", m["layer1"]["mean_precision_at_k"], r(o["mean_precision_at_k"], 3) or 0.0),
        ("layer1.irrelevant_injection_rate", m["layer1"]["irrelevant_injection_rate"],
         r(o["irrelevant_injection_rate"], 3) or 0.0),
    ]
    eq = m.get("enforcement_quality")
    if eq is not None:
        pairs += [
            ("benign_total", eq["benign_total"], benign["total"]),
            ("benign_blocked", eq["benign_blocked"], benign["false_positive"]),
            ("benign_checkable", eq["benign_checkable"], benign["pass"] + benign["false_positive"]),
            ("benign_uncheckable", eq["benign_uncheckable"], benign["uncheckable"]),
            ("false_positive_rate", eq["false_positive_rate"], r(benign["false_positive_rate"], 4) or 0.0),
        ]
    return [f"{label}: summary {what}: Mneme {a!r}, mneme-gate {b!r}" for what, a, b in pairs if a != b]


def refusals(mneme: str, binary: str, work: Path, rnd: random.Random) -> list[str]:
    """Memory files Mneme refuses must be refused by profile mneme too (exit 2)."""
    problems = []
    suite = work / "refusal-suite"
    corpus = Corpus(rnd, 12, index=False)
    write_suite(rnd, corpus, suite, 2, "r")
    cases = []
    bad_rule = Corpus(rnd, 8, index=False)
    bad_rule.decisions[0]["rules"] = [{"type": "FORBID_REGEX", "value": "x"}]
    cases.append(("an unknown rule type", bad_rule, None))
    bad_paths = Corpus(rnd, 8, index=False)
    bad_paths.decisions[0]["rules"] = [{"type": "FORBID_LITERAL", "value": "x", "include_paths": "src/**"}]
    cases.append(("include_paths that is not a list", bad_paths, None))
    for edit in ("a rationale", "a row", "a status", "a digest", "an identity"):
        cases.append((f"{edit} of a migrated file edited", Corpus(rnd, 10, index=True), edit))
    for n, (what, c, edit) in enumerate(cases):
        memory = work / f"refused-{n}.json"
        c.write(memory)
        if edit:
            migrate(mneme, memory)
            doc = json.loads(memory.read_text(encoding="utf-8"))
            if edit == "a rationale":
                doc["decisions"][0]["rationale"] += " (edited)"
            elif edit == "a row":
                doc["decisions"].pop()
            elif edit == "a status":
                doc["decisions"][0]["status"] = "superseded"
            elif edit == "a digest":
                doc["decision_index"]["versions"][0]["content_digest"] = "0" * 64
            else:
                doc["decision_index"]["versions"][0]["occurrence_source_identity"].append("x")
            memory.write_text(json.dumps(doc, indent=1), encoding="utf-8")
        theirs = run([mneme, "benchmark", str(suite), "--memory", str(memory)])
        ours = run([binary, "run", "--quiet", "--no-baseline", "--profile", "mneme", "--memory", str(memory),
                    "--scenarios", str(suite)])
        mneme_refused = theirs.returncode != 0 and "Error" in theirs.stderr
        if not mneme_refused:
            problems.append(f"refusal ({what}): Mneme accepted the file (exit {theirs.returncode})")
        if ours.returncode != 2:
            problems.append(f"refusal ({what}): mneme-gate exited {ours.returncode}, not 2:\n{ours.stderr[-500:]}")
    return problems


def word_table(mneme: str) -> list[str]:
    """The Python word characters of mneme-gate's enforcer are those of the
    Python that runs Mneme, when it has the table's Unicode version (another
    Python may differ on characters its Unicode version added: a note)."""
    python = str(Path(mneme).parent / "python")
    table = REPO / "src/verdict/enforce/word_chars.rs"
    done = run([python, str(HERE / "py_word_chars.py"), "--check", str(table)])
    if done.returncode == 0:
        return []
    version = run([python, "-c", "import unicodedata; print(unicodedata.unidata_version)"]).stdout.strip()
    if f"Unicode {version})" in table.read_text(encoding="utf-8"):
        return [f"word characters: {done.stderr.strip()}"]
    print(f"mneme parity: note: Mneme runs on Unicode {version}; the word table follows "
          f"another Unicode version (rare characters may differ)")
    return []


def migrate(mneme: str, memory: Path) -> None:
    done = run([mneme, "decision-index", "migrate", "--memory", str(memory), "--apply"])
    if done.returncode != 0:
        sys.exit(f"mneme parity: mneme decision-index migrate failed:\n{done.stdout[-1000:]}{done.stderr[-1000:]}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default="target/debug/mneme-gate", help="the mneme-gate binary")
    ap.add_argument("--mneme", help="a `mneme` executable (default: tests/reference/mneme-venv.sh)")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--scenarios", type=int, default=2400, help="scenarios in all (at least 8)")
    ap.add_argument("--keep", help="write the suites here and keep them")
    args = ap.parse_args(argv)
    binary = str((REPO / args.bin) if not os.path.isabs(args.bin) and not os.path.exists(args.bin) else Path(args.bin).resolve())
    if not os.access(binary, os.X_OK):
        print(f"mneme parity: no executable at {binary}; build it or pass --bin", file=sys.stderr)
        return 2
    mneme = args.mneme
    if mneme is None:
        done = subprocess.run(["bash", str(HERE / "mneme-venv.sh")], capture_output=True, text=True)
        if done.returncode != 0:
            print(done.stderr, file=sys.stderr)
            return 2
        mneme = done.stdout.strip()

    rnd = random.Random(args.seed)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="mneme-parity."))
    if args.keep and work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    # Eight suites: four over memory files with repeated ids and every status,
    # four over memory files Mneme migrated to a persisted decision_index.
    shares = [args.scenarios // 8 + (1 if i < args.scenarios % 8 else 0) for i in range(8)]
    compared, problems = 0, []
    for i, count in enumerate(shares):
        index = i >= 4
        corpus = Corpus(rnd, rnd.randint(25, 90), index=index)
        memory = work / f"memory-{i}.json"
        corpus.write(memory)
        if index:
            migrate(mneme, memory)
        suite = work / f"suite-{i}"
        write_suite(rnd, corpus, suite, count, f"s{i}-")
        theirs = mneme_results(mneme, suite, memory, work / f"mneme-{i}.json")
        ours = gate_results(binary, suite, memory, work / f"gate-{i}.json")
        n, p = compare(theirs, ours, f"suite-{i}")
        compared += n
        problems += p
    # Mneme's own test fixture over the memory files of its repository.
    fixture = REPO / "tests/conformance/mneme/fixture-scenario"
    for i, memory in enumerate(sorted((fixture / "memories").glob("*.json"))):
        theirs = mneme_results(mneme, fixture, memory, work / f"mneme-fixture-{i}.json")
        ours = gate_results(binary, fixture / "benchmark_scenario", memory, work / f"gate-fixture-{i}.json")
        n, p = compare(theirs, ours, f"fixture-{memory.stem}")
        compared += n
        problems += p
    problems += refusals(mneme, binary, work, rnd)
    problems += word_table(mneme)
    # A per-scenario difference starts with `suite/name:`.
    disagree = {p.split(":")[0] for p in problems if "/" in p.split(":")[0]}
    print(f"mneme parity: {compared} scenarios compared, {compared - len(disagree)} agree")
    if problems:
        for p in problems[:12]:
            print(f"  {p}")
        if len(problems) > 12:
            print(f"  ... and {len(problems) - 12} more")
        print(f"mneme parity: FAIL (the suites are kept in {work})")
        return 1
    if not args.keep:
        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
