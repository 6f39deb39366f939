/*!
The gate's policy: a report and a plan in, the gated report out.

A run's report leaves the run stage with the rules that need only the run
([`run_rules`]: the absolute rules and the coverage rules of the whole
suite). [`evaluate`] then adds what needs more than the run, as the plan
says: the comparison with the baseline (which one, and whether it is
comparable), the memory diff against a revision, the rules that need a
baseline, `no_new_ungated`, and the conclusion (passed or failed).

Everything arrives as plain values ([`Plan`]): the baselines already read,
the memory at another revision already parsed. This stage reads no file,
no git repository and no environment; the command line resolves those and
decides what to do with the result (the reports, the exit code).
*/

use std::collections::HashSet;
use std::path::PathBuf;

use crate::baseline::{self, AtRevision, BaselineError, Comparison};
use crate::gate::{self, GateOutcome, GateSettings, Rule, RuleMode};
use crate::memory::{Decision, Excluded};
use crate::report::Report;
use crate::run::RunResult;

#[cfg(test)]
mod tests;

/// Which baseline a run is compared with, and how: the path, the base
/// revision, and what the user accepts.
#[derive(Debug, Clone)]
pub struct BaselinePlan {
    pub path: PathBuf,
    /// Read it at this revision (`--baseline-ref`).
    pub revision: Option<String>,
    pub accept_change: bool,
    /// Who or what accepted the re-pin (`--accepted-by`), for the reports.
    pub accepted_by: Option<String>,
    pub allow_incompatible: bool,
}

/// The baseline of a [`BaselinePlan`], read: the working tree's copy
/// (`None` when there is none) and, with a revision, the revision's.
#[derive(Debug)]
pub struct BaselineInput {
    pub plan: BaselinePlan,
    /// How reports and messages name the baseline file.
    pub shown: String,
    pub working: Option<Report>,
    pub at: Option<AtRevision>,
}

/// A memory at another revision: its retrieval pool, and what it is in
/// words (a revision, or the memory a baseline was pinned with).
#[derive(Debug, Clone)]
pub struct OldMemory {
    pub against: String,
    pub pool: Vec<Decision>,
}

/// What `no_new_ungated` compares the pool with when there is no memory
/// diff (`--memory-ref`).
#[derive(Debug, Clone)]
pub enum Since {
    /// Another memory: the one at the base revision, or the one the
    /// baseline was pinned with, found in the history.
    Memory(OldMemory),
    /// The memory the baseline was pinned with is the memory now (same
    /// SHA-256): nothing was added.
    Unchanged { against: String },
}

/// The memory the suite ran on: the pool and the records kept out of it.
#[derive(Debug, Clone, Copy)]
pub struct MemoryNow<'a> {
    pub pool: &'a [Decision],
    pub excluded: &'a [Excluded],
}

/// Everything the gate decides from besides the report.
#[derive(Debug)]
pub struct Plan<'a> {
    /// The rules' modes, tolerances and thresholds.
    pub gate: &'a GateSettings,
    /// The run holds part of the suite (`--filter`).
    pub filtered: bool,
    /// `None`: no baseline; only the rules of the run apply.
    pub baseline: Option<BaselineInput>,
    /// The memory now; needed by `memory_ref` and `since` only.
    pub memory: Option<MemoryNow<'a>>,
    /// `--memory-ref`: the memory at a revision, compared with the memory now.
    pub memory_ref: Option<OldMemory>,
    /// What `no_new_ungated` compares with when there is no `memory_ref`;
    /// `None` when there is nothing to compare with (no baseline).
    pub since: Option<Since>,
}

impl Plan<'_> {
    /// Whether `no_new_ungated` is judged: it is on and the run holds the
    /// whole suite. The inputs it reads (`memory`, `since`) are needed only
    /// then.
    pub fn judges_new_decisions(gate: &GateSettings, filtered: bool) -> bool {
        gate.mode(Rule::NoNewUngated) != RuleMode::Off && !filtered
    }
}

/// Why a plan cannot be evaluated.
#[derive(Debug, thiserror::Error)]
pub enum EvaluateError {
    /// The baseline cannot be used (none at the path or at the revision).
    #[error(transparent)]
    Baseline(#[from] BaselineError),
    /// The baseline was made with another k, profile or metric definitions,
    /// and the plan does not allow it.
    #[error("the baseline {path} is not comparable with this run")]
    Incompatible { path: String, differences: Vec<String> },
    /// A value the plan needs was not given (a caller's bug, not a user's).
    #[error("{0}: the memory was not loaded")]
    MemoryNotLoaded(&'static str),
}

/// The rules that need only the run, as the run stage reports them: the
/// absolute rules, and the coverage rules that need the whole suite (none
/// for one partition, whose gate `merge` decides) against `pool`.
pub fn run_rules(
    run: &RunResult,
    pool: &[Decision],
    gate: &GateSettings,
    filtered: bool,
    partition: bool,
) -> GateOutcome {
    let mut rules = gate::absolute_rules(run, gate);
    if !partition {
        rules.extend(gate::coverage_rules(run, pool, filtered, gate));
    }
    GateOutcome::new(rules)
}

/// The gated report: `report` (with the rules of the run) compared with the
/// plan's baseline and memory, its gate holding every rule and the
/// conclusion.
pub fn evaluate(mut report: Report, plan: Plan<'_>) -> Result<Report, EvaluateError> {
    let mut rules = std::mem::take(&mut report.gate.rules);
    let compared = match plan.baseline {
        Some(input) => Some(compare(input, &report, plan.gate, plan.filtered)?),
        None => None,
    };
    if let Some(old) = &plan.memory_ref {
        let now = plan.memory.ok_or(EvaluateError::MemoryNotLoaded("--memory-ref"))?;
        report.memory_diff = Some(baseline::memory_diff(&old.against, &old.pool, now.pool, now.excluded));
    }
    if let Some((mut comparison, baseline)) = compared {
        if let Some(diff) = &report.memory_diff {
            baseline::attribute(&mut comparison, diff, &baseline, &report);
        }
        rules.extend(baseline::rules(&comparison, plan.gate));
        report.comparison = Some(comparison);
    }
    if Plan::judges_new_decisions(plan.gate, plan.filtered) {
        if let Some(added) = added_decisions(&report, plan.memory, plan.since.as_ref())? {
            let expected: HashSet<&str> =
                report.scenarios.iter().flat_map(|s| s.expected.iter().map(String::as_str)).collect();
            rules.push(gate::no_new_ungated(&expected, &added.decisions, &added.against, plan.gate));
        }
    }
    report.gate = GateOutcome::new(rules);
    Ok(report)
}

/// Chooses the baseline ([`baseline::select`]), checks that it is
/// comparable, and compares the run with it.
fn compare(
    input: BaselineInput,
    current: &Report,
    settings: &GateSettings,
    filtered: bool,
) -> Result<(Comparison, Report), EvaluateError> {
    let BaselineInput { plan, shown, working, at } = input;
    let chosen =
        baseline::select(&plan.path, &shown, working, at, plan.accept_change, plan.accepted_by.as_deref(), settings)?;
    let differences = baseline::incompatibilities(&chosen.baseline, current);
    if !differences.is_empty() && !plan.allow_incompatible {
        return Err(EvaluateError::Incompatible { path: chosen.source.path, differences });
    }
    let mut comparison = baseline::compare(&chosen.baseline, current, settings, chosen.source);
    comparison.filtered = filtered;
    comparison.baseline_change = chosen.change;
    Ok((comparison, chosen.baseline))
}

/// The decisions of the pool that are new for `no_new_ungated`.
struct Added {
    /// What they are new against, in words.
    against: String,
    /// Their ids and titles, by id.
    decisions: Vec<(String, String)>,
}

/// The decisions new for `no_new_ungated` (ids and titles, by id) and what
/// they are new against: the memory diff's added decisions when there is
/// one, else the pool's decisions that `since` lacks. `None` when there is
/// nothing to compare with.
fn added_decisions(
    report: &Report,
    memory: Option<MemoryNow<'_>>,
    since: Option<&Since>,
) -> Result<Option<Added>, EvaluateError> {
    if let Some(diff) = &report.memory_diff {
        let decisions = diff.added.iter().map(|d| (d.id.clone(), d.title.clone())).collect();
        return Ok(Some(Added { against: diff.revision.clone(), decisions }));
    }
    let old = match since {
        None => return Ok(None),
        Some(Since::Unchanged { against }) => {
            return Ok(Some(Added { against: against.clone(), decisions: Vec::new() }))
        }
        Some(Since::Memory(old)) => old,
    };
    let now = memory.ok_or(EvaluateError::MemoryNotLoaded("no_new_ungated"))?;
    let known: HashSet<&str> = old.pool.iter().map(|d| d.id.as_str()).collect();
    let mut added: Vec<(String, String)> =
        now.pool.iter().filter(|d| !known.contains(d.id.as_str())).map(|d| (d.id.clone(), d.title.clone())).collect();
    added.sort();
    added.dedup_by(|a, b| a.0 == b.0);
    Ok(Some(Added { against: old.against.clone(), decisions: added }))
}
