//! The gate rules that need a baseline: no verdict regression, no
//! scenario gone, no suite mean worse beyond its tolerance, and no re-pin
//! of the base revision's baseline unless accepted.

use crate::gate::{outcome, GateSettings, RuleOutcome};
use crate::report::comparison::{Comparison, Movement};

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
        // A first pin moves no goalposts: the base revision had none.
        if !change.accepted && !change.first_pin {
            details.push(format!(
                "this change re-pins the baseline of {}: {} scenario(s) change, {} added, {} removed (accept it with --accept-baseline-change)",
                change.revision,
                change.scenarios.len(),
                change.added.len(),
                change.removed.len()
            ));
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
