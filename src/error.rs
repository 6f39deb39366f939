/*!
The one place where failures become messages and exit codes.

Library stages return their own typed errors; [`Error`] gathers every failure
a user can cause, and [`Error::exit_code`] maps each to the documented code.
Anything else is a bug, not an exit code.
*/

use std::fmt;
use std::path::PathBuf;

use crate::config::ConfigError;
use crate::memory::MemoryError;
use crate::scenarios::SuiteError;

/// Exit codes, as documented in the README.
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

#[derive(Debug)]
pub enum Error {
    /// Bad flags or a missing required input.
    Usage(String),
    Config(ConfigError),
    Memory(MemoryError),
    /// The baseline (or a saved report) cannot be used.
    Baseline(crate::baseline::BaselineError),
    /// The baseline was made with another k, profile or metric definitions.
    IncompatibleBaseline {
        path: String,
        differences: Vec<String>,
    },
    /// A git revision or file could not be read.
    Git(crate::git::GitError),
    /// The suite could not be loaded: every problem found, each with its place.
    Suite(Vec<SuiteError>),
    /// A line of an input file (for example a queries JSONL) is wrong.
    Input {
        path: PathBuf,
        problems: Vec<(usize, String)>,
    },
    /// Reading an input file failed.
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Writing output failed (a full disk, a closed pipe).
    Write {
        path: Option<PathBuf>,
        source: std::io::Error,
    },
}

impl Error {
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_)
            | Error::Config(_)
            | Error::Memory(_)
            | Error::Suite(_)
            | Error::Baseline(_)
            | Error::IncompatibleBaseline { .. }
            | Error::Git(_)
            | Error::Input { .. }
            | Error::Read { .. } => exit::INPUT,
            Error::Write { .. } => exit::INFRASTRUCTURE,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(m) => f.write_str(m),
            Error::Config(e) => write!(f, "{e}"),
            Error::Memory(e) => write!(f, "{e}"),
            Error::Baseline(e) => write!(f, "{e}"),
            Error::Git(e) => write!(f, "{e}"),
            Error::IncompatibleBaseline { path, differences } => {
                write!(f, "the baseline {path} is not comparable with this run:")?;
                for d in differences {
                    write!(f, "\n  {d}")?;
                }
                write!(
                    f,
                    "\nre-pin it with `mneme-gate baseline` (a reviewed change), or compare anyway with --allow-incompatible-baseline"
                )
            }
            Error::Suite(errors) => {
                write!(f, "the suite has {} problem(s); fix them and run again:", errors.len())?;
                for e in errors {
                    write!(f, "\n  {e}")?;
                }
                Ok(())
            }
            Error::Input { path, problems } => {
                write!(f, "{} has {} bad line(s):", path.display(), problems.len())?;
                for (line, message) in problems.iter().take(20) {
                    write!(f, "\n  {}:{line}: {message}", path.display())?;
                }
                if problems.len() > 20 {
                    write!(f, "\n  ... and {} more", problems.len() - 20)?;
                }
                Ok(())
            }
            Error::Read { path, source } => write!(f, "cannot read {}: {source}", path.display()),
            Error::Write { path: Some(p), source } => write!(f, "cannot write {}: {source}", p.display()),
            Error::Write { path: None, source } => write!(f, "cannot write the output: {source}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<ConfigError> for Error {
    fn from(e: ConfigError) -> Self {
        Error::Config(e)
    }
}

impl From<MemoryError> for Error {
    fn from(e: MemoryError) -> Self {
        Error::Memory(e)
    }
}
