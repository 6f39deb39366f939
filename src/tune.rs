/*!
Tuning (`mneme-gate tune`): which one retrieval setting to change, if any,
decided by k-fold cross-validation over the suite's scenarios.

The candidates are the current profile and a fixed neighbourhood of it, one
setting changed at a time ([`candidates`]): each field weight ×0.5 and ×2
(under profile `default` the five ADR section weights too), `bm25f.k1` ×0.5
and ×2, `bm25f.b` 0.25 and 0.75, `min_score` ×0.5, ×2 and 0, and
`bm25f.path_weight` 0 and ×2; a value equal to the current one, or outside
what `retrieval:` accepts, is left out. `k` is never changed: it is part of
what a number means. Profile `mneme` is pinned to Mneme 0.10.0 and is not
tuned.

Every candidate retrieves every scenario once. A candidate is better than
another on a set of scenarios when its mean recall@k is higher, then its
mean recall@1, then its mean reciprocal rank, then when fewer scenarios
that expect nothing get a decision injected, then when it comes first.

The scenarios are dealt into folds by a seeded shuffle. For each fold the
best candidate on the other folds is selected and compared with the current
profile on the held-out fold: each governed scenario's recall@k difference
(selected − current). The held-out gain is the mean of those differences
over every fold, with a 95 % paired-bootstrap interval and a paired
permutation p-value ([`crate::metrics::stats`]). The candidate that is best
on the whole suite is recommended only when that interval's lower bound is
above 0: a gain the selection itself does not produce on scenarios it did
not see. Otherwise nothing is recommended.
*/

use std::cmp::Ordering;

use rayon::prelude::*;
use serde::{Serialize, Serializer};

use crate::metrics::stats::{self, SplitMix64};
use crate::metrics::ScenarioMetrics;
use crate::profile::{Family, Field, Milli, Profile};
use crate::retrieval::{Index, Query, Scratch};
use crate::scenarios::Scenario;

/// Folds, unless told otherwise.
pub const FOLDS: usize = 5;
/// The seed of the fold assignment, unless told otherwise.
pub const SEED: u64 = 7;

/// Means closer than this are equal (they are means of exact fractions).
const TIE: f64 = 1e-12;

/// The setting a candidate changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param {
    /// `weights.<field>`: a canonical field, or under profile `default` an
    /// ADR section.
    Weight(Field),
    /// `bm25f.k1`.
    K1,
    /// `bm25f.b`.
    B,
    /// `min_score`.
    MinScore,
    /// `bm25f.path_weight`.
    PathWeight,
}

impl Param {
    /// The key under `retrieval:` of `mneme-gate.yaml`.
    pub fn key(self) -> String {
        match self {
            Param::Weight(f) => format!("weights.{}", f.name()),
            Param::K1 => "bm25f.k1".to_string(),
            Param::B => "bm25f.b".to_string(),
            Param::MinScore => "min_score".to_string(),
            Param::PathWeight => "bm25f.path_weight".to_string(),
        }
    }

    /// The profile's value, `None` when it has no such setting.
    pub fn get(self, p: &Profile) -> Option<Milli> {
        match self {
            Param::Weight(f) if Field::ALL.contains(&f) => Some(p.weights.of(f)),
            Param::Weight(f) => p.bm25f.as_ref().map(|b| b.section(f)),
            Param::K1 => p.bm25f.as_ref().map(|b| b.k1),
            Param::B => p.bm25f.as_ref().map(|b| b.b),
            Param::MinScore => Some(p.min_score),
            Param::PathWeight => p.bm25f.as_ref().map(|b| b.path_weight),
        }
    }

    fn set(self, p: &mut Profile, v: Milli) {
        let w = &mut p.weights;
        if let Param::Weight(
            f @ (Field::Title | Field::Tags | Field::Constraint | Field::AntiPatterns | Field::Content),
        ) = self
        {
            *match f {
                Field::Title => &mut w.title,
                Field::Tags => &mut w.tags,
                Field::Constraint => &mut w.constraint,
                Field::AntiPatterns => &mut w.anti_patterns,
                _ => &mut w.content,
            } = v;
            return;
        }
        if self == Param::MinScore {
            p.min_score = v;
            return;
        }
        let Some(b) = p.bm25f.as_mut() else { return };
        *match self {
            Param::K1 => &mut b.k1,
            Param::B => &mut b.b,
            Param::PathWeight => &mut b.path_weight,
            Param::Weight(Field::Summary) => &mut b.sections.summary,
            Param::Weight(Field::Decision) => &mut b.sections.decision,
            Param::Weight(Field::Context) => &mut b.sections.context,
            Param::Weight(Field::Options) => &mut b.sections.options,
            _ => &mut b.sections.consequences,
        } = v;
    }

    /// The values `retrieval:` accepts, in thousandths.
    fn accepts(self, v: Milli) -> bool {
        match self {
            Param::B => (0..=1000).contains(&v.0),
            Param::K1 | Param::PathWeight => (0..=1_000_000).contains(&v.0),
            Param::Weight(_) | Param::MinScore => v.0.abs() <= 1_000_000_000_000_000,
        }
    }
}

impl Serialize for Param {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.key())
    }
}

/// One setting changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Change {
    pub key: Param,
    pub from: Milli,
    pub to: Milli,
}

impl Change {
    /// The `retrieval:` block of `mneme-gate.yaml` that sets it, and only it.
    pub fn yaml(&self) -> String {
        let key = self.key.key();
        let mut out = "retrieval:\n".to_string();
        let mut indent = 2;
        let parts: Vec<&str> = key.split('.').collect();
        for (i, part) in parts.iter().enumerate() {
            out.push_str(&" ".repeat(indent));
            if i + 1 == parts.len() {
                out.push_str(&format!("{part}: {}\n", self.to));
            } else {
                out.push_str(&format!("{part}:\n"));
            }
            indent += 2;
        }
        out
    }

    /// `weights.title=10.0`.
    pub fn label(&self) -> String {
        format!("{}={}", self.key.key(), self.to)
    }
}

/// A candidate: the current profile (`change` none) or one setting changed.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub change: Option<Change>,
    pub profile: Profile,
}

/// How a candidate moves a setting from its current value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    Half,
    Double,
    To(Milli),
}

impl Move {
    fn apply(self, v: Milli) -> Milli {
        match self {
            Move::Half => Milli(v.0 / 2),
            Move::Double => Milli(v.0.saturating_mul(2)),
            Move::To(to) => to,
        }
    }
}

/// The neighbourhood, in order: every setting `profile` has, and its moves.
pub fn neighbourhood(profile: &Profile) -> Vec<(Param, &'static [Move])> {
    const SCALE: &[Move] = &[Move::Half, Move::Double];
    let mut out: Vec<(Param, &'static [Move])> = profile.fields().iter().map(|&f| (Param::Weight(f), SCALE)).collect();
    if profile.bm25f.is_some() {
        out.push((Param::K1, SCALE));
        out.push((Param::B, &[Move::To(Milli(250)), Move::To(Milli(750))]));
    }
    out.push((Param::MinScore, &[Move::Half, Move::Double, Move::To(Milli::ZERO)]));
    if profile.bm25f.is_some() {
        out.push((Param::PathWeight, &[Move::To(Milli::ZERO), Move::Double]));
    }
    out
}

/// The current profile first, then its neighbourhood, in a fixed order
/// (see the module's documentation); no two candidates are the same profile.
pub fn candidates(current: &Profile) -> Vec<Candidate> {
    let mut out = vec![Candidate { change: None, profile: current.clone() }];
    for (param, moves) in neighbourhood(current) {
        let Some(from) = param.get(current) else { continue };
        for to in moves.iter().map(|m| m.apply(from)) {
            if to == from || !param.accepts(to) {
                continue;
            }
            let mut profile = current.clone();
            param.set(&mut profile, to);
            if out.iter().any(|c| c.profile == profile) {
                continue;
            }
            out.push(Candidate { change: Some(Change { key: param, from, to }), profile });
        }
    }
    out
}

/// One scenario's figures under one candidate.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Figures {
    /// Governed: recall@k, recall@1 and reciprocal rank.
    pub governed: Option<(f64, f64, f64)>,
    /// Expects nothing and got a decision it does not accept.
    pub injected: bool,
}

/// A candidate's figures over a set of scenarios.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Means {
    pub recall_at_k: f64,
    pub recall_at_1: f64,
    pub mrr: f64,
    /// Scenarios that expect nothing and got a decision injected.
    pub control_injections: usize,
}

impl Means {
    /// The figures of the scenarios `keep` holds, summed in suite order.
    fn of(figures: &[Figures], keep: impl Fn(usize) -> bool) -> Means {
        let (mut n, mut r, mut r1, mut rr, mut injected) = (0usize, 0.0, 0.0, 0.0, 0usize);
        for (_, f) in figures.iter().enumerate().filter(|(s, _)| keep(*s)) {
            if let Some((a, b, c)) = f.governed {
                n += 1;
                r += a;
                r1 += b;
                rr += c;
            }
            injected += usize::from(f.injected);
        }
        let mean = |x: f64| if n == 0 { 0.0 } else { x / n as f64 };
        Means { recall_at_k: mean(r), recall_at_1: mean(r1), mrr: mean(rr), control_injections: injected }
    }

    /// `Greater` when `self` is the better: recall@k, recall@1, MRR, then
    /// fewer control injections.
    fn compare(&self, other: &Means) -> Ordering {
        let by = |a: f64, b: f64| if (a - b).abs() <= TIE { Ordering::Equal } else { a.total_cmp(&b) };
        by(self.recall_at_k, other.recall_at_k)
            .then(by(self.recall_at_1, other.recall_at_1))
            .then(by(self.mrr, other.mrr))
            .then(other.control_injections.cmp(&self.control_injections))
    }
}

/// Why tune refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// Profile `mneme` is pinned to Mneme 0.10.0.
    Pinned,
    /// Fewer than 2 folds, or more folds than scenarios.
    Folds { folds: usize, scenarios: usize },
}

impl Refused {
    pub fn message(&self) -> String {
        match self {
            Refused::Pinned => {
                "profile `mneme` is pinned to Mneme 0.10.0 and has nothing to tune; tune profile `default`".to_string()
            }
            Refused::Folds { folds, scenarios } => {
                format!("--folds must be between 2 and the number of scenarios ({scenarios}), found {folds}")
            }
        }
    }
}

/// A candidate's result on the whole suite.
#[derive(Debug, Clone, Serialize)]
pub struct Scored {
    pub change: Option<Change>,
    pub means: Means,
}

/// One fold of the cross-validation.
#[derive(Debug, Clone, Serialize)]
pub struct Fold {
    /// Scenarios held out.
    pub scenarios: usize,
    /// Governed scenarios held out (the differences it adds).
    pub governed: usize,
    /// The candidate selected on the other folds (its number in `candidates`).
    pub selected: usize,
    /// The selected candidate's mean recall@k on the held-out fold, minus
    /// the current profile's; `null` when the fold holds no governed
    /// scenario (nothing measured).
    pub gain: Option<f64>,
}

/// The held-out gain over every fold.
#[derive(Debug, Clone, Serialize)]
pub struct HeldOut {
    /// Governed scenarios (one difference each).
    pub scenarios: usize,
    /// The mean difference; `null` when there is none (no governed
    /// scenario).
    pub gain: Option<f64>,
    /// The 95 % paired-bootstrap interval of `gain`.
    pub interval: Option<(f64, f64)>,
    pub p_value: f64,
    pub wins: usize,
    pub losses: usize,
}

/// Everything `tune` found.
#[derive(Debug, Clone, Serialize)]
pub struct Tuning {
    /// The current profile, as `describe` names it.
    pub profile: String,
    pub k: usize,
    pub folds: usize,
    pub seed: u64,
    pub scenarios: usize,
    pub governed: usize,
    pub controls: usize,
    /// The current profile first.
    pub candidates: Vec<Scored>,
    /// The best candidate on the whole suite.
    pub best: usize,
    pub per_fold: Vec<Fold>,
    pub held_out: HeldOut,
    /// `best`, when the held-out interval is above 0 and it is a change.
    pub recommended: Option<usize>,
}

/// The fold of each of `n` scenarios: a seeded Fisher-Yates shuffle of
/// `0..n` ([`SplitMix64`]), then dealt round-robin, so fold sizes differ by
/// at most one.
pub fn assign_folds(n: usize, folds: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut rng = SplitMix64::new(seed);
    for i in (1..n).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        order.swap(i, j);
    }
    let mut fold = vec![0; n];
    for (position, &s) in order.iter().enumerate() {
        fold[s] = position % folds.max(1);
    }
    fold
}

/// Each scenario's figures under `index`.
fn figures(index: &Index, scenarios: &[Scenario]) -> Vec<Figures> {
    let k = index.profile().k;
    scenarios
        .par_iter()
        .map_init(Scratch::default, |scratch, s| {
            let q = Query { task: &s.task, file: s.file.as_deref() };
            let ids: Vec<&str> =
                index.retrieve_with(q, k, scratch).hits.iter().map(|h| index.decision(h.pool).id.as_str()).collect();
            let m = ScenarioMetrics::compute(&ids, &s.expect, &s.acceptable, k);
            Figures {
                governed: match (m.recall_at_k, m.recall_at_1, m.reciprocal_rank) {
                    (Some(a), Some(b), Some(c)) => Some((a, b, c)),
                    _ => None,
                },
                injected: m.ungoverned_injection == Some(true),
            }
        })
        .collect()
}

/// The best candidate on the scenarios `keep` holds (the first of equals).
fn select(table: &[Vec<Figures>], keep: impl Fn(usize) -> bool + Copy) -> usize {
    let means: Vec<Means> = table.iter().map(|f| Means::of(f, keep)).collect();
    let mut best = 0;
    for (c, m) in means.iter().enumerate().skip(1) {
        if m.compare(&means[best]) == Ordering::Greater {
            best = c;
        }
    }
    best
}

/// Tunes `index`'s profile on `scenarios` (see the module's documentation).
/// `progress` is called once per candidate retrieved.
pub fn tune(
    index: &Index,
    scenarios: &[Scenario],
    folds: usize,
    seed: u64,
    progress: &(dyn Fn() + Sync),
) -> Result<Tuning, Refused> {
    let current = index.profile();
    if current.family == Family::Mneme {
        return Err(Refused::Pinned);
    }
    if folds < 2 || folds > scenarios.len() {
        return Err(Refused::Folds { folds, scenarios: scenarios.len() });
    }
    let candidates = candidates(current);
    let table: Vec<Vec<Figures>> = candidates
        .iter()
        .map(|c| {
            let figures = match c.change {
                None => figures(index, scenarios),
                Some(_) => figures(&index.with_profile(c.profile.clone()), scenarios),
            };
            progress();
            figures
        })
        .collect();
    let fold_of = assign_folds(scenarios.len(), folds, seed);
    let mut differences = vec![None; scenarios.len()];
    let mut per_fold = Vec::with_capacity(folds);
    for f in 0..folds {
        let selected = select(&table, |s| fold_of[s] != f);
        let (mut sum, mut governed) = (0.0, 0usize);
        for s in (0..scenarios.len()).filter(|&s| fold_of[s] == f) {
            if let (Some(a), Some(b)) = (table[selected][s].governed, table[0][s].governed) {
                differences[s] = Some(a.0 - b.0);
                sum += a.0 - b.0;
                governed += 1;
            }
        }
        per_fold.push(Fold {
            scenarios: fold_of.iter().filter(|&&x| x == f).count(),
            governed,
            selected,
            gain: (governed > 0).then(|| sum / governed as f64),
        });
    }
    let differences: Vec<f64> = differences.into_iter().flatten().collect();
    let tally = stats::win_loss_tie(&differences);
    let interval = stats::bootstrap_interval(&differences, stats::SEED, stats::RESAMPLES);
    let held_out = HeldOut {
        scenarios: differences.len(),
        gain: stats::mean(&differences),
        interval,
        p_value: stats::permutation_test(&differences, stats::SEED, stats::RESAMPLES).p_value,
        wins: tally.wins,
        losses: tally.losses,
    };
    let best = select(&table, |_| true);
    let recommended = (best != 0 && interval.is_some_and(|(low, _)| low > 0.0)).then_some(best);
    let governed = table[0].iter().filter(|f| f.governed.is_some()).count();
    Ok(Tuning {
        profile: current.describe(),
        k: current.k,
        folds,
        seed,
        scenarios: scenarios.len(),
        governed,
        controls: scenarios.len() - governed,
        candidates: candidates
            .iter()
            .zip(&table)
            .map(|(c, f)| Scored { change: c.change, means: Means::of(f, |_| true) })
            .collect(),
        best,
        per_fold,
        held_out,
        recommended,
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::memory::Memory;
    use crate::profile::Named;
    use crate::scenarios::Suite;

    #[test]
    fn folds_are_deterministic_for_a_seed_and_balanced() {
        let a = assign_folds(23, 5, 7);
        assert_eq!(a, assign_folds(23, 5, 7));
        assert_ne!(a, assign_folds(23, 5, 8), "another seed, another assignment");
        let mut sizes = [0; 5];
        for &f in &a {
            sizes[f] += 1;
        }
        assert_eq!(sizes, [5, 5, 5, 4, 4]);
        assert_ne!(a, (0..23).map(|s| s % 5).collect::<Vec<_>>(), "shuffled, not dealt in suite order");
    }

    #[test]
    fn the_neighbourhood_of_profile_default_changes_one_setting_each() {
        let current = Profile::of(Named::Default);
        let c = candidates(&current);
        assert_eq!(c.len(), 30);
        assert!(c[0].change.is_none());
        for cand in &c[1..] {
            let change = cand.change.unwrap();
            assert_eq!(change.key.get(&cand.profile), Some(change.to));
            assert_eq!(change.key.get(&current), Some(change.from));
            assert_ne!(change.from, change.to);
        }
        let title = c[1].change.unwrap();
        assert_eq!((title.key, title.to), (Param::Weight(Field::Title), Milli(2500)));
        let b = c.iter().filter_map(|c| c.change).find(|c| c.key == Param::K1).unwrap();
        assert_eq!(b.yaml(), "retrieval:\n  bm25f:\n    k1: 5.0\n");
        // Classic has no BM25F constants and min_score 0: weights only.
        assert_eq!(candidates(&Profile::of(Named::Classic)).len(), 11);
    }

    /// A word of its own for `prefix` and `i`: `titab`.
    /// A shuffle under which a change wins two more scenarios than the
    /// current profile on the whole suite, by chance.
    const SHUFFLE: u64 = 22;

    fn word(prefix: &str, i: usize) -> String {
        let letter = |n: usize| char::from(b'a' + n as u8);
        format!("{prefix}{}{}", letter(i / 26), letter(i % 26))
    }

    /// Forty scenarios, each sharing a title word with its expected
    /// decision (title weight 1.0) and a content word with the decision
    /// before it (content weight 1.5), which wins until the title weighs
    /// more. `shuffle` deals the expected decisions to the scenarios by a
    /// shuffle seeded with it.
    fn suite(shuffle: Option<u64>) -> (Index, Vec<Scenario>) {
        let mut expects: Vec<usize> = (0..40).collect();
        if let Some(seed) = shuffle {
            let mut rng = SplitMix64::new(seed);
            for i in (1..40).rev() {
                expects.swap(i, rng.below(i as u64 + 1) as usize);
            }
        }
        let mut memory = Vec::new();
        let mut yaml = "scenarios:\n".to_string();
        for (i, expect) in expects.iter().enumerate() {
            let (title, next) = (word("tit", i), word("con", (i + 1) % 40));
            memory.push(format!(
                r#"{{"id": "d{i}", "type": "rule", "title": "{title} rule", "content": "{next} notes"}}"#
            ));
            yaml.push_str(&format!("  - id: s{i}\n    task: {title} {}\n    expect: [d{expect}]\n", word("con", i)));
        }
        let mut profile = Profile::of(Named::Default);
        profile.k = 1;
        profile.min_score = Milli::ZERO;
        profile.weights.title = Milli(1000);
        let memory = Memory::parse(Path::new("m.json"), format!("[{}]", memory.join(",\n")), profile.family);
        assert!(!memory.has_errors(), "{:?}", memory.diagnostics);
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("suite.yaml"), yaml).unwrap();
        let suite = Suite::load(&[dir.path().join("suite.yaml")]).unwrap();
        (Index::build(memory, profile), suite.scenarios)
    }

    #[test]
    fn a_weight_that_helps_on_every_fold_is_recommended() {
        let (index, scenarios) = suite(None);
        let t = tune(&index, &scenarios, FOLDS, SEED, &|| {}).unwrap();
        assert!(t.candidates[0].means.recall_at_k < 0.5, "{:?}", t.candidates[0]);
        let best = t.candidates[t.best].change.expect("a change");
        assert_eq!((best.key, best.to), (Param::Weight(Field::Title), Milli(2000)), "{t:?}");
        assert_eq!(t.recommended, Some(t.best), "{t:?}");
        for f in &t.per_fold {
            assert!(f.gain.is_some_and(|g| g > 0.0), "{f:?}");
            assert_eq!(t.candidates[f.selected].change, Some(best));
        }
        let (low, _) = t.held_out.interval.unwrap();
        assert!(low > 0.0 && t.held_out.p_value < 0.05, "{:?}", t.held_out);
        // The same inputs, the same answer.
        let again = tune(&index, &scenarios, FOLDS, SEED, &|| {}).unwrap();
        assert_eq!(format!("{t:?}"), format!("{again:?}"));
    }

    #[test]
    fn expectations_shuffled_across_scenarios_get_no_recommendation() {
        let (index, scenarios) = suite(Some(SHUFFLE));
        let t = tune(&index, &scenarios, FOLDS, SEED, &|| {}).unwrap();
        let (now, best) = (t.candidates[0].means.recall_at_k, t.candidates[t.best].means.recall_at_k);
        assert!(t.best != 0 && best > now, "the whole suite favours a change: {t:?}");
        assert_eq!(t.recommended, None, "{t:?}");
        assert!(t.held_out.interval.is_none_or(|(low, _)| low <= 0.0), "{:?}", t.held_out);
    }

    #[test]
    fn refuses_profile_mneme_and_impossible_folds() {
        let (index, scenarios) = suite(None);
        assert_eq!(tune(&index, &scenarios, 1, SEED, &|| {}).unwrap_err(), Refused::Folds { folds: 1, scenarios: 40 });
        assert!(tune(&index, &scenarios, 41, SEED, &|| {}).is_err());
        let memory = Memory::parse(Path::new("m.json"), "[]".into(), Family::Mneme);
        let mneme = Index::build(memory, Profile::of(Named::Mneme));
        assert_eq!(tune(&mneme, &scenarios, 5, SEED, &|| {}).unwrap_err(), Refused::Pinned);
    }
}
