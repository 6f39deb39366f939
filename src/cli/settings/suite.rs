//! The suite a command runs ([`suite`]) and the model flags it is run with
//! ([`model_flags`]).

use std::path::PathBuf;

use globset::GlobMatcher;

use super::super::args::{ModelArgs, ResponsesMode, SuiteArgs};
use super::{memory, MemorySettings};
use crate::config::{Config, ModelFlags};
use crate::error::Error;
use crate::gate::GateSettings;
use crate::model::Mode;
use crate::report::partition::Slice;
use crate::scenarios::SuiteLimits;

/// A suite to run: the memory, the suite roots, the threads, the scenarios
/// selected, and the gate's rules.
#[derive(Debug, Clone)]
pub(crate) struct SuiteSettings {
    pub memory: MemorySettings,
    pub roots: Vec<PathBuf>,
    pub jobs: Option<usize>,
    /// Scenario id globs (`--filter`); empty: every scenario.
    pub filter: Vec<GlobMatcher>,
    pub gate: GateSettings,
    /// How much of its input the suite may make the tool read.
    pub limits: SuiteLimits,
    /// The model stage (`model:`), when a model is configured.
    pub model: Option<crate::model::Settings>,
    /// Only this partition of the selected scenarios (`run --partition`).
    pub partition: Option<Slice>,
}

/// The highest `--jobs` accepted: beyond it threads only cost.
pub(crate) const MAX_JOBS: usize = 1024;

/// The suite of `run`, `baseline` and `init`: the configuration's gate, the
/// flags' memory, roots and threads, and the `--filter` globs.
pub(crate) fn suite(config: &Config, args: &SuiteArgs, filter: &[String]) -> Result<SuiteSettings, Error> {
    let gate = config.gate_settings()?;
    let memory = memory(config, &args.memory)?;
    let roots = if args.scenarios.is_empty() { config.suites() } else { args.scenarios.clone() };
    if roots.is_empty() {
        return Err(Error::Usage("no suite: pass --scenarios PATH, or set `scenarios:` in mneme-gate.yaml".into()));
    }
    let jobs = match args.jobs {
        Some(0) => return Err(Error::Usage("--jobs must be at least 1".into())),
        Some(n) if n > MAX_JOBS => {
            return Err(Error::Usage(format!(
                "--jobs {n} is more threads than any machine can use here; give at most {MAX_JOBS}"
            )))
        }
        other => other,
    };
    let mut matchers = Vec::new();
    for pattern in filter {
        let glob = globset::Glob::new(pattern)
            .map_err(|e| Error::Usage(format!("--filter `{pattern}` is not a valid glob: {}", e.kind())))?;
        matchers.push(glob.compile_matcher());
    }
    let model = config.model_settings(&crate::config::ModelFlags::default())?;
    Ok(SuiteSettings {
        memory,
        roots,
        jobs,
        filter: matchers,
        gate,
        limits: config.suite_limits()?,
        model,
        partition: None,
    })
}

/// The model flags as the configuration reads them.
pub(crate) fn model_flags(args: &ModelArgs) -> ModelFlags {
    ModelFlags {
        responses: args.responses.map(|m| match m {
            ResponsesMode::Replay => Mode::Replay,
            ResponsesMode::Record => Mode::Record,
            ResponsesMode::Live => Mode::Live,
        }),
        repeat: args.repeat,
        base_url: args.model_base_url.clone(),
        model: args.model.clone(),
        api_key_env: args.model_api_key_env.clone(),
        temperature: args.model_temperature,
        seed: args.model_seed,
        max_tokens: args.model_max_tokens,
        timeout_s: args.model_timeout,
        concurrency: args.model_concurrency,
        retries: args.model_retries,
        structured: args.model_structured,
        cassettes: args.cassettes.clone(),
        price_input: args.model_price_input,
        price_output: args.model_price_output,
    }
}
