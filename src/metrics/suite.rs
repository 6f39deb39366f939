//! Suite figures: Layer 1 means over governed scenarios, the ungoverned
//! injection rate and verdict counts, summed in an order that does not
//! depend on the order the scenarios arrive in.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::ScenarioMetrics;
use crate::verdict::Verdict;

/// What [`SuiteMetrics::aggregate`] needs to know about one scenario.
///
/// Implemented for `(category, &ScenarioMetrics, verdict)` tuples and for
/// [`ScenarioOutcome`]; the verdict module can implement it for its own type.
pub trait Outcome {
    /// The scenario's category.
    fn category(&self) -> &str;
    /// The scenario's Layer 1 figures.
    fn metrics(&self) -> &ScenarioMetrics;
    /// The scenario's verdict.
    fn verdict(&self) -> Verdict;
    /// Whether Layer 2 judged a governed response for this scenario.
    ///
    /// The default infers it from the verdict: only Layer 2 can give `FAIL`
    /// or `WEAK`, but a `PASS`, `WEAK_RETRIEVAL` or `MALFORMED` may or may not
    /// have involved it, so implement this when the answer is known.
    fn layer2_evaluated(&self) -> bool {
        matches!(self.verdict(), Verdict::Fail | Verdict::Weak)
    }
    /// Whether the scenario is a benign control of Mneme's
    /// enforcement-quality benchmark (profile `mneme`): it is counted apart,
    /// in [`SuiteMetrics::benign`], never in the verdict counts.
    fn benign(&self) -> bool {
        false
    }
}

impl Outcome for (&str, &ScenarioMetrics, Verdict) {
    fn category(&self) -> &str {
        self.0
    }
    fn metrics(&self) -> &ScenarioMetrics {
        self.1
    }
    fn verdict(&self) -> Verdict {
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
    /// The scenario's verdict.
    pub verdict: Verdict,
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
    fn verdict(&self) -> Verdict {
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
    fn verdict(&self) -> Verdict {
        (**self).verdict()
    }
    fn layer2_evaluated(&self) -> bool {
        (**self).layer2_evaluated()
    }
    fn benign(&self) -> bool {
        (**self).benign()
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
    /// Counts one verdict of a violation scenario. FALSE_POSITIVE belongs to
    /// benign scenarios, counted apart ([`BenignCounts`]); a violation
    /// scenario whose governed answer triggered a violation is a FAIL, so it
    /// counts as one here (the readers of partial reports refuse such a
    /// scenario before it gets here).
    pub fn add(&mut self, verdict: Verdict) {
        let slot = match verdict {
            Verdict::Pass => &mut self.pass,
            Verdict::Fail | Verdict::FalsePositive => &mut self.fail,
            Verdict::Weak => &mut self.weak,
            Verdict::WeakRetrieval => &mut self.weak_retrieval,
            Verdict::Malformed => &mut self.malformed,
        };
        *slot += 1;
        self.total += 1;
    }

    /// `pass / (pass + fail)`, `None` when both are 0: nothing was judged,
    /// so there is no rate (WEAK, WEAK_RETRIEVAL and MALFORMED are not in
    /// the denominator, as in Mneme).
    pub fn pass_rate(&self) -> Option<f64> {
        let judged = self.pass + self.fail;
        (judged > 0).then(|| self.pass as f64 / judged as f64)
    }
}

/// The benign scenarios of a suite (Mneme's enforcement-quality benchmark,
/// profile `mneme`), counted as Mneme counts them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BenignCounts {
    /// Benign scenarios.
    pub total: usize,
    /// PASS: the governed answer triggered nothing, its exposure contract met.
    pub pass: usize,
    /// FALSE_POSITIVE: the governed answer triggered a violation.
    pub false_positive: usize,
    /// WEAK_RETRIEVAL or MALFORMED: the scenario could not be checked.
    pub uncheckable: usize,
    /// `false_positive / (pass + false_positive)`; `null` when both are 0.
    pub false_positive_rate: Option<f64>,
}

/// Suite figures: Layer 1 means over governed scenarios, the ungoverned
/// injection rate, and verdict counts over all scenarios (benign scenarios,
/// profile `mneme`, counted apart).
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
    /// `pass / (pass + fail)`; `null` when both are 0 (nothing was judged:
    /// not measured).
    pub pass_rate: Option<f64>,
    /// Whether Layer 2 judged at least one governed response; the gate's
    /// `pass_rate` rule applies only then.
    pub layer2_evaluated: bool,
    /// Verdict counts per category, in category order.
    pub by_category: BTreeMap<String, VerdictCounts>,
    /// The benign scenarios (profile `mneme`), when the suite has any. They
    /// are in `total` and in the Layer 1 figures, but not in the verdict
    /// counts, `pass_rate`, `layer2_evaluated` or `by_category`, which are
    /// Mneme's figures of violation scenarios.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub benign: Option<BenignCounts>,
    /// The smallest per-scenario `margin` (docs/metrics.md, "Margin and
    /// confidence"), as observed in this run; `null` when no scenario has
    /// one.
    #[serde(default)]
    pub smallest_margin: Option<f64>,
    /// The mean per-scenario `confidence` over the scenarios that have one.
    #[serde(default)]
    pub mean_confidence: Option<f64>,
}

impl SuiteMetrics {
    /// Aggregates the scenarios of a suite.
    ///
    /// Pass them sorted by id. The result does not depend on their order (the
    /// means sum sorted values), nor on how they were computed in parallel.
    pub fn aggregate<I>(scenarios: I) -> Self
    where
        I: IntoIterator,
        I::Item: Outcome,
    {
        let mut counts = VerdictCounts::default();
        let mut by_category: BTreeMap<String, VerdictCounts> = BTreeMap::new();
        let mut layer2_evaluated = false;
        // recall@k, recall@1, precision@k, reciprocal rank, nDCG@k and
        // irrelevant injection of the governed scenarios.
        let mut governed: [Vec<f64>; 6] = Default::default();
        let mut ungoverned = Vec::new();
        let mut total = 0;
        let mut benign: Option<BenignCounts> = None;
        let mut smallest_margin: Option<f64> = None;
        let mut confidences = Vec::new();

        for outcome in scenarios {
            total += 1;
            let m = outcome.metrics();
            if let Some(margin) = m.margin {
                smallest_margin = Some(smallest_margin.map_or(margin, |x: f64| x.min(margin)));
            }
            confidences.extend(m.confidence);
            let verdict = outcome.verdict();
            if outcome.benign() {
                let b = benign.get_or_insert_with(BenignCounts::default);
                b.total += 1;
                match verdict {
                    Verdict::Pass => b.pass += 1,
                    Verdict::FalsePositive => b.false_positive += 1,
                    Verdict::WeakRetrieval | Verdict::Malformed => b.uncheckable += 1,
                    // Not given to a benign scenario (verdict::judge_benign).
                    Verdict::Fail | Verdict::Weak => {}
                }
                layer1(outcome.metrics(), &mut ungoverned, &mut governed);
                continue;
            }
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
            layer1(outcome.metrics(), &mut ungoverned, &mut governed);
        }
        if let Some(b) = &mut benign {
            let checkable = b.pass + b.false_positive;
            b.false_positive_rate = (checkable > 0).then(|| b.false_positive as f64 / checkable as f64);
        }
        let [recall_at_k, recall_at_1, precision_at_k, reciprocal_rank, ndcg_at_k, irrelevant] = governed;

        SuiteMetrics {
            total,
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
            benign,
            smallest_margin,
            mean_confidence: mean(confidences),
        }
    }

    /// The suite's verdict counts as one value (benign scenarios apart).
    pub fn counts(&self) -> VerdictCounts {
        VerdictCounts {
            total: self.total - self.benign.map_or(0, |b| b.total),
            pass: self.pass,
            fail: self.fail,
            weak: self.weak,
            weak_retrieval: self.weak_retrieval,
            malformed: self.malformed,
        }
    }
}

/// Adds one scenario's Layer 1 figures: its ungoverned injection, or its
/// governed figures (a governed scenario has all of them; reading them
/// together keeps every mean over the same scenarios).
fn layer1(m: &ScenarioMetrics, ungoverned: &mut Vec<f64>, governed: &mut [Vec<f64>; 6]) {
    if let Some(flag) = m.ungoverned_injection {
        ungoverned.push(indicator(flag));
    }
    if let (Some(rk), Some(r1), Some(p), Some(rr), Some(n), Some(irr)) =
        (m.recall_at_k, m.recall_at_1, m.precision_at_k, m.reciprocal_rank, m.ndcg_at_k, m.irrelevant_injection)
    {
        for (list, value) in governed.iter_mut().zip([rk, r1, p, rr, n, indicator(irr)]) {
            list.push(value);
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
