//! One file per command, each a short function from its settings to an exit
//! code. A new command is a new file here, a variant in `args::Command` and
//! one in `settings::Settings`.

mod baseline;
mod cassettes;
mod context;
mod coverage;
mod diff;
mod draft;
mod explain;
mod hook;
mod import;
mod init;
mod mcp;
mod merge;
pub(crate) mod retrieve;
mod run;
mod suggest;
mod tune;
mod validate;

use super::settings::Settings;
use crate::error::Error;

/// Runs the command the settings describe.
pub(crate) fn execute(settings: Settings) -> Result<i32, Error> {
    match settings {
        Settings::Context(s) => context::execute(s),
        Settings::Explain(s) => explain::execute(s),
        Settings::Retrieve(s) => retrieve::execute(s),
        Settings::Validate(s) => validate::execute(s),
        Settings::Import(s) => import::execute(s),
        Settings::Run(s) => run::execute(*s),
        Settings::Merge(s) => merge::execute(*s),
        Settings::Baseline(s) => baseline::execute(s),
        Settings::Diff(s) => diff::execute(s),
        Settings::Suggest(s) => suggest::execute(s),
        Settings::Tune(s) => tune::execute(s),
        Settings::Coverage(s) => coverage::execute(s),
        Settings::Init(s) => init::execute(s),
        Settings::Draft(s) => draft::execute(s),
        Settings::Cassettes(s) => cassettes::execute(s),
        Settings::Hook(s) => hook::execute(s),
        Settings::Mcp(s) => mcp::execute(s),
    }
}
