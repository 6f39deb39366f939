//! Repeated trials (`--repeat N`): the suite run once per sample of the
//! model's answers, and one result kept per scenario.
//!
//! A scenario's verdict over N trials is its worst one (the first trial
//! with it, for the explanation and triggers): the gate asks that every
//! trial passes, as pass^N does. Every trial's verdict is kept, in trial
//! order, for the distribution the report shows. Scenarios the model did
//! not answer are the same in every trial.

use crate::metrics::SuiteMetrics;
use crate::retrieval::Index;
use crate::scenarios::Scenario;
use crate::verdict::Verdict;

use super::{run, PoolError, RunOptions, RunResult, ScenarioRun};

/// The kept run, and every trial's verdict of each scenario (suite order).
#[derive(Debug, Clone, PartialEq)]
pub struct Trials {
    pub run: RunResult,
    pub verdicts: Vec<Vec<Verdict>>,
}

/// Runs each trial's scenarios (the same suite, other answers) and keeps,
/// per scenario, its worst trial. The progress callback sees the first
/// trial only.
pub fn run_trials(index: &Index, trials: Vec<Vec<Scenario>>, options: RunOptions<'_>) -> Result<Trials, PoolError> {
    let mut runs = Vec::with_capacity(trials.len());
    for (t, scenarios) in trials.into_iter().enumerate() {
        let options = if t == 0 { options } else { RunOptions { progress: None, ..options } };
        runs.push(run(index, scenarios, options)?);
    }
    let Some(first) = runs.first() else {
        let run = run(index, Vec::new(), options)?;
        return Ok(Trials { run, verdicts: Vec::new() });
    };
    let k = first.k;
    let count = first.scenarios.len();
    let mut columns: Vec<std::vec::IntoIter<ScenarioRun>> = runs.into_iter().map(|r| r.scenarios.into_iter()).collect();
    let mut kept = Vec::with_capacity(count);
    let mut verdicts = Vec::with_capacity(count);
    for _ in 0..count {
        let row: Vec<ScenarioRun> = columns.iter_mut().filter_map(Iterator::next).collect();
        let trial_verdicts: Vec<Verdict> = row.iter().map(|r| r.verdict.verdict).collect();
        let worst = row
            .into_iter()
            .reduce(|worst, next| if next.verdict.verdict.is_worse_than(worst.verdict.verdict) { next } else { worst })
            .expect("every trial has every scenario");
        kept.push(worst);
        verdicts.push(trial_verdicts);
    }
    let summary = SuiteMetrics::aggregate(&kept);
    Ok(Trials { run: RunResult { k, scenarios: kept, summary }, verdicts })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::Memory;
    use crate::profile::{Family, Profile};
    use crate::scenarios::{ResponseFormat, ResponseRef, Suite, SuiteLimits};

    #[test]
    fn the_worst_trial_is_kept_and_every_verdict_counted() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("s.yaml"),
            "scenarios:\n  - id: a\n    task: t\n    assertions:\n      - forbidden_text: bad\n  - id: b\n    task: u\n",
        )
        .unwrap();
        let profile = Profile::named(Family::Default);
        let index = Index::build(Memory::parse(std::path::Path::new("m.json"), "[]".into(), profile.family), profile);
        let suite = Suite::load_with(&[dir.path()], &SuiteLimits::default()).unwrap().scenarios;
        let answer = |text: &str| ResponseRef::Answer {
            declared: "reply".into(),
            format: ResponseFormat::Text,
            text: text.into(),
        };
        let trial = |control: &str, governed: &str| {
            let mut s = suite.clone();
            s[0].control = Some(answer(control));
            s[0].governed = Some(answer(governed));
            s
        };
        let trials = vec![trial("bad", "good"), trial("bad", "bad"), trial("bad", "good")];
        let t = run_trials(&index, trials, RunOptions::default()).unwrap();
        assert_eq!(t.verdicts, [vec![Verdict::Pass, Verdict::Fail, Verdict::Pass], vec![Verdict::Pass; 3]]);
        assert_eq!(t.run.scenarios[0].verdict.verdict, Verdict::Fail);
        assert_eq!((t.run.summary.fail, t.run.summary.pass), (1, 1));
        let one = run_trials(&index, vec![trial("bad", "good")], RunOptions::default()).unwrap();
        assert_eq!(one.run.scenarios[0].verdict.verdict, Verdict::Pass);
    }
}
