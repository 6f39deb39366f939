/*!
The one place where failures become messages and exit codes.

Library stages return their own typed errors; [`Error`] gathers every failure
a user can cause (and the few the machine can), and [`Error::exit_code`] maps
each to the documented code. Anything else is a bug, not an exit code.
*/

use std::fmt;
use std::path::PathBuf;

use crate::baseline::BaselineError;
use crate::config::ConfigError;
use crate::describe::{defuse_lines, printable};
use crate::evaluate::EvaluateError;
use crate::git::GitError;
use crate::memory::MemoryError;
use crate::model::ModelError;
use crate::report::annotations::escape_data;
use crate::report::partition::PartitionError;
use crate::scenarios::SuiteError;

/// Exit codes, as documented in `docs/exit-codes.md`.
pub mod exit {
    /// The gate passed (or the command did what it was asked).
    pub const OK: i32 = 0;
    /// The gate failed: a rule was violated.
    pub const GATE_FAILED: i32 = 1;
    /// Usage, configuration or input error: fix the command or the files.
    pub const INPUT: i32 = 2;
    /// Infrastructure error: something outside the inputs failed.
    pub const INFRASTRUCTURE: i32 = 3;
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad flags or a missing required input.
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Memory(#[from] MemoryError),
    /// The baseline (or a saved report) cannot be used.
    #[error(transparent)]
    Baseline(#[from] BaselineError),
    /// Partial reports (`merge`) that cannot be read or do not make a run.
    #[error(transparent)]
    Partition(#[from] PartitionError),
    /// The baseline was made with another k, profile or metric definitions.
    #[error("the baseline {path} is not comparable with this run:{}\nre-pin it with `mneme-gate baseline` (a reviewed change), or compare anyway with --allow-incompatible-baseline", Lines(differences))]
    IncompatibleBaseline { path: String, differences: Vec<String> },
    /// A git revision or file could not be read.
    #[error(transparent)]
    Git(#[from] GitError),
    /// The suite could not be loaded: every problem found, each with its place.
    #[error("the suite has {} problem(s); fix them and run again:{}", .0.len(), Lines(.0))]
    Suite(Vec<SuiteError>),
    /// A line of an input file (for example a queries JSONL) is wrong.
    #[error("{} has {} bad line(s):{}", path.display(), problems.len(), BadLines { path, problems })]
    Input { path: PathBuf, problems: Vec<(usize, String)> },
    /// Reading an input file failed.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Writing output failed (a full disk, a closed pipe).
    #[error("cannot write {}: {source}", path.as_ref().map_or("the output".to_string(), |p| p.display().to_string()))]
    Write {
        path: Option<PathBuf>,
        #[source]
        source: std::io::Error,
    },
    /// The model stage: a missing or broken cassette (input), or the model's
    /// endpoint failing (infrastructure).
    #[error(transparent)]
    Model(#[from] ModelError),
    /// `validate` found errors in the decisions, or warnings with
    /// `--strict`; the findings themselves are its output.
    #[error("{} is not valid: {}{}", path.display(), count(*errors, "error"), if *strict && *warnings > 0 { format!(" and {} (--strict counts warnings)", count(*warnings, "warning")) } else { String::new() })]
    Invalid { path: PathBuf, errors: usize, warnings: usize, strict: bool },
    /// The machine failed: threads could not be started, and the like.
    #[error("{0}")]
    Infrastructure(String),
}

impl From<EvaluateError> for Error {
    fn from(e: EvaluateError) -> Error {
        match e {
            EvaluateError::Baseline(e) => Error::Baseline(e),
            EvaluateError::Incompatible { path, differences } => Error::IncompatibleBaseline { path, differences },
            EvaluateError::MemoryNotLoaded(what) => Error::Infrastructure(format!("{what}: the memory was not loaded")),
        }
    }
}

impl Error {
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_)
            | Error::Config(_)
            | Error::Memory(_)
            | Error::Suite(_)
            | Error::Baseline(_)
            | Error::Partition(_)
            | Error::IncompatibleBaseline { .. }
            | Error::Input { .. }
            | Error::Invalid { .. }
            | Error::Read { .. } => exit::INPUT,
            Error::Git(e) if e.is_infrastructure() => exit::INFRASTRUCTURE,
            Error::Git(_) => exit::INPUT,
            Error::Model(e) if e.is_input() => exit::INPUT,
            Error::Write { .. } | Error::Infrastructure(_) | Error::Model(_) => exit::INFRASTRUCTURE,
        }
    }
}

/// A failure as a GitHub Actions `::error` workflow command, so that an
/// exit 2 or 3 in CI shows in the run's annotations and not only in its log.
/// The message is defused like every line the tool prints (no raw control
/// character, no `##[`) and then escaped by the workflow command rules
/// (`%`, `\r`, `\n`), so it stays one command whatever it quotes.
pub fn github_annotation(message: &str) -> String {
    format!("::error title=mneme-gate::{}\n", escape_data(&defuse_lines(message.trim_end(), false)))
}

/// `1 error`, `2 errors`.
fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// Items, one per indented line (an item that quotes a control character
/// shows it escaped, so it stays on its line).
struct Lines<'a, T>(&'a [T]);

impl<T: fmt::Display> fmt::Display for Lines<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|item| write!(f, "\n  {}", printable(&item.to_string())))
    }
}

/// The first twenty bad lines of a file, as `path:line: message`.
struct BadLines<'a> {
    path: &'a std::path::Path,
    problems: &'a [(usize, String)],
}

impl fmt::Display for BadLines<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SHOWN: usize = 20;
        for (line, message) in self.problems.iter().take(SHOWN) {
            write!(f, "\n  {}:{line}: {}", self.path.display(), printable(message))?;
        }
        if self.problems.len() > SHOWN {
            write!(f, "\n  ... and {} more", self.problems.len() - SHOWN)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_code() {
        let io = || std::io::Error::other("x");
        assert_eq!(Error::Usage("u".into()).exit_code(), exit::INPUT);
        let invalid = Error::Invalid { path: "m.json".into(), errors: 0, warnings: 2, strict: true };
        assert_eq!(invalid.exit_code(), exit::INPUT);
        assert_eq!(invalid.to_string(), "m.json is not valid: 0 errors and 2 warnings (--strict counts warnings)");
        let invalid = Error::Invalid { path: "m.json".into(), errors: 1, warnings: 2, strict: false };
        assert_eq!(invalid.to_string(), "m.json is not valid: 1 error");
        assert_eq!(Error::Read { path: "f".into(), source: io() }.exit_code(), exit::INPUT);
        assert_eq!(Error::Write { path: None, source: io() }.exit_code(), exit::INFRASTRUCTURE);
        assert_eq!(Error::Infrastructure("threads".into()).exit_code(), exit::INFRASTRUCTURE);
    }

    #[test]
    fn an_annotation_is_one_workflow_command_whatever_the_message_quotes() {
        let e = Error::Usage("cannot read x\n::add-mask::secret 100%\r\u{1b}[31m".into());
        assert_eq!(
            github_annotation(&e.to_string()),
            "::error title=mneme-gate::cannot read x%0A\\u{3a}:add-mask::secret 100%25\\r\\u{1b}[31m\n"
        );
        let text = github_annotation("two\nlines\n");
        assert_eq!(text, "::error title=mneme-gate::two%0Alines\n");
        assert_eq!(text.lines().count(), 1);
    }

    #[test]
    fn lists_are_one_per_line_and_long_ones_are_cut() {
        let e = Error::IncompatibleBaseline { path: "b.json".into(), differences: vec!["k 3 → 5".into()] };
        assert_eq!(
            e.to_string(),
            "the baseline b.json is not comparable with this run:\n  k 3 → 5\nre-pin it with `mneme-gate baseline` \
             (a reviewed change), or compare anyway with --allow-incompatible-baseline"
        );
        let problems = (1..=22).map(|n| (n, format!("bad {n}"))).collect();
        let text = Error::Input { path: "q.jsonl".into(), problems }.to_string();
        assert!(text.starts_with("q.jsonl has 22 bad line(s):\n  q.jsonl:1: bad 1\n"), "{text}");
        assert!(text.ends_with("\n  q.jsonl:20: bad 20\n  ... and 2 more"), "{text}");
        let w = Error::Write { path: None, source: std::io::Error::other("disk full") };
        assert_eq!(w.to_string(), "cannot write the output: disk full");
    }
}
