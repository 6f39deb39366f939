//! The gate rules that need a baseline: no verdict regression, no
//! scenario gone, no suite mean worse beyond its tolerance, and no re-pin
//! of the base revision's baseline unless accepted.

use crate::gate::{count, outcome, some_ids, GateSettings, Rule, RuleOutcome, SuiteMean};
use crate::report::comparison::{Comparison, Movement};
use crate::report::figures;

/// The gate rules that need a baseline, from a comparison.
pub fn rules(comparison: &Comparison, settings: &GateSettings) -> Vec<RuleOutcome> {
    let mut out = Vec::new();
    let regressed: Vec<&str> = comparison.scenarios.iter().filter(|c| c.regressed).map(|c| c.id.as_str()).collect();
    let details = comparison
        .scenarios
        .iter()
        .filter(|c| c.regressed)
        .map(|c| format!("{}: {} → {} ({})", c.id, c.baseline_verdict, c.current_verdict, c.source))
        .collect();
    out.push(outcome(
        Rule::VerdictRegression,
        "no scenario's verdict is worse than in the baseline (PASS > WEAK > WEAK_RETRIEVAL > FAIL > MALFORMED)".into(),
        settings.mode(Rule::VerdictRegression),
        format!(
            "{} regressed (verdict worse than in the baseline): {}",
            count(regressed.len(), "scenario", "scenarios"),
            some_ids(&regressed)
        ),
        details,
    ));
    let details = if comparison.filtered {
        Vec::new()
    } else {
        comparison.removed.iter().map(|id| format!("{id} is in the baseline but not in the suite")).collect()
    };
    let (is, they, was) = if comparison.removed.len() == 1 { ("is", "it", "was") } else { ("are", "they", "were") };
    out.push(outcome(
        Rule::MissingScenarios,
        "every scenario of the baseline is still in the suite".into(),
        settings.mode(Rule::MissingScenarios),
        format!(
            "{} of the baseline {is} missing from the suite: {} (a suite must not shrink silently; re-pin the baseline if {they} {was} removed on purpose)",
            count(comparison.removed.len(), "scenario", "scenarios"),
            some_ids(&comparison.removed)
        ),
        details,
    ));
    let worse: Vec<_> = comparison
        .metrics
        .iter()
        .filter(|m| m.rule == Some(Rule::SuiteMeans) && m.movement == Movement::Regressed)
        .collect();
    let details = worse
        .iter()
        .map(|m| {
            format!(
                "{}: {} → {} ({}, tolerance {})",
                m.name,
                fmt_figure(m.baseline),
                fmt_figure(m.current),
                figures::delta(m.delta.unwrap_or(0.0)),
                figures::exact(SuiteMean::named(&m.name).map_or(0.0, |f| settings.tolerance(f)))
            )
        })
        .collect();
    let names: Vec<&str> = worse.iter().map(|m| m.name.as_str()).collect();
    let (is, its) = if names.len() == 1 { ("is", "its") } else { ("are", "their") };
    out.push(outcome(
        Rule::SuiteMeans,
        "no suite mean is lower than the baseline's and no injection rate higher (beyond the tolerance)".into(),
        settings.mode(Rule::SuiteMeans),
        format!(
            "{} {is} worse than in the baseline beyond {its} tolerance: {}",
            count(names.len(), "suite figure", "suite figures"),
            some_ids(&names)
        ),
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
        // The one line says it all; it is the message too.
        let message = details.first().cloned().unwrap_or_default();
        out.push(outcome(
            Rule::BaselineChange,
            "the pull request does not move its own goalposts (the baseline is the base revision's)".into(),
            settings.mode(Rule::BaselineChange),
            message,
            details,
        ));
    }
    out
}

/// A suite figure in a detail line: never rounded onto 0 or 1 when it is
/// not ([`figures::rate`]).
fn fmt_figure(v: Option<f64>) -> String {
    v.map_or("—".into(), |v| figures::rate(v, None))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::comparison::{BaselineChange, BaselineSource};
    use crate::report::Report;
    use crate::verdict::Verdict;

    fn bundled() -> Report {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/baseline.json");
        crate::report::json::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    fn message(rules: &[RuleOutcome], rule: Rule) -> Option<&str> {
        rules.iter().find(|r| r.rule == rule).and_then(|r| r.message.as_deref())
    }

    fn compare(old: &Report, new: &Report) -> Comparison {
        let source = BaselineSource { path: "b.json".into(), revision: None, commit: None };
        crate::baseline::compare(old, new, &GateSettings::default(), source)
    }

    #[test]
    fn failure_messages_say_what_is_wrong_with_counts_and_ids() {
        let old = bundled();
        let settings = GateSettings::default();
        let mut new = old.clone();
        for s in &mut new.scenarios[..7] {
            s.verdict = Verdict::Fail;
        }
        let gone: Vec<String> = new.scenarios.drain(10..12).map(|s| s.id).collect();
        new.summary.mrr = new.summary.mrr.map(|m| m - 0.02);
        let c = compare(&old, &new);
        let r = rules(&c, &settings);
        let ids: Vec<&str> = new.scenarios[..5].iter().map(|s| s.id.as_str()).collect();
        assert_eq!(
            message(&r, Rule::VerdictRegression).unwrap(),
            format!("7 scenarios regressed (verdict worse than in the baseline): {} and 2 more", ids.join(", "))
        );
        assert_eq!(
            message(&r, Rule::MissingScenarios).unwrap(),
            format!(
                "2 scenarios of the baseline are missing from the suite: {} (a suite must not shrink silently; re-pin the baseline if they were removed on purpose)",
                gone.join(", ")
            )
        );
        assert_eq!(
            message(&r, Rule::SuiteMeans).unwrap(),
            "1 suite figure is worse than in the baseline beyond its tolerance: mrr"
        );
        let mrr = r.iter().find(|r| r.rule == Rule::SuiteMeans).unwrap();
        assert!(mrr.details[0].starts_with("mrr: ") && mrr.details[0].ends_with(" (-0.020, tolerance 0)"), "{mrr:?}");
        // A rule that holds has no message.
        let same = rules(&compare(&old, &old), &settings);
        assert!(same.iter().all(|r| r.message.is_none()), "{same:?}");
    }

    #[test]
    fn a_re_pin_is_its_own_message() {
        let old = bundled();
        let mut c = compare(&old, &old);
        c.baseline_change = Some(BaselineChange {
            revision: "main".into(),
            first_pin: false,
            scenarios: vec!["a".into(), "b".into()],
            added: vec![],
            removed: vec![],
            accepted: false,
            accepted_by: None,
        });
        let r = rules(&c, &GateSettings::default());
        let change = r.iter().find(|r| r.rule == Rule::BaselineChange).unwrap();
        assert!(change.violated);
        assert_eq!(change.message.as_deref(), Some(change.details[0].as_str()));
        assert!(change.details[0].starts_with("this change re-pins the baseline of main: 2 scenario(s) change"));
    }
}
