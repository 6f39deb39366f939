/*!
The pinned baseline: reading it, checking that it is comparable, comparing a
run with it, and the gate rules that need it.

A baseline is a JSON report (`mneme-gate.report/v1`) pinned by
`mneme-gate baseline`. A run is compared with it scenario by scenario and
figure by figure; every difference is explained in words a reviewer can act
on: the verdict change, each decision that entered or left the top-k with
its old and new rank and score, the metric deltas, and a unified diff of the
context block the model saw before and sees now.

A changed memory file or suite is what is under test, so it is reported, not
refused. A different `k`, profile or metric definition makes the figures
incomparable, so it is refused unless the caller says otherwise.
*/

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::gate::{outcome, Better, GateSettings, RuleOutcome, SUITE_MEANS};
use crate::memory::{Decision, Excluded};
use crate::metrics::SuiteMetrics;
use crate::report::{Report, ScenarioReport, REPORT_SCHEMA};
use crate::verdict::Verdict;

/// Why a baseline cannot be used.
#[derive(Debug)]
pub enum BaselineError {
    Read { path: PathBuf, source: std::io::Error },
    Missing { path: PathBuf },
    Parse { path: String, line: usize, column: usize, message: String },
    Schema { path: String, found: String },
}

impl fmt::Display for BaselineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BaselineError::Read { path, source } => write!(f, "cannot read the baseline {}: {source}", path.display()),
            BaselineError::Missing { path } => write!(
                f,
                "there is no baseline at {}: pin one with `mneme-gate baseline`, or run with --no-baseline",
                path.display()
            ),
            BaselineError::Parse { path, line, column, message } => write!(
                f,
                "{path}:{line}:{column}: the baseline is not a mneme-gate report: {message}; re-pin it with `mneme-gate baseline`"
            ),
            BaselineError::Schema { path, found } => write!(
                f,
                "{path}: the baseline has schema `{found}`, this mneme-gate reads `{REPORT_SCHEMA}`; re-pin it with `mneme-gate baseline`"
            ),
        }
    }
}

impl std::error::Error for BaselineError {}

/// Reads a baseline (or any saved report) from a file.
pub fn load(path: &Path) -> Result<Report, BaselineError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(BaselineError::Missing { path: path.to_path_buf() })
        }
        Err(source) => return Err(BaselineError::Read { path: path.to_path_buf(), source }),
    };
    parse(&path.display().to_string(), &text)
}

/// Parses a saved report; `label` names it in messages (a path, or
/// `REV:path` for one read from git).
pub fn parse(label: &str, text: &str) -> Result<Report, BaselineError> {
    // The schema first, so that a future version says so instead of
    // failing on a field it renamed.
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(text) {
        if let Some(schema) = value.get("schema").and_then(|s| s.as_str()) {
            if schema != REPORT_SCHEMA {
                return Err(BaselineError::Schema { path: label.to_string(), found: schema.to_string() });
            }
        }
    }
    crate::report::json::parse(text).map_err(|e| BaselineError::Parse {
        path: label.to_string(),
        line: e.line(),
        column: e.column().max(1),
        message: {
            let m = e.to_string();
            m.rsplit_once(" at line ").map_or(m.clone(), |(m, _)| m.to_string())
        },
    })
}

/// What makes two reports incomparable: a different `k`, profile or metric
/// definition, each in words. Empty when they are comparable.
pub fn incompatibilities(baseline: &Report, current: &Report) -> Vec<String> {
    let (b, c) = (&baseline.fingerprint, &current.fingerprint);
    let mut out = Vec::new();
    if b.k != c.k {
        out.push(format!("k: the baseline has {}, this run {}", b.k, c.k));
    }
    if b.metrics_version != c.metrics_version {
        out.push(format!("metric definitions: the baseline has {}, this run {}", b.metrics_version, c.metrics_version));
    }
    let (bp, cp) = (&b.profile, &c.profile);
    if bp.name != cp.name {
        out.push(format!("profile: the baseline used `{}`, this run `{}`", bp.name, cp.name));
    }
    let fields: [(&str, f64, f64); 8] = [
        ("weights.title", bp.weights.title, cp.weights.title),
        ("weights.tags", bp.weights.tags, cp.weights.tags),
        ("weights.constraint", bp.weights.constraint, cp.weights.constraint),
        ("weights.anti_patterns", bp.weights.anti_patterns, cp.weights.anti_patterns),
        ("weights.content", bp.weights.content, cp.weights.content),
        ("tag_boost", bp.tag_boost, cp.tag_boost),
        ("min_score", bp.min_score, cp.min_score),
        ("min_token_len", bp.min_token_len as f64, cp.min_token_len as f64),
    ];
    for (name, before, after) in fields {
        if before != after {
            out.push(format!("profile {name}: the baseline used {before}, this run {after}"));
        }
    }
    if bp.stem != cp.stem {
        out.push(format!("profile stem: the baseline used {}, this run {}", bp.stem, cp.stem));
    }
    out
}

// ---------------------------------------------------------------------------
// The comparison
// ---------------------------------------------------------------------------

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
}

/// Compares a run with its baseline.
pub fn compare(baseline: &Report, current: &Report, settings: &GateSettings, source: BaselineSource) -> Comparison {
    let old: BTreeMap<&str, &ScenarioReport> = baseline.scenarios.iter().map(|s| (s.id.as_str(), s)).collect();
    let new: BTreeMap<&str, &ScenarioReport> = current.scenarios.iter().map(|s| (s.id.as_str(), s)).collect();
    let added = new.keys().filter(|id| !old.contains_key(*id)).map(|s| s.to_string()).collect();
    let removed = old.keys().filter(|id| !new.contains_key(*id)).map(|s| s.to_string()).collect();
    let mut scenarios = Vec::new();
    for (id, now) in &new {
        let Some(then) = old.get(id) else { continue };
        if let Some(change) = scenario_change(baseline, then, current, now) {
            scenarios.push(change);
        }
    }
    Comparison {
        baseline: source,
        memory_changed: baseline.fingerprint.memory.sha256 != current.fingerprint.memory.sha256,
        suite_changed: baseline.fingerprint.suite.sha256 != current.fingerprint.suite.sha256,
        incompatible: incompatibilities(baseline, current),
        metrics: suite_metric_changes(&baseline.summary, &current.summary, settings),
        scenarios,
        added,
        removed,
        filtered: false,
        baseline_change: None,
    }
}

fn scenario_change(
    old_report: &Report,
    then: &ScenarioReport,
    new_report: &Report,
    now: &ScenarioReport,
) -> Option<ScenarioChange> {
    let rank_of = |s: &ScenarioReport, id: &str| s.retrieved.iter().find(|r| r.id == id).map(|r| (r.rank, r.score));
    let mut entered = Vec::new();
    let mut moved = Vec::new();
    for r in &now.retrieved {
        match rank_of(then, &r.id) {
            None => entered.push(DecisionMove {
                id: r.id.clone(),
                baseline_rank: None,
                current_rank: Some(r.rank),
                baseline_score: None,
                current_score: Some(r.score),
            }),
            Some((rank, score)) if rank != r.rank || score != r.score => moved.push(DecisionMove {
                id: r.id.clone(),
                baseline_rank: Some(rank),
                current_rank: Some(r.rank),
                baseline_score: Some(score),
                current_score: Some(r.score),
            }),
            Some(_) => {}
        }
    }
    let left: Vec<DecisionMove> = then
        .retrieved
        .iter()
        .filter(|r| rank_of(now, &r.id).is_none())
        .map(|r| DecisionMove {
            id: r.id.clone(),
            baseline_rank: Some(r.rank),
            current_rank: None,
            baseline_score: Some(r.score),
            current_score: None,
        })
        .collect();
    let (m0, m1) = (&then.metrics, &now.metrics);
    let figures: [(&str, Option<f64>, Option<f64>); 5] = [
        ("recall_at_k", m0.recall_at_k, m1.recall_at_k),
        ("recall_at_1", m0.recall_at_1, m1.recall_at_1),
        ("precision_at_k", m0.precision_at_k, m1.precision_at_k),
        ("reciprocal_rank", m0.reciprocal_rank, m1.reciprocal_rank),
        ("ndcg_at_k", m0.ndcg_at_k, m1.ndcg_at_k),
    ];
    let metrics: Vec<MetricChange> = figures
        .into_iter()
        .filter(|(_, a, b)| a != b)
        .map(|(name, a, b)| MetricChange {
            name: name.to_string(),
            baseline: a,
            current: b,
            delta: a.zip(b).map(|(a, b)| b - a),
            movement: movement(a, b, Better::Higher, 0.0),
            rule: None,
        })
        .collect();
    let before = old_report.context_block(then);
    let after = new_report.context_block(now);
    let context_diff = (before != after).then(|| unified_diff(&before, &after));
    let verdict_changed = then.verdict != now.verdict;
    let unchanged = !verdict_changed && entered.is_empty() && left.is_empty() && moved.is_empty();
    if unchanged && metrics.is_empty() && context_diff.is_none() {
        return None;
    }
    Some(ScenarioChange {
        id: now.id.clone(),
        source: now.source.to_string(),
        baseline_verdict: then.verdict,
        current_verdict: now.verdict,
        regressed: now.verdict.is_worse_than(then.verdict),
        entered,
        left,
        moved,
        metrics,
        context_diff,
        edited_decisions: Vec::new(),
    })
}

/// A unified diff with three lines of context.
pub fn unified_diff(before: &str, after: &str) -> String {
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header("baseline", "current")
        .to_string()
}

fn movement(before: Option<f64>, after: Option<f64>, better: Better, tolerance: f64) -> Movement {
    match (before, after) {
        (Some(a), Some(b)) => {
            let worse_by = match better {
                Better::Higher => a - b,
                Better::Lower => b - a,
            };
            // Figures are means of exact fractions; a difference below 1e-12
            // is floating-point noise, not a change.
            if worse_by.abs() <= 1e-12 {
                Movement::Unchanged
            } else if worse_by < 0.0 {
                Movement::Improved
            } else if worse_by <= tolerance + 1e-12 {
                Movement::WithinTolerance
            } else {
                Movement::Regressed
            }
        }
        (None, None) => Movement::Unchanged,
        _ => Movement::NotComparable,
    }
}

fn suite_metric_changes(old: &SuiteMetrics, new: &SuiteMetrics, settings: &GateSettings) -> Vec<MetricChange> {
    let mut out = Vec::new();
    let judged: [(&str, Option<f64>, Option<f64>); 7] = [
        ("mean_recall_at_k", old.mean_recall_at_k, new.mean_recall_at_k),
        ("mean_recall_at_1", old.mean_recall_at_1, new.mean_recall_at_1),
        ("mean_precision_at_k", old.mean_precision_at_k, new.mean_precision_at_k),
        ("mrr", old.mrr, new.mrr),
        ("mean_ndcg_at_k", old.mean_ndcg_at_k, new.mean_ndcg_at_k),
        ("irrelevant_injection_rate", old.irrelevant_injection_rate, new.irrelevant_injection_rate),
        ("ungoverned_injection_rate", old.ungoverned_injection_rate, new.ungoverned_injection_rate),
    ];
    for (name, a, b) in judged {
        let (better, rule) = match SUITE_MEANS.iter().find(|(m, _)| *m == name) {
            Some((_, better)) => (*better, Some("suite_means")),
            // mean recall@k is judged per scenario by the `recall` rule.
            None => (Better::Higher, Some("recall")),
        };
        let tolerance = if rule == Some("suite_means") { settings.tolerance(name) } else { 0.0 };
        out.push(MetricChange {
            name: name.to_string(),
            baseline: a,
            current: b,
            delta: a.zip(b).map(|(a, b)| b - a),
            movement: movement(a, b, better, tolerance),
            rule: rule.map(str::to_string),
        });
    }
    let pass_rate = |m: &SuiteMetrics| if m.pass + m.fail > 0 { Some(m.pass_rate) } else { None };
    out.push(MetricChange {
        name: "pass_rate".into(),
        baseline: pass_rate(old),
        current: pass_rate(new),
        delta: pass_rate(old).zip(pass_rate(new)).map(|(a, b)| b - a),
        movement: movement(pass_rate(old), pass_rate(new), Better::Higher, 0.0),
        rule: Some("pass_rate".into()),
    });
    let counts: [(&str, usize, usize); 8] = [
        ("total", old.total, new.total),
        ("governed", old.governed, new.governed),
        ("pass", old.pass, new.pass),
        ("fail", old.fail, new.fail),
        ("weak", old.weak, new.weak),
        ("weak_retrieval", old.weak_retrieval, new.weak_retrieval),
        ("malformed", old.malformed, new.malformed),
        ("ungoverned", old.ungoverned, new.ungoverned),
    ];
    for (name, a, b) in counts {
        out.push(MetricChange {
            name: name.to_string(),
            baseline: Some(a as f64),
            current: Some(b as f64),
            delta: Some(b as f64 - a as f64),
            movement: if a == b { Movement::Unchanged } else { Movement::Changed },
            rule: None,
        });
    }
    out
}

/// The gate rules that need a baseline, from a comparison.
pub fn rules(comparison: &Comparison, settings: &GateSettings) -> Vec<RuleOutcome> {
    let mut out = Vec::new();
    let details = comparison
        .scenarios
        .iter()
        .filter(|c| c.regressed)
        .map(|c| format!("{}: {} → {} ({})", c.id, c.baseline_verdict, c.current_verdict, c.source))
        .collect();
    out.push(outcome(
        "verdict_regression",
        "no scenario's verdict is worse than in the baseline (PASS > WEAK > WEAK_RETRIEVAL > FAIL > MALFORMED)".into(),
        settings.mode("verdict_regression"),
        details,
    ));
    let details = if comparison.filtered {
        Vec::new()
    } else {
        comparison
            .removed
            .iter()
            .map(|id| format!("{id} is in the baseline but not in the suite (a suite must not shrink silently; re-pin the baseline if it was removed on purpose)"))
            .collect()
    };
    out.push(outcome(
        "missing_scenarios",
        "every scenario of the baseline is still in the suite".into(),
        settings.mode("missing_scenarios"),
        details,
    ));
    let details = comparison
        .metrics
        .iter()
        .filter(|m| m.rule.as_deref() == Some("suite_means") && m.movement == Movement::Regressed)
        .map(|m| {
            format!(
                "{}: {} → {} ({:+.3}, tolerance {})",
                m.name,
                fmt_figure(m.baseline),
                fmt_figure(m.current),
                m.delta.unwrap_or(0.0),
                settings.tolerance(&m.name)
            )
        })
        .collect();
    out.push(outcome(
        "suite_means",
        "no suite mean is lower than the baseline's and no injection rate higher (beyond the tolerance)".into(),
        settings.mode("suite_means"),
        details,
    ));
    if let Some(change) = &comparison.baseline_change {
        let mut details = Vec::new();
        if !change.accepted {
            details.push(if change.first_pin {
                format!(
                    "{} has no baseline; this change pins the first one (accept it with --accept-baseline-change)",
                    change.revision
                )
            } else {
                format!(
                    "this change re-pins the baseline of {}: {} scenario(s) change, {} added, {} removed (accept it with --accept-baseline-change)",
                    change.revision,
                    change.scenarios.len(),
                    change.added.len(),
                    change.removed.len()
                )
            });
        }
        out.push(outcome(
            "baseline_change",
            "the pull request does not move its own goalposts (the baseline is the base revision's)".into(),
            settings.mode("baseline_change"),
            details,
        ));
    }
    out
}

fn fmt_figure(v: Option<f64>) -> String {
    v.map_or("—".into(), |v| format!("{v:.3}"))
}

// ---------------------------------------------------------------------------
// The decision corpus between two revisions
// ---------------------------------------------------------------------------

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

/// Compares the retrieval pools of two versions of the memory file, field
/// by field, by decision id.
pub fn memory_diff(
    revision: &str,
    old_pool: &[Decision],
    new_pool: &[Decision],
    new_excluded: &[Excluded],
) -> MemoryDiff {
    let old: BTreeMap<&str, &Decision> = old_pool.iter().map(|d| (d.id.as_str(), d)).collect();
    let new: BTreeMap<&str, &Decision> = new_pool.iter().map(|d| (d.id.as_str(), d)).collect();
    let added = new
        .iter()
        .filter(|(id, _)| !old.contains_key(*id))
        .map(|(id, d)| DecisionRef { id: id.to_string(), title: d.title.clone(), note: None })
        .collect();
    let removed = old
        .iter()
        .filter(|(id, _)| !new.contains_key(*id))
        .map(|(id, d)| DecisionRef {
            id: id.to_string(),
            title: d.title.clone(),
            note: new_excluded
                .iter()
                .find(|e| e.id == *id)
                .map(|e| format!("still in the file, kept out of the pool: {}", e.reason)),
        })
        .collect();
    let mut changed = Vec::new();
    for (id, now) in &new {
        let Some(then) = old.get(id) else { continue };
        let list = |v: &[String]| format!("[{}]", v.join(", "));
        let fields: [(&str, String, String); 8] = [
            ("title", then.title.clone(), now.title.clone()),
            ("tags", list(&then.tags), list(&now.tags)),
            ("constraint", list(&then.constraint), list(&now.constraint)),
            ("anti_patterns", list(&then.anti_patterns), list(&now.anti_patterns)),
            ("content", then.content.clone(), now.content.clone()),
            ("scope", list(&then.paths), list(&now.paths)),
            ("status", then.status.clone().unwrap_or_default(), now.status.clone().unwrap_or_default()),
            ("kind", then.kind.to_string(), now.kind.to_string()),
        ];
        let fields: Vec<FieldEdit> = fields
            .into_iter()
            .filter(|(_, a, b)| a != b)
            .map(|(f, a, b)| FieldEdit { field: f.to_string(), before: a, after: b })
            .collect();
        if !fields.is_empty() {
            changed.push(DecisionEdit { id: id.to_string(), title: now.title.clone(), fields });
        }
    }
    MemoryDiff { revision: revision.to_string(), added, removed, changed }
}

/// Marks, in each scenario change, the decisions the memory diff touched.
pub fn attribute(comparison: &mut Comparison, diff: &MemoryDiff, baseline: &Report, current: &Report) {
    let touched = diff.ids();
    for change in &mut comparison.scenarios {
        let mut ids: BTreeSet<&str> = BTreeSet::new();
        for report in [baseline, current] {
            if let Some(s) = report.scenario(&change.id) {
                ids.extend(s.retrieved.iter().map(|r| r.id.as_str()));
                ids.extend(s.expected.iter().map(String::as_str));
            }
        }
        change.edited_decisions = ids.into_iter().filter(|id| touched.contains(id)).map(str::to_string).collect();
    }
}

// ---------------------------------------------------------------------------
// Pinning
// ---------------------------------------------------------------------------

/// The report as pinned: no git metadata, no timings and no comparison, so
/// that re-pinning the same results gives the same bytes on any commit.
pub fn pinned(report: &Report) -> Report {
    let mut pinned = report.clone();
    pinned.git = None;
    pinned.timings = None;
    pinned.comparison = None;
    pinned.memory_diff = None;
    pinned
}

/// Writes `text` to `path` atomically: a temporary file in the same folder,
/// flushed to disk, then renamed over the target. An interrupted pin leaves
/// either the old baseline or the new one, never half of one.
pub fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "baseline.json".into());
    // Temporary files an interrupted pin left behind.
    if let Ok(entries) = std::fs::read_dir(&dir) {
        let prefix = format!(".{name}.");
        for entry in entries.flatten() {
            let file = entry.file_name().to_string_lossy().into_owned();
            if file.starts_with(&prefix) && file.ends_with(".tmp") {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        drop(file);
        if std::env::var_os("MNEME_GATE_TEST_INTERRUPT_PIN").is_some() {
            // Test hook: die between the write and the rename, the way a
            // killed CI job would.
            std::process::abort();
        }
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn movement_respects_direction_and_tolerance() {
        assert_eq!(movement(Some(0.9), Some(0.8), Better::Higher, 0.0), Movement::Regressed);
        assert_eq!(movement(Some(0.9), Some(0.8), Better::Higher, 0.1), Movement::WithinTolerance);
        assert_eq!(movement(Some(0.9), Some(0.95), Better::Higher, 0.0), Movement::Improved);
        assert_eq!(movement(Some(0.2), Some(0.3), Better::Lower, 0.0), Movement::Regressed);
        assert_eq!(movement(Some(0.3), Some(0.2), Better::Lower, 0.0), Movement::Improved);
        assert_eq!(movement(Some(0.5), Some(0.5 + 1e-15), Better::Higher, 0.0), Movement::Unchanged);
        assert_eq!(movement(None, Some(0.5), Better::Higher, 0.0), Movement::NotComparable);
        assert_eq!(movement(None, None, Better::Higher, 0.0), Movement::Unchanged);
    }

    #[test]
    fn atomic_write_replaces_whole_files_and_cleans_up_on_failure() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("reports/baseline.json");
        write_atomically(&path, "one").unwrap();
        write_atomically(&path, "two").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        // A rename onto a folder fails: the temporary file is removed.
        let folder = dir.path().join("reports/is-a-folder");
        std::fs::create_dir_all(folder.join("x")).unwrap();
        assert!(write_atomically(&folder, "three").is_err());
        let left: Vec<_> = std::fs::read_dir(dir.path().join("reports"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(left.iter().all(|n| !n.ends_with(".tmp")), "{left:?}");
    }

    fn bundled() -> Report {
        load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/baseline.json")).unwrap()
    }

    fn source() -> BaselineSource {
        BaselineSource { path: "b.json".into(), revision: None, commit: None }
    }

    fn violated(rules: &[RuleOutcome]) -> Vec<&str> {
        rules.iter().filter(|r| r.violated).map(|r| r.rule.as_str()).collect()
    }

    #[test]
    fn identical_reports_have_no_change_and_no_violation() {
        let b = bundled();
        let c = compare(&b, &b, &GateSettings::default(), source());
        assert!(c.scenarios.is_empty() && c.added.is_empty() && c.removed.is_empty());
        assert!(!c.memory_changed && !c.suite_changed && c.incompatible.is_empty());
        assert!(c.metrics.iter().all(|m| m.movement == Movement::Unchanged), "{:?}", c.metrics);
        assert!(violated(&rules(&c, &GateSettings::default())).is_empty());
    }

    #[test]
    fn each_baseline_rule_fires_on_its_cause_and_obeys_its_mode() {
        let b = bundled();
        let settings = GateSettings::default();

        // A worse verdict.
        let mut now = b.clone();
        now.scenarios[0].verdict = Verdict::Fail;
        let c = compare(&b, &now, &settings, source());
        assert_eq!(c.scenarios.len(), 1);
        assert!(c.scenarios[0].regressed);
        assert_eq!(violated(&rules(&c, &settings)), ["verdict_regression"]);
        let mut off = GateSettings::default();
        off.set_mode("verdict_regression", crate::gate::RuleMode::Off);
        assert!(violated(&rules(&c, &off)).is_empty());
        // A better verdict is a change, not a regression.
        let c = compare(&now, &b, &settings, source());
        assert!(!c.scenarios[0].regressed);
        assert!(violated(&rules(&c, &settings)).is_empty());

        // A scenario gone, unless the run was filtered.
        let mut now = b.clone();
        let gone = now.scenarios.remove(3).id;
        let mut c = compare(&b, &now, &settings, source());
        assert_eq!(c.removed, [gone]);
        assert_eq!(violated(&rules(&c, &settings)), ["missing_scenarios"]);
        c.filtered = true;
        assert!(violated(&rules(&c, &settings)).is_empty());
        // A new scenario is only reported.
        let c = compare(&now, &b, &settings, source());
        assert_eq!(c.added.len(), 1);
        assert!(violated(&rules(&c, &settings)).is_empty());

        // Suite means: a lower mean or a higher rate, beyond the tolerance.
        let mut now = b.clone();
        now.summary.mrr = now.summary.mrr.map(|m| m - 0.02);
        now.summary.irrelevant_injection_rate = now.summary.irrelevant_injection_rate.map(|r| r + 0.01);
        let c = compare(&b, &now, &settings, source());
        let r = rules(&c, &settings);
        assert_eq!(violated(&r), ["suite_means"]);
        assert_eq!(r.iter().find(|r| r.rule == "suite_means").unwrap().details.len(), 2);
        assert!(crate::gate::GateOutcome::new(r).passed, "suite_means is advisory by default");
        let mut tolerant = GateSettings::default();
        tolerant.set_tolerance("mrr", 0.05);
        tolerant.set_tolerance("irrelevant_injection_rate", 0.01);
        let c = compare(&b, &now, &tolerant, source());
        assert!(violated(&rules(&c, &tolerant)).is_empty());
        let mrr = c.metrics.iter().find(|m| m.name == "mrr").unwrap();
        assert_eq!(mrr.movement, Movement::WithinTolerance);
        let mut strict = GateSettings::default();
        strict.set_mode("suite_means", crate::gate::RuleMode::Fail);
        assert!(!crate::gate::GateOutcome::new(rules(&compare(&b, &now, &strict, source()), &strict)).passed);
        // A higher mean is an improvement.
        let c = compare(&now, &b, &settings, source());
        assert_eq!(c.metrics.iter().find(|m| m.name == "mrr").unwrap().movement, Movement::Improved);
    }

    #[test]
    fn ranking_changes_are_itemised() {
        let b = bundled();
        let mut now = b.clone();
        let s = &mut now.scenarios[0];
        let first = s.retrieved.remove(0);
        for r in &mut s.retrieved {
            r.rank -= 1;
        }
        s.retrieved.push(crate::report::RetrievedEntry { id: "NEW-1".into(), score: 0.5, rank: 3 });
        let c = compare(&b, &now, &GateSettings::default(), source());
        let change = &c.scenarios[0];
        assert_eq!(change.left.len(), 1);
        assert_eq!((change.left[0].id.as_str(), change.left[0].baseline_rank), (first.id.as_str(), Some(1)));
        assert_eq!(change.entered[0].id, "NEW-1");
        assert_eq!(change.moved.len(), 2);
        let diff = change.context_diff.as_deref().unwrap();
        assert!(diff.contains(&format!("-1. [{}]", first.id)), "{diff}");
        assert!(diff.contains("+3. [NEW-1]"), "{diff}");
    }

    #[test]
    fn incompatible_settings_are_named() {
        let b = bundled();
        let mut now = b.clone();
        now.fingerprint.k = 5;
        now.fingerprint.profile.weights.title = 2.0;
        now.fingerprint.metrics_version = "mneme-gate.metrics/2".into();
        let found = incompatibilities(&b, &now);
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(found[0].starts_with("k: the baseline has 3, this run 5"));
        assert!(found.iter().any(|f| f.contains("weights.title: the baseline used 3, this run 2")), "{found:?}");
    }

    #[test]
    fn a_report_of_another_schema_is_refused_by_name() {
        let e = parse("b.json", r#"{"schema": "mneme-gate.report/v9"}"#).unwrap_err();
        assert!(e.to_string().contains("schema `mneme-gate.report/v9`"), "{e}");
        let e = parse("b.json", "{\n  \"schema\": \"mneme-gate.report/v1\",\n  \"tool\": 3\n}").unwrap_err();
        assert!(e.to_string().starts_with("b.json:3:"), "{e}");
        let e = parse("b.json", "not json").unwrap_err();
        assert!(e.to_string().starts_with("b.json:1:"), "{e}");
    }
}
