/*!
Flags, `mneme-gate.yaml` and defaults, resolved once into plain settings.

[`resolve`] is the only place that knows where a value may come from (a
flag, the configuration file, the environment, a default); the commands
receive finished values and never look at the flags or the file again.
Every value that can be wrong is checked here, so a command starts only
with settings that make sense together. This file dispatches each command
to its resolver, one file per group of commands under `settings/`, and
holds what they share: the memory sources and the profile.
*/

use std::path::{Path, PathBuf};

use super::args::{CassettesCommand, Cli, Command, MemoryArgs, ProfileName};
use super::output::colour_stdout;
pub(crate) use super::output::Destination;
use crate::config::Config;
use crate::error::Error;
use crate::memory::Sources;
use crate::profile::{Named, Profile};

mod agent;
mod analysis;
mod baseline;
mod cassettes;
mod init;
mod query;
mod run;
mod suite;
pub(crate) use agent::{hook_memory, index_dir, sessions_dir, HookSettings, McpSettings};
pub(crate) use analysis::{CoverageSettings, DraftSettings, SuggestSettings, TuneSettings};
pub(crate) use baseline::{DiffSettings, PinSettings, DEFAULT_BASELINE};
pub(crate) use cassettes::PruneSettings;
pub(crate) use init::InitSettings;
pub(crate) use query::{ExplainSettings, ImportSettings, Input, QuerySettings, RetrieveSettings, ValidateSettings};
pub(crate) use run::{annotations, ConcludeSettings, MergeSettings, RunSettings};
pub(crate) use suite::{suite, SuiteSettings};

/// What one invocation does, with everything it needs.
#[derive(Debug)]
pub(crate) enum Settings {
    Context(QuerySettings),
    Explain(ExplainSettings),
    Retrieve(RetrieveSettings),
    Validate(ValidateSettings),
    Import(ImportSettings),
    Run(Box<RunSettings>),
    Merge(Box<MergeSettings>),
    Baseline(PinSettings),
    Diff(DiffSettings),
    Suggest(SuggestSettings),
    Tune(TuneSettings),
    Coverage(CoverageSettings),
    Init(InitSettings),
    Draft(DraftSettings),
    Cassettes(PruneSettings),
    Hook(HookSettings),
    Mcp(McpSettings),
}

/// The decision sources (one memory file, or a list) and the profile they
/// are read and scored under.
#[derive(Debug, Clone)]
pub(crate) struct MemorySettings {
    pub sources: Sources,
    pub profile: Profile,
}

impl MemorySettings {
    /// The memory file, when the sources are one JSON file.
    pub fn file(&self) -> Option<&Path> {
        self.sources.single_json()
    }

    /// The sources as messages and reports name them: the memory file, or
    /// `adr:docs/adr, cursor:.cursor/rules`.
    pub fn label(&self) -> PathBuf {
        match self.file() {
            Some(p) => p.to_path_buf(),
            None => PathBuf::from(self.sources.label()),
        }
    }
}

/// Resolves the command line against the configuration file.
pub(crate) fn resolve(cli: Cli) -> Result<Settings, Error> {
    let command = match cli.command {
        // The hook fails open: it resolves its flags itself, when it runs.
        Command::Hook(args) => return Ok(Settings::Hook(agent::hook(cli.config, args))),
        command => command,
    };
    let config = Config::discover(cli.config.as_deref())?;
    let colour = colour_stdout();
    Ok(match command {
        Command::Context(args) => Settings::Context(query::query(&config, args)?),
        Command::Explain(args) => Settings::Explain(query::explain(&config, args)?),
        Command::Retrieve(args) => Settings::Retrieve(query::retrieve(&config, args)?),
        Command::Validate(args) => Settings::Validate(query::validate(&config, args)?),
        Command::Import(args) => Settings::Import(query::import(&config, args)?),
        Command::Run(args) => Settings::Run(Box::new(run::run(&config, *args, colour)?)),
        Command::Merge(args) => Settings::Merge(Box::new(run::merge(&config, *args, colour)?)),
        Command::Baseline(args) => Settings::Baseline(baseline::pin(&config, args, colour)?),
        Command::Diff(args) => Settings::Diff(baseline::diff(&config, args, colour)?),
        Command::Suggest(args) => Settings::Suggest(analysis::suggest(&config, args)?),
        Command::Tune(args) => Settings::Tune(analysis::tune(&config, args)?),
        Command::Coverage(args) => Settings::Coverage(analysis::coverage(&config, args)?),
        Command::Init(args) => Settings::Init(init::init(&config, args)?),
        Command::Draft(args) => Settings::Draft(analysis::draft(&config, args)?),
        Command::Cassettes(CassettesCommand::Prune(args)) => {
            Settings::Cassettes(cassettes::prune_settings(&config, *args)?)
        }
        Command::Mcp(args) => Settings::Mcp(agent::mcp(&config, args)?),
        Command::Hook(_) => unreachable!("resolved above"),
    })
}

fn family(name: Option<ProfileName>) -> Option<Named> {
    name.map(|n| match n {
        ProfileName::Default => Named::Default,
        ProfileName::Classic => Named::Classic,
        ProfileName::Mneme => Named::Mneme,
    })
}

fn memory(config: &Config, args: &MemoryArgs) -> Result<MemorySettings, Error> {
    let profile = config.profile(family(args.profile), args.k)?;
    Ok(MemorySettings { sources: memory_sources(config, &args.memory)?, profile })
}

/// The decision sources ([`Config::memory_sources`]), or what to do
/// without any.
fn memory_sources(config: &Config, flags: &[PathBuf]) -> Result<Sources, Error> {
    config.memory_sources(flags).ok_or_else(|| {
        Error::Usage(
            "no memory file: pass --memory FILE (or --memory adr:docs/adr/ and other sources), or set `memory:` in mneme-gate.yaml (looked for ./project_memory.json and ./.mneme/project_memory.json)".into(),
        )
    })
}
