/*!
[`SuiteError`]: a problem that makes a suite unusable, naming its file and,
where there is one, its `line:column`, and saying what to do.

A problem that spoils only one scenario (a broken assertion, a missing or
unreadable response file) is not a `SuiteError`: it is found later and makes
that scenario MALFORMED. This file finds no problem itself; it words them.
*/

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::model::SourceLocation;

/// A problem that makes a suite unusable. Every variant names the file and,
/// where there is one, the 1-based line and column, and its message says
/// what to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SuiteError {
    /// A suite path or file could not be read.
    Io { path: PathBuf, message: String },
    /// The file is not valid YAML / JSON.
    Syntax { path: PathBuf, line: usize, column: usize, message: String },
    /// A value has the wrong type.
    WrongType {
        path: PathBuf,
        line: usize,
        column: usize,
        /// The key (or `scenario`, `suite file`) whose value is wrong.
        field: String,
        /// What it must be, e.g. `a list of strings`.
        expected: String,
        /// What it is, e.g. `a string`.
        found: String,
    },
    /// A key that a scenario (or suite file) does not have: typos must not
    /// pass silently.
    UnknownKey {
        path: PathBuf,
        line: usize,
        column: usize,
        key: String,
        /// The keys allowed there.
        allowed: Vec<String>,
        /// The closest allowed key, if the unknown one looks like a typo.
        suggestion: Option<String>,
    },
    /// A required field (`id`, `task`, `scenarios`, `query.txt`) is missing
    /// or empty.
    MissingField {
        path: PathBuf,
        line: usize,
        column: usize,
        field: String,
        /// What to write, e.g. `task: <what the agent is asked to do>`.
        hint: String,
    },
    /// A response path is absolute or climbs out of the suite root.
    PathOutsideRoot { path: PathBuf, line: usize, column: usize, response: String, root: PathBuf },
    /// Two scenarios share an id; `path:line:column` is the second one.
    DuplicateId { id: String, first: SourceLocation, second: SourceLocation },
    /// The same scenario was loaded twice because two suite roots overlap.
    OverlappingRoots { id: String, location: SourceLocation, first_root: PathBuf, second_root: PathBuf },
    /// A suite root holds no scenario at all.
    NoScenarios { path: PathBuf },
}

impl SuiteError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            SuiteError::Io { path, .. }
            | SuiteError::Syntax { path, .. }
            | SuiteError::WrongType { path, .. }
            | SuiteError::UnknownKey { path, .. }
            | SuiteError::MissingField { path, .. }
            | SuiteError::PathOutsideRoot { path, .. }
            | SuiteError::NoScenarios { path } => path,
            SuiteError::DuplicateId { second, .. } => &second.path,
            SuiteError::OverlappingRoots { location, .. } => &location.path,
        }
    }

    /// 1-based line, when the error has a place in a file.
    pub fn line(&self) -> Option<usize> {
        self.line_column().map(|(l, _)| l)
    }

    /// 1-based column, when the error has a place in a file.
    pub fn column(&self) -> Option<usize> {
        self.line_column().map(|(_, c)| c)
    }

    fn line_column(&self) -> Option<(usize, usize)> {
        match self {
            SuiteError::Io { .. } | SuiteError::NoScenarios { .. } => None,
            SuiteError::Syntax { line, column, .. }
            | SuiteError::WrongType { line, column, .. }
            | SuiteError::UnknownKey { line, column, .. }
            | SuiteError::MissingField { line, column, .. }
            | SuiteError::PathOutsideRoot { line, column, .. } => Some((*line, *column)),
            SuiteError::DuplicateId { second, .. } => Some((second.line, second.column)),
            SuiteError::OverlappingRoots { location, .. } => Some((location.line, location.column)),
        }
    }

    /// `path:line:column` (or just the path).
    pub fn location(&self) -> String {
        match self.line_column() {
            Some((l, c)) => format!("{}:{l}:{c}", self.path().display()),
            None => self.path().display().to_string(),
        }
    }
}

impl fmt::Display for SuiteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.location())?;
        match self {
            SuiteError::Io { message, .. } => write!(f, "{message}"),
            SuiteError::Syntax { message, .. } => {
                write!(f, "syntax error: {message}; fix the file and load it again")
            }
            SuiteError::WrongType { field, expected, found, .. } => {
                write!(f, "`{field}` must be {expected}, found {found}")
            }
            SuiteError::UnknownKey { key, allowed, suggestion, .. } => {
                write!(f, "unknown key `{key}`")?;
                if let Some(s) = suggestion {
                    write!(f, " (did you mean `{s}`?)")?;
                }
                write!(f, "; allowed keys are {}", allowed.join(", "))
            }
            SuiteError::MissingField { field, hint, .. } => {
                write!(f, "`{field}` is missing or empty; add {hint}")
            }
            SuiteError::PathOutsideRoot { response, root, .. } => write!(
                f,
                "response path `{response}` is outside the suite root `{}`; put the response \
                 file inside that folder and name it by a path relative to this suite file",
                root.display()
            ),
            SuiteError::DuplicateId { id, first, .. } => write!(
                f,
                "duplicate scenario id `{id}`, first defined at {}:{}; ids must be unique \
                 across the whole suite, rename one of them",
                first.path.display(),
                first.line
            ),
            SuiteError::OverlappingRoots { id, first_root, second_root, .. } => write!(
                f,
                "scenario `{id}` is loaded twice because the suite roots `{}` and `{}` overlap; \
                 pass only one of them",
                first_root.display(),
                second_root.display()
            ),
            SuiteError::NoScenarios { .. } => write!(
                f,
                "no scenarios found; a suite root holds *.yaml / *.yml files with a \
                 `scenarios:` list, or Mneme benchmark folders (with scenario.json)"
            ),
        }
    }
}

impl std::error::Error for SuiteError {}
