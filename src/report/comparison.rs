/*!
The comparison of a run with its pinned baseline, and the decision corpus
compared with a git revision, as the report carries them (its `comparison`
and `memory_diff` sections).

Only the data lives here, so that the report and its writers need nothing
from [`crate::baseline`], which computes these values from two reports.
*/

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::verdict::Verdict;

/// A run compared with its baseline (the `comparison` section of a report).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Comparison {
    pub baseline: BaselineSource,
    /// The memory file's sha256 differs from the baseline's.
    pub memory_changed: bool,
    /// Some file of the suite differs from the baseline's.
    pub suite_changed: bool,
    /// Why the baseline is not comparable (only when the run was told to
    /// compare anyway).
    pub incompatible: Vec<String>,
    /// Every suite figure: baseline, current, delta and how it moved.
    pub metrics: Vec<MetricChange>,
    /// Scenarios whose verdict, ranking, figures or context block changed,
    /// sorted by id.
    pub scenarios: Vec<ScenarioChange>,
    /// Scenario ids in the run but not in the baseline.
    pub added: Vec<String>,
    /// Scenario ids in the baseline but not in the run.
    pub removed: Vec<String>,
    /// The run was restricted with `--filter`, so `removed` lists scenarios
    /// that were not run rather than deleted ones.
    pub filtered: bool,
    /// The change re-pins the baseline (`--baseline-ref`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_change: Option<BaselineChange>,
    /// Whether the differences are larger than the noise of a suite of this
    /// size (docs/metrics.md, "Comparisons with statistics"). Absent from
    /// reports written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub statistics: Option<ComparisonStatistics>,
}

/// The statistics of a comparison: the scenarios of both runs as pairs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ComparisonStatistics {
    /// Scenarios in both runs.
    pub paired: usize,
    /// Scenarios governed in both runs: the pairs of the retrieval figures.
    pub governed: usize,
    /// The seed of the resampled figures.
    pub seed: u64,
    /// Random sign assignments of a sampled permutation test, and bootstrap
    /// resamples, per figure.
    pub resamples: usize,
    /// `1 / governed`: how much a mean moves when one scenario's figure moves
    /// by a full step (a recall from 0 to 1); `null` without a pair.
    pub one_scenario_step: Option<f64>,
    /// `6 / governed`: the smallest mean change the permutation test can call
    /// significant at 5 % when every changed scenario moves by a full step
    /// (six scenarios, all the same way); `null` under six pairs, where no
    /// change can be significant.
    pub minimum_detectable: Option<f64>,
    /// Recall@k, reciprocal rank and nDCG@k, in that order.
    pub figures: Vec<FigureStatistics>,
    /// PASS gained and lost, with McNemar's exact test.
    pub verdicts: VerdictStatistics,
    /// The baseline's pass rate with its Wilson interval; `null` when Layer 2
    /// judged nothing.
    pub baseline_pass_rate: Option<PassRateInterval>,
    /// The current run's pass rate with its Wilson interval.
    pub current_pass_rate: Option<PassRateInterval>,
}

/// One retrieval figure compared scenario by scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FigureStatistics {
    /// `recall_at_k`, `reciprocal_rank` or `ndcg_at_k`.
    pub name: String,
    /// Scenarios whose figure went up, down, or stayed (within 1e-12).
    pub wins: usize,
    pub losses: usize,
    pub ties: usize,
    /// The mean of the per-scenario changes (current − baseline); `null`
    /// without a pair.
    pub mean_change: Option<f64>,
    /// Two-sided p-value of the paired randomization (sign-flip) test.
    pub p_value: f64,
    /// Every sign assignment was enumerated (at most 16 scenarios changed);
    /// otherwise `resamples` were drawn from `seed`.
    pub exact: bool,
    /// 95 % paired-bootstrap percentile interval of the mean change.
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
    /// `p_value < 0.05`.
    pub significant: bool,
    /// The figure changed but not significantly: the suite is too small to
    /// tell this difference from noise.
    pub too_small: bool,
    /// About how many scenarios would detect a change of this size with 80 %
    /// power (a planning figure, from the changes' spread); `null` when
    /// nothing changed.
    pub scenarios_needed: Option<usize>,
}

/// Verdicts that moved into or out of PASS, and McNemar's exact test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct VerdictStatistics {
    /// PASS in the baseline, another verdict now.
    pub lost_pass: usize,
    /// Another verdict in the baseline, PASS now.
    pub gained_pass: usize,
    /// Two-sided p-value of McNemar's exact test (1 with no discordant pair).
    pub p_value: f64,
}

/// A pass rate and its 95 % Wilson score interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PassRateInterval {
    /// PASS verdicts counted (every trial's with `--repeat`).
    pub passed: usize,
    /// PASS and FAIL verdicts counted (the pass rate's denominator).
    pub judged: usize,
    /// Counted over every trial of a repeated run rather than per scenario.
    pub trials: bool,
    pub rate: f64,
    pub low: f64,
    pub high: f64,
}

impl ComparisonStatistics {
    /// Whether any retrieval figure or verdict moved between the two runs.
    pub fn changed(&self) -> bool {
        self.figures.iter().any(|f| f.wins > 0 || f.losses > 0)
            || self.verdicts.lost_pass > 0
            || self.verdicts.gained_pass > 0
    }
}

/// Where the baseline came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BaselineSource {
    pub path: String,
    /// The git revision it was read from, as given (`--baseline-ref`).
    pub revision: Option<String>,
    /// The commit that revision resolved to.
    pub commit: Option<String>,
}

/// How a figure moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Movement {
    Unchanged,
    Improved,
    /// Worse, but within the configured tolerance.
    WithinTolerance,
    /// Worse beyond the tolerance (the `suite_means` rule counts it).
    Regressed,
    /// Only one side has a value (a mean over no scenario is absent).
    NotComparable,
    /// A figure no rule judges (counts, for information).
    Changed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MetricChange {
    pub name: String,
    pub baseline: Option<f64>,
    pub current: Option<f64>,
    pub delta: Option<f64>,
    pub movement: Movement,
    /// The rule that judges this figure, if any.
    pub rule: Option<crate::gate::Rule>,
}

/// One decision that entered, left or moved within a scenario's top-k.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DecisionMove {
    pub id: String,
    pub baseline_rank: Option<usize>,
    pub current_rank: Option<usize>,
    pub baseline_score: Option<f64>,
    pub current_score: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ScenarioChange {
    pub id: String,
    /// `path:line:column` of the scenario now.
    pub source: String,
    pub baseline_verdict: Verdict,
    pub current_verdict: Verdict,
    /// The verdict is worse than the baseline's.
    pub regressed: bool,
    /// Decisions retrieved now and not in the baseline.
    pub entered: Vec<DecisionMove>,
    /// Decisions retrieved in the baseline and not now.
    pub left: Vec<DecisionMove>,
    /// Decisions retrieved in both whose rank or score changed.
    pub moved: Vec<DecisionMove>,
    /// Per-scenario figures that changed.
    pub metrics: Vec<MetricChange>,
    /// Unified diff of the context block (baseline → current), when it changed.
    pub context_diff: Option<String>,
    /// Decisions this scenario retrieves (then or now) that the memory diff
    /// shows as edited, added or removed: the likely cause.
    pub edited_decisions: Vec<String>,
}

/// The working tree's baseline differs from the one at the base revision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BaselineChange {
    pub revision: String,
    /// The revision had no baseline: this change pins the first one.
    pub first_pin: bool,
    /// Scenarios whose pinned result the change alters.
    pub scenarios: Vec<String>,
    pub added: Vec<String>,
    pub removed: Vec<String>,
    /// The change was accepted (`--accept-baseline-change`): the run is
    /// compared with the working tree's baseline.
    pub accepted: bool,
    /// Who or what accepted it, as the run was told (`--accepted-by`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted_by: Option<String>,
}

/// Decisions added, removed and changed between a git revision and now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MemoryDiff {
    pub revision: String,
    pub added: Vec<DecisionRef>,
    pub removed: Vec<DecisionRef>,
    pub changed: Vec<DecisionEdit>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DecisionRef {
    pub id: String,
    pub title: String,
    /// Why it is not retrievable now (removed from the pool but still in
    /// the file: superseded, deprecated, ...).
    pub note: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DecisionEdit {
    pub id: String,
    pub title: String,
    pub fields: Vec<FieldEdit>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FieldEdit {
    pub field: String,
    pub before: String,
    pub after: String,
}

impl MemoryDiff {
    /// Every id the diff touches.
    pub fn ids(&self) -> BTreeSet<&str> {
        self.added
            .iter()
            .map(|d| d.id.as_str())
            .chain(self.removed.iter().map(|d| d.id.as_str()))
            .chain(self.changed.iter().map(|d| d.id.as_str()))
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}
