//! The settings of the commands that read the memory and answer one
//! question about it: `context`, `explain`, `retrieve`, `validate` and
//! `import`.

use std::path::PathBuf;

use super::super::args::{ExplainArgs, ImportArgs, QueryArgs, RetrieveArgs, ValidateArgs};
use super::super::output::{text_width, Destination, Stream};
use super::{agent, family, index_dir, memory, memory_sources, MemorySettings};
use crate::config::Config;
use crate::error::Error;

#[derive(Debug)]
pub(crate) struct QuerySettings {
    pub memory: MemorySettings,
    pub task: String,
    pub file: Option<String>,
    pub json: bool,
    /// The columns text for people is laid out to ([`text_width`]).
    pub width: Option<usize>,
    /// The folder of the caches (`None`: nothing is cached).
    pub cache: Option<PathBuf>,
}

#[derive(Debug)]
pub(crate) struct ExplainSettings {
    pub query: QuerySettings,
    /// The id of the decision to say why not (`--why-not`).
    pub why_not: Option<String>,
}

/// Where a file's text comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Input {
    Stdin,
    File(PathBuf),
}

#[derive(Debug)]
pub(crate) struct RetrieveSettings {
    pub memory: MemorySettings,
    pub queries: Input,
}

#[derive(Debug)]
pub(crate) struct ImportSettings {
    pub memory: MemorySettings,
    pub out: Destination,
}

#[derive(Debug)]
pub(crate) struct ValidateSettings {
    pub memory: MemorySettings,
    /// The suite roots of the configuration (`scenarios:`), read to count
    /// the scenarios waiting for review; none without a configuration.
    pub suites: Vec<PathBuf>,
    pub strict: bool,
    pub json: bool,
}

pub(super) fn query(config: &Config, args: QueryArgs) -> Result<QuerySettings, Error> {
    Ok(QuerySettings {
        memory: memory(config, &args.memory)?,
        task: args.task,
        file: args.file,
        json: args.format.is_json(),
        width: text_width(Stream::Stdout),
        cache: agent::cache_dir().map(|c| index_dir(&c)),
    })
}

pub(super) fn explain(config: &Config, args: ExplainArgs) -> Result<ExplainSettings, Error> {
    Ok(ExplainSettings { query: query(config, args.query)?, why_not: args.why_not })
}

pub(super) fn retrieve(config: &Config, args: RetrieveArgs) -> Result<RetrieveSettings, Error> {
    let queries = if args.queries.as_os_str() == "-" { Input::Stdin } else { Input::File(args.queries.clone()) };
    Ok(RetrieveSettings { memory: memory(config, &args.memory)?, queries })
}

pub(super) fn validate(config: &Config, args: ValidateArgs) -> Result<ValidateSettings, Error> {
    let profile = config.profile(family(args.profile), None)?;
    let memory = MemorySettings { sources: memory_sources(config, &args.memory)?, profile };
    Ok(ValidateSettings { memory, suites: config.suites(), strict: args.strict, json: args.format.is_json() })
}

pub(super) fn import(config: &Config, args: ImportArgs) -> Result<ImportSettings, Error> {
    let profile = config.profile(family(args.profile), None)?;
    let sources = config.memory_sources(&args.sources).ok_or_else(|| {
        Error::Usage(
            "import needs sources: name them (mneme-gate import adr:docs/adr/ cursor:.cursor/rules/ --out project_memory.json), or set `memory:` in mneme-gate.yaml".into(),
        )
    })?;
    let out = args.out.as_deref().map_or(Destination::Stdout, Destination::of);
    Ok(ImportSettings { memory: MemorySettings { sources, profile }, out })
}
