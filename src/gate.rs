/*!
The gate: the rules of `spec/metrics.md` ("The default gate") evaluated on a
run, each with its mode and what violated it.

This module decides pass or fail; it does not print and does not choose exit
codes (the CLI maps a failed gate to exit 1). The absolute rules need only
the run; the rules that compare with a pinned baseline are added by the
baseline stage.
*/

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::memory::Decision;
use crate::metrics::{ScenarioMetrics, SuiteMetrics};
use crate::profile::Milli;
use crate::run::RunResult;
use crate::verdict::Verdict;

/// What a rule does when it is violated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum RuleMode {
    /// A violation fails the gate (exit 1).
    Fail,
    /// A violation is reported but does not fail the gate.
    Advisory,
    /// The rule is not evaluated.
    Off,
}

/// One rule, evaluated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RuleOutcome {
    /// Stable rule name, as used in `mneme-gate.yaml` (`gate:`).
    pub rule: Rule,
    /// What the rule demands, in words: its passing condition.
    pub description: String,
    pub mode: RuleMode,
    /// Whether the rule was violated (always false when `mode` is `off`).
    pub violated: bool,
    /// What is wrong, when the rule is violated: a count and the first few
    /// ids, in words that read as a failure on their own (`2 scenarios are
    /// WEAK_RETRIEVAL: a, b`), for a dashboard that shows nothing else.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// What violated it: one line per scenario or figure.
    pub details: Vec<String>,
}

impl RuleOutcome {
    /// A violation of a `fail` rule.
    pub fn fails(&self) -> bool {
        self.violated && self.mode == RuleMode::Fail
    }
}

/// Every rule of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GateOutcome {
    /// True when no `fail` rule is violated.
    pub passed: bool,
    pub rules: Vec<RuleOutcome>,
}

impl GateOutcome {
    pub fn new(rules: Vec<RuleOutcome>) -> GateOutcome {
        GateOutcome { passed: !rules.iter().any(RuleOutcome::fails), rules }
    }
}

/// A rule of the gate, by its name: the key of `mneme-gate.yaml`'s `gate:`
/// and the `rule` of a report's `gate.rules[]`, in the order the rules are
/// reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    Recall,
    WeakRetrieval,
    Malformed,
    PassRate,
    FalsePositive,
    VerdictRegression,
    MissingScenarios,
    SuiteMeans,
    BaselineChange,
    MinGatedShare,
    MinMargin,
    NoNewUngated,
}

impl Rule {
    /// Every rule, in the order they are reported. `false_positive` is
    /// reported only for a suite with benign scenarios (profile `mneme`);
    /// the four after it need a baseline; the last three, the coverage
    /// rules, are off unless configured and reported only when on
    /// (docs/gate.md).
    pub const ALL: [Rule; 12] = [
        Rule::Recall,
        Rule::WeakRetrieval,
        Rule::Malformed,
        Rule::PassRate,
        Rule::FalsePositive,
        Rule::VerdictRegression,
        Rule::MissingScenarios,
        Rule::SuiteMeans,
        Rule::BaselineChange,
        Rule::MinGatedShare,
        Rule::MinMargin,
        Rule::NoNewUngated,
    ];

    /// The rule's name, as in `mneme-gate.yaml` and in the reports.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Recall => "recall",
            Rule::WeakRetrieval => "weak_retrieval",
            Rule::Malformed => "malformed",
            Rule::PassRate => "pass_rate",
            Rule::FalsePositive => "false_positive",
            Rule::VerdictRegression => "verdict_regression",
            Rule::MissingScenarios => "missing_scenarios",
            Rule::SuiteMeans => "suite_means",
            Rule::BaselineChange => "baseline_change",
            Rule::MinGatedShare => "min_gated_share",
            Rule::MinMargin => "min_margin",
            Rule::NoNewUngated => "no_new_ungated",
        }
    }

    /// The rule's mode when nothing configures it (metrics.md, "The default
    /// gate").
    pub fn default_mode(self) -> RuleMode {
        match self {
            Rule::SuiteMeans => RuleMode::Advisory,
            Rule::MinGatedShare | Rule::MinMargin | Rule::NoNewUngated => RuleMode::Off,
            _ => RuleMode::Fail,
        }
    }

    /// The rule named `name`, if there is one.
    pub fn named(name: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.name() == name)
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The absolute rules, in the order they are reported.
pub const ABSOLUTE_RULES: [Rule; 4] = [Rule::Recall, Rule::WeakRetrieval, Rule::Malformed, Rule::PassRate];

/// The coverage rules (docs/coverage.md), in the order they are reported.
pub const COVERAGE_RULES: [Rule; 3] = [Rule::MinGatedShare, Rule::MinMargin, Rule::NoNewUngated];

/// Whether a higher value of a suite figure is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    Higher,
    Lower,
}

/// A suite figure the `suite_means` rule compares with the baseline: a
/// mean lower than the baseline's, or a rate higher, beyond its tolerance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SuiteMean {
    MeanRecallAt1,
    MeanPrecisionAtK,
    Mrr,
    MeanNdcgAtK,
    IrrelevantInjectionRate,
    UngovernedInjectionRate,
}

impl SuiteMean {
    /// Every figure, in the order they are configured and compared.
    pub const ALL: [SuiteMean; 6] = [
        SuiteMean::MeanRecallAt1,
        SuiteMean::MeanPrecisionAtK,
        SuiteMean::Mrr,
        SuiteMean::MeanNdcgAtK,
        SuiteMean::IrrelevantInjectionRate,
        SuiteMean::UngovernedInjectionRate,
    ];

    /// The figure's name, as in the report's summary and in
    /// `gate.tolerances` of `mneme-gate.yaml`.
    pub fn name(self) -> &'static str {
        match self {
            SuiteMean::MeanRecallAt1 => "mean_recall_at_1",
            SuiteMean::MeanPrecisionAtK => "mean_precision_at_k",
            SuiteMean::Mrr => "mrr",
            SuiteMean::MeanNdcgAtK => "mean_ndcg_at_k",
            SuiteMean::IrrelevantInjectionRate => "irrelevant_injection_rate",
            SuiteMean::UngovernedInjectionRate => "ungoverned_injection_rate",
        }
    }

    /// Whether a higher value is better (a mean) or worse (a rate).
    pub fn better(self) -> Better {
        match self {
            SuiteMean::IrrelevantInjectionRate | SuiteMean::UngovernedInjectionRate => Better::Lower,
            _ => Better::Higher,
        }
    }

    /// The figure named `name`, if `suite_means` compares one by that name.
    pub fn named(name: &str) -> Option<SuiteMean> {
        SuiteMean::ALL.into_iter().find(|m| m.name() == name)
    }
}

impl std::fmt::Display for SuiteMean {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The gate as configured: a mode per rule and a tolerance per suite figure.
#[derive(Debug, Clone, PartialEq)]
pub struct GateSettings {
    /// The mode of each rule, in the order of [`Rule::ALL`].
    modes: [RuleMode; Rule::ALL.len()],
    /// The tolerance of each suite figure, in the order of [`SuiteMean::ALL`].
    tolerances: [f64; SuiteMean::ALL.len()],
    /// The threshold of `min_gated_share` (a share between 0 and 1).
    min_gated_share: f64,
    /// The threshold of `min_margin` (a score).
    min_margin: Milli,
}

impl Default for GateSettings {
    fn default() -> Self {
        GateSettings {
            modes: Rule::ALL.map(Rule::default_mode),
            tolerances: [0.0; SuiteMean::ALL.len()],
            min_gated_share: 0.0,
            min_margin: Milli::ZERO,
        }
    }
}

impl GateSettings {
    /// The mode of a rule.
    pub fn mode(&self, rule: Rule) -> RuleMode {
        self.modes[rule as usize]
    }

    /// Sets a rule's mode.
    pub fn set_mode(&mut self, rule: Rule, mode: RuleMode) {
        self.modes[rule as usize] = mode;
    }

    /// How far a suite figure may move the wrong way before `suite_means`
    /// counts it (0 unless configured).
    pub fn tolerance(&self, figure: SuiteMean) -> f64 {
        self.tolerances[figure as usize]
    }

    /// Sets a figure's tolerance.
    pub fn set_tolerance(&mut self, figure: SuiteMean, tolerance: f64) {
        self.tolerances[figure as usize] = tolerance;
    }

    /// The threshold of `min_gated_share`: the share of pool decisions some
    /// scenario must expect.
    pub fn min_gated_share(&self) -> f64 {
        self.min_gated_share
    }

    /// Sets the threshold of `min_gated_share` (between 0 and 1).
    pub fn set_min_gated_share(&mut self, share: f64) {
        self.min_gated_share = share;
    }

    /// The threshold of `min_margin`: the score by which every governed
    /// scenario's expected decisions must win.
    pub fn min_margin(&self) -> Milli {
        self.min_margin
    }

    /// Sets the threshold of `min_margin`.
    pub fn set_min_margin(&mut self, margin: Milli) {
        self.min_margin = margin;
    }
}

/// What the absolute rules read of one scenario: a run's scenario, or one
/// carried through a partial report (`merge`).
#[derive(Debug, Clone, Copy)]
pub struct Judged<'a> {
    pub id: &'a str,
    pub metrics: &'a ScenarioMetrics,
    pub verdict: Verdict,
    /// The verdict's explanation as judged (its triggers not yet cut to an
    /// excerpt, as the report cuts them).
    pub explanation: &'a str,
    pub governed_violations: usize,
    /// Marked `review: pending`: reported, but no rule counts it.
    pub review_pending: bool,
}

impl<'a> Judged<'a> {
    /// A scenario of a run.
    pub fn of(s: &'a crate::run::ScenarioRun) -> Judged<'a> {
        Judged {
            id: &s.scenario.id,
            metrics: &s.metrics,
            verdict: s.verdict.verdict,
            explanation: &s.verdict.explanation,
            governed_violations: s.verdict.governed_violations,
            review_pending: s.scenario.review.is_pending(),
        }
    }
}

/// What a run says when some of its scenarios wait for review (`review:
/// pending`): how many, and that the gate does not count them; `None` when
/// every scenario is reviewed.
pub fn pending_review_warning(pending: usize, total: usize) -> Option<String> {
    if pending == 0 {
        return None;
    }
    let all = if pending == total { " (all of them: the gate rests on no reviewed scenario)" } else { "" };
    Some(format!(
        "{pending} of {total} scenario(s) wait for review (`review: pending`){all}: they ran and are reported, \
         but the gate does not count them until a person reviews each one and removes the marker"
    ))
}

/// The absolute rules of the default gate, each in `fail` mode unless
/// `mode_of` says otherwise.
pub fn absolute_rules(run: &RunResult, settings: &GateSettings) -> Vec<RuleOutcome> {
    let scenarios: Vec<Judged<'_>> = run.scenarios.iter().map(Judged::of).collect();
    absolute_rules_of(run.k, &run.summary, &scenarios, settings)
}

/// [`absolute_rules`] of scenarios given in suite order, with the suite's
/// figures: what `merge` evaluates on the partitions of a run.
pub fn absolute_rules_of(
    k: usize,
    summary: &SuiteMetrics,
    scenarios: &[Judged<'_>],
    settings: &GateSettings,
) -> Vec<RuleOutcome> {
    let mode_of = |rule: Rule| settings.mode(rule);
    let mut out = Vec::new();
    // Scenarios waiting for review run and are reported, but no rule counts
    // them; the pass rate is then recounted over the reviewed ones.
    let reviewed: Vec<Judged<'_>>;
    let mut pass_fail = (summary.pass, summary.fail);
    let scenarios = if scenarios.iter().any(|s| s.review_pending) {
        reviewed = scenarios.iter().filter(|s| !s.review_pending).copied().collect();
        let count = |v: Verdict| reviewed.iter().filter(|s| s.verdict == v).count();
        pass_fail = (count(Verdict::Pass), count(Verdict::Fail));
        &reviewed[..]
    } else {
        scenarios
    };

    let mut details = Vec::new();
    let mut missing = Vec::new();
    for s in scenarios {
        if let Some(r) = s.metrics.recall_at_k {
            if r < 1.0 {
                details.push(format!(
                    "{}: recall@{k} {} (missing {})",
                    s.id,
                    fmt_ratio(s.metrics.hits, s.metrics.expected_count),
                    s.metrics.missed.join(", ")
                ));
                missing.push(s.id);
            }
        }
    }
    let (miss, decisions) =
        if missing.len() == 1 { ("misses", "an expected decision") } else { ("miss", "expected decisions") };
    out.push(outcome(
        Rule::Recall,
        format!("every governed scenario retrieves all of its expected decisions (recall@{k} = 1.0)"),
        mode_of(Rule::Recall),
        format!(
            "{} {miss} {decisions} (recall@{k} below 1.0): {}",
            count(missing.len(), "governed scenario", "governed scenarios"),
            some_ids(&missing)
        ),
        details,
    ));

    for (rule, verdict) in [(Rule::WeakRetrieval, Verdict::WeakRetrieval), (Rule::Malformed, Verdict::Malformed)] {
        let (message, details) = verdict_lines(scenarios, verdict);
        out.push(outcome(rule, format!("no scenario is {verdict}"), mode_of(rule), message, details));
    }

    let (failing, _) = verdict_lines(scenarios, Verdict::Fail);
    // Not the explanations: they quote the answers' triggers, which only
    // the report cuts to an excerpt (and each FAIL has a line of its own).
    let details = if summary.layer2_evaluated && summary.pass_rate.is_some_and(|r| r < 1.0) {
        scenarios
            .iter()
            .filter(|s| s.verdict == Verdict::Fail)
            .map(|s| format!("{}: FAIL, {} violation(s) in the governed answer", s.id, s.governed_violations))
            .collect()
    } else {
        Vec::new()
    };
    out.push(outcome(
        Rule::PassRate,
        "the pass rate is 1.0 when governed answers were checked".into(),
        mode_of(Rule::PassRate),
        // The fraction, not a rounded rate: 8789 of 8790 is not `1.000`.
        format!("pass rate {}/{} is below 1.0: {failing}", pass_fail.0, pass_fail.0 + pass_fail.1),
        details,
    ));
    // Benign scenarios (profile `mneme`): blocking benign content fails like
    // a missed violation, as in Mneme's benchmark.
    if summary.benign.is_some() {
        let (message, details) = verdict_lines(scenarios, Verdict::FalsePositive);
        out.push(outcome(
            Rule::FalsePositive,
            "no benign scenario is FALSE_POSITIVE".into(),
            mode_of(Rule::FalsePositive),
            message,
            details,
        ));
    }
    out
}

/// The coverage rules that need only the run and the pool:
/// `min_gated_share` (not with `--filter`, which runs part of the suite)
/// and `min_margin`. Each is listed only when it is on.
pub fn coverage_rules(run: &RunResult, pool: &[Decision], filtered: bool, settings: &GateSettings) -> Vec<RuleOutcome> {
    let mut out = Vec::new();
    let mode = settings.mode(Rule::MinGatedShare);
    if mode != RuleMode::Off && !filtered {
        let expected: HashSet<&str> = run
            .scenarios
            .iter()
            .filter(|s| !s.scenario.review.is_pending())
            .flat_map(|s| s.scenario.expect.iter().map(String::as_str))
            .collect();
        let ungated: Vec<&Decision> = pool.iter().filter(|d| !expected.contains(d.id.as_str())).collect();
        let gated = pool.len() - ungated.len();
        let min = settings.min_gated_share();
        // An empty pool has nothing to gate.
        let below = !pool.is_empty() && (gated as f64) < min * pool.len() as f64;
        let details = if below {
            ungated.iter().map(|d| format!("{}: no scenario expects it ({})", d.id, d.title)).collect()
        } else {
            Vec::new()
        };
        let ids: Vec<&str> = ungated.iter().map(|d| d.id.as_str()).collect();
        out.push(outcome(
            Rule::MinGatedShare,
            format!("a share of at least {min} of the pool's decisions is expected by some scenario (min_gated_share)"),
            mode,
            format!(
                "the suite expects {gated} of {} pool decisions, a share below min_gated_share {min}: {} ungated: {}",
                pool.len(),
                ids.len(),
                some_ids(&ids)
            ),
            details,
        ));
    }
    let mode = settings.mode(Rule::MinMargin);
    if mode != RuleMode::Off {
        let min = settings.min_margin();
        let thin: Vec<&crate::run::ScenarioRun> =
            run.scenarios.iter().filter(|s| s.metrics.margin.is_some_and(|m| m < min.as_f64())).collect();
        let details = thin.iter().map(|s| format!("{}: {}", s.scenario.id, margin_line(s))).collect();
        let ids: Vec<&str> = thin.iter().map(|s| s.scenario.id.as_str()).collect();
        let (wins, decision) = if ids.len() == 1 { ("wins", "its") } else { ("win", "their") };
        out.push(outcome(
            Rule::MinMargin,
            format!("every governed scenario's expected decisions win by a score margin of at least {min}"),
            mode,
            format!(
                "{} {wins} by a margin below {min} (one edit of another decision could push out {decision} expected decision): {}",
                count(ids.len(), "governed scenario", "governed scenarios"),
                some_ids(&ids)
            ),
            details,
        ));
    }
    out
}

/// A scenario's margin in words: `margin 0.5: ADR-003 (rank 2, 4.0) over
/// ADR-009 (3.5)`.
fn margin_line(s: &crate::run::ScenarioRun) -> String {
    let m = &s.metrics;
    let last = s.retrieved.iter().rev().find(|r| s.scenario.expect.contains(&r.id));
    let margin = m.margin.map_or("—".into(), |v| Milli((v * 1000.0).round() as i64).to_string());
    let over = match &m.runner_up {
        Some(r) => {
            let score = Milli((r.score * 1000.0).round() as i64);
            match &r.id {
                Some(id) => format!("{id} ({score})"),
                None => format!("any decision the query does not touch ({score})"),
            }
        }
        None => "nothing".into(),
    };
    match last {
        Some(l) => format!("margin {margin}: {} (rank {}, {}) over {over}", l.id, l.rank, l.score),
        None => format!("margin {margin}"),
    }
}

/// `no_new_ungated`: every decision added since `against` (a revision, or
/// the memory the baseline was pinned with) is expected by some scenario of
/// the run. `added` are the added decisions' ids and titles.
pub fn no_new_ungated(
    run_expected: &HashSet<&str>,
    added: &[(String, String)],
    against: &str,
    settings: &GateSettings,
) -> RuleOutcome {
    let ungated: Vec<&(String, String)> = added.iter().filter(|(id, _)| !run_expected.contains(id.as_str())).collect();
    let details = ungated
        .iter()
        .map(|(id, title)| format!("{id}: added since {against}, no scenario expects it ({title})"))
        .collect();
    let ids: Vec<&str> = ungated.iter().map(|(id, _)| id.as_str()).collect();
    let (is, it) = if ids.len() == 1 { ("is", "it") } else { ("are", "them") };
    outcome(
        Rule::NoNewUngated,
        format!("every decision added since {against} is expected by some scenario"),
        settings.mode(Rule::NoNewUngated),
        format!(
            "{} added since {against} {is} expected by no scenario: {} (add a scenario that expects {it})",
            count(ids.len(), "decision", "decisions"),
            some_ids(&ids)
        ),
        details,
    )
}

/// How many scenarios have `verdict`, with the first few ids
/// (`2 scenarios are FAIL: a, b`), and one line per scenario with its
/// explanation.
fn verdict_lines(scenarios: &[Judged<'_>], verdict: Verdict) -> (String, Vec<String>) {
    let ids: Vec<&str> = scenarios.iter().filter(|s| s.verdict == verdict).map(|s| s.id).collect();
    let details =
        scenarios.iter().filter(|s| s.verdict == verdict).map(|s| format!("{}: {}", s.id, s.explanation)).collect();
    let is = if ids.len() == 1 { "is" } else { "are" };
    (format!("{} {is} {verdict}: {}", count(ids.len(), "scenario", "scenarios"), some_ids(&ids)), details)
}

/// How many ids a rule's message names before `and N more`.
pub const IDS_IN_MESSAGE: usize = 5;

/// `1 scenario`, `3 scenarios`.
pub(crate) fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The first [`IDS_IN_MESSAGE`] ids, then how many more: `a, b, c, d, e and
/// 2 more`.
pub(crate) fn some_ids<S: AsRef<str>>(ids: &[S]) -> String {
    let shown: Vec<&str> = ids.iter().take(IDS_IN_MESSAGE).map(AsRef::as_ref).collect();
    let mut out = shown.join(", ");
    if ids.len() > IDS_IN_MESSAGE {
        out.push_str(&format!(" and {} more", ids.len() - IDS_IN_MESSAGE));
    }
    out
}

/// A rule, evaluated: violated when it is not off and something violated
/// it (`details` is not empty); `message` says what is wrong and is kept
/// only then.
pub(crate) fn outcome(
    rule: Rule,
    description: String,
    mode: RuleMode,
    message: String,
    details: Vec<String>,
) -> RuleOutcome {
    let violated = mode != RuleMode::Off && !details.is_empty();
    RuleOutcome {
        rule,
        description,
        mode,
        violated,
        message: violated.then_some(message),
        details: if mode == RuleMode::Off { Vec::new() } else { details },
    }
}

fn fmt_ratio(hits: usize, of: usize) -> String {
    format!("{hits}/{of}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::{ScenarioMetrics, SuiteMetrics};
    use crate::run::ScenarioRun;
    use crate::scenarios::{Scenario, SuiteFormat};
    use crate::verdict::VerdictResult;
    use std::path::PathBuf;

    fn scenario_run(id: &str, expect: &[&str], retrieved: &[&str], verdict: Verdict, layer2: bool) -> ScenarioRun {
        let scenario = Scenario {
            id: id.into(),
            category: "c".into(),
            description: String::new(),
            task: "t".into(),
            file: None,
            expect: expect.iter().map(|s| s.to_string()).collect(),
            acceptable: vec![],
            control: None,
            governed: None,
            assertions: vec![],
            expected_failure_terms: vec![],
            scenario_type: Default::default(),
            commit: None,
            review: Default::default(),
            exposed: Vec::new(),
            problems: Vec::new(),
            source: PathBuf::from("s.yaml"),
            line: 1,
            column: 1,
            suite_root: PathBuf::from("."),
            format: SuiteFormat::Native,
            read: Vec::new(),
        };
        let metrics = ScenarioMetrics::compute(retrieved, expect, &[] as &[&str], 3);
        ScenarioRun {
            scenario,
            retrieved: vec![],
            verdict: VerdictResult {
                verdict,
                explanation: format!("{verdict} because"),
                control_triggers: vec![],
                governed_triggers: vec![],
                missing: metrics.missed.clone(),
                warnings: vec![],
                control_violations: 0,
                governed_violations: 0,
            },
            metrics,
            layer2,
            warnings: vec![],
            why_not: vec![],
        }
    }

    fn run_of(scenarios: Vec<ScenarioRun>) -> RunResult {
        let summary = SuiteMetrics::aggregate(&scenarios);
        RunResult { k: 3, scenarios, summary }
    }

    #[test]
    fn a_rule_is_written_and_read_by_its_name() {
        for rule in Rule::ALL {
            assert_eq!(serde_json::to_string(&rule).unwrap(), format!("\"{}\"", rule.name()));
            assert_eq!(Rule::named(rule.name()), Some(rule));
            assert_eq!(GateSettings::default().mode(rule), rule.default_mode());
        }
        assert_eq!(Rule::named("recal"), None);
        // A report naming no rule of the gate is refused, not read as `fail`.
        let e = serde_json::from_str::<Rule>("\"recal\"").unwrap_err();
        assert!(e.to_string().contains("unknown variant `recal`"), "{e}");
        let modes: Vec<RuleMode> = Rule::ALL.map(Rule::default_mode).into();
        use RuleMode::{Advisory, Fail, Off};
        assert_eq!(modes, [Fail, Fail, Fail, Fail, Fail, Fail, Fail, Advisory, Fail, Off, Off, Off]);
    }

    #[test]
    fn a_suite_figure_is_configured_by_its_name_and_typed_after() {
        let names: Vec<&str> = SuiteMean::ALL.map(SuiteMean::name).into();
        assert_eq!(
            names,
            [
                "mean_recall_at_1",
                "mean_precision_at_k",
                "mrr",
                "mean_ndcg_at_k",
                "irrelevant_injection_rate",
                "ungoverned_injection_rate"
            ]
        );
        for figure in SuiteMean::ALL {
            assert_eq!(SuiteMean::named(figure.name()), Some(figure));
        }
        assert_eq!(SuiteMean::named("mean_recall_at_k"), None, "judged by `recall`, not `suite_means`");
        let rates: Vec<SuiteMean> = SuiteMean::ALL.into_iter().filter(|m| m.better() == Better::Lower).collect();
        assert_eq!(rates, [SuiteMean::IrrelevantInjectionRate, SuiteMean::UngovernedInjectionRate]);
        let mut settings = GateSettings::default();
        settings.set_tolerance(SuiteMean::Mrr, 0.05);
        assert_eq!(SuiteMean::ALL.map(|m| settings.tolerance(m)), [0.0, 0.0, 0.05, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn a_clean_run_passes_every_rule() {
        let run = run_of(vec![
            scenario_run("a", &["X"], &["X", "Y"], Verdict::Pass, true),
            scenario_run("b", &[], &["Y"], Verdict::Pass, false),
        ]);
        let gate = GateOutcome::new(absolute_rules(&run, &GateSettings::default()));
        assert!(gate.passed);
        assert_eq!(gate.rules.iter().map(|r| r.rule).collect::<Vec<_>>(), ABSOLUTE_RULES);
        assert!(gate.rules.iter().all(|r| !r.violated));
    }

    #[test]
    fn scenarios_waiting_for_review_are_not_counted() {
        let mut pending = scenario_run("drafted", &["X"], &["Y"], Verdict::WeakRetrieval, true);
        pending.scenario.review = crate::scenarios::Review::Pending;
        let mut failing = scenario_run("drafted-fail", &["X"], &["X"], Verdict::Fail, true);
        failing.scenario.review = crate::scenarios::Review::Pending;
        let run = run_of(vec![scenario_run("a", &["X"], &["X"], Verdict::Pass, true), pending, failing]);
        let gate = GateOutcome::new(absolute_rules(&run, &GateSettings::default()));
        assert!(gate.passed, "{gate:?}");
        // Once reviewed, the same scenarios fail it.
        let mut run = run;
        for s in &mut run.scenarios {
            s.scenario.review = crate::scenarios::Review::Reviewed;
        }
        let gate = GateOutcome::new(absolute_rules(&run, &GateSettings::default()));
        let violated: Vec<&str> = gate.rules.iter().filter(|r| r.violated).map(|r| r.rule.name()).collect();
        assert_eq!(violated, ["recall", "weak_retrieval", "pass_rate"]);
    }

    #[test]
    fn each_absolute_rule_fires_on_its_own_cause() {
        let run = run_of(vec![scenario_run("miss", &["X", "Z"], &["X"], Verdict::WeakRetrieval, false)]);
        let rules = absolute_rules(&run, &GateSettings::default());
        let violated: Vec<&str> = rules.iter().filter(|r| r.violated).map(|r| r.rule.name()).collect();
        assert_eq!(violated, ["recall", "weak_retrieval"]);
        assert_eq!(rules[0].details, ["miss: recall@3 1/2 (missing Z)"]);
        assert_eq!(
            rules[0].message.as_deref(),
            Some("1 governed scenario misses an expected decision (recall@3 below 1.0): miss")
        );
        assert_eq!(rules[1].message.as_deref(), Some("1 scenario is WEAK_RETRIEVAL: miss"));

        let run = run_of(vec![scenario_run("bad", &[], &[], Verdict::Malformed, false)]);
        let violated: Vec<Rule> =
            absolute_rules(&run, &GateSettings::default()).into_iter().filter(|r| r.violated).map(|r| r.rule).collect();
        assert_eq!(violated, [Rule::Malformed]);

        let run = run_of(vec![
            scenario_run("ok", &["X"], &["X"], Verdict::Pass, true),
            scenario_run("leak", &["X"], &["X"], Verdict::Fail, true),
        ]);
        let rules = absolute_rules(&run, &GateSettings::default());
        let violated: Vec<&str> = rules.iter().filter(|r| r.violated).map(|r| r.rule.name()).collect();
        assert_eq!(violated, ["pass_rate"]);
        assert_eq!(rules[3].details, ["leak: FAIL, 0 violation(s) in the governed answer"]);
        assert_eq!(rules[3].message.as_deref(), Some("pass rate 1/2 is below 1.0: 1 scenario is FAIL: leak"));
        assert!(rules.iter().filter(|r| !r.violated).all(|r| r.message.is_none()));
    }

    #[test]
    fn a_failure_message_counts_and_names_the_first_few() {
        let scenarios: Vec<ScenarioRun> =
            (0..7).map(|i| scenario_run(&format!("s{i}"), &["X"], &[], Verdict::WeakRetrieval, false)).collect();
        let rules = absolute_rules(&run_of(scenarios), &GateSettings::default());
        assert_eq!(rules[1].message.as_deref(), Some("7 scenarios are WEAK_RETRIEVAL: s0, s1, s2, s3, s4 and 2 more"));
        assert_eq!(rules[1].details.len(), 7);
        assert_eq!(
            rules[0].message.as_deref(),
            Some("7 governed scenarios miss expected decisions (recall@3 below 1.0): s0, s1, s2, s3, s4 and 2 more")
        );
        assert_eq!(some_ids(&["a"; 5]), "a, a, a, a, a");
        assert_eq!(count(1, "figure", "figures"), "1 figure");
    }

    #[test]
    fn pass_rate_is_not_judged_without_layer2() {
        // A retrieval-only suite with a WEAK_RETRIEVAL scenario: pass_rate is
        // 0/0 → 0 by convention, but Layer 2 was never evaluated.
        let run = run_of(vec![scenario_run("miss", &["X"], &[], Verdict::WeakRetrieval, false)]);
        let rules = absolute_rules(&run, &GateSettings::default());
        assert!(!rules[3].violated);
    }

    #[test]
    fn advisory_and_off_modes_do_not_fail() {
        let run = run_of(vec![scenario_run("miss", &["X"], &[], Verdict::WeakRetrieval, false)]);
        let mut settings = GateSettings::default();
        for rule in ABSOLUTE_RULES {
            settings.set_mode(rule, RuleMode::Off);
        }
        settings.set_mode(Rule::Recall, RuleMode::Advisory);
        let gate = GateOutcome::new(absolute_rules(&run, &settings));
        assert!(gate.passed);
        assert!(gate.rules[0].violated);
        assert!(!gate.rules[1].violated && gate.rules[1].details.is_empty());
        let gate = GateOutcome::new(absolute_rules(&run, &GateSettings::default()));
        assert!(!gate.passed);
    }

    #[test]
    fn a_false_positive_fails_like_a_fail_unless_configured() {
        let mut benign = scenario_run("benign", &["X"], &["X"], Verdict::FalsePositive, true);
        benign.scenario.scenario_type = crate::scenarios::ScenarioType::Benign;
        let run = run_of(vec![scenario_run("ok", &["X"], &["X"], Verdict::Pass, true), benign]);
        let gate = GateOutcome::new(absolute_rules(&run, &GateSettings::default()));
        assert!(!gate.passed);
        let rule = gate.rules.iter().find(|r| r.rule == Rule::FalsePositive).unwrap();
        assert_eq!(rule.details, ["benign: FALSE_POSITIVE because"]);
        // pass_rate is Mneme's, over violation scenarios: 1/1.
        assert!(!gate.rules.iter().find(|r| r.rule == Rule::PassRate).unwrap().violated);
        let mut settings = GateSettings::default();
        settings.set_mode(Rule::FalsePositive, RuleMode::Advisory);
        assert!(GateOutcome::new(absolute_rules(&run, &settings)).passed);
        // A suite without benign scenarios does not list the rule.
        let run = run_of(vec![scenario_run("ok", &["X"], &["X"], Verdict::Pass, true)]);
        assert!(absolute_rules(&run, &GateSettings::default()).iter().all(|r| r.rule != Rule::FalsePositive));
    }
}
