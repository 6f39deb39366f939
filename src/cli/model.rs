/*!
The model stage on the command line: its flags (each overrides a key of
`model:` in `mneme-gate.yaml`), the `cassettes` command's arguments, and the
suite run with the stage in it: plan the requests, resolve them with the
real HTTP transport behind a progress bar, run every trial, and add what the
model did to the report.

Without a model configured, or when no scenario needs answers, the suite
runs exactly as it always did.
*/

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use clap::{Args, Subcommand, ValueEnum};

use super::output;
use crate::config::ModelFlags;
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

/// Where the answers of scenarios without recorded answers come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ResponsesMode {
    /// Cassettes only; no network (the default).
    Replay,
    /// Cassettes where they exist; the model for the rest, recorded as cassettes.
    Record,
    /// The model for every request; nothing written.
    Live,
}

/// The model stage's flags (docs/models.md).
#[derive(Debug, Default, Args)]
pub(crate) struct ModelArgs {
    /// Answers of scenarios without recorded answers: `replay` cassettes (no network; the default),
    /// `record` the missing ones, or ask the model `live` (needs `model:` in mneme-gate.yaml or
    /// --model-base-url and --model).
    #[arg(long, value_name = "MODE", help_heading = "Model")]
    pub responses: Option<ResponsesMode>,
    /// Ask each arm N times; the report gives pass^N and each scenario's verdicts.
    #[arg(long, value_name = "N", help_heading = "Model")]
    pub repeat: Option<usize>,
    /// The OpenAI-compatible base URL, ending in /v1 (`model.base_url`).
    #[arg(long, value_name = "URL", help_heading = "Model")]
    pub model_base_url: Option<String>,
    /// The model's name (`model.model`).
    #[arg(long, value_name = "NAME", help_heading = "Model")]
    pub model: Option<String>,
    /// The environment variable holding the API key (`model.api_key_env`).
    #[arg(long, value_name = "VAR", help_heading = "Model")]
    pub model_api_key_env: Option<String>,
    /// `model.temperature` (default 0).
    #[arg(long, value_name = "T", help_heading = "Model")]
    pub model_temperature: Option<f64>,
    /// `model.seed` (default: none sent).
    #[arg(long, value_name = "N", help_heading = "Model", allow_negative_numbers = true)]
    pub model_seed: Option<i64>,
    /// `model.max_tokens` (default 1024).
    #[arg(long, value_name = "N", help_heading = "Model")]
    pub model_max_tokens: Option<u64>,
    /// `model.timeout_s`: seconds one attempt may take (default 60).
    #[arg(long, value_name = "SECONDS", help_heading = "Model")]
    pub model_timeout: Option<f64>,
    /// `model.concurrency`: requests in flight at most (default 4).
    #[arg(long, value_name = "N", help_heading = "Model")]
    pub model_concurrency: Option<usize>,
    /// `model.retries` on 429, 5xx and timeouts (default 4).
    #[arg(long, value_name = "N", help_heading = "Model")]
    pub model_retries: Option<u32>,
    /// `model.structured`: ask for the structured answer schema (default true).
    #[arg(long, value_name = "BOOL", help_heading = "Model")]
    pub model_structured: Option<bool>,
    /// `model.cassettes`: the cassette folder (default: cassettes/ beside mneme-gate.yaml).
    #[arg(long, value_name = "DIR", help_heading = "Model")]
    pub cassettes: Option<PathBuf>,
    /// `model.prices.input_per_million`: price of a million input tokens, for the estimated cost.
    #[arg(long, value_name = "PRICE", help_heading = "Model")]
    pub model_price_input: Option<f64>,
    /// `model.prices.output_per_million`: price of a million output tokens.
    #[arg(long, value_name = "PRICE", help_heading = "Model")]
    pub model_price_output: Option<f64>,
}

impl ModelArgs {
    /// The flags as the configuration reads them.
    pub(crate) fn flags(&self) -> ModelFlags {
        ModelFlags {
            responses: self.responses.map(|m| match m {
                ResponsesMode::Replay => Mode::Replay,
                ResponsesMode::Record => Mode::Record,
                ResponsesMode::Live => Mode::Live,
            }),
            repeat: self.repeat,
            base_url: self.model_base_url.clone(),
            model: self.model.clone(),
            api_key_env: self.model_api_key_env.clone(),
            temperature: self.model_temperature,
            seed: self.model_seed,
            max_tokens: self.model_max_tokens,
            timeout_s: self.model_timeout,
            concurrency: self.model_concurrency,
            retries: self.model_retries,
            structured: self.model_structured,
            cassettes: self.cassettes.clone(),
            price_input: self.model_price_input,
            price_output: self.model_price_output,
        }
    }
}

/// `mneme-gate cassettes ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum CassettesCommand {
    /// List the cassettes no request of the suite uses any more (and broken files); --delete removes them.
    Prune(Box<PruneArgs>),
}

#[derive(Debug, Args)]
pub(crate) struct PruneArgs {
    #[command(flatten)]
    pub suite: super::args::SuiteArgs,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Remove the cassettes listed.
    #[arg(long)]
    pub delete: bool,
}

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

/// `cassettes prune`, resolved.
#[derive(Debug)]
pub(crate) struct PruneSettings {
    pub suite: super::settings::SuiteSettings,
    pub model: Settings,
    pub delete: bool,
}

/// Resolves `cassettes prune`: the suite, and the model (required).
pub(crate) fn prune_settings(config: &crate::config::Config, args: PruneArgs) -> Result<PruneSettings, Error> {
    let suite = super::settings::suite(config, &args.suite, &[])?;
    let model = config.model_settings(&args.model.flags())?.ok_or_else(|| {
        Error::Usage(
            "no model is configured, so no request can be planned: add a `model:` section to mneme-gate.yaml, or pass --model-base-url and --model (docs/models.md)".into(),
        )
    })?;
    Ok(PruneSettings { suite, model, delete: args.delete })
}
