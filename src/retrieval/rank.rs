//! Answering a query: postings summed per decision, complete tags boosted,
//! the scope pre-filter applied, and the top `k` ranked.

use std::collections::HashMap;

use super::{Hit, Index, Query, Retrieval, RunnerUp, Scratch};
use crate::chore::{self, Chore};
use crate::profile::{Family, Milli};
use crate::tokenize::normalise_path;

impl Index {
    /// Retrieves the top `k` of the profile for one query.
    pub fn retrieve(&self, query: Query<'_>) -> Retrieval {
        self.retrieve_with(query, self.profile.k, &mut Scratch::default())
    }

    /// Retrieves the top `k`, reusing `scratch` between calls.
    pub fn retrieve_with(&self, query: Query<'_>, k: usize, scratch: &mut Scratch) -> Retrieval {
        self.retrieve_inner(query, k, scratch, false).0
    }

    /// [`Index::retrieve_with`], and the best decision the ranking left out
    /// ([`RunnerUp`]): the margin and confidence figures of a scenario
    /// (docs/metrics.md) are computed from it.
    pub fn retrieve_with_runner_up(
        &self,
        query: Query<'_>,
        k: usize,
        scratch: &mut Scratch,
    ) -> (Retrieval, Option<RunnerUp>) {
        self.retrieve_inner(query, k, scratch, true)
    }

    /// [`Index::retrieve_with_runner_up`], leaving the query's scores in
    /// `scratch` for [`Ranked::misses`] to explain the decisions it missed
    /// without ranking the query again. The scratch is cleared when the
    /// [`Ranked`] is dropped.
    pub fn retrieve_kept<'a, 'q>(
        &'a self,
        query: Query<'q>,
        k: usize,
        scratch: &'a mut Scratch,
    ) -> (Retrieval, Option<RunnerUp>, Ranked<'a, 'q>) {
        let chore = self.chore_of(query);
        let ranked_k = if chore.is_some() { 0 } else { k };
        let (mut retrieval, runner_up, left) = self.rank_query_in(query, ranked_k, scratch, true, true, true);
        retrieval.chore = chore;
        let ranked = Ranked { index: self, scratch, query, k, hits: retrieval.hits.clone(), chore, left };
        (retrieval, runner_up, ranked)
    }

    fn retrieve_inner(
        &self,
        query: Query<'_>,
        k: usize,
        scratch: &mut Scratch,
        want_runner_up: bool,
    ) -> (Retrieval, Option<RunnerUp>) {
        // A chore retrieves nothing: ranked with k = 0, so the runner-up is
        // the best decision of all, and the margin says how near it came.
        let chore = self.chore_of(query);
        let k = if chore.is_some() { 0 } else { k };
        let (mut retrieval, runner_up) = self.rank_query(query, k, scratch, want_runner_up);
        retrieval.chore = chore;
        (retrieval, runner_up)
    }

    /// The chore `query` is, when the profile skips chores and no decision's
    /// title names that kind of chore.
    pub fn chore_of(&self, query: Query<'_>) -> Option<Chore> {
        chore::skipped_by(&self.profile, query.task, query.file, self.chores_decided)
    }

    pub(super) fn rank_query(
        &self,
        query: Query<'_>,
        k: usize,
        scratch: &mut Scratch,
        want_runner_up: bool,
    ) -> (Retrieval, Option<RunnerUp>) {
        let (retrieval, runner_up, _) = self.rank_query_in(query, k, scratch, want_runner_up, true, false);
        (retrieval, runner_up)
    }

    /// Every candidate above `min_score` (the hits of [`Index::rank_query`]
    /// with `k` unbounded), in no particular order when the pool has no
    /// repeated ids (profile `mneme` keeps only the best-ranked copy, so
    /// then they are ranked all the same).
    pub(super) fn candidates(&self, query: Query<'_>, scratch: &mut Scratch) -> Retrieval {
        self.rank_query_in(query, usize::MAX, scratch, false, self.copies.is_some(), false).0
    }

    /// The ranking of [`Index::rank_query`] and [`Index::candidates`]; with
    /// `keep`, the query's scores and scope marks are left in `scratch`
    /// (what is left says [`Left`]) instead of cleared.
    fn rank_query_in(
        &self,
        query: Query<'_>,
        k: usize,
        scratch: &mut Scratch,
        want_runner_up: bool,
        ordered: bool,
        keep: bool,
    ) -> (Retrieval, Option<RunnerUp>, Left) {
        self.check_query(query);
        let n = self.decisions.len();
        if scratch.score.len() != n {
            scratch.score = vec![0; n];
            scratch.seen = vec![false; n];
            scratch.in_scope = vec![false; n];
        }
        let path = query.file.map(normalise_path).filter(|p| !p.is_empty());
        let has_tokens = self.query_tokens(query.task, path.as_deref(), &mut scratch.query, &mut scratch.path_words);
        self.mark_scope(path.as_deref(), scratch);
        let in_candidates = |d: usize, s: &Scratch| path.is_none() || !self.has_scope[d] || s.in_scope[d];

        let mut hits: Vec<Hit> = Vec::new();
        if !has_tokens {
            if self.profile.family == Family::Mneme {
                let mut seen = rustc_hash::FxHashSet::default();
                hits.extend(
                    (0..n)
                        .filter(|&d| in_candidates(d, scratch) && seen.insert(self.copy_group(d)))
                        .take(k)
                        .map(|pool| Hit { pool, score: Milli(1000) }),
                );
            }
            // Mneme's fallback scores every candidate 1.0; otherwise nothing scores.
            let untouched = if self.profile.family == Family::Mneme { Milli(1000) } else { Milli::ZERO };
            let runner_up = want_runner_up.then(|| self.runner_up(&hits, path.is_some(), untouched, scratch)).flatten();
            self.clear_scope(scratch);
            return (Retrieval { hits, empty_query: true, chore: None }, runner_up, Left::Nothing);
        }

        let min = self.profile.min_score.0;
        if min >= 0 && self.copies.is_none() && k <= SMALL_K && self.dense(scratch) {
            // Most of the pool is touched: every decision's score is summed
            // without tracking which were touched, then all are scanned (an
            // untouched decision scores 0, never above `min`).
            self.accumulate_dense(scratch);
            let Scratch { score, in_scope, tag_count, .. } = scratch;
            let candidate = |d: usize| path.is_none() || !self.has_scope[d] || in_scope[d];
            for (d, &s) in score.iter().enumerate() {
                if s > min && candidate(d) {
                    keep_best(&mut hits, Hit { pool: d, score: Milli(s) }, k);
                }
            }
            // The runner-up: the best candidate left out. One that scores
            // above 0 was touched (an untouched decision scores 0) and is
            // the one `runner_up` finds; at 0 or below, which decisions were
            // touched decides, and the query is summed again with tracking.
            let mut dense_runner_up = None;
            let mut again = false;
            if want_runner_up {
                let mut best: Option<(i64, usize)> = None;
                for (d, &s) in score.iter().enumerate() {
                    if best.is_none_or(|(b, _)| s > b) && candidate(d) && !hits.iter().any(|h| h.pool == d) {
                        best = Some((s, d));
                    }
                }
                match best {
                    Some((s, d)) if s > 0 => {
                        dense_runner_up = Some(RunnerUp { pool: d, score: Milli(s), touched: true });
                    }
                    Some(_) => again = true,
                    None => {}
                }
            }
            let left = if keep && !again {
                Left::Dense
            } else {
                score.fill(0);
                tag_count.clear();
                Left::Tracked
            };
            if again {
                self.accumulate(scratch);
                dense_runner_up = self.runner_up(&hits, path.is_some(), Milli::ZERO, scratch);
            }
            if !keep {
                self.reset(scratch);
                self.clear_scope(scratch);
            }
            return (Retrieval { hits, empty_query: false, chore: None }, dense_runner_up, left);
        }
        self.accumulate(scratch);
        if min < 0 {
            // Untouched decisions score 0, which passes a negative floor.
            hits.extend(
                (0..n)
                    .filter(|&d| in_candidates(d, scratch) && scratch.score[d] > min)
                    .map(|d| Hit { pool: d, score: Milli(scratch.score[d]) }),
            );
        } else if self.copies.is_none() && k <= SMALL_K {
            // The usual query: a few hits kept while scanning, in rank order,
            // instead of every touched decision collected and then selected.
            // (Each touched decision's working state is cleared in the same
            // pass: what `reset` does.)
            // With the runner-up wanted, or the state to keep, it is kept
            // and cleared after (or left).
            let kept = want_runner_up || keep;
            let Scratch { score, seen, touched, in_scope, tag_count, .. } = scratch;
            for &d in touched.iter() {
                let d = d as usize;
                let s = if kept {
                    score[d]
                } else {
                    seen[d] = false;
                    std::mem::take(&mut score[d])
                };
                if s > min && (path.is_none() || !self.has_scope[d] || in_scope[d]) {
                    keep_best(&mut hits, Hit { pool: d, score: Milli(s) }, k);
                }
            }
            if !kept {
                touched.clear();
                tag_count.clear();
            }
            let runner_up =
                want_runner_up.then(|| self.runner_up(&hits, path.is_some(), Milli::ZERO, scratch)).flatten();
            if !keep {
                self.reset(scratch);
                self.clear_scope(scratch);
            }
            return (Retrieval { hits, empty_query: false, chore: None }, runner_up, Left::Tracked);
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
        if ordered {
            self.rank_copies(&mut hits, k);
        }
        let runner_up = want_runner_up.then(|| self.runner_up(&hits, path.is_some(), Milli::ZERO, scratch)).flatten();
        if !keep {
            self.reset(scratch);
            self.clear_scope(scratch);
        }
        (Retrieval { hits, empty_query: false, chore: None }, runner_up, Left::Tracked)
    }

    /// The best decision, in ranking order (score, then pool order), that
    /// the query's candidates hold but `hits` left out: in scope, no copy of
    /// a retrieved id, whatever its score (at or below `min_score` too).
    /// A decision the query does not touch scores `untouched`. Reads the
    /// scores [`Index::accumulate`] left in `scratch` (and the scope marks).
    fn runner_up(&self, hits: &[Hit], has_path: bool, untouched: Milli, scratch: &Scratch) -> Option<RunnerUp> {
        let candidate = |d: usize| !has_path || !self.has_scope[d] || scratch.in_scope[d];
        let mut taken: Vec<usize> = hits.iter().map(|h| self.copy_group(h.pool)).collect();
        taken.sort_unstable();
        let free = |d: usize| candidate(d) && taken.binary_search(&self.copy_group(d)).is_err();
        let beats = |a: &RunnerUp, b: &RunnerUp| a.score > b.score || (a.score == b.score && a.pool < b.pool);
        let mut best: Option<RunnerUp> = None;
        for &d in &scratch.touched {
            let d = d as usize;
            let this = RunnerUp { pool: d, score: Milli(scratch.score[d]), touched: true };
            // The cheap test first: most touched decisions lose on score.
            if best.as_ref().is_none_or(|b| beats(&this, b)) && free(d) {
                best = Some(this);
            }
        }
        // An untouched decision can only win when nothing touched scores
        // above it; the first one in pool order is the best of them.
        if best.as_ref().is_none_or(|b| b.score <= untouched) {
            let end = best.as_ref().map_or(self.decisions.len(), |b| {
                if b.score == untouched {
                    b.pool
                } else {
                    self.decisions.len()
                }
            });
            if let Some(d) = (0..end).find(|&d| !scratch.seen[d] && free(d)) {
                best = Some(RunnerUp { pool: d, score: untouched, touched: false });
            }
        }
        best
    }

    /// The scores of the pool decisions `decisions` for a query, scope
    /// ignored (the prompt enforcer of profile `mneme` ranks decisions that
    /// retrieval did not return). A query without tokens gives every
    /// decision 1.0 under `mneme`, as Mneme's fallback does, and 0 under
    /// `default`.
    pub fn scores_of(&self, query: Query<'_>, decisions: &[usize], scratch: &mut Scratch) -> Vec<Milli> {
        self.check_query(query);
        let n = self.decisions.len();
        if scratch.score.len() != n {
            scratch.score = vec![0; n];
            scratch.seen = vec![false; n];
            scratch.in_scope = vec![false; n];
        }
        let path = query.file.map(normalise_path).filter(|p| !p.is_empty());
        if !self.query_tokens(query.task, path.as_deref(), &mut scratch.query, &mut scratch.path_words) {
            let empty = if self.profile.family == Family::Mneme { Milli(1000) } else { Milli::ZERO };
            return vec![empty; decisions.len()];
        }
        self.accumulate(scratch);
        let scores = decisions.iter().map(|&d| Milli(scratch.score[d])).collect();
        self.reset(scratch);
        scores
    }

    /// Adds up, into `scratch.score`, the postings of the query tokens in
    /// `scratch.query` and the boosts of the tags they complete.
    fn accumulate(&self, scratch: &mut Scratch) {
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
        if let Some(params) = &self.profile.bm25f {
            self.add_path(params.path_weight, scratch, true);
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
    }

    /// Whether the query's postings cover more than half the pool: then
    /// [`Index::accumulate_dense`] and a scan of every decision cost less
    /// than tracking the decisions touched.
    pub(super) fn dense(&self, scratch: &Scratch) -> bool {
        let postings: usize = scratch.query.iter().map(|&t| self.posting(t).len()).sum();
        postings * 2 > self.decisions.len()
    }

    /// [`Index::accumulate`] without tracking the decisions touched
    /// (`seen` and `touched` are left as they are).
    fn accumulate_dense(&self, scratch: &mut Scratch) {
        for &t in &scratch.query {
            for &(d, w) in self.posting(t) {
                scratch.score[d as usize] += w;
            }
            for &tag in self.tag_posting(t) {
                *scratch.tag_count.entry(tag).or_insert(0) += 1;
            }
        }
        if let Some(params) = &self.profile.bm25f {
            self.add_path(params.path_weight, scratch, false);
        }
        let boost = self.profile.tag_boost.0;
        for (&tag, &count) in &scratch.tag_count {
            let entry = &self.tags[tag as usize];
            if count == entry.len {
                scratch.score[entry.decision as usize] += boost;
            }
        }
    }

    /// Adds the path's share to `scratch.score`: for each word of the path
    /// (`services`, `LedgerClient.py`), the best of its tokens
    /// (`ledgerclient.py`, `ledgerclient`, `ledger`, `client`, `py`) in
    /// each decision ([`super::bm25::each_path_word`]). With `track`, the
    /// decisions are marked touched.
    fn add_path(&self, path_weight: crate::profile::Milli, scratch: &mut Scratch, track: bool) {
        let n = self.decisions.len();
        let Scratch { path_words, path_best, score, seen, touched, .. } = scratch;
        for word in path_words.chunk_by(|a, b| a.0 == b.0) {
            for &(_, t) in word {
                for &(d, w) in self.posting(t) {
                    let d = d as usize;
                    path_best.offer(n, d, super::bm25::path_part(w, path_weight));
                    if track && !seen[d] {
                        seen[d] = true;
                        touched.push(d as u32);
                    }
                }
            }
            path_best.add_to(score);
        }
    }

    /// Clears what [`Index::accumulate`] wrote.
    fn reset(&self, scratch: &mut Scratch) {
        for &d in &scratch.touched {
            scratch.score[d as usize] = 0;
            scratch.seen[d as usize] = false;
        }
        scratch.touched.clear();
        scratch.tag_count.clear();
    }

    /// The pool position of the first decision with the id of `d` (`d`
    /// itself unless profile `mneme` keeps several copies of its id).
    pub fn copy_group(&self, d: usize) -> usize {
        self.copies.as_ref().map_or(d, |c| c[d] as usize)
    }

    /// [`rank`], keeping only the best-ranked copy of an id that several
    /// pool decisions hold (Mneme's ranking keeps the first occurrence of
    /// each id; a later copy does not take a slot).
    fn rank_copies(&self, hits: &mut Vec<Hit>, k: usize) {
        if self.copies.is_none() {
            return rank(hits, k);
        }
        rank(hits, usize::MAX);
        let mut seen = rustc_hash::FxHashSet::default();
        hits.retain(|h| seen.insert(self.copy_group(h.pool)));
        hits.truncate(k);
    }

    /// Fills `out` with the sorted, unique ids of the query's known tokens;
    /// returns whether the query had any token at all (known or not).
    ///
    /// Under BM25F the path's tokens are not task words: `out` holds the
    /// task's tokens, and `path_words` the path's informative tokens that
    /// are not task tokens ([`super::bm25::informative`]), each with the
    /// word of the path it comes from (its first, when several have it),
    /// ordered by word ([`super::bm25::each_path_word`]).
    pub(super) fn query_tokens(
        &self,
        task: &str,
        path: Option<&str>,
        out: &mut Vec<u32>,
        path_words: &mut Vec<(u32, u32)>,
    ) -> bool {
        out.clear();
        path_words.clear();
        let mut any = false;
        let mut find = |token: &str| {
            any = true;
            self.vocab.get(token).copied()
        };
        let bm25 = self.profile.bm25f;
        let about = bm25.and_then(|_| super::bm25::about_part(task));
        self.tokenizer.each_token(about.as_ref().map_or(task, |a| a.text.as_str()), &mut |t| {
            // Under BM25F, a word that says what kind of change the task is
            // is no evidence of what it is about.
            let id = find(t);
            if super::bm25::scores_as_task_word(t, bm25.is_some(), &self.tokenizer) {
                out.extend(id);
            }
        });
        if let Some(path) = path {
            if bm25.is_some() {
                super::bm25::each_path_word(path, &mut |word, text| {
                    self.tokenizer.each_token(text, &mut |t| path_words.extend(find(t).map(|id| (word, id))));
                });
            } else {
                self.tokenizer.each_token(path, &mut |t| out.extend(find(t)));
            }
        }
        out.sort_unstable();
        out.dedup();
        if let Some(params) = bm25 {
            let n = self.decisions.len() as u64;
            path_words.retain(|(_, t)| {
                out.binary_search(t).is_err()
                    && super::bm25::informative(self.posting(*t).len() as u64, n, params.path_max_df)
            });
            super::bm25::first_word_of_each(path_words);
        }
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
}

/// What a ranking asked to keep its state left in the scratch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Left {
    /// Nothing: the query had no tokens (or the state was cleared).
    Nothing,
    /// The scores of the decisions the query touched, and which those are.
    Tracked,
    /// Every decision's score; which decisions were touched is not tracked.
    Dense,
}

/// A query ranked by [`Index::retrieve_kept`], its scores and scope marks
/// still in the scratch, so that the decisions it missed are explained
/// without ranking it again ([`Ranked::misses`]). Dropping it clears the
/// scratch for the next query.
pub struct Ranked<'a, 'q> {
    pub(super) index: &'a Index,
    pub(super) scratch: &'a mut Scratch,
    pub(super) query: Query<'q>,
    /// The `k` asked for (a chore is ranked with 0).
    pub(super) k: usize,
    /// The decisions retrieved, best first (none for a chore).
    pub(super) hits: Vec<Hit>,
    pub(super) chore: Option<Chore>,
    pub(super) left: Left,
}

impl Ranked<'_, '_> {
    /// Clears what the ranking left in the scratch.
    pub(super) fn release(&mut self) {
        if self.left == Left::Dense {
            self.scratch.score.fill(0);
        }
        self.index.reset(self.scratch);
        self.index.clear_scope(self.scratch);
        self.left = Left::Nothing;
    }

    /// The place of each of the pool decisions `targets` that is a
    /// candidate of the query (in scope, above `min_score`) in the ranking
    /// of every candidate, 1 the best, counted from the kept scores. For a
    /// pool without repeated ids (each candidate then has its own place).
    pub(super) fn places(&self, targets: &[usize], has_path: bool) -> HashMap<usize, usize> {
        let index = self.index;
        let Scratch { score, in_scope, touched, .. } = &*self.scratch;
        let min = index.profile.min_score.0;
        let candidate = |d: usize| score[d] > min && (!has_path || !index.has_scope[d] || in_scope[d]);
        let mine: Vec<Hit> = targets
            .iter()
            .copied()
            .filter(|&d| candidate(d))
            .map(|d| Hit { pool: d, score: Milli(score[d]) })
            .collect();
        // Only a decision scoring at least the lowest of them can be ahead
        // of one: the others are passed over on their score alone.
        let Some(lowest) = mine.iter().map(|me| me.score.0).min() else { return HashMap::new() };
        let mut ahead = vec![0usize; mine.len()];
        let mut count = |d: usize| {
            if candidate(d) {
                let hit = Hit { pool: d, score: Milli(score[d]) };
                for (n, me) in ahead.iter_mut().zip(&mine) {
                    *n += usize::from(before(&hit, me));
                }
            }
        };
        // With min_score at 0 or above, an untouched decision (0) is no
        // candidate: the decisions touched are all there is to count.
        match self.left {
            Left::Tracked if min >= 0 => {
                touched.iter().map(|&d| d as usize).filter(|&d| score[d] >= lowest).for_each(count)
            }
            _ => score.iter().enumerate().filter(|&(_, &s)| s >= lowest).for_each(|(d, _)| count(d)),
        }
        mine.iter().zip(ahead).map(|(me, n)| (me.pool, n + 1)).collect()
    }
}

impl Drop for Ranked<'_, '_> {
    fn drop(&mut self) {
        self.release();
    }
}

/// Up to this `k`, the best hits are kept while scanning ([`keep_best`]).
const SMALL_K: usize = 32;

/// Adds `hit` to `best` (at most `k` hits, in [`rank`] order) when it is
/// among the `k` best so far: `best` ends as [`rank`] of every hit offered.
fn keep_best(best: &mut Vec<Hit>, hit: Hit, k: usize) {
    if best.len() == k {
        match best.last() {
            Some(last) if before(&hit, last) => {
                best.pop();
            }
            _ => return,
        }
    }
    let at = best.iter().position(|b| before(&hit, b)).unwrap_or(best.len());
    best.insert(at, hit);
}

/// Whether `a` comes before `b` in [`rank`] order: a higher score, or the
/// same score and an earlier pool position.
#[inline]
pub(super) fn before(a: &Hit, b: &Hit) -> bool {
    a.score > b.score || (a.score == b.score && a.pool < b.pool)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeping_the_best_while_scanning_is_ranking_them_all() {
        let mut state = 7u64;
        let mut next = move || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) as i64
        };
        for round in 0..200 {
            let n = (next() % 60) as usize;
            let hits: Vec<Hit> =
                (0..n).map(|i| Hit { pool: (i * 7919 + round) % 1000, score: Milli(next() % 5) }).collect();
            let mut unique = hits.clone();
            unique.sort_by_key(|h| h.pool);
            unique.dedup_by_key(|h| h.pool);
            for k in [0, 1, 3, 5, 32] {
                let mut want = unique.clone();
                rank(&mut want, k);
                let mut got = Vec::new();
                for &h in &unique {
                    keep_best(&mut got, h, k);
                }
                assert_eq!(got, want, "round {round}, k {k}");
            }
        }
    }
}
