//! The settings of `init`.

use std::path::PathBuf;

use super::super::args::{HookAgent, InitArgs};
use super::super::output::{text_width, Stream};
use crate::config::Config;
use crate::error::Error;
use crate::memory::Sources;

#[derive(Debug)]
pub(crate) struct InitSettings {
    /// The decision sources named by `--memory`, else by `memory:` of the
    /// configuration; `None`: init finds them.
    pub sources: Option<Sources>,
    /// The default memory file, when it exists (the first source init finds).
    pub memory: Option<PathBuf>,
    /// Write a first ADR when there are no decisions yet.
    pub first_adr: bool,
    pub force: bool,
    /// Also install the Claude Code hook.
    pub hook: bool,
    /// The columns init's text is fitted to (80 in a file or a pipe).
    pub width: usize,
}

pub(super) fn init(config: &Config, args: InitArgs) -> Result<InitSettings, Error> {
    // The sources --memory names (any that `validate --memory` takes), else
    // those of an existing configuration; without either, the default
    // memory file when there is one, and the sources init finds itself.
    let sources = if !args.memory.is_empty() || config.file.memory.is_some() {
        config.memory_sources(&args.memory)
    } else {
        None
    };
    let memory = Config::default().memory_path(None);
    let hook = match args.hook {
        None => false,
        Some(HookAgent::Claude) => true,
        Some(HookAgent::Gemini) => {
            return Err(Error::Usage(
                "init --hook installs the Claude Code hook only (--hook claude); docs/agents.md shows Gemini CLI's settings".into(),
            ))
        }
    };
    let width = text_width(Stream::Stdout).unwrap_or(80).min(80);
    Ok(InitSettings { sources, memory, first_adr: args.first_adr, force: args.force, hook, width })
}
