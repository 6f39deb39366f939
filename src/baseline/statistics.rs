//! The statistics of a comparison (docs/metrics.md, "Comparisons with
//! statistics"): the scenarios of both reports as pairs, in id order, fed
//! to the pure functions of [`crate::metrics::stats`].

use std::collections::BTreeMap;

use crate::metrics::stats;
use crate::metrics::ScenarioMetrics;
use crate::report::comparison::{ComparisonStatistics, FigureStatistics, PassRateInterval, VerdictStatistics};
use crate::report::{Report, ScenarioReport};
use crate::scenarios::ScenarioType;
use crate::verdict::Verdict;

/// The paired figures, in report order; each one's resampling is seeded
/// with [`stats::SEED`] plus its position, so one figure's draws never
/// depend on another's.
type Figure = fn(&ScenarioMetrics) -> Option<f64>;
const FIGURES: [(&str, Figure); 3] =
    [("recall_at_k", |m| m.recall_at_k), ("reciprocal_rank", |m| m.reciprocal_rank), ("ndcg_at_k", |m| m.ndcg_at_k)];

/// Compares the scenarios the two reports share.
pub(crate) fn statistics(baseline: &Report, current: &Report) -> ComparisonStatistics {
    let old: BTreeMap<&str, &ScenarioReport> = baseline.scenarios.iter().map(|s| (s.id.as_str(), s)).collect();
    let pairs: Vec<(&ScenarioReport, &ScenarioReport)> = {
        let mut new: Vec<&ScenarioReport> = current.scenarios.iter().collect();
        new.sort_by(|a, b| a.id.cmp(&b.id));
        new.into_iter().filter_map(|now| old.get(now.id.as_str()).map(|then| (*then, now))).collect()
    };
    let governed = pairs.iter().filter(|(a, b)| a.metrics.is_governed() && b.metrics.is_governed()).count();
    let figures = FIGURES
        .iter()
        .enumerate()
        .map(|(i, (name, value))| {
            let differences: Vec<f64> =
                pairs.iter().filter_map(|(a, b)| Some(value(&b.metrics)? - value(&a.metrics)?)).collect();
            figure(name, &differences, stats::SEED.wrapping_add(i as u64))
        })
        .collect();
    let lost_pass = pairs.iter().filter(|(a, b)| a.verdict == Verdict::Pass && b.verdict != Verdict::Pass).count();
    let gained_pass = pairs.iter().filter(|(a, b)| a.verdict != Verdict::Pass && b.verdict == Verdict::Pass).count();
    ComparisonStatistics {
        paired: pairs.len(),
        governed,
        seed: stats::SEED,
        resamples: stats::RESAMPLES,
        one_scenario_step: (governed > 0).then(|| 1.0 / governed as f64),
        minimum_detectable: stats::minimum_detectable(governed),
        figures,
        verdicts: VerdictStatistics { lost_pass, gained_pass, p_value: stats::mcnemar_exact(lost_pass, gained_pass) },
        baseline_pass_rate: pass_rate(baseline),
        current_pass_rate: pass_rate(current),
    }
}

/// One figure's paired statistics from its per-scenario changes.
pub(crate) fn figure(name: &str, differences: &[f64], seed: u64) -> FigureStatistics {
    let w = stats::win_loss_tie(differences);
    let permutation = stats::permutation_test(differences, seed, stats::RESAMPLES);
    let interval = stats::bootstrap_interval(differences, seed, stats::RESAMPLES);
    let significant = permutation.p_value < stats::ALPHA;
    let changed = w.wins > 0 || w.losses > 0;
    FigureStatistics {
        name: name.to_string(),
        wins: w.wins,
        losses: w.losses,
        ties: w.ties,
        mean_change: stats::mean(differences),
        p_value: permutation.p_value,
        exact: permutation.exact,
        ci_low: interval.map(|i| i.0),
        ci_high: interval.map(|i| i.1),
        significant,
        too_small: changed && !significant,
        scenarios_needed: if changed { stats::scenarios_needed(differences) } else { None },
    }
}

/// A report's pass rate, `pass / (pass + fail)`, with its Wilson interval:
/// over every trial of the scenarios the model answered when the run
/// repeated them (`--repeat`; a scenario with written answers counts once),
/// else over the summary's verdicts when Layer 2 judged a governed answer
/// (the gate's `pass_rate` rule applies only then); benign
/// scenarios (profile `mneme`) are left out, as the pass rate leaves them.
fn pass_rate(report: &Report) -> Option<PassRateInterval> {
    let repeated = report.scenarios.iter().any(|s| s.model.as_ref().is_some_and(|m| m.trials.len() > 1));
    let (passed, judged) = if repeated {
        let mut counts = (0usize, 0usize);
        for s in report.scenarios.iter().filter(|s| s.scenario_type != Some(ScenarioType::Benign)) {
            let verdicts = match &s.model {
                Some(model) if !model.trials.is_empty() => model.trials.as_slice(),
                _ => std::slice::from_ref(&s.verdict),
            };
            for v in verdicts {
                match v {
                    Verdict::Pass => counts = (counts.0.saturating_add(1), counts.1.saturating_add(1)),
                    Verdict::Fail => counts.1 = counts.1.saturating_add(1),
                    _ => {}
                }
            }
        }
        counts
    } else if report.summary.layer2_evaluated {
        (report.summary.pass, report.summary.pass.saturating_add(report.summary.fail))
    } else {
        return None;
    };
    let (low, high) = stats::wilson(passed, judged)?;
    Some(PassRateInterval { passed, judged, trials: repeated, rate: passed as f64 / judged as f64, low, high })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::ScenarioModel;

    fn bundled() -> Report {
        crate::baseline::load(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/baseline.json")).unwrap()
    }

    /// The governed scenarios' indexes, in id order.
    fn governed(r: &Report) -> Vec<usize> {
        (0..r.scenarios.len()).filter(|i| r.scenarios[*i].metrics.is_governed()).collect()
    }

    fn lose(r: &mut Report, i: usize) {
        let m = &mut r.scenarios[i].metrics;
        (m.recall_at_k, m.reciprocal_rank, m.ndcg_at_k) = (Some(0.0), Some(0.0), Some(0.0));
        r.scenarios[i].verdict = Verdict::WeakRetrieval;
    }

    #[test]
    fn identical_reports_change_nothing_and_say_how_fine_the_suite_is() {
        let b = bundled();
        let s = statistics(&b, &b);
        assert_eq!((s.paired, s.governed), (51, 43));
        assert!(!s.changed());
        assert_eq!(s.one_scenario_step, Some(1.0 / 43.0));
        assert_eq!(s.minimum_detectable, Some(6.0 / 43.0));
        for f in &s.figures {
            assert_eq!((f.wins, f.losses, f.ties), (0, 0, 43), "{f:?}");
            assert_eq!((f.mean_change, f.p_value, f.exact), (Some(0.0), 1.0, true));
            assert_eq!((f.ci_low, f.ci_high), (Some(0.0), Some(0.0)));
            assert!(!f.significant && !f.too_small && f.scenarios_needed.is_none());
        }
        assert_eq!((s.verdicts.lost_pass, s.verdicts.gained_pass, s.verdicts.p_value), (0, 0, 1.0));
        // The bundled example's answers were judged: 51 PASS of 51.
        let r = s.current_pass_rate.clone().expect("Layer 2 judged the answers");
        assert_eq!((r.passed, r.judged, r.trials, r.rate, r.high), (51, 51, false, 1.0, 1.0));
        assert_eq!(r.low, stats::wilson(51, 51).unwrap().0);
        assert_eq!(s.baseline_pass_rate, s.current_pass_rate);
        // Without a judged answer there is no pass rate to put an interval on.
        let mut unjudged = b.clone();
        unjudged.summary.layer2_evaluated = false;
        assert_eq!(statistics(&unjudged, &unjudged).current_pass_rate, None);
    }

    #[test]
    fn five_losses_are_noise_and_six_are_not() {
        let b = bundled();
        let idx = governed(&b);
        let mut now = b.clone();
        for i in &idx[..5] {
            lose(&mut now, *i);
        }
        let s = statistics(&b, &now);
        assert!(s.changed());
        let recall = &s.figures[0];
        assert_eq!(recall.name, "recall_at_k");
        assert_eq!((recall.wins, recall.losses, recall.ties), (0, 5, 38));
        assert_eq!(recall.p_value, 0.0625);
        assert!(recall.exact && !recall.significant && recall.too_small);
        assert!((recall.mean_change.unwrap() + 5.0 / 43.0).abs() < 1e-15);
        let (lo, hi) = (recall.ci_low.unwrap(), recall.ci_high.unwrap());
        assert!(lo < -5.0 / 43.0 && hi > -5.0 / 43.0 && hi <= 0.0, "{lo} {hi}");
        // mean −5/43, sd √(5·38/(43·42)): ((z + z80) · sd / mean)² ≈ 62.
        assert_eq!(recall.scenarios_needed, Some(62));
        assert_eq!((s.verdicts.lost_pass, s.verdicts.gained_pass, s.verdicts.p_value), (5, 0, 0.0625));
        lose(&mut now, idx[5]);
        let s = statistics(&b, &now);
        assert_eq!(s.figures[0].p_value, 0.03125);
        assert!(s.figures[0].significant && !s.figures[0].too_small);
        assert_eq!(s.verdicts.p_value, 0.03125);
        // The other direction is as significant.
        let back = statistics(&now, &b);
        assert_eq!((back.figures[0].wins, back.figures[0].p_value), (6, 0.03125));
        assert_eq!((back.verdicts.gained_pass, back.verdicts.lost_pass), (6, 0));
    }

    #[test]
    fn scenarios_in_one_run_only_are_not_paired() {
        let b = bundled();
        let mut now = b.clone();
        let gone = now.scenarios.remove(governed(&b)[0]);
        let first = governed(&now)[0];
        lose(&mut now, first);
        let s = statistics(&b, &now);
        assert_eq!((s.paired, s.governed), (50, 42));
        assert_eq!((s.figures[0].losses, s.figures[0].ties), (1, 41));
        assert!(!now.scenarios.iter().any(|x| x.id == gone.id));
    }

    #[test]
    fn repeated_trials_give_the_pass_rate_interval_over_every_trial() {
        let b = bundled();
        let mut now = b.clone();
        // Two answered scenarios, three trials each: 4 PASS and 2 FAIL; the
        // others, not answered, count once.
        for (i, trials) in
            [(0, [Verdict::Pass, Verdict::Fail, Verdict::Pass]), (1, [Verdict::Pass, Verdict::Pass, Verdict::Fail])]
        {
            now.scenarios[i].model = Some(ScenarioModel {
                arms: Vec::new(),
                trials: trials.to_vec(),
                distribution: Default::default(),
                passed_every_trial: false,
            });
        }
        let s = statistics(&b, &now);
        let r = s.current_pass_rate.expect("trials were judged");
        assert!(r.trials);
        assert_eq!((r.passed, r.judged), (4 + 49, 6 + 49));
        assert_eq!((r.low, r.high), stats::wilson(53, 55).unwrap());
        assert!(!s.baseline_pass_rate.expect("judged").trials);
    }
}
