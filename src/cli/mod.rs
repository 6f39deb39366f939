/*!
The command line, in ripgrep's two steps: [`args`] holds the clap types,
[`settings::resolve`] turns flags, `mneme-gate.yaml` and defaults into plain
settings once, and each command in [`commands`] is a short function from its
settings to an exit code. This is the only module that prints
([`output`]); [`crate::error`] words every failure and chooses its code.
*/

mod args;
mod commands;
mod model;
mod output;
mod settings;
mod suite;

use clap::Parser;

use crate::error::{exit, Error};

/// Runs the command line and returns the process exit code.
pub fn run() -> i32 {
    let cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // `--help` and `--version` are asked-for output: failing to write
            // them is exit 3, like any other output, unless the reader left.
            let printed = e.print();
            return match printed {
                _ if e.use_stderr() => exit::INPUT,
                Err(w) if w.kind() != std::io::ErrorKind::BrokenPipe => exit::INFRASTRUCTURE,
                _ => exit::OK,
            };
        }
    };
    match settings::resolve(cli).and_then(commands::execute) {
        Ok(code) => code,
        Err(Error::Write { path: None, source }) if source.kind() == std::io::ErrorKind::BrokenPipe => exit::OK,
        Err(e) => {
            output::note(&format!("error: {e}"));
            e.exit_code()
        }
    }
}
