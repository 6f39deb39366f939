//! Comparing a run with its baseline: scenario by scenario (verdict,
//! ranking, figures, context block) and figure by figure for the suite.

use std::collections::BTreeMap;

use super::incompatibilities;
use crate::gate::{Better, GateSettings, Rule, SuiteMean};
use crate::metrics::SuiteMetrics;
use crate::report::comparison::{BaselineSource, Comparison, DecisionMove, MetricChange, Movement, ScenarioChange};
use crate::report::{Report, ScenarioReport};

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
        statistics: Some(super::statistics::statistics(baseline, current)),
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
            delta: a.zip(b).map(|(a, b)| change(a, b)),
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

/// Figures are means of exact fractions: a difference of at most this is
/// floating-point noise (the same fractions summed in another order), not a
/// change.
const NOISE: f64 = 1e-12;

/// `after − before`, or 0 when the difference is [`NOISE`]: a report never
/// shows a figure as moved by `-0.000001` when its fraction did not move.
fn change(before: f64, after: f64) -> f64 {
    let d = after - before;
    if d.abs() <= NOISE {
        0.0
    } else {
        d
    }
}

fn movement(before: Option<f64>, after: Option<f64>, better: Better, tolerance: f64) -> Movement {
    match (before, after) {
        (Some(a), Some(b)) => {
            let worse_by = match better {
                Better::Higher => a - b,
                Better::Lower => b - a,
            };
            if worse_by.abs() <= NOISE {
                Movement::Unchanged
            } else if worse_by < 0.0 {
                Movement::Improved
            } else if worse_by <= tolerance + NOISE {
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
        let (better, rule, tolerance) = match SuiteMean::named(name) {
            Some(figure) => (figure.better(), Some(Rule::SuiteMeans), settings.tolerance(figure)),
            // mean recall@k is judged per scenario by the `recall` rule.
            None => (Better::Higher, Some(Rule::Recall), 0.0),
        };
        out.push(MetricChange {
            name: name.to_string(),
            baseline: a,
            current: b,
            delta: a.zip(b).map(|(a, b)| change(a, b)),
            movement: movement(a, b, better, tolerance),
            rule,
        });
    }
    let pass_rate = |m: &SuiteMetrics| m.pass_rate;
    out.push(MetricChange {
        name: "pass_rate".into(),
        baseline: pass_rate(old),
        current: pass_rate(new),
        delta: pass_rate(old).zip(pass_rate(new)).map(|(a, b)| change(a, b)),
        movement: movement(pass_rate(old), pass_rate(new), Better::Higher, 0.0),
        rule: Some(Rule::PassRate),
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
        // 28/43 summed in two orders: one ulp apart, no change shown.
        assert_eq!(change(0.6511627906976745, 0.6511627906976744), 0.0);
        assert_eq!(change(0.5, 0.25), -0.25);
        assert_eq!(movement(None, Some(0.5), Better::Higher, 0.0), Movement::NotComparable);
        assert_eq!(movement(None, None, Better::Higher, 0.0), Movement::Unchanged);
    }

    #[test]
    fn a_pass_rate_over_nothing_judged_is_not_measured_never_a_regression() {
        use crate::verdict::Verdict;
        let judged = |verdict: Verdict| {
            let m = crate::metrics::ScenarioMetrics::compute(&["a"], &["a"], &[] as &[&str], 3);
            SuiteMetrics::aggregate([("c", &m, verdict)])
        };
        let (none, all) = (judged(Verdict::WeakRetrieval), judged(Verdict::Pass));
        assert_eq!((none.pass_rate, all.pass_rate), (None, Some(1.0)));
        let pass_rate = |old: &SuiteMetrics, new: &SuiteMetrics| {
            let changes = suite_metric_changes(old, new, &GateSettings::default());
            changes.into_iter().find(|c| c.name == "pass_rate").unwrap()
        };
        let lost = pass_rate(&all, &none);
        assert_eq!((lost.current, lost.delta, lost.movement), (None, None, Movement::NotComparable));
        assert_eq!(pass_rate(&none, &all).movement, Movement::NotComparable);
        assert_eq!(pass_rate(&none, &none).movement, Movement::Unchanged);
    }
}
