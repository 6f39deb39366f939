/*!
Layer 1 retrieval metrics, per scenario and per suite.

This module turns what retrieval returned for a scenario (the ranked ids `R`),
what the scenario expects (`E`) and what it tolerates (`A`) into the figures
defined in `spec/metrics.md`, and folds those figures and the verdicts of a
whole suite into one [`SuiteMetrics`].

It deliberately knows nothing about how ids were retrieved, how verdicts are
decided, or how figures are shown: a verdict reaches it as its name (see
[`VERDICT_NAMES`]) through the small [`Outcome`] trait, and figures are kept at
full precision (rounding for display is the report's business).

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
*/

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};

/// Version of the metric definitions; part of every baseline fingerprint.
///
/// Bump it whenever a definition or a convention in this module changes in a
/// way that could change a figure.
pub const METRICS_VERSION: &str = "mneme-gate.metrics/1";

/// The verdict names [`SuiteMetrics`] counts, best first.
pub const VERDICT_NAMES: [&str; 5] = ["PASS", "WEAK", "WEAK_RETRIEVAL", "FAIL", "MALFORMED"];

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
        };

        if !governed {
            metrics.ungoverned_injection = Some(!metrics.irrelevant.is_empty());
            return metrics;
        }

        let e = expected.len() as f64;
        let first_hit = ranked.iter().position(|id| expected_set.contains(id));
        let top_hit = usize::from(first_hit == Some(0));
        let relevant = ranked.iter().filter(|id| expected_set.contains(*id) || acceptable_set.contains(*id)).count();

        let dcg: f64 =
            ranked.iter().enumerate().filter(|(_, id)| expected_set.contains(*id)).map(|(i, _)| discount(i)).sum();
        let idcg: f64 = (0..expected.len().min(k)).map(discount).sum();

        metrics.recall_at_k = Some(hits as f64 / e);
        metrics.recall_at_1 = Some(top_hit as f64 / e);
        metrics.precision_at_k = Some(if ranked.is_empty() { 1.0 } else { relevant as f64 / ranked.len() as f64 });
        metrics.reciprocal_rank = Some(first_hit.map_or(0.0, |i| 1.0 / (i + 1) as f64));
        metrics.ndcg_at_k = Some(if idcg > 0.0 { dcg / idcg } else { 0.0 });
        metrics.irrelevant_injection = Some(!metrics.irrelevant.is_empty());
        metrics
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

/// What [`SuiteMetrics::aggregate`] needs to know about one scenario.
///
/// Implemented for `(category, &ScenarioMetrics, verdict_name)` tuples and for
/// [`ScenarioOutcome`]; the verdict module can implement it for its own type.
pub trait Outcome {
    /// The scenario's category.
    fn category(&self) -> &str;
    /// The scenario's Layer 1 figures.
    fn metrics(&self) -> &ScenarioMetrics;
    /// One of [`VERDICT_NAMES`].
    fn verdict_name(&self) -> &str;
    /// Whether Layer 2 judged a governed response for this scenario.
    ///
    /// The default infers it from the verdict: only Layer 2 can give `FAIL`
    /// or `WEAK`, but a `PASS`, `WEAK_RETRIEVAL` or `MALFORMED` may or may not
    /// have involved it, so implement this when the answer is known.
    fn layer2_evaluated(&self) -> bool {
        matches!(self.verdict_name(), "FAIL" | "WEAK")
    }
}

impl Outcome for (&str, &ScenarioMetrics, &str) {
    fn category(&self) -> &str {
        self.0
    }
    fn metrics(&self) -> &ScenarioMetrics {
        self.1
    }
    fn verdict_name(&self) -> &str {
        self.2
    }
}

/// One scenario as [`SuiteMetrics::aggregate`] sees it, with Layer 2 stated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScenarioOutcome<'a> {
    /// The scenario's category.
    pub category: &'a str,
    /// The scenario's Layer 1 figures.
    pub metrics: &'a ScenarioMetrics,
    /// One of [`VERDICT_NAMES`].
    pub verdict: &'a str,
    /// Whether Layer 2 judged a governed response.
    pub layer2: bool,
}

impl Outcome for ScenarioOutcome<'_> {
    fn category(&self) -> &str {
        self.category
    }
    fn metrics(&self) -> &ScenarioMetrics {
        self.metrics
    }
    fn verdict_name(&self) -> &str {
        self.verdict
    }
    fn layer2_evaluated(&self) -> bool {
        self.layer2
    }
}

impl<T: Outcome + ?Sized> Outcome for &T {
    fn category(&self) -> &str {
        (**self).category()
    }
    fn metrics(&self) -> &ScenarioMetrics {
        (**self).metrics()
    }
    fn verdict_name(&self) -> &str {
        (**self).verdict_name()
    }
    fn layer2_evaluated(&self) -> bool {
        (**self).layer2_evaluated()
    }
}

/// Verdict counts of a suite or of one category.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct VerdictCounts {
    /// Scenarios counted.
    pub total: usize,
    pub pass: usize,
    pub fail: usize,
    pub weak: usize,
    pub weak_retrieval: usize,
    pub malformed: usize,
}

impl VerdictCounts {
    /// Counts one verdict.
    ///
    /// # Panics
    ///
    /// When `verdict` is not one of [`VERDICT_NAMES`]: that is a bug in the
    /// caller, not something a user can cause.
    pub fn add(&mut self, verdict: &str) {
        let slot = match verdict {
            "PASS" => &mut self.pass,
            "FAIL" => &mut self.fail,
            "WEAK" => &mut self.weak,
            "WEAK_RETRIEVAL" => &mut self.weak_retrieval,
            "MALFORMED" => &mut self.malformed,
            other => panic!("unknown verdict name {other:?}; expected one of {VERDICT_NAMES:?}"),
        };
        *slot += 1;
        self.total += 1;
    }

    /// `pass / (pass + fail)`, 0 when both are 0 (Mneme's convention: WEAK,
    /// WEAK_RETRIEVAL and MALFORMED are not in the denominator).
    pub fn pass_rate(&self) -> f64 {
        let judged = self.pass + self.fail;
        if judged == 0 {
            0.0
        } else {
            self.pass as f64 / judged as f64
        }
    }
}

/// Suite figures: Layer 1 means over governed scenarios, the ungoverned
/// injection rate, and verdict counts over all scenarios.
///
/// A mean over zero scenarios is `None` and serialises as `null`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SuiteMetrics {
    /// Scenarios in the suite.
    pub total: usize,
    /// Scenarios with a non-empty `E`.
    pub governed: usize,
    /// Scenarios with an empty `E`.
    pub ungoverned: usize,
    pub mean_recall_at_k: Option<f64>,
    pub mean_recall_at_1: Option<f64>,
    pub mean_precision_at_k: Option<f64>,
    /// Mean reciprocal rank.
    pub mrr: Option<f64>,
    pub mean_ndcg_at_k: Option<f64>,
    /// Share of governed scenarios with an irrelevant injection.
    pub irrelevant_injection_rate: Option<f64>,
    /// Share of ungoverned scenarios with an injection outside `A`.
    pub ungoverned_injection_rate: Option<f64>,
    pub pass: usize,
    pub fail: usize,
    pub weak: usize,
    pub weak_retrieval: usize,
    pub malformed: usize,
    /// `pass / (pass + fail)`, 0 when both are 0.
    pub pass_rate: f64,
    /// Whether Layer 2 judged at least one governed response; the gate's
    /// `pass_rate` rule applies only then.
    pub layer2_evaluated: bool,
    /// Verdict counts per category, in category order.
    pub by_category: BTreeMap<String, VerdictCounts>,
}

impl SuiteMetrics {
    /// Aggregates the scenarios of a suite.
    ///
    /// Pass them sorted by id. The result does not depend on their order (the
    /// means sum sorted values), nor on how they were computed in parallel.
    ///
    /// # Panics
    ///
    /// When a verdict name is not one of [`VERDICT_NAMES`].
    pub fn aggregate<I>(scenarios: I) -> Self
    where
        I: IntoIterator,
        I::Item: Outcome,
    {
        let mut counts = VerdictCounts::default();
        let mut by_category: BTreeMap<String, VerdictCounts> = BTreeMap::new();
        let mut layer2_evaluated = false;
        let mut recall_at_k = Vec::new();
        let mut recall_at_1 = Vec::new();
        let mut precision_at_k = Vec::new();
        let mut reciprocal_rank = Vec::new();
        let mut ndcg_at_k = Vec::new();
        let mut irrelevant = Vec::new();
        let mut ungoverned = Vec::new();

        for outcome in scenarios {
            let verdict = outcome.verdict_name();
            counts.add(verdict);
            match by_category.get_mut(outcome.category()) {
                Some(c) => c.add(verdict),
                None => {
                    let mut c = VerdictCounts::default();
                    c.add(verdict);
                    by_category.insert(outcome.category().to_string(), c);
                }
            }
            layer2_evaluated |= outcome.layer2_evaluated();

            let m = outcome.metrics();
            if let Some(flag) = m.ungoverned_injection {
                ungoverned.push(indicator(flag));
            }
            // A governed scenario has every governed figure; reading them
            // together keeps all means over the same scenarios.
            if let (Some(rk), Some(r1), Some(p), Some(rr), Some(n), Some(irr)) =
                (m.recall_at_k, m.recall_at_1, m.precision_at_k, m.reciprocal_rank, m.ndcg_at_k, m.irrelevant_injection)
            {
                recall_at_k.push(rk);
                recall_at_1.push(r1);
                precision_at_k.push(p);
                reciprocal_rank.push(rr);
                ndcg_at_k.push(n);
                irrelevant.push(indicator(irr));
            }
        }

        SuiteMetrics {
            total: counts.total,
            governed: recall_at_k.len(),
            ungoverned: ungoverned.len(),
            mean_recall_at_k: mean(recall_at_k),
            mean_recall_at_1: mean(recall_at_1),
            mean_precision_at_k: mean(precision_at_k),
            mrr: mean(reciprocal_rank),
            mean_ndcg_at_k: mean(ndcg_at_k),
            irrelevant_injection_rate: mean(irrelevant),
            ungoverned_injection_rate: mean(ungoverned),
            pass: counts.pass,
            fail: counts.fail,
            weak: counts.weak,
            weak_retrieval: counts.weak_retrieval,
            malformed: counts.malformed,
            pass_rate: counts.pass_rate(),
            layer2_evaluated,
            by_category,
        }
    }

    /// The suite's verdict counts as one value.
    pub fn counts(&self) -> VerdictCounts {
        VerdictCounts {
            total: self.total,
            pass: self.pass,
            fail: self.fail,
            weak: self.weak,
            weak_retrieval: self.weak_retrieval,
            malformed: self.malformed,
        }
    }
}

fn indicator(flag: bool) -> f64 {
    if flag {
        1.0
    } else {
        0.0
    }
}

/// The arithmetic mean, summed in ascending order so that the bits do not
/// depend on the order the values arrived in; `None` for no values.
fn mean(mut values: Vec<f64>) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_unstable_by(f64::total_cmp);
    let sum: f64 = values.iter().sum();
    Some(sum / values.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn m(r: &[&str], e: &[&str], a: &[&str], k: usize) -> ScenarioMetrics {
        ScenarioMetrics::compute(r, e, a, k)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn discount_table_matches_log2() {
        for i in 0..DISCOUNT_TABLE_LEN + 8 {
            let direct = 1.0 / ((i + 2) as f64).log2();
            assert!((discount(i) - direct).abs() <= f64::EPSILON, "rank {i}");
        }
        assert_eq!(discount(0), 1.0);
        assert_eq!(discount(2), 0.5);
        assert_eq!(discount(6), 1.0 / 3.0);
        assert_eq!(discount(14), 0.25);
        assert_eq!(discount(30), 0.2);
    }

    #[test]
    fn all_hits_at_the_top() {
        let s = m(&["a", "b", "c"], &["a", "b"], &[], 3);
        assert_eq!(s.hits, 2);
        assert_eq!(s.recall_at_k, Some(1.0));
        assert_eq!(s.recall_at_1, Some(0.5));
        assert_eq!(s.precision_at_k, Some(2.0 / 3.0));
        assert_eq!(s.reciprocal_rank, Some(1.0));
        assert_eq!(s.ndcg_at_k, Some(1.0));
        assert_eq!(s.irrelevant_injection, Some(true));
        assert_eq!(s.ungoverned_injection, None);
        assert_eq!(s.irrelevant, vec!["c"]);
        assert!(s.missed.is_empty());
        assert!(s.is_governed());
    }

    #[test]
    fn mneme_convention_one_expected_k3() {
        let s = m(&["x", "anti-002", "y"], &["anti-002"], &[], 3);
        assert_eq!(s.recall_at_k, Some(1.0));
        assert_eq!(s.recall_at_1, Some(0.0));
        assert_eq!(s.precision_at_k, Some(1.0 / 3.0));
        assert_eq!(s.reciprocal_rank, Some(0.5));
        assert_eq!(s.ndcg_at_k, Some(discount(1)));
        assert_eq!(s.irrelevant_injection, Some(true));
    }

    #[test]
    fn miss_and_partial_recall() {
        let s = m(&["x", "b"], &["a", "b", "c", "d"], &[], 3);
        assert_eq!(s.hits, 1);
        assert_eq!(s.recall_at_k, Some(0.25));
        assert_eq!(s.recall_at_1, Some(0.0));
        assert_eq!(s.precision_at_k, Some(0.5));
        assert_eq!(s.reciprocal_rank, Some(0.5));
        let idcg = discount(0) + discount(1) + discount(2);
        assert_eq!(s.ndcg_at_k, Some(discount(1) / idcg));
        assert_eq!(s.missed, vec!["a", "c", "d"]);
        assert!(!s.all_expected_retrieved());
    }

    #[test]
    fn nothing_relevant_retrieved() {
        let s = m(&["x", "y", "z"], &["a"], &[], 3);
        assert_eq!(s.recall_at_k, Some(0.0));
        assert_eq!(s.precision_at_k, Some(0.0));
        assert_eq!(s.reciprocal_rank, Some(0.0));
        assert_eq!(s.ndcg_at_k, Some(0.0));
        assert_eq!(s.irrelevant_injection, Some(true));
    }

    #[test]
    fn empty_retrieval_governed() {
        let s = m(&[], &["a"], &[], 3);
        assert_eq!(s.retrieved_count, 0);
        assert_eq!(s.recall_at_k, Some(0.0));
        assert_eq!(s.recall_at_1, Some(0.0));
        assert_eq!(s.precision_at_k, Some(1.0), "nothing injected, nothing wrong");
        assert_eq!(s.reciprocal_rank, Some(0.0));
        assert_eq!(s.ndcg_at_k, Some(0.0));
        assert_eq!(s.irrelevant_injection, Some(false));
        assert_eq!(s.missed, vec!["a"]);
    }

    #[test]
    fn ungoverned_scenarios() {
        let empty = m(&[], &[], &[], 3);
        assert!(!empty.is_governed());
        assert_eq!(empty.ungoverned_injection, Some(false));
        for governed in
            [empty.recall_at_k, empty.recall_at_1, empty.precision_at_k, empty.reciprocal_rank, empty.ndcg_at_k]
        {
            assert_eq!(governed, None);
        }
        assert_eq!(empty.irrelevant_injection, None);

        let injected = m(&["a", "b"], &[], &[], 3);
        assert_eq!(injected.ungoverned_injection, Some(true));
        assert_eq!(injected.irrelevant, vec!["a", "b"]);
        assert_eq!(injected.hits, 0);

        let tolerated = m(&["a", "b"], &[], &["a", "b", "c"], 3);
        assert_eq!(tolerated.ungoverned_injection, Some(false));
        let partly = m(&["a", "b"], &[], &["a"], 3);
        assert_eq!(partly.ungoverned_injection, Some(true));
        assert_eq!(partly.irrelevant, vec!["b"]);
    }

    #[test]
    fn acceptable_ids_count_as_relevant_but_not_as_hits() {
        let s = m(&["ok", "a", "noise"], &["a"], &["ok"], 3);
        assert_eq!(s.hits, 1);
        assert_eq!(s.recall_at_k, Some(1.0));
        assert_eq!(s.recall_at_1, Some(0.0));
        assert_eq!(s.precision_at_k, Some(2.0 / 3.0));
        assert_eq!(s.reciprocal_rank, Some(0.5));
        assert_eq!(s.ndcg_at_k, Some(discount(1)));
        assert_eq!(s.irrelevant_injection, Some(true));
        assert_eq!(s.irrelevant, vec!["noise"]);

        let clean = m(&["ok", "a"], &["a"], &["ok"], 3);
        assert_eq!(clean.precision_at_k, Some(1.0));
        assert_eq!(clean.irrelevant_injection, Some(false));
    }

    #[test]
    fn id_both_expected_and_acceptable_is_expected() {
        let s = m(&["a"], &["a"], &["a"], 3);
        assert_eq!(s.hits, 1);
        assert_eq!(s.precision_at_k, Some(1.0));
        assert_eq!(s.irrelevant_injection, Some(false));
    }

    #[test]
    fn k_larger_than_pool() {
        let s = m(&["a"], &["a", "b"], &[], 10);
        assert_eq!(s.recall_at_k, Some(0.5));
        assert_eq!(s.precision_at_k, Some(1.0));
        // IDCG runs over min(|E|, k) = 2 ranks even though only one id came back.
        assert_eq!(s.ndcg_at_k, Some(1.0 / (discount(0) + discount(1))));
    }

    #[test]
    fn retrieved_beyond_k_is_ignored() {
        let s = m(&["x", "y", "a", "b"], &["a", "b"], &[], 2);
        assert_eq!(s.retrieved_count, 2);
        assert_eq!(s.hits, 0);
        assert_eq!(s.recall_at_k, Some(0.0));
        assert_eq!(s.missed, vec!["a", "b"]);
    }

    #[test]
    fn k_zero() {
        let s = m(&["a"], &["a"], &[], 0);
        assert_eq!(s.retrieved_count, 0);
        assert_eq!(s.recall_at_k, Some(0.0));
        assert_eq!(s.precision_at_k, Some(1.0));
        assert_eq!(s.ndcg_at_k, Some(0.0));
        assert_eq!(m(&["a"], &[], &[], 0).ungoverned_injection, Some(false));
    }

    #[test]
    fn duplicates_count_once() {
        let s = m(&["a", "a", "b"], &["a", "b"], &[], 3);
        assert_eq!(s, m(&["a", "b"], &["a", "b"], &[], 3));
        assert_eq!(s.hits, 2);
        assert_eq!(s.precision_at_k, Some(1.0));
        assert_eq!(s.ndcg_at_k, Some(1.0));

        // The cut at k comes first: the repeat still uses one of the k slots.
        let cut = m(&["x", "x", "a"], &["a"], &[], 2);
        assert_eq!(cut.retrieved_count, 1);
        assert_eq!(cut.recall_at_k, Some(0.0));

        let e = m(&["a"], &["a", "a"], &["z", "z"], 3);
        assert_eq!(e.expected_count, 1);
        assert_eq!(e.recall_at_k, Some(1.0));
        assert_eq!(e.ndcg_at_k, Some(1.0));
    }

    #[test]
    fn accepts_strings_and_strs() {
        let r = vec!["a".to_string(), "b".to_string()];
        let e = vec!["a".to_string()];
        let a: Vec<String> = Vec::new();
        let owned = ScenarioMetrics::compute(&r, &e, &a, 3);
        assert_eq!(owned, m(&["a", "b"], &["a"], &[], 3));
    }

    fn suite_of(items: &[(&str, ScenarioMetrics, &str)]) -> SuiteMetrics {
        SuiteMetrics::aggregate(items.iter().map(|(c, m, v)| (*c, m, *v)))
    }

    #[test]
    fn empty_suite_has_null_means() {
        let s = SuiteMetrics::aggregate(Vec::<(&str, &ScenarioMetrics, &str)>::new());
        assert_eq!(s.total, 0);
        assert_eq!(s.governed, 0);
        assert_eq!(s.mean_recall_at_k, None);
        assert_eq!(s.ungoverned_injection_rate, None);
        assert_eq!(s.pass_rate, 0.0);
        assert!(!s.layer2_evaluated);
        assert!(s.by_category.is_empty());
        let json = serde_json::to_value(&s).unwrap();
        assert!(json["mean_recall_at_k"].is_null());
        assert!(json["mrr"].is_null());
        assert!(json["ungoverned_injection_rate"].is_null());
    }

    #[test]
    fn suite_means_and_counts() {
        let items = [
            ("scope", m(&["a", "x"], &["a"], &[], 3), "PASS"),
            ("scope", m(&["x", "y", "b"], &["b", "c"], &[], 3), "WEAK_RETRIEVAL"),
            ("arch", m(&["p"], &[], &[], 3), "FAIL"),
            ("arch", m(&[], &[], &[], 3), "WEAK"),
            ("zeta", m(&["q"], &["q"], &[], 3), "MALFORMED"),
        ];
        let s = suite_of(&items);
        assert_eq!((s.total, s.governed, s.ungoverned), (5, 3, 2));
        assert!(close(s.mean_recall_at_k.unwrap(), (1.0 + 0.5 + 1.0) / 3.0));
        assert!(close(s.mean_recall_at_1.unwrap(), (1.0 + 0.0 + 1.0) / 3.0));
        assert!(close(s.mean_precision_at_k.unwrap(), (0.5 + 1.0 / 3.0 + 1.0) / 3.0));
        assert!(close(s.mrr.unwrap(), (1.0 + 1.0 / 3.0 + 1.0) / 3.0));
        let n2 = discount(2) / (discount(0) + discount(1));
        assert!(close(s.mean_ndcg_at_k.unwrap(), (1.0 + n2 + 1.0) / 3.0));
        assert!(close(s.irrelevant_injection_rate.unwrap(), 2.0 / 3.0));
        assert_eq!(s.ungoverned_injection_rate, Some(0.5));
        assert_eq!((s.pass, s.fail, s.weak, s.weak_retrieval, s.malformed), (1, 1, 1, 1, 1));
        assert_eq!(s.pass_rate, 0.5);
        assert!(s.layer2_evaluated, "FAIL and WEAK imply Layer 2");
        let cats: Vec<&str> = s.by_category.keys().map(String::as_str).collect();
        assert_eq!(cats, ["arch", "scope", "zeta"]);
        assert_eq!(
            s.by_category["scope"],
            VerdictCounts { total: 2, pass: 1, weak_retrieval: 1, ..VerdictCounts::default() }
        );
        assert_eq!(s.counts().total, 5);
    }

    #[test]
    fn pass_rate_ignores_weak_and_malformed() {
        let sm = m(&["a"], &["a"], &[], 3);
        let only_weak = suite_of(&[("c", sm.clone(), "WEAK"), ("c", sm.clone(), "MALFORMED")]);
        assert_eq!(only_weak.pass_rate, 0.0);
        let s = suite_of(&[
            ("c", sm.clone(), "PASS"),
            ("c", sm.clone(), "WEAK"),
            ("c", sm.clone(), "WEAK_RETRIEVAL"),
            ("c", sm, "MALFORMED"),
        ]);
        assert_eq!(s.pass_rate, 1.0);
    }

    #[test]
    fn layer2_flag() {
        let sm = m(&["a"], &["a"], &[], 3);
        let retrieval_only = suite_of(&[("c", sm.clone(), "PASS")]);
        assert!(!retrieval_only.layer2_evaluated);
        let explicit =
            SuiteMetrics::aggregate([ScenarioOutcome { category: "c", metrics: &sm, verdict: "PASS", layer2: true }]);
        assert!(explicit.layer2_evaluated);
        assert_eq!(explicit.pass, 1);
    }

    #[test]
    #[should_panic(expected = "unknown verdict name")]
    fn unknown_verdict_is_a_bug() {
        let sm = m(&[], &[], &[], 3);
        suite_of(&[("c", sm, "pass")]);
    }

    #[test]
    fn suite_round_trips_through_json() {
        let items = [
            ("scope", m(&["a", "x", "y"], &["a"], &[], 3), "PASS"),
            ("scope", m(&["x", "b"], &["b", "c", "d"], &["x"], 3), "PASS"),
            ("arch", m(&["p"], &[], &[], 3), "PASS"),
        ];
        let s = suite_of(&items);
        let json = serde_json::to_string(&s).unwrap();
        let back: SuiteMetrics = serde_json::from_str(&json).unwrap();
        assert_eq!(back, s);
        let sm = &items[1].1;
        let back: ScenarioMetrics = serde_json::from_str(&serde_json::to_string(sm).unwrap()).unwrap();
        assert_eq!(&back, sm);
    }

    /// The seven scenarios of Mneme's conformance benchmark, as recorded in
    /// `expected-mneme-0.10.0-benchmark.json` (retrieved, expected, category).
    #[test]
    fn reproduces_mneme_conformance_summary() {
        let runs: [(&str, &[&str], &[&str]); 7] = [
            ("scope", &["anti-002", "mneme_no_agents_v1", "anti-003"], &["anti-002"]),
            ("anti_pattern", &["anti-001", "anti-002", "mneme_storage_json"], &["anti-001"]),
            ("scope", &["anti-002", "mneme_no_agents_v1", "rule-004"], &["anti-002"]),
            ("scope", &[], &[]),
            ("anti_pattern", &["rule-003", "rule-002", "rule-005"], &[]),
            (
                "architecture",
                &["mneme_retrieval_deterministic", "rule-002", "rule-005"],
                &["mneme_retrieval_deterministic"],
            ),
            ("architecture", &["mneme_storage_json", "rule-003", "rule-002"], &["mneme_storage_json"]),
        ];
        let metrics: Vec<(&str, ScenarioMetrics)> = runs.iter().map(|(cat, r, e)| (*cat, m(r, e, &[], 3))).collect();
        for (_, sm) in &metrics {
            if sm.is_governed() {
                assert_eq!(sm.recall_at_k, Some(1.0));
                assert_eq!(sm.precision_at_k, Some(0.3333333333333333));
                assert_eq!(sm.irrelevant_injection, Some(true));
            }
        }
        let s = SuiteMetrics::aggregate(metrics.iter().map(|(c, sm)| (*c, sm, "PASS")));
        assert_eq!(s.total, 7);
        assert_eq!(s.governed, 5);
        assert_eq!(s.ungoverned, 2);
        assert_eq!(s.mean_recall_at_k, Some(1.0));
        assert!(close(s.mean_precision_at_k.unwrap(), 1.0 / 3.0));
        assert_eq!(format!("{:.3}", s.mean_precision_at_k.unwrap()), "0.333");
        assert_eq!(s.irrelevant_injection_rate, Some(1.0));
        assert_eq!(s.ungoverned_injection_rate, Some(0.5));
        assert_eq!(s.pass, 7);
        assert_eq!(s.pass_rate, 1.0);
        let cats: Vec<(&str, usize)> = s.by_category.iter().map(|(c, n)| (c.as_str(), n.pass)).collect();
        assert_eq!(cats, [("anti_pattern", 2), ("architecture", 2), ("scope", 3)]);
    }

    // ---- properties against the formulas written out plainly ----

    const IDS: [&str; 10] = ["d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9"];

    /// A ranking of distinct ids, and subsets E and A of the same small pool.
    fn case() -> impl Strategy<Value = (Vec<&'static str>, Vec<&'static str>, Vec<&'static str>, usize)> {
        let ids = || proptest::sample::subsequence(IDS.to_vec(), 0..=IDS.len());
        (ids().prop_shuffle(), ids(), ids(), 0usize..12)
    }

    fn config() -> ProptestConfig {
        ProptestConfig { cases: 1000, failure_persistence: None, ..ProptestConfig::default() }
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn matches_plain_formulas((r_all, e, a, k) in case()) {
            let got = ScenarioMetrics::compute(&r_all, &e, &a, k);
            let r: Vec<&str> = r_all.iter().take(k).copied().collect();
            let in_e = |id: &str| e.contains(&id);
            let in_a = |id: &str| a.contains(&id);

            prop_assert_eq!(got.retrieved_count, r.len());
            prop_assert_eq!(got.expected_count, e.len());
            let hits = r.iter().filter(|id| in_e(id)).count();
            prop_assert_eq!(got.hits, hits);

            if e.is_empty() {
                prop_assert_eq!(got.recall_at_k, None);
                prop_assert_eq!(got.recall_at_1, None);
                prop_assert_eq!(got.precision_at_k, None);
                prop_assert_eq!(got.reciprocal_rank, None);
                prop_assert_eq!(got.ndcg_at_k, None);
                prop_assert_eq!(got.irrelevant_injection, None);
                let injected = !r.is_empty() && r.iter().any(|id| !in_a(id));
                prop_assert_eq!(got.ungoverned_injection, Some(injected));
            } else {
                let e_len = e.len() as f64;
                prop_assert_eq!(got.recall_at_k, Some(hits as f64 / e_len));
                let top = r.first().map_or(0, |id| usize::from(in_e(id)));
                prop_assert_eq!(got.recall_at_1, Some(top as f64 / e_len));
                let precision = if r.is_empty() {
                    1.0
                } else {
                    r.iter().filter(|id| in_e(id) || in_a(id)).count() as f64 / r.len() as f64
                };
                prop_assert_eq!(got.precision_at_k, Some(precision));
                let mut rr = 0.0;
                for (i, id) in r.iter().enumerate() {
                    if in_e(id) {
                        rr = 1.0 / (i as f64 + 1.0);
                        break;
                    }
                }
                prop_assert_eq!(got.reciprocal_rank, Some(rr));
                let mut dcg = 0.0;
                for (i, id) in r.iter().enumerate() {
                    if in_e(id) {
                        dcg += 1.0 / ((i + 2) as f64).log2();
                    }
                }
                let mut idcg = 0.0;
                for i in 0..e.len().min(k) {
                    idcg += 1.0 / ((i + 2) as f64).log2();
                }
                let ndcg = if idcg > 0.0 { dcg / idcg } else { 0.0 };
                let got_ndcg = got.ndcg_at_k.unwrap();
                prop_assert!((got_ndcg - ndcg).abs() < 1e-12, "ndcg {} vs {}", got_ndcg, ndcg);
                prop_assert!((0.0..=1.0 + 1e-12).contains(&got_ndcg));
                let irrelevant = r.iter().any(|id| !in_e(id) && !in_a(id));
                prop_assert_eq!(got.irrelevant_injection, Some(irrelevant));
                prop_assert_eq!(got.ungoverned_injection, None);
                let missed: Vec<&str> = e.iter().copied().filter(|id| !r.contains(id)).collect();
                prop_assert_eq!(&got.missed, &missed);
            }
        }

        #[test]
        fn repeats_in_the_ranking_count_once(
            (r, e, a, k) in case(),
            dup_at in proptest::collection::vec(0usize..10, 0..4),
        ) {
            // Insert repeats of earlier ids; the outcome equals the deduplicated
            // prefix of length k.
            let mut noisy = r.clone();
            for at in dup_at {
                if !noisy.is_empty() {
                    let id = noisy[at % noisy.len()];
                    let pos = (at % noisy.len()) + 1;
                    noisy.insert(pos, id);
                }
            }
            let mut clean: Vec<&str> = Vec::new();
            for id in noisy.iter().take(k) {
                if !clean.contains(id) {
                    clean.push(id);
                }
            }
            prop_assert_eq!(
                ScenarioMetrics::compute(&noisy, &e, &a, k),
                ScenarioMetrics::compute(&clean, &e, &a, k)
            );
        }

        #[test]
        fn suite_matches_plain_means_and_ignores_order(
            cases in proptest::collection::vec((case(), 0usize..5, 0usize..3), 0..20),
            rotate in 0usize..20,
        ) {
            let cats = ["a", "b", "c"];
            let items: Vec<(&str, ScenarioMetrics, &str)> = cases
                .iter()
                .map(|((r, e, a, k), v, c)| {
                    (cats[*c], ScenarioMetrics::compute(r, e, a, *k), VERDICT_NAMES[*v])
                })
                .collect();
            let s = suite_of(&items);

            let governed: Vec<&ScenarioMetrics> =
                items.iter().map(|(_, m, _)| m).filter(|m| m.expected_count > 0).collect();
            prop_assert_eq!(s.governed, governed.len());
            prop_assert_eq!(s.ungoverned, items.len() - governed.len());
            let plain = |f: &dyn Fn(&ScenarioMetrics) -> f64| -> Option<f64> {
                if governed.is_empty() {
                    None
                } else {
                    Some(governed.iter().map(|m| f(m)).sum::<f64>() / governed.len() as f64)
                }
            };
            let near = |x: Option<f64>, y: Option<f64>| match (x, y) {
                (None, None) => true,
                (Some(x), Some(y)) => (x - y).abs() < 1e-12,
                _ => false,
            };
            prop_assert!(near(s.mean_recall_at_k, plain(&|m| m.hits as f64 / m.expected_count as f64)));
            prop_assert!(near(s.mean_recall_at_1, plain(&|m| m.recall_at_1.unwrap())));
            prop_assert!(near(s.mean_precision_at_k, plain(&|m| m.precision_at_k.unwrap())));
            prop_assert!(near(s.mrr, plain(&|m| m.reciprocal_rank.unwrap())));
            prop_assert!(near(s.mean_ndcg_at_k, plain(&|m| m.ndcg_at_k.unwrap())));
            let injected = plain(&|m| f64::from(u8::from(!m.irrelevant.is_empty())));
            prop_assert!(near(s.irrelevant_injection_rate, injected));

            let mut pass = 0;
            let mut fail = 0;
            for (_, _, v) in &items {
                pass += usize::from(*v == "PASS");
                fail += usize::from(*v == "FAIL");
            }
            prop_assert_eq!((s.pass, s.fail), (pass, fail));
            let rate = if pass + fail == 0 { 0.0 } else { pass as f64 / (pass + fail) as f64 };
            prop_assert_eq!(s.pass_rate, rate);
            let per_cat: usize = s.by_category.values().map(|c| c.total).sum();
            prop_assert_eq!(per_cat, items.len());

            // Same scenarios in another order: the same bits.
            let mut shuffled = items.clone();
            if !shuffled.is_empty() {
                let n = rotate % shuffled.len();
                shuffled.rotate_left(n);
                shuffled.reverse();
            }
            prop_assert_eq!(suite_of(&shuffled), s);
        }
    }
}
