/*!
The run: every scenario of a suite through Layer 1 (retrieval) and Layer 2
(verdict), in parallel, then the suite metrics.

Scenarios are independent, so they are spread over a rayon pool (the one
given, or one of `jobs` threads); results are collected in the suite's
order (not completion order), so everything downstream is the same bytes
whatever `jobs` is. Each
worker thread keeps one retrieval [`Scratch`], so the per-scenario path only
allocates what it returns.

This stage knows nothing of reports or exit codes: it returns plain data.
*/

use std::collections::{HashMap, HashSet};

pub mod trials;

use rayon::prelude::*;
use serde::Serialize;

use crate::metrics::{Outcome, ScenarioMetrics, SuiteMetrics};
use crate::profile::{Family, Milli};
use crate::retrieval::{Hit, Index, Miss, Query, RunnerUp, Scratch};
use crate::scenarios::{ResponseFormat, ResponseRef, Scenario, ScenarioType};
use crate::verdict::{judge_with, Checks, Judging, Scoped, Verdict, VerdictResult};

/// One retrieved decision of a scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Retrieved {
    pub id: String,
    pub score: Milli,
    /// 1-based.
    pub rank: usize,
    /// Its pool position (which copy, when profile `mneme` keeps several
    /// copies of an id).
    #[serde(skip)]
    pub pool: usize,
}

/// Everything the run found out about one scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioRun {
    pub scenario: Scenario,
    pub retrieved: Vec<Retrieved>,
    pub metrics: ScenarioMetrics,
    pub verdict: VerdictResult,
    /// Whether the governed answer was checked (Layer 2 evaluated): the
    /// scenario has a governed response and is not MALFORMED.
    pub layer2: bool,
    /// (`scenario.assertions` is emptied once the scenario is judged: the
    /// verdict holds everything later stages need.)
    /// What the user should know about this scenario: expected ids that are
    /// not in the retrieval pool, Mneme `.txt` sides, ...
    pub warnings: Vec<String>,
    /// Why each expected decision of the pool that was not retrieved was
    /// not ([`Index::why_not`]), in expected order.
    pub why_not: Vec<Miss>,
}

impl Outcome for ScenarioRun {
    fn category(&self) -> &str {
        &self.scenario.category
    }
    fn metrics(&self) -> &ScenarioMetrics {
        &self.metrics
    }
    fn verdict(&self) -> Verdict {
        self.verdict.verdict
    }
    fn layer2_evaluated(&self) -> bool {
        self.layer2
    }
    fn benign(&self) -> bool {
        self.scenario.scenario_type == ScenarioType::Benign
    }
}

/// The whole run, scenarios in suite order.
#[derive(Debug, Clone, PartialEq)]
pub struct RunResult {
    pub k: usize,
    pub scenarios: Vec<ScenarioRun>,
    pub summary: SuiteMetrics,
}

/// How to run.
#[derive(Clone, Copy, Default)]
pub struct RunOptions<'a> {
    /// Worker threads of the pool built for the run when `pool` is `None`;
    /// `None` means one per core.
    pub jobs: Option<usize>,
    /// The pool to run on instead of building one. `mneme-gate run` passes
    /// the pool that parsed the suite: its threads' allocator arenas hold
    /// what loading freed (the YAML trees) and the compiled assertions of the
    /// scenarios they loaded, which the results then reuse;
    /// new threads would grow new arenas (about 18 MiB more peak RSS on
    /// 10,000 scenarios × 5,000 decisions).
    pub pool: Option<&'a rayon::ThreadPool>,
    /// Called once per finished scenario (from worker threads).
    pub progress: Option<&'a (dyn Fn() + Sync)>,
}

/// Why a run could not start.
#[derive(Debug)]
pub struct PoolError(pub String);

impl std::fmt::Display for PoolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot start the worker threads: {}", self.0)
    }
}

impl std::error::Error for PoolError {}

/// Runs every scenario against the index and aggregates the suite metrics.
pub fn run(index: &Index, scenarios: Vec<Scenario>, options: RunOptions<'_>) -> Result<RunResult, PoolError> {
    let k = index.profile().k;
    let known = KnownIds::new(index);
    let enforced = Enforced::of(index, &scenarios);
    let built;
    let pool = match options.pool {
        Some(pool) => pool,
        None => {
            let mut builder = rayon::ThreadPoolBuilder::new();
            if let Some(jobs) = options.jobs {
                builder = builder.num_threads(jobs.max(1));
            }
            built = builder.build().map_err(|e| PoolError(e.to_string()))?;
            &built
        }
    };
    let results: Vec<ScenarioRun> = pool.install(|| {
        scenarios
            .into_par_iter()
            // Tasks of a few scenarios, so that the thread that runs out of
            // work can take over the other's last ones: with rayon's own
            // split, a thread could run a quarter of the suite as one task
            // while the other waited (15–20 ms at the end of a run of 10,000
            // on two threads).
            .with_max_len(SCENARIOS_PER_TASK)
            .map_init(LentScratch::take, |scratch, scenario| {
                let run = run_one(index, &known, &enforced, scenario, k, scratch.get());
                if let Some(progress) = options.progress {
                    progress();
                }
                run
            })
            .collect()
    });
    let summary = SuiteMetrics::aggregate(&results);
    Ok(RunResult { k, scenarios: results, summary })
}

/// The most scenarios one task of the run takes (each is tens of
/// microseconds: a task is well above what rayon spends to hand it out).
const SCENARIOS_PER_TASK: usize = 16;

thread_local! {
    /// The retrieval scratch a worker thread lends to each of its tasks: its
    /// vectors are sized to the pool once per thread, not once per task.
    static SPARE_SCRATCH: std::cell::RefCell<Option<Scratch>> = const { std::cell::RefCell::new(None) };
}

/// A worker thread's [`Scratch`] for the length of one task, given back to
/// the thread when the task ends. A scratch is left clean by every query
/// (`Index::retrieve_kept` and the others clear what they touched), so one
/// can serve any index: it is resized when the pool's size differs.
struct LentScratch(Option<Scratch>);

impl LentScratch {
    fn take() -> LentScratch {
        LentScratch(Some(SPARE_SCRATCH.with_borrow_mut(Option::take).unwrap_or_default()))
    }

    fn get(&mut self) -> &mut Scratch {
        self.0.get_or_insert_with(Scratch::default)
    }
}

impl Drop for LentScratch {
    fn drop(&mut self) {
        // Not given back while the thread unwinds from a panic: that
        // scratch may be half-used.
        if !std::thread::panicking() {
            let scratch = self.0.take();
            SPARE_SCRATCH.with_borrow_mut(|spare| *spare = scratch);
        }
    }
}

/// Layer 1 then Layer 2 for one scenario.
pub fn run_one(
    index: &Index,
    known: &KnownIds<'_>,
    enforced: &Enforced,
    mut scenario: Scenario,
    k: usize,
    scratch: &mut Scratch,
) -> ScenarioRun {
    let query = Query { task: &scenario.task, file: scenario.file.as_deref() };
    let (retrieval, runner_up, ranked) = index.retrieve_kept(query, k, scratch);
    let retrieved = retrieved_of(index, &retrieval.hits);
    let ids: Vec<&str> = retrieved.iter().map(|r| r.id.as_str()).collect();
    let metrics = ScenarioMetrics::compute(&ids, &scenario.expect, &scenario.acceptable, k).with_margins(
        &scored(&retrieved),
        &scenario.expect,
        runner_up_of(index, runner_up),
    );
    // Explained from the scores the ranking kept, before the scratch is
    // needed again.
    let why_not = ranked.misses(&metrics.missed);
    let scope = enforced.scope(index, query, &retrieval.hits, &scenario, scratch);
    let judging = Judging { family: index.profile().family, retrieved: &ids, scope: &scope };
    let verdict = judge_with(&scenario, &metrics.missed, &judging);
    let layer2 = scenario.governed.is_some() && verdict.verdict != crate::verdict::Verdict::Malformed;
    let mut warnings = known.check(&scenario);
    warnings.extend(verdict.warnings.iter().cloned());
    // Judged: the compiled assertions (and their regex caches, the largest
    // part of a scenario in memory) are not needed by any later stage.
    scenario.assertions = Vec::new();
    ScenarioRun { scenario, retrieved, metrics, verdict, layer2, warnings, why_not }
}

/// The retrieved decisions of a ranking, best first.
pub fn retrieved_of(index: &Index, hits: &[Hit]) -> Vec<Retrieved> {
    hits.iter()
        .enumerate()
        .map(|(i, h)| Retrieved { id: index.decision(h.pool).id.clone(), score: h.score, rank: i + 1, pool: h.pool })
        .collect()
}

/// A ranking as [`ScenarioMetrics::with_margins`] reads it: ids and scores.
pub fn scored(retrieved: &[Retrieved]) -> Vec<(&str, Milli)> {
    retrieved.iter().map(|r| (r.id.as_str(), r.score)).collect()
}

/// The runner-up as [`ScenarioMetrics::with_margins`] reads it: its id when
/// the query touches it, and its score.
pub fn runner_up_of(index: &Index, runner_up: Option<RunnerUp>) -> Option<(Option<&str>, Milli)> {
    runner_up.map(|r| (r.touched.then(|| index.decision(r.pool).id.as_str()), r.score))
}

/// What the prompt enforcer of profile `mneme` needs of the pool, worked out
/// once: the checks of every pool decision, and the decisions its second
/// tier may check (those with a typed rule or a literal anti-pattern or
/// `no X` constraint, with every other copy of their ids, since only the
/// best-ranked copy of an id is checked). Empty under profile `default`, or
/// when no scenario has a Mneme text answer.
pub struct Enforced {
    checks: Vec<Checks>,
    candidates: Vec<usize>,
}

impl Enforced {
    /// What `scenarios` need of `index`.
    pub fn of(index: &Index, scenarios: &[Scenario]) -> Enforced {
        if index.profile().family != Family::Mneme || !scenarios.iter().any(has_mneme_text) {
            return Enforced { checks: Vec::new(), candidates: Vec::new() };
        }
        let checks: Vec<Checks> = index.decisions().iter().map(Checks::of).collect();
        let groups: HashSet<usize> =
            (0..checks.len()).filter(|&d| checks[d].beyond_retrieval()).map(|d| index.copy_group(d)).collect();
        let candidates = (0..checks.len()).filter(|&d| groups.contains(&index.copy_group(d))).collect();
        Enforced { checks, candidates }
    }

    /// Mneme's enforcement scope for one scenario's query: the retrieved
    /// decisions, then the candidates in ranking order (score, then pool
    /// order), one copy per id and none whose id was retrieved. Empty unless
    /// the scenario has a Mneme text answer under profile `mneme`.
    pub fn scope(
        &self,
        index: &Index,
        query: Query<'_>,
        hits: &[Hit],
        scenario: &Scenario,
        scratch: &mut Scratch,
    ) -> Vec<Scoped<'_>> {
        if self.checks.is_empty() || !has_mneme_text(scenario) {
            return Vec::new();
        }
        let mut seen: HashSet<usize> = hits.iter().map(|h| index.copy_group(h.pool)).collect();
        let mut scope: Vec<Scoped<'_>> =
            hits.iter().map(|h| Scoped { checks: &self.checks[h.pool], literal_only: false }).collect();
        let scores = index.scores_of(query, &self.candidates, scratch);
        let mut rest: Vec<(Milli, usize)> = scores.into_iter().zip(self.candidates.iter().copied()).collect();
        rest.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        for (_, d) in rest {
            if seen.insert(index.copy_group(d)) {
                scope.push(Scoped { checks: &self.checks[d], literal_only: true });
            }
        }
        scope
    }
}

/// Whether a side of the scenario is a Mneme `.txt` answer.
fn has_mneme_text(scenario: &Scenario) -> bool {
    [&scenario.control, &scenario.governed]
        .into_iter()
        .any(|r| matches!(r, Some(ResponseRef::Resolved { format: ResponseFormat::MnemeText, .. })))
}

/// The ids of the memory file, to tell a typo in `expect` from a decision
/// that is merely not retrieved.
pub struct KnownIds<'a> {
    index: &'a Index,
    /// Per id kept out of the pool, its last record among the excluded
    /// (its reason is worded only when a scenario names it).
    excluded: HashMap<&'a str, usize>,
}

impl<'a> KnownIds<'a> {
    pub fn new(index: &'a Index) -> KnownIds<'a> {
        // The pool's ids are looked up in the index's own sorted order
        // (`positions_of`), not copied into a set: on a memory of a million
        // records that set alone took 36 MB.
        let excluded = index.excluded().iter().enumerate().map(|(i, e)| (e.id.as_str(), i)).collect();
        KnownIds { index, excluded }
    }

    /// Warnings for expected or acceptable ids that no query can retrieve.
    pub fn check(&self, scenario: &Scenario) -> Vec<String> {
        let mut out = Vec::new();
        for (list, ids) in [("expects", &scenario.expect), ("accepts", &scenario.acceptable)] {
            for id in ids {
                if self.index.positions_of(id).next().is_some() {
                    continue;
                }
                let why = match self.excluded.get(id.as_str()).map(|&i| &self.index.excluded()[i]) {
                    Some(e) => match &e.file {
                        Some(file) => format!("is kept out of the retrieval pool ({file}:{}: {})", e.line, e.reason),
                        None => format!("is kept out of the retrieval pool ({})", e.reason),
                    },
                    None => "is not in the memory file (a typo, or a decision that was removed?)".to_string(),
                };
                out.push(format!("{} {list} `{id}`, which {why}", scenario.id));
            }
        }
        out
    }
}
