/*!
Layer 1 retrieval metrics, per scenario and per suite.

This module turns what retrieval returned for a scenario (the ranked ids `R`),
what the scenario expects (`E`) and what it tolerates (`A`) into the figures
defined in `spec/metrics.md`, and folds those figures and the verdicts of a
whole suite into one [`SuiteMetrics`].

It deliberately knows nothing about how ids were retrieved, how verdicts are
decided, or how figures are shown: a verdict reaches it as a
[`Verdict`](crate::verdict::Verdict), the one type of verdict kinds, through
the small [`Outcome`] trait, and figures are kept at full precision (rounding
for display is the report's business).

Two conventions inherited from Mneme's benchmark are kept on purpose:
precision divides by what was injected, not by `k` (one expected id and `k = 3`
give at most 1/3), and an injected id outside `E ∪ A` makes the scenario an
irrelevant injection (so the rate is mechanically 1.0 in that situation).

# Determinism

Every figure depends only on its inputs, never on the order in which the
scenarios of a suite arrive or on thread scheduling: suite means sum the
per-scenario values after sorting them (`f64::total_cmp`), so the same multiset
of scenarios always gives the same bits. Callers still pass scenarios sorted
by id, which keeps `by_category` and any error messages stable as well. The
nDCG discounts `1 / log2(i + 2)` for the first [`DISCOUNT_TABLE_LEN`] ranks are
correctly rounded constants rather than calls to the platform's `log2`, so a
baseline written on one machine compares bit for bit on another.

The code: this module computes one scenario's figures; `suite` folds a
suite's scenarios into [`SuiteMetrics`].
*/

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::profile::Milli;

pub mod stats;
mod suite;
#[cfg(test)]
mod tests;

pub use suite::{BenignCounts, Outcome, ScenarioOutcome, SuiteMetrics, VerdictCounts};

/// Version of the metric definitions; part of every baseline fingerprint.
///
/// Bump it whenever a definition or a convention in this module changes in a
/// way that could change a figure.
pub const METRICS_VERSION: &str = "mneme-gate.metrics/1";

/// Number of ranks whose nDCG discount comes from a table of constants.
pub const DISCOUNT_TABLE_LEN: usize = 32;

/// `1 / log2(i + 2)` for `i` in `0..32`, each correctly rounded to `f64`
/// (computed with 60 significant digits, then rounded once; `1 / log2(10)`
/// is `log10(2)`). Plain `1.0 / x.log2()` rounds twice and differs in the last
/// bit for a few ranks.
const DISCOUNTS: [f64; DISCOUNT_TABLE_LEN] = [
    1.0,
    0.6309297535714574,
    0.5,
    0.43067655807339306,
    0.3868528072345416,
    0.3562071871080222,
    0.3333333333333333,
    0.3154648767857287,
    std::f64::consts::LOG10_2,
    0.2890648263178879,
    0.27894294565112987,
    0.27023815442731974,
    0.26264953503719357,
    0.2559580248098155,
    0.25,
    0.24465054211822604,
    0.23981246656813143,
    0.23540891336663824,
    0.23137821315975918,
    0.227670248696953,
    0.22424382421757544,
    0.22106472945750374,
    0.21810429198553155,
    0.21533827903669653,
    0.21274605355336315,
    0.21030991785715247,
    0.20801459767650946,
    0.20584683246043445,
    0.2037950470905062,
    0.20184908658209985,
    0.2,
    0.19823986317056053,
];

/// The discount of the result at zero-based rank `i`: `1 / log2(i + 2)`.
pub fn discount(i: usize) -> f64 {
    match DISCOUNTS.get(i) {
        Some(d) => *d,
        None => 1.0 / ((i + 2) as f64).log2(),
    }
}

/// Layer 1 figures of one scenario.
///
/// The `Option` figures are `None` exactly when they are not defined by the
/// spec: the governed figures (`recall_at_k` .. `irrelevant_injection`) when
/// `E` is empty, `ungoverned_injection` when it is not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ScenarioMetrics {
    /// The cut-off the figures were computed at.
    pub k: usize,
    /// `|R|`: distinct ids retrieved within the first `k`.
    pub retrieved_count: usize,
    /// `|E|`: distinct expected ids.
    pub expected_count: usize,
    /// `|E ∩ R|`.
    pub hits: usize,
    /// `|E ∩ R| / |E|`.
    pub recall_at_k: Option<f64>,
    /// `|E ∩ R[..1]| / |E|`.
    pub recall_at_1: Option<f64>,
    /// `|R ∩ (E ∪ A)| / |R|`, 1.0 when `R` is empty.
    pub precision_at_k: Option<f64>,
    /// `1 / rank` of the first id of `R` in `E`, 0 if none.
    pub reciprocal_rank: Option<f64>,
    /// Binary-gain nDCG at `k`.
    pub ndcg_at_k: Option<f64>,
    /// Governed only: some id of `R` is outside `E ∪ A`.
    pub irrelevant_injection: Option<bool>,
    /// Ungoverned only: `R` is not empty and some id of `R` is outside `A`.
    pub ungoverned_injection: Option<bool>,
    /// Expected ids that were not retrieved, in the order of `E`.
    pub missed: Vec<String>,
    /// Retrieved ids that count against the scenario, in rank order: outside
    /// `E ∪ A` when governed, outside `A` when ungoverned.
    pub irrelevant: Vec<String>,
    /// Governed, every expected id retrieved: the score of the lowest-ranked
    /// expected decision minus the runner-up's (docs/metrics.md, "Margin and
    /// confidence"); `null` otherwise, or when no decision was left out.
    /// Absent from reports written before it existed.
    #[serde(default)]
    pub margin: Option<f64>,
    /// `(score at rank 1 − score at rank 2) / score at rank 1` over the
    /// ranking of every candidate (the runner-up is rank 2 when one decision
    /// was retrieved); `null` when nothing was retrieved, nothing was left
    /// out, or the top score is not positive.
    #[serde(default)]
    pub confidence: Option<f64>,
    /// The best decision the ranking left out: the first candidate of the
    /// query (in scope, one record per id) after the retrieved ones, whatever
    /// its score; `null` when every candidate was retrieved.
    #[serde(default)]
    pub runner_up: Option<RunnerUpEntry>,
}

/// The best decision a scenario's ranking left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RunnerUpEntry {
    /// Its id, when the query shares a token with it; `null` when it is a
    /// decision the query does not touch (any of them: they all score 0).
    pub id: Option<String>,
    /// Its exact score (a multiple of 0.001).
    pub score: f64,
}

/// The margin and confidence figures of one scenario (docs/metrics.md,
/// "Margin and confidence"), from its own ranking only.
///
/// All scores are the exact fused scores the retriever ranks by, in
/// thousandths. `retrieved` is the ranking (id and score, best first, at
/// most `k`); `runner_up` the best decision it left out (its id when the
/// query touches it, and its score).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Margins {
    /// Score of the lowest-ranked expected decision minus the runner-up's.
    pub margin: Option<Milli>,
    /// The scores at rank 1 and rank 2 of the ranking of every candidate
    /// (rank 2 is the runner-up when one decision was retrieved), for
    /// [`Margins::confidence`].
    top: Option<(Milli, Milli)>,
}

impl Margins {
    /// Computes the figures. The margin is defined when `expected` is not
    /// empty, every expected id is retrieved and there is a runner-up.
    pub fn compute<E: AsRef<str>>(retrieved: &[(&str, Milli)], expected: &[E], runner_up: Option<Milli>) -> Margins {
        let governed = !expected.is_empty();
        let all_in = governed && expected.iter().all(|e| retrieved.iter().any(|(id, _)| *id == e.as_ref()));
        let last_expected =
            retrieved.iter().rev().find(|(id, _)| expected.iter().any(|e| e.as_ref() == *id)).map(|(_, s)| *s);
        let margin = match (all_in, last_expected, runner_up) {
            (true, Some(last), Some(next)) => Some(Milli(last.0 - next.0)),
            _ => None,
        };
        let second = retrieved.get(1).map(|(_, s)| *s).or(if retrieved.len() == 1 { runner_up } else { None });
        let top = retrieved.first().map(|(_, s)| *s).zip(second);
        Margins { margin, top }
    }

    /// `(s1 − s2) / s1` between 0 and 1, `None` when there is no rank 1 or
    /// rank 2, or `s1` is not positive.
    pub fn confidence(&self) -> Option<f64> {
        let (s1, s2) = self.top?;
        if s1.0 <= 0 {
            return None;
        }
        Some(((s1.0 - s2.0) as f64 / s1.0 as f64).min(1.0))
    }
}

impl ScenarioMetrics {
    /// Computes the Layer 1 figures of one scenario.
    ///
    /// `retrieved` is `R` in rank order, `expected` is `E`, `acceptable` is
    /// `A`. Inputs are read the way a user auditing a verdict would expect:
    ///
    /// - only the first `k` entries of `retrieved` count (retrieval never
    ///   returns more, but a caller passing more does not inflate anything);
    /// - within those, a repeated id counts once, at its first rank (it
    ///   injects nothing new); retrieval never repeats an id;
    /// - `expected` and `acceptable` are sets: repeats are ignored, and an id
    ///   in both is expected;
    /// - with `k = 0` nothing can be retrieved, and `ndcg_at_k` is 0 for a
    ///   governed scenario (its ideal gain is 0 too).
    pub fn compute<R, E, A>(retrieved: &[R], expected: &[E], acceptable: &[A], k: usize) -> Self
    where
        R: AsRef<str>,
        E: AsRef<str>,
        A: AsRef<str>,
    {
        let ranked = distinct(retrieved.iter().take(k).map(AsRef::as_ref));
        let expected = distinct(expected.iter().map(AsRef::as_ref));
        let expected_set: HashSet<&str> = expected.iter().copied().collect();
        let acceptable_set: HashSet<&str> = acceptable.iter().map(AsRef::as_ref).collect();
        let retrieved_set: HashSet<&str> = ranked.iter().copied().collect();

        let hits = ranked.iter().filter(|id| expected_set.contains(*id)).count();
        let missed = expected.iter().filter(|id| !retrieved_set.contains(*id)).map(|id| id.to_string()).collect();

        let governed = !expected.is_empty();
        let irrelevant: Vec<String> = ranked
            .iter()
            .filter(|id| !(acceptable_set.contains(*id) || (governed && expected_set.contains(*id))))
            .map(|id| id.to_string())
            .collect();

        let mut metrics = ScenarioMetrics {
            k,
            retrieved_count: ranked.len(),
            expected_count: expected.len(),
            hits,
            recall_at_k: None,
            recall_at_1: None,
            precision_at_k: None,
            reciprocal_rank: None,
            ndcg_at_k: None,
            irrelevant_injection: None,
            ungoverned_injection: None,
            missed,
            irrelevant,
            margin: None,
            confidence: None,
            runner_up: None,
        };

        if !governed {
            metrics.ungoverned_injection = Some(!metrics.irrelevant.is_empty());
            return metrics;
        }

        let e = expected.len() as f64;
        let first_hit = ranked.iter().position(|id| expected_set.contains(id));
        let top_hit = usize::from(first_hit == Some(0));
        let relevant = ranked.iter().filter(|id| expected_set.contains(*id) || acceptable_set.contains(*id)).count();

        // Folded from +0.0: `Iterator::sum` of no f64 is -0.0, which a
        // report would print as `-0.0`.
        let dcg = ranked
            .iter()
            .enumerate()
            .filter(|(_, id)| expected_set.contains(*id))
            .fold(0.0, |sum, (i, _)| sum + discount(i));
        let idcg = (0..expected.len().min(k)).fold(0.0, |sum, i| sum + discount(i));

        metrics.recall_at_k = Some(hits as f64 / e);
        metrics.recall_at_1 = Some(top_hit as f64 / e);
        metrics.precision_at_k = Some(if ranked.is_empty() { 1.0 } else { relevant as f64 / ranked.len() as f64 });
        metrics.reciprocal_rank = Some(first_hit.map_or(0.0, |i| 1.0 / (i + 1) as f64));
        metrics.ndcg_at_k = Some(if idcg > 0.0 { dcg / idcg } else { 0.0 });
        metrics.irrelevant_injection = Some(!metrics.irrelevant.is_empty());
        metrics
    }

    /// Adds the margin and confidence figures of the scenario's ranking:
    /// `retrieved` as [`ScenarioMetrics::compute`] read it, with scores,
    /// `expected` the same `E`, `runner_up` the best decision left out (its
    /// id when the query touches it).
    pub fn with_margins<E: AsRef<str>>(
        mut self,
        retrieved: &[(&str, Milli)],
        expected: &[E],
        runner_up: Option<(Option<&str>, Milli)>,
    ) -> Self {
        let m = Margins::compute(&retrieved[..retrieved.len().min(self.k)], expected, runner_up.map(|r| r.1));
        self.margin = m.margin.map(Milli::as_f64);
        self.confidence = m.confidence();
        self.runner_up =
            runner_up.map(|(id, score)| RunnerUpEntry { id: id.map(str::to_string), score: score.as_f64() });
        self
    }

    /// Whether the scenario expects at least one id.
    pub fn is_governed(&self) -> bool {
        self.expected_count > 0
    }

    /// Whether every expected id was retrieved (always true when ungoverned).
    pub fn all_expected_retrieved(&self) -> bool {
        self.missed.is_empty()
    }
}

/// Keeps the first occurrence of every id, in order.
fn distinct<'a>(ids: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut seen = HashSet::new();
    ids.filter(|id| seen.insert(*id)).collect()
}
