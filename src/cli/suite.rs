/*!
The work `run`, `baseline` and `init` share: load the memory and the suite,
run every selected scenario on the thread pool, and build the report with
the rules of the run ([`run_rules`]). Comparing with a baseline is `run`'s
alone.
*/

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use super::output;
use super::settings::{MemorySettings, SuiteSettings};
use crate::error::Error;
use crate::evaluate::run_rules;
use crate::memory::Memory;
use std::collections::{BTreeMap, HashMap, HashSet};

use crate::report::partition::{Partial, Slice, Whole};
use crate::report::{Report, ReportInputs};
use crate::retrieval::Index;
use crate::run::RunOptions;
use crate::scenarios::Suite;

/// A suite, run and reported with the absolute rules.
pub(crate) struct SuiteRun {
    pub report: Report,
    pub index: Index,
    pub loaded: Duration,
    pub ran: Duration,
    /// What the partial report needs besides the report, when the suite ran
    /// one partition (`--partition`).
    pub partition: Option<PartitionRun>,
}

/// One partition of a suite, run: what its partial report needs besides the
/// report ([`PartitionRun::partial`]).
pub(crate) struct PartitionRun {
    slice: Slice,
    whole: Whole,
    positions: HashMap<String, usize>,
    explanations: HashMap<String, String>,
    requests: BTreeMap<String, [u64; 2]>,
}

impl PartitionRun {
    /// The partial report of the partition whose report this is.
    pub(crate) fn partial(self, report: Report) -> Partial {
        Partial::new(report, self.slice, self.whole, &self.positions, &self.explanations, self.requests)
    }
}

/// Loads the memory under the settings' profile; warnings go to standard
/// error.
pub(crate) fn load_memory(settings: &MemorySettings) -> Result<Memory, Error> {
    load_memory_noting(settings, &mut HashSet::new())
}

/// [`load_memory`], each warning said only when it is not in `noted`
/// (which gains it): a command that loads the memory twice (`init`) says
/// each warning once.
pub(crate) fn load_memory_noting(settings: &MemorySettings, noted: &mut HashSet<String>) -> Result<Memory, Error> {
    let memory = Memory::load_sources(&settings.sources, settings.profile.family)?;
    for w in memory.warnings() {
        note_once(noted, w.render(&memory.path));
    }
    Ok(memory)
}

/// Says `line` on standard error unless it was said already.
fn note_once(noted: &mut HashSet<String>, line: String) {
    if !noted.contains(&line) {
        output::note(&line);
        noted.insert(line);
    }
}

/// Loads the memory and the suite, runs every selected scenario, and builds
/// the report with the absolute rules.
/// The memory, the worker threads and the suite's scenarios of `settings`,
/// the suite's warnings printed: what the commands that analyse a suite
/// (`coverage`, `suggest`, `tune`) start from.
pub(crate) fn load_for_analysis(
    settings: &SuiteSettings,
) -> Result<(Memory, rayon::ThreadPool, Vec<crate::scenarios::Scenario>), Error> {
    let memory = load_memory(&settings.memory)?;
    let pool = thread_pool(settings.jobs)?;
    let family = settings.memory.profile.family;
    let suite = pool.install(|| Suite::load_for(&settings.roots, &settings.limits, family)).map_err(Error::Suite)?;
    for w in &suite.warnings {
        output::note(&format!("warning: {w}"));
    }
    Ok((memory, pool, suite.scenarios))
}

pub(crate) fn run(settings: &SuiteSettings, quiet: bool) -> Result<SuiteRun, Error> {
    run_noting(settings, quiet, &mut HashSet::new())
}

/// [`run`], the memory's warnings said only when they are not in `noted`
/// (`init` said them when it loaded the memory for its starter suite).
pub(crate) fn run_noting(
    settings: &SuiteSettings,
    quiet: bool,
    noted: &mut HashSet<String>,
) -> Result<SuiteRun, Error> {
    let started = Instant::now();
    let pool = thread_pool(settings.jobs)?;
    let profile = &settings.memory.profile;
    let family = profile.family;
    let memory_path = &settings.memory.label();
    // The memory is loaded and indexed on a thread of its own while the
    // suite files are parsed on the pool; their messages and errors come
    // in the order they always did (the memory's first).
    let (indexed, suite) = std::thread::scope(|scope| {
        let indexed = scope.spawn(|| -> Result<_, Error> {
            let memory = Memory::load_sources(&settings.memory.sources, family)?;
            let warnings: Vec<String> = memory.warnings().map(|w| w.render(&memory.path)).collect();
            // Hashed as loaded (type-checked and capped), not read a second time.
            let sha256 = crate::report::hex_sha256(memory.text().as_bytes());
            Ok((Index::build(memory, profile.clone()), sha256, warnings))
        });
        let suite = pool.install(|| Suite::load_for(&settings.roots, &settings.limits, family));
        (indexed.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)), suite)
    });
    let (index, memory_sha256, memory_warnings) = indexed?;
    for w in memory_warnings {
        note_once(noted, w);
    }
    let suite = suite.map_err(Error::Suite)?;
    for w in &suite.warnings {
        output::note(&format!("warning: {w}"));
    }
    let mut scenarios = suite.scenarios;
    if !settings.filter.is_empty() {
        scenarios.retain(|s| settings.filter.iter().any(|m| m.is_match(&s.id)));
        if scenarios.is_empty() {
            let globs: Vec<&str> = settings.filter.iter().map(|m| m.glob().glob()).collect();
            return Err(Error::Usage(format!(
                "no scenario id matches --filter {}; `mneme-gate run --json -` lists the ids",
                globs.join(" --filter ")
            )));
        }
    }
    // Every file the selected scenarios read, hashed for the fingerprint
    // once they have run (a partition's fingerprint is the whole
    // selection's): the files read to load and to judge them carry their
    // digests, and only the others are read for it.
    let files = crate::report::suite_files(scenarios.iter());

    // One partition: the whole selection is hashed and each scenario's
    // place in it kept before the others are dropped.
    let whole = settings.partition.map(|slice| {
        let filter = settings.filter.iter().map(|m| m.glob().glob().to_string()).collect();
        let whole = Whole::of(scenarios.iter().map(|s| s.id.as_str()), filter);
        let mut positions = HashMap::new();
        let mut position = 0;
        scenarios.retain(|s| {
            position += 1;
            let keep = slice.contains(&s.id);
            if keep {
                positions.insert(s.id.clone(), position - 1);
            }
            keep
        });
        (slice, whole, positions)
    });

    let loaded = started.elapsed();
    let bar = progress_bar(scenarios.len(), quiet);
    let tick = || {
        if let Some(b) = &bar {
            b.inc(1);
        }
    };
    let progress = bar.as_ref().map(|_| &tick as &(dyn Fn() + Sync));
    let options = RunOptions { jobs: settings.jobs, pool: Some(&pool), progress };
    let (run, model) = super::model::run(&index, scenarios, settings.model.as_ref(), options, quiet)?;
    let suite_fingerprint = pool.install(|| crate::report::hash_suite(&settings.roots, &files));
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let ran = started.elapsed() - loaded;

    // A partition holds part of the suite: the coverage rules, which need
    // all of it, are refused with --partition (settings).
    let gate = run_rules(&run, index.decisions(), &settings.gate, !settings.filter.is_empty(), whole.is_some());
    // The explanations as judged, which the report may cut (a partition's
    // gate is decided by `merge`, which quotes them whole).
    let explanations: HashMap<String, String> = match whole {
        Some(_) => run.scenarios.iter().map(|s| (s.scenario.id.clone(), s.verdict.explanation.clone())).collect(),
        None => Default::default(),
    };
    let mut warnings = suite.warnings;
    let pending = run.scenarios.iter().filter(|s| s.scenario.review.is_pending()).count();
    warnings.extend(crate::gate::pending_review_warning(pending, run.scenarios.len()));
    let inputs =
        ReportInputs { index: &index, memory_path, memory_sha256, suite: suite_fingerprint, profile, warnings };
    let mut report = Report::build(run, gate, inputs);
    if let Some(model) = &model {
        model.attach(&mut report);
    }
    let partition = whole.map(|(slice, whole, positions)| {
        let requests = model.as_ref().map(|m| m.requests()).unwrap_or_default();
        PartitionRun { slice, whole, positions, explanations, requests }
    });
    Ok(SuiteRun { report, index, loaded, ran, partition })
}

/// The pool the suite files are parsed on (the run builds its own with the
/// same size).
pub(crate) fn thread_pool(jobs: Option<usize>) -> Result<rayon::ThreadPool, Error> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(jobs) = jobs {
        builder = builder.num_threads(jobs);
    }
    builder.build().map_err(|e| Error::Infrastructure(format!("cannot start the worker threads: {e}")))
}

/// A progress bar on standard error, only when it is a terminal and the
/// suite is large enough to wait for.
fn progress_bar(scenarios: usize, quiet: bool) -> Option<indicatif::ProgressBar> {
    const WORTH_A_BAR: usize = 2_000;
    if quiet || scenarios < WORTH_A_BAR || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(scenarios as u64);
    if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} scenarios {elapsed}") {
        bar.set_style(style);
    }
    Some(bar)
}
