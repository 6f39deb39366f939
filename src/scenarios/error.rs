/*!
[`SuiteError`]: a problem that makes a suite unusable, naming its file and,
where there is one, its `line:column`, and saying what to do.

A problem that spoils only one scenario (a broken assertion, a missing or
unreadable response file) is not a `SuiteError`: it is found later and makes
that scenario MALFORMED. This file finds no problem itself; it words them.
*/

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::scenario::SourceLocation;

/// A problem that makes a suite unusable. Every variant names the file and,
/// where there is one, the 1-based line and column, and its message says
/// what to do. Each message starts with [`SuiteError::location`] and a colon.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SuiteError {
    /// A suite path or file could not be read.
    #[error("{}: {message}", .path.display())]
    Io { path: PathBuf, message: String },
    /// A file the suite names is not read: it leads outside the suite root
    /// through a symlink, is not a regular file (a FIFO, a device), or is
    /// larger than the limit; `message` says which, naming a symlink and
    /// its target.
    #[error("{}: {message}", .path.display())]
    Refused { path: PathBuf, message: String },
    /// The file is not UTF-8 text: `byte` at `line:column` is the first
    /// that is not (the column counts the characters before it).
    #[error(
        "{}:{line}:{column}: the file is not UTF-8: byte 0x{byte:02X} cannot be read; save the file as UTF-8",
        .path.display()
    )]
    NotUtf8 { path: PathBuf, line: usize, column: usize, byte: u8 },
    /// The file is not valid YAML / JSON.
    #[error("{}:{line}:{column}: syntax error: {message}; fix the file and load it again", .path.display())]
    Syntax { path: PathBuf, line: usize, column: usize, message: String },
    /// The YAML goes beyond a limit of `YamlLimits` (aliases that multiply
    /// content, nesting too deep); `message` says which and what to do.
    #[error("{}:{line}:{column}: {message}", .path.display())]
    Limit { path: PathBuf, line: usize, column: usize, message: String },
    /// A value has the wrong type.
    #[error("{}:{line}:{column}: `{field}` must be {expected}, found {found}", .path.display())]
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
    #[error(
        "{}:{line}:{column}: unknown key `{key}`{}; allowed keys are {}",
        .path.display(),
        did_you_mean(.suggestion),
        .allowed.join(", ")
    )]
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
    #[error("{}:{line}:{column}: `{field}` is missing or empty; add {hint}", .path.display())]
    MissingField {
        path: PathBuf,
        line: usize,
        column: usize,
        field: String,
        /// What to write, e.g. `task: <what the agent is asked to do>`.
        hint: String,
    },
    /// A response path is absolute or climbs out of the suite root.
    #[error(
        "{}:{line}:{column}: response path `{response}` is outside the suite root `{}`; put the response \
         file inside that folder and name it by a path relative to this suite file",
        .path.display(),
        .root.display()
    )]
    PathOutsideRoot { path: PathBuf, line: usize, column: usize, response: String, root: PathBuf },
    /// Two scenarios share an id; `path:line:column` is the second one.
    #[error(
        "{second}: duplicate scenario id `{id}`, first defined at {}:{}; ids must be unique \
         across the whole suite, rename one of them",
        .first.path.display(),
        .first.line
    )]
    DuplicateId { id: String, first: SourceLocation, second: SourceLocation },
    /// The same scenario was loaded twice because two suite roots overlap.
    #[error(
        "{location}: scenario `{id}` is loaded twice because the suite roots `{}` and `{}` overlap; \
         pass only one of them",
        .first_root.display(),
        .second_root.display()
    )]
    OverlappingRoots { id: String, location: SourceLocation, first_root: PathBuf, second_root: PathBuf },
    /// A suite root holds no scenario at all.
    #[error(
        "{}: no scenarios found; a suite root holds *.yaml / *.yml files with a \
         `scenarios:` list, or Mneme benchmark folders (with scenario.json)",
        .path.display()
    )]
    NoScenarios { path: PathBuf },
}

impl SuiteError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            SuiteError::Io { path, .. }
            | SuiteError::Refused { path, .. }
            | SuiteError::NotUtf8 { path, .. }
            | SuiteError::Syntax { path, .. }
            | SuiteError::Limit { path, .. }
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

    pub(crate) fn line_column(&self) -> Option<(usize, usize)> {
        match self {
            SuiteError::Io { .. } | SuiteError::Refused { .. } | SuiteError::NoScenarios { .. } => None,
            SuiteError::NotUtf8 { line, column, .. }
            | SuiteError::Syntax { line, column, .. }
            | SuiteError::Limit { line, column, .. }
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

/// ` (did you mean `key`?)`, or nothing.
fn did_you_mean(suggestion: &Option<String>) -> String {
    suggestion.as_ref().map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(path: &str, line: usize) -> SourceLocation {
        SourceLocation { path: PathBuf::from(path), line, column: 5 }
    }

    /// One error of each kind, word for word: the messages are part of the
    /// interface (users read them, snapshots hold them).
    #[test]
    fn every_message_word_for_word() {
        let p = || PathBuf::from("s/a.yaml");
        let cases = [
            (SuiteError::Io { path: p(), message: "cannot read".into() }, "s/a.yaml: cannot read"),
            (
                SuiteError::Refused { path: p(), message: "the suite file is a socket".into() },
                "s/a.yaml: the suite file is a socket",
            ),
            (
                SuiteError::Syntax { path: p(), line: 3, column: 4, message: "bad".into() },
                "s/a.yaml:3:4: syntax error: bad; fix the file and load it again",
            ),
            (
                SuiteError::NotUtf8 { path: p(), line: 3, column: 14, byte: 0xe9 },
                "s/a.yaml:3:14: the file is not UTF-8: byte 0xE9 cannot be read; save the file as UTF-8",
            ),
            (
                SuiteError::Limit { path: p(), line: 6, column: 8, message: "aliases expand this file".into() },
                "s/a.yaml:6:8: aliases expand this file",
            ),
            (
                SuiteError::WrongType {
                    path: p(),
                    line: 2,
                    column: 9,
                    field: "id".into(),
                    expected: "a string".into(),
                    found: "a list".into(),
                },
                "s/a.yaml:2:9: `id` must be a string, found a list",
            ),
            (
                SuiteError::UnknownKey {
                    path: p(),
                    line: 4,
                    column: 5,
                    key: "taks".into(),
                    allowed: vec!["id".into(), "task".into()],
                    suggestion: Some("task".into()),
                },
                "s/a.yaml:4:5: unknown key `taks` (did you mean `task`?); allowed keys are id, task",
            ),
            (
                SuiteError::UnknownKey {
                    path: p(),
                    line: 4,
                    column: 5,
                    key: "zz".into(),
                    allowed: vec!["scenarios".into()],
                    suggestion: None,
                },
                "s/a.yaml:4:5: unknown key `zz`; allowed keys are scenarios",
            ),
            (
                SuiteError::MissingField {
                    path: p(),
                    line: 1,
                    column: 1,
                    field: "task".into(),
                    hint: "`task: x`".into(),
                },
                "s/a.yaml:1:1: `task` is missing or empty; add `task: x`",
            ),
            (
                SuiteError::PathOutsideRoot {
                    path: p(),
                    line: 5,
                    column: 16,
                    response: "../x.json".into(),
                    root: PathBuf::from("s"),
                },
                "s/a.yaml:5:16: response path `../x.json` is outside the suite root `s`; put the response file \
                 inside that folder and name it by a path relative to this suite file",
            ),
            (
                SuiteError::DuplicateId { id: "r".into(), first: at("s/a.yaml", 2), second: at("s/b.yaml", 7) },
                "s/b.yaml:7:5: duplicate scenario id `r`, first defined at s/a.yaml:2; ids must be unique across \
                 the whole suite, rename one of them",
            ),
            (
                SuiteError::OverlappingRoots {
                    id: "r".into(),
                    location: at("s/a.yaml", 2),
                    first_root: PathBuf::from("s"),
                    second_root: PathBuf::from("s/a.yaml"),
                },
                "s/a.yaml:2:5: scenario `r` is loaded twice because the suite roots `s` and `s/a.yaml` overlap; \
                 pass only one of them",
            ),
            (
                SuiteError::NoScenarios { path: PathBuf::from("s") },
                "s: no scenarios found; a suite root holds *.yaml / *.yml files with a `scenarios:` list, or \
                 Mneme benchmark folders (with scenario.json)",
            ),
        ];
        for (error, message) in cases {
            let text = error.to_string();
            assert_eq!(text, message);
            assert!(text.starts_with(&format!("{}: ", error.location())), "{text}");
        }
    }
}
