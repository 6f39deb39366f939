//! Building an index: every field of every pool decision tokenised and
//! interned once, postings and tag token sets laid out flat (CSR), and the
//! scope globs gathered (see [`Index::build`] and [`Index::build_for_query`]).

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::scope::{LiteralFilter, PrefixSets, Scopes};
use super::{for_each_field_text, Index, Query, TagEntry};
use crate::memory::{Decision, Excluded, Memory};
use crate::profile::{Field, Profile};
use crate::tokenize::{normalise_path, Tokenizer};

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
    ///
    /// Under BM25F (profile `default`) a score needs every token's document
    /// frequency and every field's length, so the index is the full one.
    pub fn build_for_query(memory: Memory, profile: Profile, query: Query<'_>) -> Index {
        if profile.bm25f.is_some() {
            return Index::build_with(memory, profile, None);
        }
        Index::build_with(memory, profile, Some(query))
    }

    /// An index of the same profile and records kept out, over `pool`: a
    /// memory with some decisions edited (what verifies a suggested edit).
    pub fn with_pool(&self, pool: Vec<Decision>) -> Index {
        assert!(self.only.is_none(), "an index built for one query has no pool to edit");
        Index::build_parts(pool, self.excluded.clone(), self.profile.clone(), None)
    }

    /// The same pool scored under another profile of the same family.
    pub fn with_profile(&self, profile: Profile) -> Index {
        assert!(self.only.is_none(), "an index built for one query has no pool to rescore");
        assert_eq!(self.profile.family, profile.family, "a pool is read per family");
        Index::build_parts(self.decisions.clone(), self.excluded.clone(), profile, None)
    }

    fn build_with(mut memory: Memory, profile: Profile, only: Option<Query<'_>>) -> Index {
        debug_assert_eq!(memory.family, profile.family);
        let (pool, excluded) = (std::mem::take(&mut memory.pool), std::mem::take(&mut memory.excluded));
        // The rest of the memory, its text above all (as large as the file),
        // is not needed by the index: free it before the postings are built
        // rather than after.
        drop(memory);
        Index::build_parts(pool, excluded, profile, only)
    }

    fn build_parts(pool: Vec<Decision>, excluded: Vec<Excluded>, profile: Profile, only: Option<Query<'_>>) -> Index {
        let tokenizer = Tokenizer::for_profile(&profile);
        let n = pool.len();
        let fields = profile.fields();
        let nf = fields.len();
        let mut index = Index {
            nf,
            field_total: Vec::new(),
            tokenizer,
            decisions: Vec::new(),
            excluded,
            vocab: FxHashMap::default(),
            words: Vec::new(),
            field_tokens: Vec::new(),
            field_start: Vec::with_capacity(nf * n + 1),
            postings: Vec::new(),
            posting_start: Vec::new(),
            tags: Vec::new(),
            tag_tokens: Vec::new(),
            tag_postings: Vec::new(),
            tag_posting_start: Vec::new(),
            scopes: Scopes { set: None, owner: Vec::new(), globs: Vec::new(), filters: Vec::new() },
            has_scope: Vec::with_capacity(n),
            copies: copies(&pool),
            chores_decided: pool.iter().fold(0, |bits, d| bits | crate::chore::named_by(&d.title)),
            only: None,
            only_lengths: 0,
            by_id: std::sync::OnceLock::new(),
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
        // Under BM25F a posting first holds the mask of the fields holding
        // the token (bit f for field f), turned into its score once the
        // document frequencies and field lengths are known.
        let bm25 = index.profile.bm25f;
        let sections = index.profile.reads_sections();
        let weights: Vec<i64> =
            (0..nf).map(|f| if bm25.is_some() { 1 << f } else { index.profile.weight(fields[f]).0 }).collect();
        // Many decisions share a glob (`services/payments/**`): keep each
        // distinct pattern once.
        let mut glob_ids: FxHashMap<&str, usize> = FxHashMap::default();
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
            pool.par_iter().map(|decision| FrozenTokens::of(tokenizer, vocab, lengths, decision)).collect()
        });
        for (d, decision) in pool.iter().enumerate() {
            let d32 = d as u32;
            pairs.clear();
            for (f, &field) in fields.iter().enumerate() {
                buf.clear();
                match &frozen {
                    Some(pre) => buf.extend_from_slice(&pre[d].fields[f]),
                    None => {
                        for_each_field_text(decision, field, sections, |text| {
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
                    scopes.globs.push(Arc::clone(glob));
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
            index.scopes.set = Some(PrefixSets::build(&index.scopes.globs, &index.scopes.filters));
        }
        index.decisions = pool;
        if let Some(params) = bm25 {
            index.bm25_weights(&params);
        }
        index
    }

    /// Turns every posting's field mask into the token's BM25F score in the
    /// decision ([`super::bm25`]).
    fn bm25_weights(&mut self, params: &crate::profile::Bm25f) {
        let nf = self.nf;
        let n = self.decisions.len();
        let mut totals = vec![0u64; nf];
        for d in 0..n {
            for (f, total) in totals.iter_mut().enumerate() {
                *total += self.field(d, f).len() as u64;
            }
        }
        let fields = self.profile.fields();
        let weights: Vec<crate::profile::Milli> = fields.iter().map(|&f| self.profile.weight(f)).collect();
        for t in 0..self.words.len() {
            let range = self.posting_start[t] as usize..self.posting_start[t + 1] as usize;
            let df = range.len() as u64;
            for i in range {
                let (d, mask) = self.postings[i];
                let d = d as usize;
                let w = super::bm25::posting_score(
                    params,
                    df,
                    n as u64,
                    (0..nf)
                        .filter(|f| mask >> f & 1 == 1)
                        .map(|f| (weights[f], self.field(d, f).len() as u64, totals[f])),
                );
                self.postings[i].1 = w;
            }
        }
        self.field_total = totals;
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
}

/// Per decision, the pool position of the first decision with its id, when
/// some id is repeated (see `Index::copies`); `None` when all are unique.
fn copies(pool: &[Decision]) -> Option<Vec<u32>> {
    let mut first: FxHashMap<&str, u32> = FxHashMap::default();
    first.reserve(pool.len());
    let groups: Vec<u32> =
        pool.iter().enumerate().map(|(d, x)| *first.entry(x.id.as_str()).or_insert(d as u32)).collect();
    (first.len() < pool.len()).then_some(groups)
}

/// Appends the ids of `text`'s tokens that are in the fixed vocabulary of a
/// one-query index; returns false when a token was left out.
fn tokenize_frozen(
    tokenizer: &Tokenizer,
    vocab: &FxHashMap<Box<str>, u32>,
    only_lengths: u64,
    text: &str,
    out: &mut Vec<u32>,
) -> bool {
    let mut all = true;
    if !tokenizer.stems() && !tokenizer.splits() {
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
    fields: Vec<Vec<u32>>,
    tags: Vec<Option<Vec<u32>>>,
}

impl FrozenTokens {
    fn of(tokenizer: &Tokenizer, vocab: &FxHashMap<Box<str>, u32>, lengths: u64, d: &Decision) -> Self {
        // A one-query index is built for the token-overlap profiles only,
        // which score the canonical fields.
        let fields = Field::ALL
            .iter()
            .map(|&field| {
                let mut buf = Vec::new();
                for_each_field_text(d, field, false, |text| {
                    tokenize_frozen(tokenizer, vocab, lengths, text, &mut buf);
                });
                buf.sort_unstable();
                buf.dedup();
                buf
            })
            .collect();
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
