/*!
The command line, in ripgrep's two steps: [`args`] holds the clap types,
[`settings::resolve`] turns flags, `mneme-gate.yaml` and defaults into plain
settings once, and each command in [`commands`] is a short function from its
settings to an exit code. This is the only module that prints
([`output`]); [`crate::error`] words every failure and chooses its code.
*/

mod args;
mod commands;
mod environment;

/// The query file of `retrieve --queries`, parsed (for the fuzz target).
pub use commands::retrieve::{parse_queries, BatchQuery};
mod model;
mod output;
mod plan;
mod settings;
mod suite;

use clap::Parser;

use crate::error::{exit, github_annotation, Error};

/// Runs the command line and returns the process exit code.
pub fn run() -> i32 {
    let cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() && names_the_hook(std::env::args_os()) => {
            // The hook fails open even on flags it cannot parse: exit 2 would
            // tell Claude Code to block the tool call.
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or_default();
            output::note(&format!("hook: no context added: {}", first.strip_prefix("error: ").unwrap_or(first)));
            return exit::OK;
        }
        Err(e) => {
            // `--help` and `--version` are asked-for output: failing to write
            // them is exit 3, like any other output, unless the reader left.
            let printed = e.print();
            if e.use_stderr() && annotate_errors(None) {
                let text = e.render().to_string();
                output::stderr(&github_annotation(text.strip_prefix("error: ").unwrap_or(&text)));
            }
            return match printed {
                _ if e.use_stderr() => exit::INPUT,
                Err(w) if w.kind() != std::io::ErrorKind::BrokenPipe => exit::INFRASTRUCTURE,
                _ => exit::OK,
            };
        }
    };
    let annotate = annotate_errors(Some(&cli.command));
    match settings::resolve(cli).and_then(commands::execute) {
        Ok(code) => code,
        Err(Error::Write { path: None, source }) if source.kind() == std::io::ErrorKind::BrokenPipe => exit::OK,
        Err(e) => {
            output::note(&format!("error: {e}"));
            if annotate {
                output::stderr(&github_annotation(&e.to_string()));
            }
            e.exit_code()
        }
    }
}

/// Whether a command line runs `hook`: its first argument that is neither
/// an option nor the value of `--config` (the only global option with one).
fn names_the_hook(args: impl IntoIterator<Item = std::ffi::OsString>) -> bool {
    let mut args = args.into_iter().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--config" {
            args.next();
        } else if !arg.as_encoded_bytes().starts_with(b"-") {
            return arg == "hook";
        }
    }
    false
}

/// Whether an error (exit 2 or 3) is also printed as a GitHub Actions
/// `::error` annotation: in GitHub Actions (`GITHUB_ACTIONS=true`) unless
/// `run --annotations off`, and with `run --annotations github` anywhere.
fn annotate_errors(command: Option<&args::Command>) -> bool {
    settings::annotations(match command {
        Some(args::Command::Run(run)) => run.annotations,
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::names_the_hook;

    #[test]
    fn the_hook_is_told_apart_by_its_subcommand() {
        let argv = |args: &[&str]| names_the_hook(args.iter().map(std::ffi::OsString::from));
        assert!(argv(&["mneme-gate", "hook", "claude", "--bogus"]));
        assert!(argv(&["mneme-gate", "--config", "c.yaml", "hook"]));
        assert!(argv(&["mneme-gate", "--config=c.yaml", "hook"]));
        assert!(!argv(&["mneme-gate", "--config", "hook", "context"]));
        assert!(!argv(&["mneme-gate", "context", "--task", "hook"]));
        assert!(!argv(&["mneme-gate"]));
    }
}
