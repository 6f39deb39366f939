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
    pub rule: Option<String>,
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
