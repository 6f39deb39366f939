/*!
Layer 1: the deterministic retriever (spec §2-7).

[`Index::build`] does all per-corpus work once: it tokenises every field of
every pool decision, interns the tokens, builds postings that carry the
summed field weight of a token in a decision, indexes each tag's token set,
and compiles every scope glob into one `GlobSet`. A query then costs work
proportional to its tokens and the decisions they touch.

One exception, for latency: `context` answers one query per process (an
editor hook, timed from process start to exit), so it uses
[`Index::build_for_query`], which interns only that query's tokens and keeps
no `GlobSet`: compiling the regexes of ~1,800 distinct globs would cost more
than everything else the query needs. Its scopes are matched per query by
compiling only the globs whose literal text can occur in the path (a
necessary condition) into a small `GlobSet`, so the globset semantics are the
same. Such an index answers exactly its own query (anything else panics);
batch commands always use [`Index::build`].

Scores are integer thousandths ([`Milli`]); ties are broken by pool order;
nothing here depends on hashing order, threads or the clock.

[`Index::explain`] answers *why* for one query from the same stored token
sets, record by record, so that an explanation can never disagree with a
ranking.
*/

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Serialize;

use crate::memory::{Decision, Excluded, Memory};
use crate::profile::{Family, Field, Milli, Profile};
use crate::tokenize::{normalise_path, Tokenizer};

/// FxHash (the rustc hasher): fast for short keys; iteration order is never
/// observed, so it cannot affect results.
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut buf = [0u8; 8];
            buf[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(buf));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

pub type FxBuild = BuildHasherDefault<FxHasher>;

/// What the agent is doing: the task text and, optionally, the file it edits.
#[derive(Debug, Clone, Copy)]
pub struct Query<'a> {
    pub task: &'a str,
    pub file: Option<&'a str>,
}

/// One retrieved decision: its pool position and score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    pub pool: usize,
    pub score: Milli,
}

/// The outcome of one query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retrieval {
    /// Retrieved decisions, best first, at most `k`.
    pub hits: Vec<Hit>,
    /// The query had no tokens (the empty-query rule applied).
    pub empty_query: bool,
}

impl Retrieval {
    /// Why nothing was retrieved, in words, when nothing was.
    pub fn why_empty(&self, profile: &Profile) -> Option<String> {
        if !self.hits.is_empty() {
            return None;
        }
        Some(if self.empty_query {
            match profile.family {
                Family::Default => format!(
                    "the query has no tokens: every word is a stopword or shorter than {} characters, so profile `default` retrieves nothing",
                    profile.min_token_len
                ),
                Family::Mneme => "the query has no tokens and no decision is in scope".to_string(),
            }
        } else {
            format!("no in-scope decision scored above min_score {}", profile.min_score)
        })
    }
}

/// The per-corpus index. Build once, query many times, from many threads.
#[derive(Debug)]
pub struct Index {
    profile: Profile,
    tokenizer: Tokenizer,
    decisions: Vec<Decision>,
    excluded: Vec<Excluded>,
    vocab: HashMap<Box<str>, u32, FxBuild>,
    /// Interned tokens by id, for explain.
    words: Vec<Box<str>>,
    /// Per decision, per field (in [`Field::ALL`] order): sorted token ids,
    /// as ranges of `field_tokens` (`field_start` has `5 × pool + 1` entries).
    field_tokens: Vec<u32>,
    field_start: Vec<u32>,
    /// Per token: (decision, Σ weight of the fields holding the token), as
    /// ranges of `postings` (flat, CSR: `posting_start[t]..posting_start[t+1]`).
    postings: Vec<(u32, i64)>,
    posting_start: Vec<u32>,
    /// Per tag with a non-empty token set: its decision and token range.
    tags: Vec<TagEntry>,
    tag_tokens: Vec<u32>,
    /// Per token: the tags whose token set holds it (CSR, like `postings`).
    tag_postings: Vec<u32>,
    tag_posting_start: Vec<u32>,
    scopes: Scopes,
    has_scope: Vec<bool>,
    /// Set by [`Index::build_for_query`]: the one query (task, file) it answers.
    only: Option<(Box<str>, Option<Box<str>>)>,
    /// With `only`: bit `min(n, 63)` set when a query token is `n` bytes long.
    only_lengths: u64,
}

#[derive(Debug, Clone)]
struct TagEntry {
    decision: u32,
    /// Position in the decision's `tags`.
    position: u32,
    /// `tag_tokens[start..start + len]`: the tag's sorted token ids.
    start: u32,
    len: u32,
}

/// The distinct scope globs of the pool and how a path is matched to them.
#[derive(Debug)]
struct Scopes {
    /// All distinct globs compiled into one set at build (batch use), or
    /// `None` when built for one query (see [`Index::build_for_query`]).
    set: Option<GlobSet>,
    /// Per distinct glob: the decisions that carry it.
    owner: Vec<Vec<u32>>,
    /// Per distinct glob: the glob (as compiled at load).
    globs: Vec<Glob>,
    /// Per distinct glob: literals every matching path must contain.
    filters: Vec<LiteralFilter>,
}

/// Per-query working memory, reused between queries of one thread.
#[derive(Default)]
pub struct Scratch {
    score: Vec<i64>,
    touched: Vec<u32>,
    seen: Vec<bool>,
    in_scope: Vec<bool>,
    scope_marks: Vec<u32>,
    tag_count: HashMap<u32, u32, FxBuild>,
    query: Vec<u32>,
    matches: Vec<usize>,
}

impl Index {
    /// Builds the index of a loaded memory under `profile` (whose family
    /// must be the one the memory was loaded with). Every scope glob is
    /// compiled into one `GlobSet` here, once, for any number of queries.
    pub fn build(memory: Memory, profile: Profile) -> Index {
        Index::build_with(memory, profile, None)
    }

    /// [`Index::build`] for an index that answers one known query (the
    /// `context` editor hook), where per-corpus work for every possible query
    /// would cost far more than the query itself:
    ///
    /// - only the query's tokens are interned: a field keeps its tokens that
    ///   are in the query, which are all a score counts, and a tag holding a
    ///   token outside the query is left out, since its boost needs all of
    ///   its tokens in the query;
    /// - scope globs are matched for the query's path only (see `Scopes`)
    ///   instead of compiling every distinct glob into one `GlobSet`.
    ///
    /// [`Index::retrieve`] of that query is exactly what the full index
    /// gives. Any other query, and [`Index::explain`], panic.
    pub fn build_for_query(memory: Memory, profile: Profile, query: Query<'_>) -> Index {
        Index::build_with(memory, profile, Some(query))
    }

    fn build_with(memory: Memory, profile: Profile, only: Option<Query<'_>>) -> Index {
        debug_assert_eq!(memory.family, profile.family);
        let tokenizer = Tokenizer::new(profile.family, profile.min_token_len, profile.stem);
        let n = memory.pool.len();
        let mut index = Index {
            tokenizer,
            decisions: Vec::new(),
            excluded: memory.excluded,
            vocab: HashMap::default(),
            words: Vec::new(),
            field_tokens: Vec::new(),
            field_start: Vec::with_capacity(Field::ALL.len() * n + 1),
            postings: Vec::new(),
            posting_start: Vec::new(),
            tags: Vec::new(),
            tag_tokens: Vec::new(),
            tag_postings: Vec::new(),
            tag_posting_start: Vec::new(),
            scopes: Scopes { set: None, owner: Vec::new(), globs: Vec::new(), filters: Vec::new() },
            has_scope: Vec::with_capacity(n),
            only: None,
            only_lengths: 0,
            profile,
        };
        index.field_start.push(0);
        if let Some(q) = only {
            let mut tokens = Vec::new();
            index.tokenize_into(q.task, &mut tokens);
            if let Some(path) = q.file.map(normalise_path).filter(|p| !p.is_empty()) {
                index.tokenize_into(&path, &mut tokens);
            }
            index.only = Some((q.task.into(), q.file.map(Box::from)));
            index.only_lengths = index.words.iter().fold(0, |mask, w| mask | 1 << w.len().min(63));
        }
        let weights = Field::ALL.map(|field| index.profile.weights.of(field).0);
        // Many decisions share a glob (`services/payments/**`): keep each
        // distinct pattern once.
        let mut glob_ids: HashMap<&str, usize, FxBuild> = HashMap::default();
        let mut pairs: Vec<(u32, i64)> = Vec::new();
        // (token, decision, Σ weight) and (token, tag), in decision order.
        let mut post: Vec<(u32, u32, i64)> = Vec::new();
        let mut tag_post: Vec<(u32, u32)> = Vec::new();
        let mut buf: Vec<u32> = Vec::new();
        // Restricted to one query, the vocabulary is fixed, so every
        // decision's fields and tags are tokenised in parallel first (the
        // bulk of the work); the index is then assembled in pool order.
        let frozen: Option<Vec<FrozenTokens>> = index.only.as_ref().map(|_| {
            use rayon::prelude::*;
            let (tokenizer, vocab, lengths) = (&index.tokenizer, &index.vocab, index.only_lengths);
            memory.pool.par_iter().map(|decision| FrozenTokens::of(tokenizer, vocab, lengths, decision)).collect()
        });
        for (d, decision) in memory.pool.iter().enumerate() {
            let d32 = d as u32;
            pairs.clear();
            for (f, field) in Field::ALL.into_iter().enumerate() {
                buf.clear();
                match &frozen {
                    Some(pre) => buf.extend_from_slice(&pre[d].fields[f]),
                    None => {
                        for_each_field_text(decision, field, |text| {
                            index.tokenize_into(text, &mut buf);
                        });
                        buf.sort_unstable();
                        buf.dedup();
                    }
                }
                index.field_tokens.extend_from_slice(&buf);
                index.field_start.push(index.field_tokens.len() as u32);
                pairs.extend(buf.iter().map(|&t| (t, weights[f])));
            }
            pairs.sort_unstable_by_key(|p| p.0);
            let mut i = 0;
            while i < pairs.len() {
                let token = pairs[i].0;
                let mut sum = 0;
                while i < pairs.len() && pairs[i].0 == token {
                    sum += pairs[i].1;
                    i += 1;
                }
                post.push((token, d32, sum));
            }
            for (position, tag) in decision.tags.iter().enumerate() {
                buf.clear();
                let complete = match &frozen {
                    Some(pre) => match &pre[d].tags[position] {
                        Some(tokens) => {
                            buf.extend_from_slice(tokens);
                            true
                        }
                        None => false,
                    },
                    None => index.tokenize_into(tag, &mut buf),
                };
                if !complete {
                    // Restricted to one query, the tag has a token outside it.
                    continue;
                }
                buf.sort_unstable();
                buf.dedup();
                if buf.is_empty() {
                    continue;
                }
                let tag_id = index.tags.len() as u32;
                tag_post.extend(buf.iter().map(|&t| (t, tag_id)));
                index.tags.push(TagEntry {
                    decision: d32,
                    position: position as u32,
                    start: index.tag_tokens.len() as u32,
                    len: buf.len() as u32,
                });
                index.tag_tokens.extend_from_slice(&buf);
            }
            for glob in &decision.globs {
                let scopes = &mut index.scopes;
                let id = *glob_ids.entry(glob.glob()).or_insert_with(|| {
                    scopes.owner.push(Vec::new());
                    scopes.globs.push(glob.clone());
                    scopes.filters.push(LiteralFilter::new(glob.glob()));
                    scopes.owner.len() - 1
                });
                if scopes.owner[id].last() != Some(&d32) {
                    scopes.owner[id].push(d32);
                }
            }
            index.has_scope.push(!decision.globs.is_empty());
        }
        let tokens = index.words.len();
        (index.posting_start, index.postings) = csr(tokens, &post, |p| p.0, |p| (p.1, p.2));
        (index.tag_posting_start, index.tag_postings) = csr(tokens, &tag_post, |p| p.0, |p| p.1);
        if only.is_none() {
            index.scopes.set = Some(glob_set_of(index.scopes.globs.iter()));
        }
        index.decisions = memory.pool;
        index
    }

    /// Appends the token ids of `text` to `out`, interning new tokens; once
    /// restricted to one query, only the query's tokens are kept. Returns
    /// false when a token was left out.
    fn tokenize_into(&mut self, text: &str, out: &mut Vec<u32>) -> bool {
        let Index { tokenizer, vocab, words, only, only_lengths, .. } = self;
        if only.is_some() {
            return tokenize_frozen(tokenizer, vocab, *only_lengths, text, out);
        }
        let all = true;
        tokenizer.each_token(text, &mut |token| match vocab.get(token) {
            Some(&id) => out.push(id),
            None => {
                let id = words.len() as u32;
                vocab.insert(token.into(), id);
                words.push(token.into());
                out.push(id);
            }
        });
        all
    }

    /// Panics unless the index answers `query` (see [`Index::build_for_query`]).
    fn check_query(&self, query: Query<'_>) {
        if let Some((task, file)) = &self.only {
            assert!(
                **task == *query.task && file.as_deref() == query.file,
                "an index built for one query cannot answer another"
            );
        }
    }

    /// The decisions holding token `t`, with the summed weight.
    fn posting(&self, t: u32) -> &[(u32, i64)] {
        let t = t as usize;
        &self.postings[self.posting_start[t] as usize..self.posting_start[t + 1] as usize]
    }

    /// The tags whose token set holds token `t`.
    fn tag_posting(&self, t: u32) -> &[u32] {
        let t = t as usize;
        &self.tag_postings[self.tag_posting_start[t] as usize..self.tag_posting_start[t + 1] as usize]
    }

    /// The sorted token ids of field number `f` (of [`Field::ALL`]) of decision `d`.
    fn field(&self, d: usize, f: usize) -> &[u32] {
        let i = d * Field::ALL.len() + f;
        &self.field_tokens[self.field_start[i] as usize..self.field_start[i + 1] as usize]
    }

    fn tag_entry_tokens(&self, tag: &TagEntry) -> &[u32] {
        &self.tag_tokens[tag.start as usize..(tag.start + tag.len) as usize]
    }

    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// The pool, in pool order.
    pub fn decisions(&self) -> &[Decision] {
        &self.decisions
    }

    pub fn decision(&self, pool: usize) -> &Decision {
        &self.decisions[pool]
    }

    pub fn excluded(&self) -> &[Excluded] {
        &self.excluded
    }

    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// Retrieves the top `k` of the profile for one query.
    pub fn retrieve(&self, query: Query<'_>) -> Retrieval {
        self.retrieve_with(query, self.profile.k, &mut Scratch::default())
    }

    /// Retrieves the top `k`, reusing `scratch` between calls.
    pub fn retrieve_with(&self, query: Query<'_>, k: usize, scratch: &mut Scratch) -> Retrieval {
        self.check_query(query);
        let n = self.decisions.len();
        if scratch.score.len() != n {
            scratch.score = vec![0; n];
            scratch.seen = vec![false; n];
            scratch.in_scope = vec![false; n];
        }
        let path = query.file.map(normalise_path).filter(|p| !p.is_empty());
        let has_tokens = self.query_tokens(query.task, path.as_deref(), &mut scratch.query);
        self.mark_scope(path.as_deref(), scratch);
        let in_candidates = |d: usize, s: &Scratch| path.is_none() || !self.has_scope[d] || s.in_scope[d];

        let mut hits: Vec<Hit> = Vec::new();
        if !has_tokens {
            if self.profile.family == Family::Mneme {
                hits.extend(
                    (0..n).filter(|&d| in_candidates(d, scratch)).take(k).map(|pool| Hit { pool, score: Milli(1000) }),
                );
            }
            self.clear_scope(scratch);
            return Retrieval { hits, empty_query: true };
        }

        for &t in &scratch.query {
            for &(d, w) in self.posting(t) {
                let d = d as usize;
                scratch.score[d] += w;
                if !scratch.seen[d] {
                    scratch.seen[d] = true;
                    scratch.touched.push(d as u32);
                }
            }
            for &tag in self.tag_posting(t) {
                *scratch.tag_count.entry(tag).or_insert(0) += 1;
            }
        }
        let boost = self.profile.tag_boost.0;
        for (&tag, &count) in &scratch.tag_count {
            let entry = &self.tags[tag as usize];
            if count == entry.len {
                let d = entry.decision as usize;
                scratch.score[d] += boost;
                if !scratch.seen[d] {
                    scratch.seen[d] = true;
                    scratch.touched.push(d as u32);
                }
            }
        }
        let min = self.profile.min_score.0;
        if min < 0 {
            // Untouched decisions score 0, which passes a negative floor.
            hits.extend(
                (0..n)
                    .filter(|&d| in_candidates(d, scratch) && scratch.score[d] > min)
                    .map(|d| Hit { pool: d, score: Milli(scratch.score[d]) }),
            );
        } else {
            hits.extend(
                scratch
                    .touched
                    .iter()
                    .map(|&d| d as usize)
                    .filter(|&d| in_candidates(d, scratch) && scratch.score[d] > min)
                    .map(|d| Hit { pool: d, score: Milli(scratch.score[d]) }),
            );
        }
        rank(&mut hits, k);
        for &d in &scratch.touched {
            scratch.score[d as usize] = 0;
            scratch.seen[d as usize] = false;
        }
        scratch.touched.clear();
        scratch.tag_count.clear();
        self.clear_scope(scratch);
        Retrieval { hits, empty_query: false }
    }

    /// Fills `out` with the sorted, unique ids of the query's known tokens;
    /// returns whether the query had any token at all (known or not).
    fn query_tokens(&self, task: &str, path: Option<&str>, out: &mut Vec<u32>) -> bool {
        out.clear();
        let mut any = false;
        let mut add = |token: &str| {
            any = true;
            if let Some(&id) = self.vocab.get(token) {
                out.push(id);
            }
        };
        self.tokenizer.each_token(task, &mut add);
        if let Some(path) = path {
            self.tokenizer.each_token(path, &mut add);
        }
        out.sort_unstable();
        out.dedup();
        any
    }

    fn mark_scope(&self, path: Option<&str>, scratch: &mut Scratch) {
        let Some(path) = path else { return };
        if self.scopes.owner.is_empty() {
            return;
        }
        self.scopes.matches_into(path, &mut scratch.matches);
        for &g in &scratch.matches {
            for &d in &self.scopes.owner[g] {
                if !scratch.in_scope[d as usize] {
                    scratch.in_scope[d as usize] = true;
                    scratch.scope_marks.push(d);
                }
            }
        }
    }

    fn clear_scope(&self, scratch: &mut Scratch) {
        for &d in &scratch.scope_marks {
            scratch.in_scope[d as usize] = false;
        }
        scratch.scope_marks.clear();
    }

    /// Explains one query record by record (spec §7).
    pub fn explain(&self, query: Query<'_>) -> Explanation {
        assert!(self.only.is_none(), "an index built for one query cannot explain");
        let path = query.file.map(normalise_path).filter(|p| !p.is_empty());
        // The globs that match, from the same set retrieval uses.
        let matched_globs: Vec<&str> = match &path {
            Some(p) => {
                let mut m = Vec::new();
                self.scopes.matches_into(p.as_str(), &mut m);
                m.iter().map(|&g| self.scopes.globs[g].glob()).collect()
            }
            None => Vec::new(),
        };
        let mut scratch = Scratch::default();
        // One full ranking (every candidate above min_score) tells `beyond_k`
        // apart from `below_min_score`; its first k are the retrieval.
        let full = self.retrieve_with(query, usize::MAX, &mut scratch);
        let mut retrieval = full.clone();
        retrieval.hits.truncate(self.profile.k);
        let mut all_tokens: Vec<String> = self.tokenizer.tokens(query.task);
        if let Some(p) = &path {
            all_tokens.extend(self.tokenizer.tokens(p));
        }
        all_tokens.sort();
        all_tokens.dedup();
        let mut q: Vec<u32> = all_tokens.iter().filter_map(|t| self.vocab.get(t.as_str()).copied()).collect();
        q.sort_unstable();
        let in_q = |t: &u32| q.binary_search(t).is_ok();

        let rank_of: HashMap<usize, usize> = full.hits.iter().enumerate().map(|(i, h)| (h.pool, i + 1)).collect();
        let retrieved: HashMap<usize, usize> =
            retrieval.hits.iter().enumerate().map(|(i, h)| (h.pool, i + 1)).collect();

        let mut records = Vec::with_capacity(self.decisions.len() + self.excluded.len());
        for (d, decision) in self.decisions.iter().enumerate() {
            let scope = match &path {
                _ if !self.has_scope[d] => ScopeCheck::Unscoped,
                None => ScopeCheck::NoPath,
                Some(_) => match decision.globs.iter().position(|g| matched_globs.contains(&g.glob())) {
                    Some(i) => ScopeCheck::Matched { glob: decision.paths[i].clone() },
                    None => ScopeCheck::OutOfScope,
                },
            };
            let mut fields = Vec::new();
            let mut total = 0i64;
            for (f, field) in Field::ALL.iter().enumerate() {
                let matched: Vec<String> =
                    self.field(d, f).iter().filter(|t| in_q(t)).map(|&t| self.words[t as usize].to_string()).collect();
                let weight = self.profile.weights.of(*field);
                let contribution = Milli(weight.0 * matched.len() as i64);
                total += contribution.0;
                if !matched.is_empty() {
                    fields.push(FieldMatch {
                        field: *field,
                        count: matched.len(),
                        weight,
                        contribution,
                        tokens: sorted(matched),
                    });
                }
            }
            let tag_hits: Vec<String> = self
                .tags
                .iter()
                .filter(|t| t.decision as usize == d && self.tag_entry_tokens(t).iter().all(in_q))
                .map(|t| decision.tags[t.position as usize].clone())
                .collect();
            let tag_boost = Milli(self.profile.tag_boost.0 * tag_hits.len() as i64);
            total += tag_boost.0;
            let mut score = Milli(total);
            if retrieval.empty_query && self.profile.family == Family::Mneme {
                score = Milli(1000);
            }
            let rank = retrieved.get(&d).copied();
            let reason = if rank.is_some() {
                None
            } else if scope == ScopeCheck::OutOfScope {
                Some("out_of_scope")
            } else if rank_of.contains_key(&d) || (retrieval.empty_query && self.profile.family == Family::Mneme) {
                Some("beyond_k")
            } else {
                Some("below_min_score")
            };
            records.push(ExplainedRecord {
                id: decision.id.clone(),
                title: decision.title.clone(),
                pool_order: Some(d),
                scope,
                fields,
                tag_hits,
                tag_boost,
                score: Some(score),
                rank,
                reason: reason.map(str::to_string),
                detail: None,
            });
        }
        for ex in &self.excluded {
            records.push(ExplainedRecord {
                id: ex.id.clone(),
                title: ex.title.clone(),
                pool_order: None,
                scope: ScopeCheck::NotInPool,
                fields: Vec::new(),
                tag_hits: Vec::new(),
                tag_boost: Milli::ZERO,
                score: None,
                rank: None,
                reason: Some(ex.reason.code().to_string()),
                detail: Some(format!("line {}: {}", ex.line, ex.reason)),
            });
        }
        let note = retrieval.why_empty(&self.profile);
        Explanation {
            task: query.task.to_string(),
            file: path,
            query_tokens: all_tokens,
            profile: self.profile.clone(),
            retrieved: retrieval.hits.iter().map(|h| self.decisions[h.pool].id.clone()).collect(),
            note,
            records,
        }
    }
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// Orders hits by score (highest first), then pool order, and keeps `k`.
pub fn rank(hits: &mut Vec<Hit>, k: usize) {
    // (score desc, pool asc) is a total order (pool positions are unique), so
    // selecting the top k and sorting only them gives exactly the order of a
    // full sort, in O(n + k log k) instead of O(n log n).
    let order = |a: &Hit, b: &Hit| b.score.cmp(&a.score).then(a.pool.cmp(&b.pool));
    if k == 0 {
        hits.clear();
        return;
    }
    if hits.len() > k {
        hits.select_nth_unstable_by(k - 1, order);
        hits.truncate(k);
    }
    hits.sort_unstable_by(order);
}

/// The texts of one canonical field of a decision.
pub fn field_texts(decision: &Decision, field: Field) -> Vec<&str> {
    match field {
        Field::Title => vec![decision.title.as_str()],
        Field::Tags => decision.tags.iter().map(String::as_str).collect(),
        Field::Constraint => decision.constraint.iter().map(String::as_str).collect(),
        Field::AntiPatterns => decision.anti_patterns.iter().map(String::as_str).collect(),
        Field::Content => vec![decision.content.as_str()],
    }
}

/// Calls `each` with the texts of one canonical field of a decision, in
/// [`field_texts`] order, without collecting them.
fn for_each_field_text<'a>(decision: &'a Decision, field: Field, mut each: impl FnMut(&'a str)) {
    match field {
        Field::Title => each(&decision.title),
        Field::Tags => decision.tags.iter().for_each(|t| each(t)),
        Field::Constraint => decision.constraint.iter().for_each(|t| each(t)),
        Field::AntiPatterns => decision.anti_patterns.iter().for_each(|t| each(t)),
        Field::Content => each(&decision.content),
    }
}

/// Appends the ids of `text`'s tokens that are in the fixed vocabulary of a
/// one-query index; returns false when a token was left out.
fn tokenize_frozen(
    tokenizer: &Tokenizer,
    vocab: &HashMap<Box<str>, u32, FxBuild>,
    only_lengths: u64,
    text: &str,
    out: &mut Vec<u32>,
) -> bool {
    let mut all = true;
    if !tokenizer.stems() {
        // Unstemmed, a query token is its own run and passed the filters,
        // so runs are looked up first (most fail on length alone) and the
        // filters only run to tell a left-out token from a non-token.
        tokenizer.each_run(text, &mut |run| {
            let id = if only_lengths >> run.len().min(63) & 1 == 1 { vocab.get(run) } else { None };
            match id {
                Some(&id) => out.push(id),
                None => {
                    if all && tokenizer.keeps(run) {
                        all = false;
                    }
                }
            }
        });
        return all;
    }
    tokenizer.each_token(text, &mut |token| match vocab.get(token) {
        Some(&id) => out.push(id),
        None => all = false,
    });
    all
}

/// One decision's token ids under a one-query index: per field (sorted,
/// distinct) and per tag (`None` when the tag has a token outside the query).
struct FrozenTokens {
    fields: [Vec<u32>; 5],
    tags: Vec<Option<Vec<u32>>>,
}

impl FrozenTokens {
    fn of(tokenizer: &Tokenizer, vocab: &HashMap<Box<str>, u32, FxBuild>, lengths: u64, d: &Decision) -> Self {
        let fields = Field::ALL.map(|field| {
            let mut buf = Vec::new();
            for_each_field_text(d, field, |text| {
                tokenize_frozen(tokenizer, vocab, lengths, text, &mut buf);
            });
            buf.sort_unstable();
            buf.dedup();
            buf
        });
        let tags = d
            .tags
            .iter()
            .map(|tag| {
                let mut buf = Vec::new();
                tokenize_frozen(tokenizer, vocab, lengths, tag, &mut buf).then(|| {
                    buf.sort_unstable();
                    buf.dedup();
                    buf
                })
            })
            .collect();
        FrozenTokens { fields, tags }
    }
}

/// Groups `items` by key (`0..keys`) keeping their order within a key:
/// compressed rows, `start[k]..start[k + 1]` being key `k`'s values.
fn csr<T, V: Copy + Default>(
    keys: usize,
    items: &[T],
    key: impl Fn(&T) -> u32,
    value: impl Fn(&T) -> V,
) -> (Vec<u32>, Vec<V>) {
    let mut start = vec![0u32; keys + 1];
    for item in items {
        start[key(item) as usize + 1] += 1;
    }
    for k in 0..keys {
        start[k + 1] += start[k];
    }
    let mut next = start.clone();
    let mut values = vec![V::default(); items.len()];
    for item in items {
        let k = key(item) as usize;
        values[next[k] as usize] = value(item);
        next[k] += 1;
    }
    (start, values)
}

fn glob_set_of<'a>(globs: impl Iterator<Item = &'a Glob>) -> GlobSet {
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        builder.add(glob.clone());
    }
    // Every glob compiled on its own at load, so the set cannot fail;
    // should it, scoped decisions match nothing rather than everything.
    builder.build().unwrap_or_else(|_| GlobSet::empty())
}

impl Scopes {
    /// The indices (ascending) of the distinct globs that match `path`.
    ///
    /// With the set built at load this is one `GlobSet` lookup. Built for
    /// one query, compiling every glob's regex would dominate the query, so
    /// only the globs whose literal text can occur in `path` (a necessary
    /// condition, see [`LiteralFilter`]) are compiled, into one small
    /// `GlobSet`, and matched: the same globset semantics, on fewer globs.
    fn matches_into(&self, path: &str, out: &mut Vec<usize>) {
        match &self.set {
            Some(set) => set.matches_into(path, out),
            None => {
                out.clear();
                let candidates: Vec<usize> =
                    (0..self.globs.len()).filter(|&g| self.filters[g].may_match(path)).collect();
                if candidates.is_empty() {
                    return;
                }
                let set = glob_set_of(candidates.iter().map(|&g| &self.globs[g]));
                let mut hits = Vec::new();
                set.matches_into(path, &mut hits);
                out.extend(hits.into_iter().map(|i| candidates[i]));
                out.sort_unstable();
            }
        }
    }
}

/// The literal runs of a glob that every path it matches must contain, in
/// order: a cheap necessary condition, never a sufficient one.
///
/// Globs made of letters, digits, `/ . _ -` and the wildcards `*` and `?`
/// are filtered by all their literal runs. Any other character (classes,
/// alternations, escapes, anything globset might treat specially) stops the
/// filter: only the plain text before it must start the path. A `/` next
/// to a wildcard or a special character is left out, because `**/` and
/// `/**` can match nothing at all.
#[derive(Debug)]
struct LiteralFilter {
    /// The text between wildcards (empty where two are adjacent); the
    /// first must start the path and the last end it. `None`: only
    /// `prefix` is checked.
    runs: Option<Vec<Box<str>>>,
    /// Text every matching path starts with.
    prefix: Box<str>,
}

impl LiteralFilter {
    fn new(glob: &str) -> LiteralFilter {
        let literal = |c: char| c.is_alphanumeric() || matches!(c, '/' | '.' | '_' | '-');
        if let Some(special) = glob.find(|c: char| !literal(c) && !matches!(c, '*' | '?')) {
            let head = &glob[..special];
            let head = &head[..head.find(|c: char| !literal(c)).unwrap_or(head.len())];
            let prefix = head.strip_suffix('/').unwrap_or(head);
            return LiteralFilter { runs: None, prefix: prefix.into() };
        }
        let pieces: Vec<&str> = glob.split(['*', '?']).collect();
        let last = pieces.len() - 1;
        let runs = pieces
            .iter()
            .enumerate()
            .map(|(i, &piece)| {
                let mut run = piece;
                if i > 0 {
                    run = run.strip_prefix('/').unwrap_or(run);
                }
                if i < last {
                    run = run.strip_suffix('/').unwrap_or(run);
                }
                Box::from(run)
            })
            .collect();
        LiteralFilter { runs: Some(runs), prefix: "".into() }
    }

    /// False only when no path without the runs in order can match.
    fn may_match(&self, path: &str) -> bool {
        let Some(runs) = &self.runs else { return path.starts_with(&*self.prefix) };
        let Some((first, others)) = runs.split_first() else { return true };
        let Some(mut rest) = path.strip_prefix(&**first) else { return false };
        let Some((last, middle)) = others.split_last() else { return true };
        for run in middle.iter().filter(|r| !r.is_empty()) {
            match rest.find(&**run) {
                Some(i) => rest = &rest[i + run.len()..],
                None => return false,
            }
        }
        rest.ends_with(&**last)
    }
}

/// What the scope pre-filter did with one record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum ScopeCheck {
    /// The record has no scope globs: always a candidate.
    Unscoped,
    /// The query has no path: scope is not checked.
    NoPath,
    Matched {
        glob: String,
    },
    OutOfScope,
    NotInPool,
}

#[derive(Debug, Clone, Serialize)]
pub struct FieldMatch {
    pub field: Field,
    pub tokens: Vec<String>,
    pub count: usize,
    pub weight: Milli,
    pub contribution: Milli,
}

#[derive(Debug, Clone, Serialize)]
pub struct ExplainedRecord {
    pub id: String,
    pub title: String,
    pub pool_order: Option<usize>,
    pub scope: ScopeCheck,
    pub fields: Vec<FieldMatch>,
    pub tag_hits: Vec<String>,
    pub tag_boost: Milli,
    pub score: Option<Milli>,
    pub rank: Option<usize>,
    /// Why it was not retrieved: `not_eligible_type`, `inactive_status`,
    /// `duplicate_id`, `out_of_scope`, `below_min_score` or `beyond_k`.
    pub reason: Option<String>,
    pub detail: Option<String>,
}

/// The answer to "why these decisions?" for one query.
#[derive(Debug, Clone, Serialize)]
pub struct Explanation {
    pub task: String,
    pub file: Option<String>,
    pub query_tokens: Vec<String>,
    pub profile: Profile,
    pub retrieved: Vec<String>,
    pub note: Option<String>,
    pub records: Vec<ExplainedRecord>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn index(text: &str, profile: Profile) -> Index {
        let memory = Memory::parse(Path::new("m.json"), text.to_string(), profile.family);
        assert!(!memory.has_errors(), "{:?}", memory.diagnostics);
        Index::build(memory, profile)
    }

    fn default_index(text: &str) -> Index {
        index(text, Profile::named(Family::Default))
    }

    fn run(ix: &Index, task: &str, file: Option<&str>) -> Vec<(String, String)> {
        ix.retrieve(Query { task, file })
            .hits
            .iter()
            .map(|h| (ix.decision(h.pool).id.clone(), h.score.to_string()))
            .collect()
    }

    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
    }

    #[test]
    fn each_field_has_its_weight() {
        let ix = default_index(
            r#"[
            {"id": "t", "type": "rule", "title": "ledger"},
            {"id": "g", "type": "rule", "title": "x", "tags": ["ledger"]},
            {"id": "c", "type": "rule", "title": "x", "constraint": "ledger"},
            {"id": "a", "type": "rule", "title": "x", "anti_patterns": ["ledger"]},
            {"id": "n", "type": "rule", "title": "x", "content": "ledger"}
        ]"#,
        );
        let got: Vec<_> = ix
            .retrieve_with(Query { task: "ledger", file: None }, 10, &mut Scratch::default())
            .hits
            .iter()
            .map(|h| (ix.decision(h.pool).id.as_str(), h.score.to_string()))
            .collect();
        // tags: 2.5 + tag boost 1.0
        assert_eq!(
            got,
            [
                ("g", "3.5".to_string()),
                ("t", "3.0".into()),
                ("c", "1.5".into()),
                ("a", "1.5".into()),
                ("n", "1.0".into())
            ]
        );
    }

    #[test]
    fn matches_count_distinct_tokens_per_field_and_sum_across_fields() {
        let ix = default_index(
            r#"[{"id": "x", "type": "rule", "title": "ledger ledger client", "content": "ledger client refunds"}]"#,
        );
        // title: ledger, client (2 × 3.0); content: ledger, client, refunds ∩ Q = 2 × 1.0
        assert_eq!(run(&ix, "ledger client for refund", None), pairs(&[("x", "8.0")]));
    }

    #[test]
    fn tag_boost_needs_every_token_of_the_tag() {
        let ix = default_index(
            r#"[{"id": "x", "type": "rule", "title": "t", "tags": ["payments-ledger", "ok", "payments"]}]"#,
        );
        // Q = {payments}: tags field 1 match (2.5) + tag "payments" hit (1.0); "ok" has no tokens.
        assert_eq!(run(&ix, "payments", None), pairs(&[("x", "3.5")]));
        // Q = {payments, ledger}: 2 × 2.5 + 2 hits.
        assert_eq!(run(&ix, "ledger payments", None), pairs(&[("x", "7.0")]));
    }

    #[test]
    fn ties_break_by_pool_order_and_k_cuts() {
        let ix = default_index(
            r#"{"items": [{"id": "i1", "type": "rule", "title": "cache"}, {"id": "i2", "type": "rule", "title": "cache"}],
               "decisions": [{"id": "d1", "decision": "cache"}, {"id": "d2", "decision": "cache"}]}"#,
        );
        assert_eq!(run(&ix, "cache", None), pairs(&[("d1", "3.0"), ("d2", "3.0"), ("i1", "3.0")]));
    }

    #[test]
    fn scope_filters_only_scoped_records_and_only_with_a_path() {
        let ix = default_index(
            r#"[{"id": "pay", "type": "rule", "title": "ledger", "scope": ["services/payments/"]},
                {"id": "web", "type": "rule", "title": "ledger", "scope": "web/**/*.tsx"},
                {"id": "all", "type": "rule", "title": "ledger"}]"#,
        );
        assert_eq!(run(&ix, "ledger", None).len(), 3);
        let ids = |file| run(&ix, "ledger", Some(file)).into_iter().map(|p| p.0).collect::<Vec<_>>();
        assert_eq!(ids("services/payments/refund.py"), ["pay", "all"]);
        assert_eq!(ids(".\\web\\src\\App.tsx"), ["web", "all"]);
        assert_eq!(ids("docs/readme.md"), ["all"]);
    }

    #[test]
    fn path_tokens_join_the_query() {
        let ix = default_index(r#"[{"id": "x", "type": "rule", "title": "payments refunds"}]"#);
        assert_eq!(run(&ix, "add endpoint", Some("services/payments/refunds.py")), pairs(&[("x", "6.0")]));
    }

    #[test]
    fn min_score_drops_scores_at_or_below_it() {
        let mut p = Profile::named(Family::Default);
        p.min_score = Milli(3000);
        let ix = index(
            r#"[{"id": "a", "type": "rule", "title": "cache"}, {"id": "b", "type": "rule", "title": "cache", "content": "cache"}]"#,
            p,
        );
        assert_eq!(run(&ix, "cache", None), pairs(&[("b", "4.0")]));
    }

    #[test]
    fn negative_min_score_admits_untouched_candidates() {
        let mut p = Profile::named(Family::Default);
        p.min_score = Milli(-1);
        let ix = index(
            r#"[{"id": "a", "type": "rule", "title": "cache"}, {"id": "b", "type": "rule", "title": "queue"}]"#,
            p,
        );
        assert_eq!(run(&ix, "queue", None), pairs(&[("b", "3.0"), ("a", "0.0")]));
    }

    #[test]
    fn empty_query_default_retrieves_nothing_and_says_why() {
        let ix = default_index(r#"[{"id": "a", "type": "rule", "title": "cache"}]"#);
        let r = ix.retrieve(Query { task: "do it to me", file: None });
        assert!(r.hits.is_empty() && r.empty_query);
        assert!(r.why_empty(ix.profile()).unwrap().contains("no tokens"));
        // A query whose tokens are all unknown is not empty: it just matches nothing.
        let r = ix.retrieve(Query { task: "kubernetes", file: None });
        assert!(r.hits.is_empty() && !r.empty_query);
    }

    #[test]
    fn empty_query_mneme_returns_pool_order_with_score_one() {
        let ix = index(
            r#"{"decisions": [{"id": "d1", "decision": "x"}, {"id": "d2", "decision": "y"}, {"id": "d3", "decision": "z"}, {"id": "d4", "decision": "w"}]}"#,
            Profile::named(Family::Mneme),
        );
        assert_eq!(run(&ix, "do we use it?", None), pairs(&[("d1", "1.0"), ("d2", "1.0"), ("d3", "1.0")]));
    }

    #[test]
    fn explain_agrees_with_retrieval_and_gives_one_reason() {
        let ix = default_index(
            r#"[{"id": "pay", "type": "rule", "title": "ledger", "scope": ["services/payments/"]},
                {"id": "a", "type": "rule", "title": "ledger client", "tags": ["ledger"]},
                {"id": "b", "type": "rule", "title": "ledger"},
                {"id": "c", "type": "rule", "title": "ledger"},
                {"id": "d", "type": "rule", "title": "ledger"},
                {"id": "z", "type": "rule", "title": "other"},
                {"id": "f", "type": "fact", "title": "ledger"}]"#,
        );
        let e = ix.explain(Query { task: "ledger client", file: Some("web/app.ts") });
        assert_eq!(e.retrieved, ["a", "b", "c"]);
        let summary: Vec<_> = e
            .records
            .iter()
            .map(|r| (r.id.as_str(), r.rank, r.reason.as_deref(), r.score.map(|s| s.to_string())))
            .collect();
        assert_eq!(
            summary,
            [
                ("pay", None, Some("out_of_scope"), Some("3.0".into())),
                ("a", Some(1), None, Some("9.5".into())),
                ("b", Some(2), None, Some("3.0".into())),
                ("c", Some(3), None, Some("3.0".into())),
                ("d", None, Some("beyond_k"), Some("3.0".into())),
                ("z", None, Some("below_min_score"), Some("0.0".into())),
                ("f", None, Some("not_eligible_type"), None),
            ]
        );
        let a = &e.records[1];
        assert_eq!(a.fields.len(), 2);
        assert_eq!(a.fields[0].tokens, ["client", "ledger"]);
        assert_eq!(a.tag_hits, ["ledger"]);
        assert_eq!(e.records[0].scope, ScopeCheck::OutOfScope);
    }

    #[test]
    fn the_literal_filter_never_drops_a_path_globset_matches() {
        let globs = [
            "services/payments/",
            "services/payments/**",
            "**/test_*.py",
            "a/**/b",
            "a/**",
            "src/a**",
            "src/*.rs",
            "src/?.rs",
            "**",
            "*",
            "x",
            "/abs/*.rs",
            "**/b/**",
            "a/*/c",
            "a*b*c",
            "web/{app,lib}/*.ts",
            "v[12]/x",
            "**/*",
            "a/**/**/b",
            "*/x/*",
            "?",
            "a?b",
            "lit/eral.txt",
            "ün/*.py",
            "src/x/**/*.{rs,py}",
            "src/{a,b}/**",
            "src/x/[ab]*/c",
            "src/x/",
            "a/{b,c/d}/e",
            "s?c/{x}",
            "src/x/**/{c,d}.rs",
            "a\\*b",
            "**/.git/**",
        ];
        let paths = [
            "services/payments/refunds.py",
            "services/payments",
            "services/paymentsx/a.py",
            "a/b",
            "a/x/y/b",
            "a",
            "ab",
            "a/b/c",
            "abc",
            "axbxc",
            "src/abc",
            "src/a/b",
            "src/x.rs",
            "src/ab.rs",
            "test_x.py",
            "q/test_x.py",
            "x",
            "y/x",
            "/abs/a.rs",
            "b",
            "b/c",
            "x/b/y",
            "web/lib/x.ts",
            "v2/x",
            "a/b/b",
            "lit/eral.txt",
            "ün/a.py",
            "src/x/a.rs",
            "src/x/y/z.py",
            "src/x",
            "src/a/q",
            "src/b",
            "src/x/a1/c",
            "src/x/b/c",
            "a/c/d/e",
            "a/b/e",
            "sxc/x",
            "src/x/c.rs",
            "a*b",
            ".git/x",
            "p/.git/q",
            "",
            "/",
            "a/",
            "x/x/x",
        ];
        for glob in globs {
            let compiled = crate::memory::compile_glob(glob).unwrap();
            let matcher = compiled.compile_matcher();
            let filter = LiteralFilter::new(compiled.glob());
            for path in paths {
                if matcher.is_match(path) {
                    assert!(filter.may_match(path), "{glob} matches {path} but the filter drops it");
                }
            }
        }
        assert!(!LiteralFilter::new("src/jeam/**/*.{rs,py}").may_match("services/payments/refunds.py"));
        assert!(LiteralFilter::new("src/jeam/**/*.{rs,py}").may_match("src/jeam/a.rs"));
        let filter = LiteralFilter::new("**/tradrefer_*.py");
        assert!(!filter.may_match("services/payments/refunds.py"));
        assert!(filter.may_match("x/tradrefer_a.py"));
    }

    #[test]
    fn retrieval_is_the_same_with_a_reused_scratch() {
        let ix = default_index(
            r#"[{"id": "a", "type": "rule", "title": "ledger", "tags": ["ledger"], "scope": "x/**"}, {"id": "b", "type": "rule", "title": "cache ledger"}]"#,
        );
        let mut scratch = Scratch::default();
        for q in ["ledger", "cache", "ledger cache", "", "ledger"] {
            for file in [None, Some("x/y"), Some("z")] {
                let a = ix.retrieve_with(Query { task: q, file }, 3, &mut scratch);
                let b = ix.retrieve(Query { task: q, file });
                assert_eq!(a, b);
            }
        }
    }
}
