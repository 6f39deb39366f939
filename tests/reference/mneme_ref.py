#!/usr/bin/env python3
"""Independent reference implementation of the mneme-gate retrieval contract.

This file is written from the retrieval contract (`retrieval.md`), plus,
for glob semantics, the behaviour of the globset crate the contract names
(checked by fuzzing against globset 0.4.21 itself). It does not look at, or
share code with, the mneme-gate Rust implementation. Its only job is to produce, for a memory file, a set of
queries, a profile and a `k`, the same ranked lists the contract demands, so
that `differential.py` and `conformance.sh` can compare it with
`mneme-gate retrieve`.

Python 3.11, standard library only.

    python3 mneme_ref.py --memory project_memory.json --queries q.jsonl \
        --profile default|mneme --k 3
    python3 mneme_ref.py --self-test     # hand-computed examples

Each line of `q.jsonl` is `{"id": ..., "task": ..., "file": optional}`.
One line is printed per query, in input order:

    {"id": "q1", "retrieved": [{"id": "ADR-012", "score": 7.5}, ...]}

How this reference reads points the contract leaves open (keep this list in
step with the project's docs):

* Stemming (`stem: true`) is off in both profiles and is not implemented
  here; neither are configuration overrides (only `--profile` and `--k`).
* Pool: decision records of `decisions[]` in file order, then item records:
  the item-shaped elements of `decisions[]` first, then `items[]` (or the
  top-level array), each in file order. `examples[]` is never read.
* Profile `default`: the type/status filters are applied first; duplicate
  ids are then resolved among the surviving pool records (the first in pool
  order wins). So an inactive or non-eligible record does not "use up" its
  id. `status` is compared case-insensitively, after trimming surrounding
  whitespace (" Superseded\n" is inactive).
* Profile `mneme` follows Mneme 0.10.0 (the contract's revised section 9):
  `status` is ignored, and every copy of a repeated id stays in the pool; a
  ranking keeps the first occurrence of each id (the highest-scoring copy,
  among equal scores the earliest), also for a query without tokens.
* `type` is compared exactly (case-sensitive).
* Profile `mneme` ignores every other field of a migrated `rule` /
  `anti_pattern` item, including `scope`: those items have no paths and are
  never scope-filtered. Decision records never have paths.
* `tag_hits` counts tag *entries*: a tag listed twice counts twice.
* A query `file` that is absent, `null` or the empty string means "no path".
  (Open point: mneme-gate currently treats `"file": ""` as a path that
  matches no glob. The differential generator never produces it.)
* A missing `task` is read as the empty task here (mneme-gate rejects the
  line); `--k 0` gives empty lists here (mneme-gate rejects it).
* Path normalisation: every `\\` becomes `/`, then a single leading `./`
  is removed.
* Lengths (`min_token_len`) are counted in Unicode code points, not bytes.
* "Alphanumeric" is Python's `str.isalnum()` (general categories L*, Nd, Nl,
  No, Unicode 14 in Python 3.11). Rust's `char::is_alphanumeric` also counts
  the Alphabetic property's combining marks (Devanagari vowel signs, U+0345)
  and circled letters (U+24B6..), and knows newer Unicode versions: text
  with such characters may tokenise differently. The generator avoids them.
* Globs follow globset 0.4 with `literal_separator(true)` exactly, including
  its byte-level matching: the glob is compiled to a regex over the UTF-8
  bytes of the path, so `?` and `[...]` match one *byte* (a non-ASCII
  character in the path is several bytes). `\\` in a glob escapes the next
  character (globset's default on Unix). An alternation branch that is
  empty is dropped (globset's `empty_alternates(false)`). This is globset's
  single-glob regex; globset's `GlobSet` disagrees with it only for paths
  whose last component is `..` (e.g. `?.` against `..`), which are never
  generated.
* Scores are integers in thousandths. They are printed as
  `thousandths / 1000` (a JSON number with at most three fractional digits).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field

# --------------------------------------------------------------------------
# Profiles (weights in integer thousandths)
# --------------------------------------------------------------------------

PROFILES = {
    "default": {
        "weights": {
            "title": 3000,
            "tags": 2500,
            "constraint": 1500,
            "anti_patterns": 1500,
            "content": 1000,
        },
        "tag_boost": 1000,
        "min_token_len": 3,
        "min_score": 0,
        "eligible_types": {"decision", "rule", "anti_pattern"},
    },
    "mneme": {
        "weights": {
            "title": 1000,
            "tags": 2000,
            "constraint": 1500,
            "anti_patterns": 1500,
            "content": 500,
        },
        "tag_boost": 0,
        "min_token_len": 4,
        "min_score": 0,
        "eligible_types": {"rule", "anti_pattern"},
    },
}

# mneme-gate's first profile, named `classic` since profile `default` became
# BM25F (bm25_ref.py): the same rules under either name here.
PROFILES["classic"] = PROFILES["default"]

FIELDS = ("title", "tags", "constraint", "anti_patterns", "content")

INACTIVE_STATUSES = {"superseded", "deprecated", "rejected", "retired"}

# The contents of spec/stopwords-en.txt (127 words).
STOPWORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be
    because been before being below between both but by can could did do does
    doing down during each else few for from further had has have having he
    her here hers him his how i if in into is it its itself just let may me
    might more most must my no nor not now of off on once only or other our
    ours out over own same shall she should so some such than that the their
    theirs them then there these they this those through to too under until
    up us very was we were what when where which while who whom why will with
    would you your yours
    """.split()
)

MNEME_DROPPED = frozenset({"add", "use", "not", "get", "set", "run"})


class LoadError(Exception):
    """The memory file cannot be loaded (the contract calls these load errors)."""


# --------------------------------------------------------------------------
# Tokenizers
# --------------------------------------------------------------------------


def tokens_default(text: str, min_len: int = 3) -> set[str]:
    """Unicode lowercase, maximal alphanumeric runs, length, stopwords."""
    result: set[str] = set()
    current: list[str] = []
    for ch in text.lower() + " ":  # the trailing space flushes the last run
        if ch.isalnum():
            current.append(ch)
            continue
        if current:
            token = "".join(current)
            current = []
            if len(token) >= min_len and token not in STOPWORDS:
                result.add(token)
    return result


_MNEME_RUN = re.compile(r"[a-z0-9]+")


def tokens_mneme(text: str, min_len: int = 4) -> set[str]:
    """Lowercase, ASCII [a-z0-9] runs, length >= 4, a tiny drop list."""
    return {
        t
        for t in _MNEME_RUN.findall(text.lower())
        if len(t) >= min_len and t not in MNEME_DROPPED
    }


def tokenize(profile: str, value) -> set[str]:
    """Tokens of a string, or the union over a list of strings."""
    if value is None:
        return set()
    if isinstance(value, list):
        out: set[str] = set()
        for element in value:
            out |= tokenize(profile, element)
        return out
    cfg = PROFILES[profile]
    if profile == "mneme":
        return tokens_mneme(value, cfg["min_token_len"])
    return tokens_default(value, cfg["min_token_len"])


# --------------------------------------------------------------------------
# Globs: globset 0.4 with literal_separator(true)
# --------------------------------------------------------------------------
#
# The glob is parsed into tokens, then each token becomes a piece of a
# regex over bytes:
#
#   literal c        the UTF-8 bytes of c, escaped
#   ?                [^/]           (one byte that is not '/')
#   *                [^/]*
#   **  (leading, "**/..." or the whole glob)   (?:/?|.*/)  ("**" alone: .*)
#   /** (trailing, "a/**")                      /.*
#   /**/ (inner, "a/**/b")                      (?:/|/.*/)
#   **  anywhere else                           [^/]*[^/]*  (a plain *)
#   [ab] [!ab] [a-z]  a byte class
#   {a,b}            (?:a|b)
#
# and the whole regex is anchored: ^...$ . A glob ending in '/' first gets
# '**' appended (a folder means everything below it).

LIT, ANY, STAR, RPREFIX, RSUFFIX, RZERO, CLASS, ALT = range(8)


def _escape_char(c: str) -> bytes:
    out = b""
    for b in c.encode("utf-8"):
        if b < 0x80:
            out += re.escape(bytes([b]))
        else:
            out += b"\\x%02x" % b
    return out


class _GlobParser:
    def __init__(self, glob: str):
        self.glob = glob
        self.chars = list(glob)
        self.pos = 0  # index of the next unread char
        self.prev: str | None = None  # the char read before `cur`
        self.cur: str | None = None  # the char just read
        self.branches: list[list] = [[]]  # token lists being built
        self.alt_starts: list[int] = []  # where each open {...} begins

    def error(self, what: str) -> LoadError:
        return LoadError(f"invalid glob {self.glob!r}: {what}")

    def bump(self) -> str | None:
        self.prev = self.cur
        if self.pos < len(self.chars):
            self.cur = self.chars[self.pos]
            self.pos += 1
        else:
            self.cur = None
        return self.cur

    def peek(self) -> str | None:
        return self.chars[self.pos] if self.pos < len(self.chars) else None

    def push(self, tok) -> None:
        self.branches[-1].append(tok)

    def parse(self) -> list:
        while True:
            c = self.bump()
            if c is None:
                break
            if c == "?":
                self.push((ANY,))
            elif c == "*":
                self.parse_star()
            elif c == "[":
                self.parse_class()
            elif c == "{":
                self.alt_starts.append(len(self.branches))
                self.branches.append([])
            elif c == "}":
                if not self.alt_starts:
                    raise self.error("'}' without an opening '{'")
                start = self.alt_starts.pop()
                alternatives = self.branches[start:]
                del self.branches[start:]
                self.push((ALT, alternatives))
            elif c == "," and self.alt_starts:
                self.branches.append([])
            elif c == "\\":
                escaped = self.bump()
                if escaped is None:
                    raise self.error("dangling '\\'")
                self.push((LIT, escaped))
            else:
                self.push((LIT, c))
        if self.alt_starts:
            raise self.error("unclosed '{'")
        return self.branches[0]

    def parse_star(self) -> None:
        prev = self.prev
        if self.peek() != "*":
            self.push((STAR,))
            return
        self.bump()  # the second '*'
        in_alt = len(self.branches) > 1
        if not self.branches[-1]:
            # "**" at the start of the glob (or of an alternative).
            if self.peek() is None or self.peek() == "/":
                self.push((RPREFIX,))
                self.bump()  # swallow the '/' (or nothing)
            else:
                self.push((STAR,))
                self.push((STAR,))
            return
        if prev != "/" and not (in_alt and prev in (",", "{")):
            # Not at the start of a segment: a plain '*'.
            self.push((STAR,))
            self.push((STAR,))
            return
        nxt = self.peek()
        if nxt is None:
            is_suffix = True
        elif nxt in (",", "}") and in_alt:
            is_suffix = True
        elif nxt == "/":
            self.bump()
            is_suffix = False
        else:
            # Not at the end of a segment: a plain '*'.
            self.push((STAR,))
            self.push((STAR,))
            return
        last = self.branches[-1].pop()  # normally the '/' before "**"
        if last[0] in (RPREFIX, RSUFFIX):
            self.push(last)
        elif is_suffix:
            self.push((RSUFFIX,))
        else:
            self.push((RZERO,))

    def parse_class(self) -> None:
        ranges: list[list[str]] = []
        negated = False
        if self.peek() in ("!", "^"):
            self.bump()
            negated = True
        first = True
        in_range = False
        while True:
            c = self.bump()
            if c is None:
                raise self.error("unclosed '['")
            if c == "]":
                if first:
                    ranges.append(["]", "]"])
                else:
                    break
            elif c == "-":
                if first:
                    ranges.append(["-", "-"])
                elif in_range:
                    self._close_range(ranges[-1], "-")
                    in_range = False
                else:
                    in_range = True
            else:
                if in_range:
                    self._close_range(ranges[-1], c)
                else:
                    ranges.append([c, c])
                in_range = False
            first = False
        if in_range:
            ranges.append(["-", "-"])
        self.push((CLASS, negated, ranges))

    def _close_range(self, r: list[str], end: str) -> None:
        r[1] = end
        if r[1] < r[0]:
            raise self.error(f"invalid range {r[0]}-{r[1]}")


def _tokens_to_regex(tokens: list) -> bytes:
    out = b""
    for tok in tokens:
        kind = tok[0]
        if kind == LIT:
            out += _escape_char(tok[1])
        elif kind == ANY:
            out += b"[^/]"
        elif kind == STAR:
            out += b"[^/]*"
        elif kind == RPREFIX:
            out += b"(?:/?|.*/)"
        elif kind == RSUFFIX:
            out += b"/.*"
        elif kind == RZERO:
            out += b"(?:/|/.*/)"
        elif kind == CLASS:
            _, negated, ranges = tok
            out += b"[^" if negated else b"["
            for lo, hi in ranges:
                out += _escape_char(lo)
                if lo != hi:
                    out += b"-" + _escape_char(hi)
            out += b"]"
        elif kind == ALT:
            parts = [_tokens_to_regex(alt) for alt in tok[1]]
            parts = [p for p in parts if p]
            if parts:
                out += b"(?:" + b"|".join(parts) + b")"
    return out


def compile_glob(glob: str) -> re.Pattern:
    """Compile one scope glob into a bytes regex matching a whole path."""
    if glob.endswith("/"):
        glob = glob + "**"
    tokens = _GlobParser(glob).parse()
    if len(tokens) == 1 and tokens[0][0] == RPREFIX:
        body = b".*"
    else:
        body = _tokens_to_regex(tokens)
    try:
        return re.compile(b"^" + body + b"$", re.DOTALL)
    except re.error as exc:  # pragma: no cover - should not happen
        raise LoadError(f"invalid glob {glob!r}: {exc}") from exc


def normalise_path(path: str) -> str:
    path = path.replace("\\", "/")
    if path.startswith("./"):
        path = path[2:]
    return path


# --------------------------------------------------------------------------
# Memory loading
# --------------------------------------------------------------------------


@dataclass
class Canonical:
    id: str
    title: str
    tags: list[str] = field(default_factory=list)
    constraint: list[str] = field(default_factory=list)
    anti_patterns: list[str] = field(default_factory=list)
    content: str = ""
    paths: list[str] = field(default_factory=list)
    status: str | None = None
    globs: list[re.Pattern] = field(default_factory=list)


def _str_list(value, what: str) -> list[str]:
    """A list of strings; a single string becomes a one-element list."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise LoadError(f"{what} must be a string or an array of strings")


def _str(value, what: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise LoadError(f"{what} must be a string")
    return value


def _map_decision_record(rec: dict) -> Canonical:
    rid = rec.get("id")
    if not isinstance(rid, str):
        raise LoadError("a decision record has no string `id`")
    return Canonical(
        id=rid,
        title=rec["decision"],
        tags=_str_list(rec.get("scope"), f"{rid}: scope"),
        constraint=_str_list(rec.get("constraints"), f"{rid}: constraints"),
        anti_patterns=_str_list(rec.get("anti_patterns"), f"{rid}: anti_patterns"),
        content=_str(rec.get("rationale"), f"{rid}: rationale"),
        status=rec.get("status"),
    )


def _map_item_record(rec: dict, item_type: str, profile: str) -> Canonical:
    rid = rec.get("id")
    if not isinstance(rid, str):
        raise LoadError("an item record has no string `id`")
    title = rec.get("title")
    if not isinstance(title, str):
        raise LoadError(f"item {rid} has no string `title`")
    content = _str(rec.get("content"), f"{rid}: content")
    status = rec.get("status")
    if profile == "mneme":
        # Mneme's migration: everything but title and content is ignored.
        constraint = [content] if content else []
        if item_type == "anti_pattern":
            return Canonical(
                id=rid,
                title="Avoid: " + title,
                tags=["general"],
                constraint=constraint,
                anti_patterns=[title],
                content="",
                status=status,
            )
        return Canonical(
            id=rid,
            title=title,
            tags=["general"],
            constraint=constraint,
            content="",
            status=status,
        )
    paths = _str_list(rec.get("scope"), f"{rid}: scope")
    globs = []
    for glob in paths:
        try:
            globs.append(compile_glob(glob))
        except LoadError as exc:
            raise LoadError(f"record {rid}: {exc}") from None
    return Canonical(
        id=rid,
        title=title,
        tags=_str_list(rec.get("tags"), f"{rid}: tags"),
        constraint=_str_list(rec.get("constraint"), f"{rid}: constraint"),
        anti_patterns=_str_list(rec.get("anti_patterns"), f"{rid}: anti_patterns"),
        content=content,
        paths=paths,
        status=status,
        globs=globs,
    )


def _is_inactive(status) -> bool:
    return isinstance(status, str) and status.strip().lower() in INACTIVE_STATUSES


def load_pool(data, profile: str) -> list[Canonical]:
    """The retrieval pool, in pool order."""
    if isinstance(data, list):
        data = {"items": data}
    if not isinstance(data, dict):
        raise LoadError("the memory file must be a JSON object or array")
    decisions = data.get("decisions") or []
    items = data.get("items") or []
    if not isinstance(decisions, list) or not isinstance(items, list):
        raise LoadError("`decisions` and `items` must be arrays")

    decision_records = []  # (raw record)
    item_records = []  # (raw record, type)
    for rec in decisions:
        if not isinstance(rec, dict):
            raise LoadError("an element of decisions[] is not an object")
        if isinstance(rec.get("decision"), str):
            decision_records.append(rec)
        elif "title" in rec:
            item_records.append((rec, rec.get("type", "decision")))
        else:
            raise LoadError(f"decisions[] element {rec.get('id')!r} has neither `decision` nor `title`")
    for rec in items:
        if not isinstance(rec, dict):
            raise LoadError("an element of items[] is not an object")
        if not isinstance(rec.get("type"), str):
            raise LoadError(f"item {rec.get('id')!r} has no string `type`")
        item_records.append((rec, rec["type"]))

    eligible = PROFILES[profile]["eligible_types"]
    candidates: list[Canonical] = []
    for rec in decision_records:
        candidates.append(_map_decision_record(rec))
    for rec, item_type in item_records:
        if item_type not in eligible:
            continue
        candidates.append(_map_item_record(rec, item_type, profile))

    if profile == "mneme":
        return candidates
    pool: list[Canonical] = []
    seen: set[str] = set()
    for cand in candidates:
        if _is_inactive(cand.status):
            continue
        if cand.id in seen:
            print(f"warning: duplicate id {cand.id!r} dropped", file=sys.stderr)
            continue
        seen.add(cand.id)
        pool.append(cand)
    return pool


# --------------------------------------------------------------------------
# Retrieval
# --------------------------------------------------------------------------


@dataclass
class Hit:
    id: str
    score: int  # thousandths
    pool_order: int


def score_record(rec: Canonical, query: set[str], profile: str) -> int:
    cfg = PROFILES[profile]
    total = 0
    for name in FIELDS:
        field_tokens = tokenize(profile, getattr(rec, name))
        total += cfg["weights"][name] * len(query & field_tokens)
    tag_hits = 0
    for tag in rec.tags:
        tag_tokens = tokenize(profile, tag)
        if tag_tokens and tag_tokens <= query:
            tag_hits += 1
    total += cfg["tag_boost"] * tag_hits
    return total


def retrieve(pool: list[Canonical], task: str, path: str | None, profile: str, k: int) -> list[Hit]:
    if path is not None:
        path = normalise_path(path)
    query = tokenize(profile, task)
    if path is not None:
        query |= tokenize(profile, path)

    candidates = []
    for order, rec in enumerate(pool):
        if path is not None and rec.globs:
            path_bytes = path.encode("utf-8")
            if not any(g.match(path_bytes) for g in rec.globs):
                continue
        candidates.append((order, rec))

    if not query:
        if profile == "mneme":
            return _first_of_each_id([Hit(rec.id, 1000, order) for order, rec in candidates])[:k]
        return []  # profile default: an empty query retrieves nothing

    min_score = PROFILES[profile]["min_score"]
    hits = []
    for order, rec in candidates:
        s = score_record(rec, query, profile)
        if s > min_score:
            hits.append(Hit(rec.id, s, order))
    hits.sort(key=lambda h: (-h.score, h.pool_order))
    return _first_of_each_id(hits)[:k]


def _first_of_each_id(hits: list[Hit]) -> list[Hit]:
    """The first hit of each id (only profile mneme's pool repeats ids)."""
    seen: set[str] = set()
    out = []
    for h in hits:
        if h.id not in seen:
            seen.add(h.id)
            out.append(h)
    return out


def format_score(thousandths: int) -> float:
    # n/1000 as a float: its shortest repr is the exact decimal n/1000.
    return thousandths / 1000


# --------------------------------------------------------------------------
# Hand-computed examples (python3 mneme_ref.py --self-test)
# --------------------------------------------------------------------------


def self_test() -> int:
    checks = 0

    def eq(got, want, what):
        nonlocal checks
        checks += 1
        if got != want:
            raise AssertionError(f"{what}: got {got!r}, want {want!r}")

    # Tokenizers.
    eq(tokens_default("services/payments/handler.py"), {"services", "payments", "handler"}, "path")
    eq(tokens_default("snake_case"), {"snake", "case"}, "snake_case")
    eq(tokens_default("The naïve Café über öl x86_64"), {"naïve", "café", "über", "x86"}, "unicode")
    eq(tokens_default("ÉLAN, élan"), {"élan"}, "unicode lowercase")
    eq(tokens_default("€19.99"), set(), "short digit runs")
    eq(tokens_default("should we use it"), {"use"}, "stopwords")
    eq(tokens_mneme("Should we use Pydantic for validating the project memory schema?"),
       {"should", "pydantic", "validating", "project", "memory", "schema"}, "mneme")
    eq(tokens_mneme("naïve straße café"), {"stra"}, "mneme ascii runs")
    eq(tokens_mneme("GPT-4o agent tool-use"), {"agent", "tool"}, "mneme short")

    # Globs (globset, literal_separator(true)).
    cases = [
        ("services/payments/**", "services/payments/refunds.py", True),
        ("services/payments/**", "services/payments/a/b.py", True),
        ("services/payments/**", "services/payments", False),
        ("services/payments/**", "services/paymentsX/a.py", False),
        ("services/payments/", "services/payments/a/b.py", True),
        ("services/payments/", "services/payments", False),
        ("**/x.py", "x.py", True),
        ("**/x.py", "a/b/x.py", True),
        ("**/x.py", "a/x.pyc", False),
        ("a/**/b", "a/b", True),
        ("a/**/b", "a/x/y/b", True),
        ("a/**/b", "a/xb", False),
        ("src/a**", "src/abc", True),
        ("src/a**", "src/a/b", False),
        ("*.py", "x.py", True),
        ("*.py", "a/x.py", False),
        ("web/src/**/*.{ts,tsx}", "web/src/a.ts", True),
        ("web/src/**/*.{ts,tsx}", "web/src/x/y/B.tsx", True),
        ("web/src/**/*.{ts,tsx}", "web/src/a.js", False),
        ("[ab]/*", "a/x", True),
        ("[ab]/*", "c/x", False),
        ("[!ab]/*", "c/x", True),
        ("[!ab]/*", "a/x", False),
        ("?/x", "e/x", True),
        ("?/x", "é/x", False),  # '?' is one byte; 'é' is two
        ("*/x", "é/x", True),
        ("Services/**", "services/x", False),
        ("**", "any/thing/at/all", True),
    ]
    for glob, path, want in cases:
        eq(bool(compile_glob(glob).match(path.encode())), want, f"glob {glob} ~ {path}")
    eq(normalise_path(".\\services\\x.py"), "services/x.py", "normalise")
    eq(normalise_path("././a"), "./a", "one ./ only")

    # Scores, in thousandths.
    memory = {
        "decisions": [{
            "id": "D", "decision": "Use the ledger client",
            "scope": ["payments-ledger", "ledger"], "constraints": ["no psycopg2"],
            "anti_patterns": ["raw SQL"], "rationale": "Ledger balance must stay exact",
        }],
        "items": [
            {"id": "R", "type": "rule", "title": "Refunds post reversals", "content": "ledger entries"},
            {"id": "A", "type": "anti_pattern", "title": "Writing raw SQL to the ledger", "content": ""},
            {"id": "P", "type": "preference", "title": "ledger ledger"},
        ],
    }
    task = "Refund writes to the ledger with raw SQL"
    # default: Q = {refund, writes, ledger, raw, sql}
    #   D: title ledger 3000 + tags ledger 2500 + tag hit "ledger" 1000
    #      + anti raw,sql 3000 + content ledger 1000                     = 10500
    #   A: title writing? no; raw, sql, ledger 3 x 3000                   =  9000
    #   R: title refunds? no (refund != refunds); content ledger 1000    =  1000
    hits = retrieve(load_pool(memory, "default"), task, None, "default", 3)
    eq([(h.id, h.score) for h in hits], [("D", 10500), ("A", 9000), ("R", 1000)], "default scores")
    # mneme: Q = {refund, writes, ledger}
    #   D: title ledger 1000 + tags ledger 2000 + content ledger 500      =  3500
    #   R: constraint ["ledger entries"] ledger 1500                     =  1500
    #   A: title "Avoid: Writing raw SQL to the ledger" ledger 1000
    #      + anti_patterns [title] ledger 1500                           =  2500
    hits = retrieve(load_pool(memory, "mneme"), task, None, "mneme", 3)
    eq([(h.id, h.score) for h in hits], [("D", 3500), ("A", 2500), ("R", 1500)], "mneme scores")
    # empty queries
    eq(retrieve(load_pool(memory, "default"), "the of", None, "default", 3), [], "default empty")
    eq([(h.id, h.score) for h in retrieve(load_pool(memory, "mneme"), "the of", None, "mneme", 2)],
       [("D", 1000), ("R", 1000)], "mneme empty")
    print(f"self-test: {checks} checks passed")
    return 0


def main(argv: list[str] | None = None) -> int:
    if argv is None and sys.argv[1:] == ["--self-test"]:
        return self_test()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memory", required=True)
    ap.add_argument("--queries", required=True, help="JSONL: {id, task, file?}")
    ap.add_argument("--profile", choices=sorted(PROFILES), default="default")
    ap.add_argument("--k", type=int, default=3)
    args = ap.parse_args(argv)

    try:
        with open(args.memory, encoding="utf-8") as fh:
            data = json.load(fh)
        pool = load_pool(data, args.profile)
    except (LoadError, json.JSONDecodeError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    with open(args.queries, encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            q = json.loads(line)
            path = q.get("file") or None
            hits = retrieve(pool, q.get("task") or "", path, args.profile, args.k)
            out = {
                "id": q.get("id"),
                "retrieved": [{"id": h.id, "score": format_score(h.score)} for h in hits],
            }
            print(json.dumps(out, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
