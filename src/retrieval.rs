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

The code follows those steps: `build` makes the index, `rank` answers a
query, `scope` matches a path to the scope globs, `explain` answers why, and
`why_not` answers why not one decision.
*/

use rustc_hash::FxHashMap;

use crate::chore::Chore;
use crate::memory::{Decision, Excluded};
use crate::profile::{Family, Field, Milli, Profile};
use crate::tokenize::Tokenizer;

pub mod bm25;
mod build;
mod explain;
mod rank;
mod scope;
mod scope_text;
mod simple_glob;
#[cfg(test)]
mod tests;
mod why_not;

pub use explain::{ExplainedRecord, Explanation, FieldMatch, ScopeCheck};
pub use rank::{rank, Ranked};
use scope::Scopes;
pub use scope_text::scope_matches;
pub use why_not::{Ahead, Cause, Competitor, Fate, Gain, Miss, QueryWord, SharedGain, UnscoredWord, WhyNot, WordFrom};

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

/// The best decision a ranking left out: the first one after the
/// retrieved decisions in the ranking of every candidate of the query (in
/// scope, one copy per id), whatever its score, a decision the query does
/// not touch counting as 0 (1.0 under Mneme's empty-query fallback).
/// See [`Index::retrieve_with_runner_up`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunnerUp {
    pub pool: usize,
    pub score: Milli,
    /// The query shares a token with it (or completes one of its tags);
    /// false for a decision the query does not touch.
    pub touched: bool,
}

/// The outcome of one query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retrieval {
    /// Retrieved decisions, best first, at most `k`.
    pub hits: Vec<Hit>,
    /// The query had no tokens (the empty-query rule applied).
    pub empty_query: bool,
    /// The task is a chore and the profile skips chores
    /// ([`crate::chore`]): nothing was retrieved, whatever the scores.
    pub chore: Option<Chore>,
}

impl Retrieval {
    /// Why nothing was retrieved, in words, when nothing was.
    pub fn why_empty(&self, profile: &Profile) -> Option<String> {
        if !self.hits.is_empty() {
            return None;
        }
        if let Some(chore) = self.chore {
            return Some(format!(
                "the task is {}, and profile `{}` retrieves nothing for a chore (retrieval.skip_chores)",
                chore.word(),
                profile.name
            ));
        }
        Some(if self.empty_query {
            match profile.family {
                Family::Default => format!(
                    "the query has no tokens: every word is a stopword or shorter than {} characters, so profile `{}` retrieves nothing",
                    profile.min_token_len, profile.name
                ),
                Family::Mneme => "the query has no tokens and no decision is in scope".to_string(),
            }
        } else {
            if profile.bm25f.is_some() {
                format!(
                    "no in-scope decision scored above min_score {}: profile `{}` abstains rather than inject a weak match",
                    profile.min_score, profile.name
                )
            } else {
                format!("no in-scope decision scored above min_score {}", profile.min_score)
            }
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
    vocab: FxHashMap<Box<str>, u32>,
    /// Interned tokens by id, for explain.
    words: Vec<Box<str>>,
    /// How many fields the profile scores ([`Profile::fields`]): 5, or 10
    /// under BM25F.
    nf: usize,
    /// Per decision, per field (in [`Profile::fields`] order): sorted token ids,
    /// as ranges of `field_tokens` (`field_start` has `nf × pool + 1` entries).
    field_tokens: Vec<u32>,
    field_start: Vec<u32>,
    /// Per token: (decision, Σ weight of the fields holding the token; under
    /// BM25F the token's whole contribution, [`bm25`]), as ranges of
    /// `postings` (flat, CSR: `posting_start[t]..posting_start[t+1]`).
    postings: Vec<(u32, i64)>,
    posting_start: Vec<u32>,
    /// Per tag with a non-empty token set: its decision and token range,
    /// in decision order.
    tags: Vec<TagEntry>,
    tag_tokens: Vec<u32>,
    /// Per token: the tags whose token set holds it (CSR, like `postings`).
    tag_postings: Vec<u32>,
    tag_posting_start: Vec<u32>,
    scopes: Scopes,
    has_scope: Vec<bool>,
    /// When some id is held by several pool decisions (profile `mneme`
    /// keeps every copy, as Mneme does): per decision, the pool position of
    /// the first decision with its id. A ranking keeps the best-ranked copy
    /// of each id. `None` when every id is unique.
    copies: Option<Vec<u32>>,
    /// The kinds of chore some decision's title names
    /// ([`crate::chore::named_by`]): tasks of those kinds are no chores.
    chores_decided: u8,
    /// Under BM25F: per field, the pool's total length (distinct tokens per
    /// decision, summed), for explain.
    field_total: Vec<u64>,
    /// Set by [`Index::build_for_query`]: the one query (task, file) it answers.
    only: Option<(Box<str>, Option<Box<str>>)>,
    /// With `only`: bit `min(n, 63)` set when a query token is `n` bytes long.
    only_lengths: u64,
    /// Each pool position with the [`id_key`] of its id, ordered by key then
    /// position, made when first needed ([`Index::positions_of`]).
    by_id: std::sync::OnceLock<Vec<(u32, u32)>>,
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

/// The key [`Index::positions_of`] orders ids by: a hash of the id's bytes
/// (the same on every run; the order it gives is never shown).
fn id_key(id: &str) -> u32 {
    use std::hash::Hasher as _;
    let mut hasher = rustc_hash::FxHasher::default();
    hasher.write(id.as_bytes());
    hasher.finish() as u32
}

/// Per-query working memory, reused between queries of one thread.
#[derive(Default)]
pub struct Scratch {
    score: Vec<i64>,
    touched: Vec<u32>,
    seen: Vec<bool>,
    in_scope: Vec<bool>,
    scope_marks: Vec<u32>,
    tag_count: FxHashMap<u32, u32>,
    query: Vec<u32>,
    /// Under BM25F: the informative tokens of the path that are not task
    /// tokens (they score `path_weight` of their contribution, and complete
    /// no tag), as (path word, token), ordered by path word.
    path_words: Vec<(u32, u32)>,
    /// The best path token of the path word being scored ([`Index::add_path`]).
    path_best: bm25::PathWordBest,
    matches: Vec<usize>,
}

impl Index {
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

    /// The sorted token ids of field number `f` (of [`Profile::fields`]) of decision `d`.
    fn field(&self, d: usize, f: usize) -> &[u32] {
        let i = d * self.nf + f;
        &self.field_tokens[self.field_start[i] as usize..self.field_start[i + 1] as usize]
    }

    /// The tags of decision `d` (the index holds them in decision order).
    fn tags_of(&self, d: usize) -> &[TagEntry] {
        let start = self.tags.partition_point(|t| (t.decision as usize) < d);
        let end = self.tags.partition_point(|t| (t.decision as usize) <= d);
        &self.tags[start..end]
    }

    fn tag_entry_tokens(&self, tag: &TagEntry) -> &[u32] {
        &self.tag_tokens[tag.start as usize..(tag.start + tag.len) as usize]
    }

    /// How many pool decisions hold `token` in a scored field (0 for a
    /// token no decision holds).
    pub fn document_frequency(&self, token: &str) -> u64 {
        self.vocab.get(token).map_or(0, |&t| self.posting(t).len() as u64)
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

    /// The pool positions of the decisions whose id is `id`, ascending.
    pub(crate) fn positions_of<'a>(&'a self, id: &'a str) -> impl Iterator<Item = usize> + 'a {
        // Searched by a key of the id, not by the id: the search reads one
        // small array instead of a decision and its id at every step (a
        // run looks up each scenario's expected ids: 25,000 searches on
        // 10,000 scenarios). Ids that share a key are told apart after.
        let by_id = self.by_id.get_or_init(|| {
            let mut v: Vec<(u32, u32)> =
                self.decisions.iter().enumerate().map(|(d, decision)| (id_key(&decision.id), d as u32)).collect();
            v.sort_unstable();
            v
        });
        let key = id_key(id);
        let start = by_id.partition_point(|&(k, _)| k < key);
        by_id[start..]
            .iter()
            .take_while(move |&&(k, _)| k == key)
            .map(|&(_, d)| d as usize)
            .filter(move |&d| self.decisions[d].id == id)
    }

    pub fn excluded(&self) -> &[Excluded] {
        &self.excluded
    }

    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// How many distinct scope globs the pool holds (the coverage analysis
    /// checks each against the repository's files).
    pub fn scope_glob_count(&self) -> usize {
        self.scopes.globs.len()
    }

    /// Distinct scope glob number `g` (`0..scope_glob_count()`), as
    /// compiled at load, and the pool decisions that carry it.
    pub fn scope_glob(&self, g: usize) -> (&globset::Glob, &[u32]) {
        (&self.scopes.globs[g], &self.scopes.owner[g])
    }

    /// The numbers (ascending) of the distinct scope globs that match
    /// `path`, a path as a query's file names it (normalised the same way).
    pub fn matching_scope_globs(&self, path: &str, out: &mut Vec<usize>) {
        let path = crate::tokenize::normalise_path(path);
        self.scopes.matches_into(&path, out);
    }
}

/// The texts of one field of a decision. `content` is the decision's
/// `content` and, when `sections` (a profile that scores the sections,
/// [`Profile::reads_sections`]), the text of its Context's and Decision's
/// sub-sections ([`crate::memory::Sections::subsections`]).
pub fn field_texts(decision: &Decision, field: Field, sections: bool) -> Vec<&str> {
    let mut texts = Vec::new();
    for_each_field_text(decision, field, sections, |text| texts.push(text));
    texts
}

/// Pool decisions whose every field tokenises to nothing under `profile`:
/// no query can retrieve them. Each as (byte offset in the file, id).
pub fn silent_decisions(pool: &[Decision], profile: &Profile) -> Vec<(usize, String)> {
    let tokenizer = Tokenizer::for_profile(profile);
    let sections = profile.reads_sections();
    let silent = |d: &Decision| {
        profile.fields().iter().all(|&f| {
            let mut any = false;
            for_each_field_text(d, f, sections, |t| tokenizer.each_token(t, &mut |_| any = true));
            !any
        })
    };
    pool.iter().filter(|d| silent(d)).map(|d| (d.offset, d.id.clone())).collect()
}

/// Calls `each` with the texts of one field of a decision
/// ([`field_texts`]), without collecting them.
fn for_each_field_text<'a>(decision: &'a Decision, field: Field, sections: bool, mut each: impl FnMut(&'a str)) {
    match field {
        Field::Title => each(&decision.title),
        Field::Tags => decision.tags.iter().for_each(|t| each(t)),
        Field::Constraint => decision.constraint.iter().for_each(|t| each(t)),
        Field::AntiPatterns => decision.anti_patterns.iter().for_each(|t| each(t)),
        Field::Content => {
            each(&decision.content);
            let subsections = &decision.sections().subsections;
            if sections && !subsections.is_empty() {
                each(subsections);
            }
        }
        Field::Summary => each(&decision.sections().summary),
        Field::Decision => each(&decision.sections().decision),
        Field::Context => each(&decision.sections().context),
        Field::Options => each(&decision.sections().options),
        Field::Consequences => each(&decision.sections().consequences),
    }
}
