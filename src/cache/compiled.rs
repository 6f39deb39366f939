//! The compiled index: what one query needs from a memory file under one
//! profile, laid out so that a query reads a small directory and a few
//! records, and nothing else (no JSON, no tokenising of decisions, no glob
//! compiled that cannot match, no decision read that is not retrieved).
//!
//! [`compile`] writes it from a loaded [`Memory`] in two parts:
//!
//! - the **directory**, read whole by every query: the vocabulary (sorted
//!   by bytes), the distinct scope glob texts and the decisions carrying
//!   each, which decisions have scope globs, the memory's warnings, and where
//!   each token's and each decision's record is, with its length and XXH64;
//! - the **records**, read one by one: per token its postings (decision, and
//!   the token's score in it: the summed weights of the fields holding it,
//!   or under BM25F its whole contribution, as `Index::build` computes it)
//!   and the tags holding it (tag, decision, token count); per decision what the context block shows of it (id, title,
//!   tags, constraints, anti-patterns).
//!
//! [`Compiled::open`] checks that the directory's sections have the sizes
//! its counts say and fill it exactly; [`Records`] checks every record
//! against its checksum before it is read; every read after that is
//! bounds-checked and returns [`Corrupt`] rather than panicking, since both
//! come from a file.
//!
//! [`Compiled::retrieve`] follows `Index::retrieve` rule for rule (the
//! differential tests in `tests.rs`, `crates/mneme-gate-dev/tests/cache.rs`
//! and `tests/agent.rs` hold it to that).

use std::borrow::Cow;

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use super::stamp::xxh64;
use crate::memory::{Diagnostic, Memory, Severity};
use crate::profile::{Family, Field, Milli, Profile};
use crate::retrieval::{field_texts, rank, scope_matches, Hit, Query, Retrieval};
use crate::tokenize::{normalise_path, Tokenizer};

/// A compiled index that does not hold together: a section shorter than
/// its count, an offset out of bounds, a record whose checksum does not
/// match, a string that is not UTF-8.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the compiled index is corrupt: {0}")]
pub struct Corrupt(pub String);

fn corrupt(what: &str) -> Corrupt {
    Corrupt(what.to_string())
}

/// What the context block shows of one retrieved decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    pub id: String,
    pub title: String,
    pub tags: Vec<String>,
    pub constraint: Vec<String>,
    pub anti_patterns: Vec<String>,
}

impl From<&crate::memory::Decision> for Shown {
    fn from(d: &crate::memory::Decision) -> Shown {
        Shown {
            id: d.id.clone(),
            title: d.title.clone(),
            tags: d.tags.clone(),
            constraint: d.constraint.clone(),
            anti_patterns: d.anti_patterns.clone(),
        }
    }
}

impl<'a> From<&'a Shown> for crate::context::Entry<'a> {
    fn from(d: &'a Shown) -> crate::context::Entry<'a> {
        crate::context::Entry {
            id: &d.id,
            title: &d.title,
            constraint: &d.constraint,
            anti_patterns: &d.anti_patterns,
            tags: &d.tags,
        }
    }
}

/// A compiled index: its directory and its records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parts {
    pub directory: Vec<u8>,
    pub records: Vec<u8>,
}

/// Where a query finds the records: each one, checked against its XXH64.
pub trait Records {
    fn record(&self, offset: u64, len: u32, sum: u64) -> Result<Cow<'_, [u8]>, Corrupt>;
}

impl Records for Vec<u8> {
    fn record(&self, offset: u64, len: u32, sum: u64) -> Result<Cow<'_, [u8]>, Corrupt> {
        let start = usize::try_from(offset).map_err(|_| corrupt("a record past the end"))?;
        let bytes = start
            .checked_add(len as usize)
            .and_then(|end| self.get(start..end))
            .ok_or_else(|| corrupt("a record past the end"))?;
        if xxh64(bytes) != sum {
            return Err(corrupt("a record whose checksum does not match"));
        }
        Ok(Cow::Borrowed(bytes))
    }
}

/// No id: a warning that names no record.
const NONE: u32 = u32::MAX;

/// The counts at the start of the directory, in this order: decisions,
/// vocabulary, globs, warnings, strings, string bytes, glob owners.
const COUNTS: usize = 7;

/// A record's place: offset (two words), length, XXH64 (two words).
const REF: usize = 5;

/// Compiles the pool and the warnings of `memory` (loaded under `profile`'s
/// family) for `profile`'s tokenizer. The same memory and profile always
/// give the same bytes. `None` when something does not fit the format's 32
/// bits (a memory far past any real one): such a memory is not cached.
pub fn compile(memory: &Memory, profile: &Profile) -> Option<Parts> {
    let tokenizer = Tokenizer::for_profile(profile);
    let pool = &memory.pool;
    let fields = profile.fields();
    // Tokenising every field is the bulk of the work: in parallel, per decision.
    let sections = profile.reads_sections();
    let tokens: Vec<DecisionTokens> =
        pool.par_iter().map(|d| DecisionTokens::of(&tokenizer, fields, sections, d)).collect();
    let weights: Vec<Milli> = fields.iter().map(|&f| profile.weight(f)).collect();
    let mut totals = vec![0u64; fields.len()];
    for t in &tokens {
        for (total, &len) in totals.iter_mut().zip(&t.lens) {
            *total += len;
        }
    }

    // The vocabulary, sorted by bytes.
    let distinct: FxHashSet<&str> = tokens.iter().flat_map(|t| t.fields.iter().map(|(w, _)| w.as_str())).collect();
    let mut words: Vec<&str> = distinct.into_iter().collect();
    words.sort_unstable();
    let ids: FxHashMap<&str, usize> = words.iter().enumerate().map(|(i, &w)| (w, i)).collect();
    let id_of = |token: &str| ids[token];

    // Per token: postings (decision, mask) and tags (tag, decision, token count), in pool order.
    let mut postings: Vec<Vec<(u32, u16)>> = vec![Vec::new(); words.len()];
    let mut tags: Vec<Vec<[u32; 3]>> = vec![Vec::new(); words.len()];
    let mut tag_id = 0u32;
    for (d, t) in tokens.iter().enumerate() {
        for (token, mask) in &t.fields {
            postings[id_of(token)].push((d as u32, *mask));
        }
        for tag in &t.tags {
            for token in tag {
                tags[id_of(token)].push([tag_id, d as u32, tag.len() as u32]);
            }
            tag_id += 1;
        }
    }

    let mut strings = Strings::default();
    for w in &words {
        strings.push(w);
    }
    let mut records = Vec::new();
    let mut token_refs = Vec::with_capacity(REF * words.len());
    for (posts, tag_entries) in postings.iter().zip(&tags) {
        let start = records.len();
        let mut r = Writer(&mut records);
        r.u32(posts.len() as u32);
        r.u32(tag_entries.len() as u32);
        posts.iter().for_each(|p| r.u32(p.0));
        let df = posts.len() as u64;
        for &(d, mask) in posts {
            let holding = (0..fields.len()).filter(|f| mask >> f & 1 == 1);
            let score = match &profile.bm25f {
                None => holding.map(|f| weights[f].0).sum(),
                Some(params) => crate::retrieval::bm25::posting_score(
                    params,
                    df,
                    pool.len() as u64,
                    holding.map(|f| (weights[f], tokens[d as usize].lens[f], totals[f])),
                ),
            };
            r.bytes(&score.to_le_bytes());
        }
        tag_entries.iter().flatten().for_each(|&w| r.u32(w));
        push_ref(&mut token_refs, &records, start)?;
    }

    // The scope globs as `Index::build` gathers them, and what the block shows.
    let mut glob_ids: FxHashMap<&str, usize> = FxHashMap::default();
    let mut owners: Vec<Vec<u32>> = Vec::new();
    let mut has_scope: Vec<u8> = Vec::with_capacity(pool.len());
    let mut decision_refs = Vec::with_capacity(REF * pool.len());
    for (d, decision) in pool.iter().enumerate() {
        has_scope.push(u8::from(!decision.globs.is_empty()));
        for glob in &decision.globs {
            let g = *glob_ids.entry(glob.glob()).or_insert_with(|| {
                strings.push(glob.glob());
                owners.push(Vec::new());
                owners.len() - 1
            });
            if owners[g].last() != Some(&(d as u32)) {
                owners[g].push(d as u32);
            }
        }
        let start = records.len();
        let mut r = Writer(&mut records);
        r.string(&decision.id);
        r.string(&decision.title);
        for list in [&decision.tags, &decision.constraint, &decision.anti_patterns] {
            r.u32(list.len() as u32);
            list.iter().for_each(|s| r.string(s));
        }
        push_ref(&mut decision_refs, &records, start)?;
    }
    let mut owner_start = vec![0u32];
    let mut owner_values = Vec::new();
    for o in &owners {
        owner_values.extend_from_slice(o);
        owner_start.push(owner_values.len() as u32);
    }
    let mut warnings = Vec::new();
    for w in memory.warnings() {
        let id = w.record_id.as_deref().map_or(NONE, |id| strings.push(id));
        warnings.extend([w.line as u32, w.column as u32, id, strings.push(&w.message)]);
    }

    let counts = [
        pool.len(),
        words.len(),
        owners.len(),
        warnings.len() / 4,
        strings.offsets.len() - 1,
        strings.heap.len(),
        owner_values.len(),
    ];
    if counts.iter().any(|&c| u32::try_from(c).is_err()) || u32::try_from(records.len()).is_err() {
        return None;
    }
    let mut directory = Vec::new();
    let mut out = Writer(&mut directory);
    counts.iter().for_each(|&c| out.u32(c as u32));
    out.u32s(&strings.offsets);
    out.bytes(&strings.heap);
    out.u32s(&token_refs);
    out.u32s(&owner_start);
    out.u32s(&owner_values);
    out.bytes(&has_scope);
    out.u32s(&decision_refs);
    out.u32s(&warnings);
    Some(Parts { directory, records })
}

/// Appends the place of the record written from `start` to the end of `records`.
fn push_ref(refs: &mut Vec<u32>, records: &[u8], start: usize) -> Option<()> {
    let len = u32::try_from(records.len() - start).ok()?;
    let sum = xxh64(&records[start..]);
    let start = start as u64;
    refs.extend([start as u32, (start >> 32) as u32, len, sum as u32, (sum >> 32) as u32]);
    Some(())
}

/// One decision's tokens: per token the fields holding it (bit `f` for
/// field number `f` of [`Field::ALL`]), and each tag's distinct tokens
/// (tags without a token left out, as the index leaves them out).
struct DecisionTokens {
    fields: Vec<(String, u16)>,
    /// Per field: its length (distinct tokens).
    lens: Vec<u64>,
    tags: Vec<Vec<String>>,
}

impl DecisionTokens {
    fn of(tokenizer: &Tokenizer, scored: &[Field], sections: bool, d: &crate::memory::Decision) -> DecisionTokens {
        let mut masks: FxHashMap<String, u16> = FxHashMap::default();
        let mut lens = vec![0u64; scored.len()];
        for (f, &field) in scored.iter().enumerate() {
            for text in field_texts(d, field, sections) {
                tokenizer.each_token(text, &mut |token| match masks.get_mut(token) {
                    Some(mask) => {
                        if *mask >> f & 1 == 0 {
                            lens[f] += 1;
                        }
                        *mask |= 1 << f
                    }
                    None => {
                        lens[f] += 1;
                        masks.insert(token.to_string(), 1 << f);
                    }
                });
            }
        }
        let mut fields: Vec<(String, u16)> = masks.into_iter().collect();
        fields.sort_unstable();
        let tags = d
            .tags
            .iter()
            .map(|tag| {
                let mut tokens = Vec::new();
                tokenizer.each_token(tag, &mut |t| tokens.push(t.to_string()));
                tokens.sort_unstable();
                tokens.dedup();
                tokens
            })
            .filter(|tokens| !tokens.is_empty())
            .collect();
        DecisionTokens { fields, lens, tags }
    }
}

/// Strings, each stored once per push, as offsets into one heap.
struct Strings {
    offsets: Vec<u32>,
    heap: Vec<u8>,
}

impl Default for Strings {
    fn default() -> Strings {
        Strings { offsets: vec![0], heap: Vec::new() }
    }
}

impl Strings {
    fn push(&mut self, s: &str) -> u32 {
        self.heap.extend_from_slice(s.as_bytes());
        self.offsets.push(self.heap.len() as u32);
        (self.offsets.len() - 2) as u32
    }
}

struct Writer<'a>(&'a mut Vec<u8>);

impl Writer<'_> {
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    fn u32s(&mut self, vs: &[u32]) {
        self.0.reserve(4 * vs.len());
        vs.iter().for_each(|&v| self.u32(v));
    }

    fn bytes(&mut self, b: &[u8]) {
        self.0.extend_from_slice(b);
    }

    fn string(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.bytes(s.as_bytes());
    }
}

/// A little-endian `u32` array inside the directory.
#[derive(Debug, Clone, Copy)]
struct U32s<'a>(&'a [u8]);

impl U32s<'_> {
    fn len(&self) -> usize {
        self.0.len() / 4
    }

    fn get(&self, i: usize) -> Result<u32, Corrupt> {
        let b = self.0.get(4 * i..4 * i + 4).ok_or_else(|| corrupt("an index past the end of a section"))?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// `self[i]..self[i + 1]`, checked to lie within `0..limit`.
    fn range(&self, i: usize, limit: usize) -> Result<std::ops::Range<usize>, Corrupt> {
        let (a, b) = (self.get(i)? as usize, self.get(i + 1)? as usize);
        if a > b || b > limit {
            return Err(corrupt("a range out of bounds"));
        }
        Ok(a..b)
    }

    /// Record reference number `i`: offset, length, checksum.
    fn reference(&self, i: usize) -> Result<(u64, u32, u64), Corrupt> {
        let w = |j: usize| self.get(REF * i + j).map(u64::from);
        Ok((w(0)? | w(1)? << 32, w(2)? as u32, w(3)? | w(4)? << 32))
    }
}

/// Cuts a buffer into sections, front to back.
struct Cutter<'a>(&'a [u8]);

impl<'a> Cutter<'a> {
    fn bytes(&mut self, len: usize) -> Result<&'a [u8], Corrupt> {
        if len > self.0.len() {
            return Err(corrupt("a section runs past the end"));
        }
        let (head, tail) = self.0.split_at(len);
        self.0 = tail;
        Ok(head)
    }

    fn u32s(&mut self, count: usize) -> Result<U32s<'a>, Corrupt> {
        let len = count.checked_mul(4).ok_or_else(|| corrupt("a count too large"))?;
        self.bytes(len).map(U32s)
    }
}

/// Reads a record front to back.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn bytes(&mut self, len: usize) -> Result<&'a [u8], Corrupt> {
        if len > self.0.len() {
            return Err(corrupt("a record shorter than its contents"));
        }
        let (head, tail) = self.0.split_at(len);
        self.0 = tail;
        Ok(head)
    }

    fn u32(&mut self) -> Result<u32, Corrupt> {
        let b = self.bytes(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn string(&mut self) -> Result<String, Corrupt> {
        let len = self.u32()? as usize;
        let b = self.bytes(len)?;
        std::str::from_utf8(b).map(str::to_string).map_err(|_| corrupt("a string that is not UTF-8"))
    }

    fn strings(&mut self) -> Result<Vec<String>, Corrupt> {
        let count = self.u32()? as usize;
        // Each string takes four bytes at least: a count past that is a lie.
        if count > self.0.len() / 4 {
            return Err(corrupt("a list longer than its record"));
        }
        (0..count).map(|_| self.string()).collect()
    }
}

/// A view of a compiled index, checked to hold together.
pub struct Compiled<'a> {
    n: usize,
    v: usize,
    strings: U32s<'a>,
    heap: &'a [u8],
    tokens: U32s<'a>,
    owner_start: U32s<'a>,
    owners: U32s<'a>,
    has_scope: &'a [u8],
    decisions: U32s<'a>,
    warnings: U32s<'a>,
    records: &'a dyn Records,
}

impl std::fmt::Debug for Compiled<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiled").field("decisions", &self.n).field("vocabulary", &self.v).finish_non_exhaustive()
    }
}

impl<'a> Compiled<'a> {
    /// Checks that the sections of `directory` have the sizes its counts
    /// say and fill it exactly; the records are checked as they are read.
    pub fn open(directory: &'a [u8], records: &'a dyn Records) -> Result<Compiled<'a>, Corrupt> {
        let mut cut = Cutter(directory);
        let counts = cut.u32s(COUNTS)?;
        let c = |i: usize| counts.get(i).map(|v| v as usize);
        let (n, v, g, w, s, heap, owners) = (c(0)?, c(1)?, c(2)?, c(3)?, c(4)?, c(5)?, c(6)?);
        if v.checked_add(g).is_none_or(|vg| vg > s) {
            return Err(corrupt("fewer strings than words and globs"));
        }
        let plus_one = |x: usize| x.checked_add(1).ok_or_else(|| corrupt("a count too large"));
        let times = |x: usize, k: usize| x.checked_mul(k).ok_or_else(|| corrupt("a count too large"));
        let compiled = Compiled {
            n,
            v,
            strings: cut.u32s(plus_one(s)?)?,
            heap: cut.bytes(heap)?,
            tokens: cut.u32s(times(v, REF)?)?,
            owner_start: cut.u32s(plus_one(g)?)?,
            owners: cut.u32s(owners)?,
            has_scope: cut.bytes(n)?,
            decisions: cut.u32s(times(n, REF)?)?,
            warnings: cut.u32s(times(w, 4)?)?,
            records,
        };
        if !cut.0.is_empty() {
            return Err(corrupt("bytes after the last section"));
        }
        Ok(compiled)
    }

    /// The pool's size.
    pub fn len(&self) -> usize {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    fn bytes(&self, id: usize) -> Result<&'a [u8], Corrupt> {
        Ok(&self.heap[self.strings.range(id, self.heap.len())?])
    }

    fn str(&self, id: usize) -> Result<&'a str, Corrupt> {
        std::str::from_utf8(self.bytes(id)?).map_err(|_| corrupt("a string that is not UTF-8"))
    }

    /// The vocabulary id of `token` (strings `0..v` are the sorted words).
    fn find(&self, token: &str) -> Result<Option<usize>, Corrupt> {
        let (mut lo, mut hi) = (0, self.v);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.bytes(mid)?.cmp(token.as_bytes()) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Ok(Some(mid)),
            }
        }
        Ok(None)
    }

    fn decision_index(&self, d: u32) -> Result<usize, Corrupt> {
        let d = d as usize;
        if d >= self.n {
            return Err(corrupt("a decision out of range"));
        }
        Ok(d)
    }

    /// The top `profile.k` for `query`, exactly as `Index::retrieve` of the
    /// same memory and profile ranks it. `tokenizer` is `profile`'s.
    pub fn retrieve(&self, profile: &Profile, tokenizer: &Tokenizer, query: Query<'_>) -> Result<Retrieval, Corrupt> {
        // No chore of a kind a decision's title names (as `Index` decides);
        // the titles are read only for a query that may be a chore.
        let mut chore = None;
        if crate::chore::skipped_by(profile, query.task, query.file, 0).is_some() {
            let mut decided = 0;
            for pool in 0..self.n {
                decided |= crate::chore::named_by(&self.shown(pool)?.title);
            }
            chore = crate::chore::skipped_by(profile, query.task, query.file, decided);
        }
        let mut retrieval = self.rank(profile, tokenizer, query, if chore.is_some() { 0 } else { profile.k })?;
        retrieval.chore = chore;
        Ok(retrieval)
    }

    fn rank(&self, profile: &Profile, tokenizer: &Tokenizer, query: Query<'_>, k: usize) -> Result<Retrieval, Corrupt> {
        let n = self.n;
        let path = query.file.map(normalise_path).filter(|p| !p.is_empty());

        let mut any = false;
        let mut failed: Option<Corrupt> = None;
        let mut tokens: Vec<usize> = Vec::new();
        // Under BM25F the path's tokens are apart, with their path words
        // (see `Index::query_tokens`).
        let mut path_words: Vec<(u32, u32)> = Vec::new();
        let mut add = |token: &str, out: &mut Vec<usize>| {
            any = true;
            match self.find(token) {
                Ok(Some(id)) => out.push(id),
                Ok(None) => {}
                Err(e) => failed = Some(e),
            }
        };
        let mut unscored = Vec::new();
        let about = profile.bm25f.and_then(|_| crate::retrieval::bm25::about_part(query.task));
        tokenizer.each_token(about.as_ref().map_or(query.task, |a| a.text.as_str()), &mut |t| {
            if crate::retrieval::bm25::scores_as_task_word(t, profile.bm25f.is_some(), tokenizer) {
                add(t, &mut tokens)
            } else {
                add(t, &mut unscored)
            }
        });
        if let Some(p) = &path {
            if profile.bm25f.is_some() {
                let mut ids = Vec::new();
                crate::retrieval::bm25::each_path_word(p, &mut |word, text| {
                    tokenizer.each_token(text, &mut |t| add(t, &mut ids));
                    path_words.extend(ids.drain(..).map(|t| (word, t as u32)));
                });
            } else {
                tokenizer.each_token(p, &mut |t| add(t, &mut tokens));
            }
        }
        if let Some(e) = failed {
            return Err(e);
        }
        tokens.sort_unstable();
        tokens.dedup();
        path_words.retain(|&(_, t)| tokens.binary_search(&(t as usize)).is_err());
        crate::retrieval::bm25::first_word_of_each(&mut path_words);

        let mut in_scope = vec![false; n];
        if let Some(p) = &path {
            let globs = (self.v..self.v + self.owner_start.len().saturating_sub(1))
                .map(|s| self.str(s))
                .collect::<Result<Vec<&str>, Corrupt>>()?;
            let mut matched = Vec::new();
            scope_matches(&globs, p, &mut matched).map_err(Corrupt)?;
            for g in matched {
                for i in self.owner_start.range(g, self.owners.len())? {
                    in_scope[self.decision_index(self.owners.get(i)?)?] = true;
                }
            }
        }
        let scoped = |d: usize| self.has_scope.get(d).is_some_and(|&b| b != 0);
        let candidate = |d: usize| path.is_none() || !scoped(d) || in_scope[d];

        let mut hits: Vec<Hit> = Vec::new();
        if !any {
            if profile.family == Family::Mneme {
                hits.extend((0..n).filter(|&d| candidate(d)).take(k).map(|pool| Hit { pool, score: Milli(1000) }));
            }
            return Ok(Retrieval { hits, empty_query: true, chore: None });
        }

        let mut score = vec![0i64; n];
        let mut seen = vec![false; n];
        let mut touched: Vec<usize> = Vec::new();
        // Per tag: its decision, its token count, and the query tokens it holds.
        let mut tag_count: FxHashMap<u32, (u32, u32, u32)> = FxHashMap::default();
        // The best token of the path word being scored.
        let mut path_best = crate::retrieval::bm25::PathWordBest::default();
        let mut current_word = None;
        let path_tokens = path_words.iter().map(|&(w, t)| (Some(w), t as usize));
        for (word, t) in tokens.iter().map(|&t| (None, t)).chain(path_tokens) {
            let from_path = word.is_some();
            if word != current_word {
                path_best.add_to(&mut score);
                current_word = word;
            }
            let (offset, len, sum) = self.tokens.reference(t)?;
            let record = self.records.record(offset, len, sum)?;
            let mut r = Reader(&record);
            let (posts, tags) = (r.u32()? as usize, r.u32()? as usize);
            let decisions = U32s(r.bytes(posts.checked_mul(4).ok_or_else(|| corrupt("a count too large"))?)?);
            let scores = r.bytes(posts.checked_mul(8).ok_or_else(|| corrupt("a count too large"))?)?;
            let path_weight = match (&profile.bm25f, from_path) {
                (Some(params), true) => {
                    if !crate::retrieval::bm25::informative(posts as u64, n as u64, params.path_max_df) {
                        continue;
                    }
                    Some(params.path_weight)
                }
                _ => None,
            };
            for (i, bytes) in scores.chunks_exact(8).enumerate() {
                let d = self.decision_index(decisions.get(i)?)?;
                let w = i64::from_le_bytes(bytes.try_into().map_err(|_| corrupt("a short score"))?);
                match path_weight {
                    // A path word counts once, by its best token.
                    Some(pw) => path_best.offer(n, d, crate::retrieval::bm25::path_part(w, pw)),
                    None => score[d] += w,
                }
                if !seen[d] {
                    seen[d] = true;
                    touched.push(d);
                }
            }
            for _ in 0..tags {
                let (tag, d, len) = (r.u32()?, r.u32()?, r.u32()?);
                if !from_path {
                    tag_count.entry(tag).or_insert((d, len, 0)).2 += 1;
                }
            }
            if !r.0.is_empty() {
                return Err(corrupt("bytes after the end of a token's record"));
            }
        }
        path_best.add_to(&mut score);
        let boost = profile.tag_boost.0;
        for &(d, len, count) in tag_count.values() {
            if count == len {
                let d = self.decision_index(d)?;
                score[d] += boost;
                if !seen[d] {
                    seen[d] = true;
                    touched.push(d);
                }
            }
        }
        let min = profile.min_score.0;
        if min < 0 {
            hits.extend(
                (0..n).filter(|&d| candidate(d) && score[d] > min).map(|d| Hit { pool: d, score: Milli(score[d]) }),
            );
        } else {
            hits.extend(
                touched
                    .iter()
                    .filter(|&&d| candidate(d) && score[d] > min)
                    .map(|&d| Hit { pool: d, score: Milli(score[d]) }),
            );
        }
        rank(&mut hits, k);
        Ok(Retrieval { hits, empty_query: false, chore: None })
    }

    /// What the context block shows of pool decision `pool`.
    pub fn shown(&self, pool: usize) -> Result<Shown, Corrupt> {
        if pool >= self.n {
            return Err(corrupt("a decision out of range"));
        }
        let (offset, len, sum) = self.decisions.reference(pool)?;
        let record = self.records.record(offset, len, sum)?;
        let mut r = Reader(&record);
        let shown = Shown {
            id: r.string()?,
            title: r.string()?,
            tags: r.strings()?,
            constraint: r.strings()?,
            anti_patterns: r.strings()?,
        };
        if !r.0.is_empty() {
            return Err(corrupt("bytes after the end of a decision's record"));
        }
        Ok(shown)
    }

    /// The memory's warnings, as loading found them.
    pub fn warnings(&self) -> Result<Vec<Diagnostic>, Corrupt> {
        (0..self.warnings.len() / 4)
            .map(|i| {
                let at = |j: usize| self.warnings.get(4 * i + j);
                let id = at(2)?;
                Ok(Diagnostic {
                    severity: Severity::Warning,
                    file: None,
                    line: at(0)? as usize,
                    column: at(1)? as usize,
                    record_id: if id == NONE { None } else { Some(self.str(id as usize)?.to_string()) },
                    message: self.str(at(3)? as usize)?.to_string(),
                })
            })
            .collect()
    }
}
