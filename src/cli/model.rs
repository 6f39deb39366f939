/*!
The model stage on the command line: the suite run with the stage in it:
plan the requests, resolve them with the real HTTP transport behind a
progress bar, run every trial, and add what the model did to the report.
Its flags (each overrides a key of `model:` in `mneme-gate.yaml`) are in
`args`, resolved in `settings`.

Without a model configured, or when no scenario needs answers, the suite
runs exactly as it always did.
*/

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use super::output;
use crate::describe::printable;
use crate::error::Error;
use crate::model::client::HttpTransport;
use crate::model::retry::{Backoff, ThreadSleep};
use crate::model::stage::{self, Network, Plan, Progress, Resolved};
use crate::model::{Mode, Settings};
use crate::report::{display_path, Report};
use crate::retrieval::Index;
use crate::run::trials::run_trials;
use crate::run::{RunOptions, RunResult};
use crate::scenarios::Scenario;
use crate::verdict::Verdict;

/// What the model stage did in a run, to add to its report.
pub(crate) struct ModelStage {
    plan: Plan,
    resolved: Resolved,
    settings: Settings,
    verdicts: Vec<Vec<Verdict>>,
}

impl ModelStage {
    pub(crate) fn attach(&self, report: &mut Report) {
        crate::report::model::attach(report, &self.plan, &self.resolved, &self.settings, &self.verdicts);
    }

    /// The distinct requests and the tokens of each (zero for one that was
    /// not resolved), for a partition's partial report: `merge` counts the
    /// requests and tokens of the whole run from them.
    pub(crate) fn requests(&self) -> std::collections::BTreeMap<String, [u64; 2]> {
        self.plan
            .requests
            .keys()
            .map(|key| {
                let tokens = self.resolved.cassettes.get(key).map_or([0, 0], |c| {
                    [c.exchange.usage.prompt_tokens.unwrap_or(0), c.exchange.usage.completion_tokens.unwrap_or(0)]
                });
                (key.clone(), tokens)
            })
            .collect()
    }
}

/// Runs the suite, with the model stage when a model is configured and
/// some scenario needs answers.
pub(crate) fn run(
    index: &Index,
    scenarios: Vec<Scenario>,
    settings: Option<&Settings>,
    options: RunOptions<'_>,
    quiet: bool,
) -> Result<(RunResult, Option<ModelStage>), Error> {
    let pool = |e: crate::run::PoolError| Error::Infrastructure(e.to_string());
    let plan = settings.map(|s| stage::plan(index, &scenarios, s));
    let (Some(settings), Some(plan)) = (settings, plan.filter(|p| !p.scenarios.is_empty())) else {
        return Ok((crate::run::run(index, scenarios, options).map_err(pool)?, None));
    };
    let transport = HttpTransport::new(settings.timeout);
    let bar = Bar::new(quiet);
    let network = Network { transport: &transport, sleep: &ThreadSleep, backoff: Backoff::default(), progress: &bar };
    let resolved = stage::resolve(&plan, settings, &network);
    bar.finish();
    let resolved = resolved?;
    if resolved.called > 0 {
        let recorded = match settings.mode {
            Mode::Record => format!(", recorded in {}", printable(&display_path(&settings.cassettes))),
            _ => String::new(),
        };
        output::note(&format!(
            "model: {} request(s) replayed from cassettes, {} sent to {}{recorded}",
            resolved.replayed,
            resolved.called,
            printable(&settings.endpoint.url)
        ));
    }
    let repeat = settings.repeat.max(1);
    let mut trials = Vec::with_capacity(repeat);
    let mut scenarios = Some(scenarios);
    for sample in 0..repeat {
        let mut trial = if sample + 1 == repeat {
            scenarios.take().unwrap_or_default()
        } else {
            scenarios.clone().unwrap_or_default()
        };
        stage::answer(&mut trial, &plan, &resolved, sample);
        trials.push(trial);
    }
    let trials = run_trials(index, trials, options).map_err(pool)?;
    let stage = ModelStage { plan, resolved, settings: settings.clone(), verdicts: trials.verdicts };
    Ok((trials.run, Some(stage)))
}

/// The progress of the calls on standard error, when it is a terminal:
/// requests done, in flight, retries and tokens.
struct Bar {
    /// Whether to show one (standard error is a terminal, not `--quiet`).
    shown: bool,
    bar: std::sync::OnceLock<indicatif::ProgressBar>,
    sent: AtomicUsize,
    done: AtomicUsize,
    retries: AtomicUsize,
    tokens: AtomicU64,
}

impl Bar {
    fn new(quiet: bool) -> Bar {
        Bar {
            shown: !quiet && std::io::stderr().is_terminal(),
            bar: std::sync::OnceLock::new(),
            sent: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
            retries: AtomicUsize::new(0),
            tokens: AtomicU64::new(0),
        }
    }

    fn show(&self) {
        if let Some(bar) = self.bar.get() {
            let in_flight = self.sent.load(Ordering::SeqCst).saturating_sub(self.done.load(Ordering::SeqCst));
            bar.set_message(format!(
                "{in_flight} in flight, {} retries, {} tokens",
                self.retries.load(Ordering::SeqCst),
                self.tokens.load(Ordering::SeqCst)
            ));
            bar.set_position(self.done.load(Ordering::SeqCst) as u64);
        }
    }

    fn finish(&self) {
        if let Some(bar) = self.bar.get() {
            bar.finish_and_clear();
        }
    }
}

impl Progress for Bar {
    fn start(&self, requests: usize) {
        if self.shown {
            let bar = indicatif::ProgressBar::new(requests as u64);
            if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} requests, {msg} {elapsed}")
            {
                bar.set_style(style);
            }
            bar.enable_steady_tick(std::time::Duration::from_millis(200));
            let _ = self.bar.set(bar);
        }
        self.show();
    }
    fn sent(&self) {
        self.sent.fetch_add(1, Ordering::SeqCst);
        self.show();
    }
    fn retried(&self) {
        self.retries.fetch_add(1, Ordering::SeqCst);
        self.show();
    }
    fn done(&self, tokens: u64) {
        self.done.fetch_add(1, Ordering::SeqCst);
        // A count from a server or a cassette: saturating, never wrapping.
        let _ = self.tokens.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |t| Some(t.saturating_add(tokens)));
        self.show();
    }
}
