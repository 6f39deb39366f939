//! A configuration error with its place, and how the errors of one
//! configuration are gathered, capped and said in words (serde-saphyr's
//! messages rewritten for people).

use std::path::{Path, PathBuf};

use serde_saphyr::Spanned;

/// A problem with the configuration or the flags, with a place if known.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{}", self.place(), self.message)]
pub struct ConfigError {
    pub path: Option<PathBuf>,
    pub line: Option<u64>,
    pub column: Option<u64>,
    pub message: String,
}

impl ConfigError {
    /// `path:line:column: `, `path: ` or nothing.
    fn place(&self) -> String {
        match (&self.path, self.line, self.column) {
            (Some(p), Some(l), Some(c)) => format!("{}:{l}:{c}: ", p.display()),
            (Some(p), _, _) => format!("{}: ", p.display()),
            _ => String::new(),
        }
    }

    pub fn usage(message: impl Into<String>) -> Self {
        ConfigError { path: None, line: None, column: None, message: message.into() }
    }

    pub(super) fn at<T>(path: &Path, spanned: &Spanned<T>, message: String) -> Self {
        ConfigError::at_location(path, spanned.referenced, message)
    }

    pub(super) fn at_location(path: &Path, loc: serde_saphyr::Location, message: String) -> Self {
        let (line, column) = if loc.line() > 0 { (Some(loc.line()), Some(loc.column())) } else { (None, None) };
        ConfigError { path: Some(path.to_path_buf()), line, column, message }
    }
}

/// The most errors a configuration file reports.
pub(super) const MAX_CONFIG_ERRORS: usize = 20;

/// The errors of one configuration as one, in line order: the first with
/// its place, each other on a line of its own under it; `None` when there
/// are none.
pub(super) fn together(mut errors: Vec<ConfigError>) -> Option<ConfigError> {
    errors.sort_by_key(|e| (e.line.is_none(), e.line, e.column));
    let mut errors = errors.into_iter();
    let mut first = errors.next()?;
    for e in errors {
        first.message.push_str(&format!("\n  {e}"));
    }
    Some(first)
}

/// The value of `result`, or `None` with its error added to `errors`.
pub(super) fn keep<T>(errors: &mut Vec<ConfigError>, result: Result<T, ConfigError>) -> Option<T> {
    result.map_err(|e| errors.push(e)).ok()
}

/// Whether a serde-saphyr error is about one key or value (an unknown key,
/// a wrong type or value, a key set twice), after which the rest of the
/// file can still be read; not a syntax error.
pub(super) fn value_error(e: &serde_saphyr::Error) -> bool {
    use serde_saphyr::Error as E;
    let mut e = e;
    while let E::WithSnippet { error, .. } = e {
        e = error;
    }
    matches!(
        e,
        E::SerdeInvalidType { .. }
            | E::SerdeInvalidValue { .. }
            | E::SerdeInvalidLength { .. }
            | E::SerdeUnknownVariant { .. }
            | E::SerdeUnknownField { .. }
            | E::SerdeMissingField { .. }
            | E::InvalidScalar { .. }
            | E::InvalidBooleanStrict { .. }
            | E::NullIntoString { .. }
            | E::NonFiniteFloat { .. }
            | E::Unexpected { .. }
            | E::DuplicateMappingKey { .. }
    )
}

/// What a serde-saphyr error means for a configuration file, in words a
/// user can act on. The library's own wording is for developers (`use
/// from_str_multiple`, `set DuplicateKeyPolicy in Options`, `budget breached:
/// Depth { .. }`, `invalid i64`); the place is given apart, as `path:line:column`.
pub(super) fn yaml_message(e: &serde_saphyr::Error) -> String {
    use serde_saphyr::budget::BudgetBreach;
    use serde_saphyr::Error as E;
    let mut e = e;
    while let E::WithSnippet { error, .. } | E::AliasError { error, .. } = e {
        e = error;
    }
    match e {
        E::MultipleDocuments { .. } => {
            "a second YAML document starts here (after a `---` line); the configuration is one \
             document: remove the `---` and merge what follows into the first"
                .into()
        }
        E::DuplicateMappingKey { key, .. } => format!(
            "{} is set a second time here, in the same mapping; YAML does not allow it: keep only one",
            key.as_deref().map_or("a key".to_string(), |k| format!("`{k}`"))
        ),
        E::Budget { breach, .. } => {
            let what = match breach {
                BudgetBreach::Depth { .. } => "nested too deep",
                BudgetBreach::Events { .. } | BudgetBreach::Nodes { .. } => "made of too many values",
                BudgetBreach::Aliases { .. }
                | BudgetBreach::Anchors { .. }
                | BudgetBreach::AliasAnchorRatio { .. }
                | BudgetBreach::RecordedAnchorEvents { .. }
                | BudgetBreach::RecordedAnchorBytes { .. } => "expanding too many aliases (`*name`)",
                BudgetBreach::Documents { .. } => "made of too many documents",
                BudgetBreach::ScalarBytes { .. } | BudgetBreach::InputBytes { .. } => "holding too much text",
                BudgetBreach::MergeKeys { .. } => "using too many merge keys (`<<`)",
                _ => "too large or too complex",
            };
            format!("the YAML is {what} for a configuration, which is a few plain lines: this is not a mneme-gate configuration; check the file")
        }
        E::AliasReplayCounterOverflow { .. }
        | E::AliasReplayLimitExceeded { .. }
        | E::AliasExpansionLimitExceeded { .. }
        | E::AliasReplayStackDepthExceeded { .. } => {
            "the aliases (`*name`) expand too much for a configuration: write the values out instead".into()
        }
        E::UnknownAnchor { .. } => "this alias (`*name`) names no anchor (`&name`) defined before it".into(),
        E::InvalidUtf8Input => "the file is not valid UTF-8: save it as UTF-8".into(),
        // A misspelt key (a gate rule, a weight) names the one it most
        // likely meant.
        E::SerdeUnknownField { field, expected, .. } => format!(
            "unknown field `{field}`, expected one of {}{}",
            expected.join(", "),
            crate::describe::suggest(field, expected).map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default()
        ),
        E::InvalidScalar { ty, .. } => format!("expected {}", scalar_words(ty)),
        E::Unexpected { expected, .. } => format!("expected {}", expected.replace("string scalar", "a string")),
        E::Eof { .. } => "the file ends in the middle of a value".into(),
        E::Message { msg, .. } if msg.contains("untagged enum OneOrMany") => {
            "expected a path or a list of paths".into()
        }
        _ => {
            // The library's sentence, first line only, without its own
            // "at line L, column C" (the place is given apart).
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("invalid YAML");
            let first = match first.rfind(" at line ") {
                Some(i) if first[i..].contains(", column ") => &first[..i],
                _ => first,
            };
            first.to_string()
        }
    }
}

/// A Rust scalar type in a message, in words.
fn scalar_words(ty: &str) -> String {
    match ty {
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128" | "usize" => {
            "a whole number".into()
        }
        "f32" | "f64" => "a number".into(),
        "bool" | "boolean" => "`true` or `false`".into(),
        "char" => "a single character".into(),
        "string" | "String" | "str" => "a string".into(),
        other => format!("a value of type {other}"),
    }
}
