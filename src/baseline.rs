/*!
The pinned baseline: reading it, checking that it is comparable, comparing a
run with it, and the gate rules that need it.

A baseline is a JSON report (`mneme-gate.report/v1`) pinned by
`mneme-gate baseline`. A run is compared with it scenario by scenario and
figure by figure; every difference is explained in words a reviewer can act
on: the verdict change, each decision that entered or left the top-k with
its old and new rank and score, the metric deltas, and a unified diff of the
context block the model saw before and sees now.

A changed memory file or suite is what is under test, so it is reported, not
refused. A different `k`, profile or metric definition makes the figures
incomparable, so it is refused unless the caller says otherwise.

The code: this module reads a baseline and checks it is comparable;
`compare` compares two reports, `rules` turns a comparison into gate rules,
and `corpus` compares the decision corpus with a git revision. The data
they produce is part of the report ([`crate::report::comparison`]).
*/

use std::path::{Path, PathBuf};

use crate::describe::json_error;
use crate::memory::{read_report, size_in_words, ReadError};
use crate::report::{Report, REPORT_SCHEMA};

/// The largest baseline (or saved report) read, in bytes (256 MiB): a
/// report of 100,000 scenarios is far smaller, and the cap bounds what a
/// hostile file can make the gate hold in memory.
pub const MAX_BASELINE_BYTES: u64 = 256 * 1024 * 1024;

mod compare;
mod corpus;
mod rules;
mod statistics;
#[cfg(test)]
mod tests;

pub use compare::{compare, unified_diff};
pub use corpus::{attribute, memory_diff};
// The data of a comparison is part of the report; it is computed here.
pub use crate::report::comparison::{
    BaselineChange, BaselineSource, Comparison, DecisionEdit, DecisionMove, DecisionRef, FieldEdit, MemoryDiff,
    MetricChange, Movement, ScenarioChange,
};
pub use rules::rules;

mod select;
pub use select::{select, AtRevision, Selected};

/// Why a baseline cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error("cannot read the baseline {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "there is no baseline at {}: pin one with `mneme-gate baseline`, or run with --no-baseline",
        path.display()
    )]
    Missing { path: PathBuf },
    /// The path is a folder, a named pipe, a device: not a report to read.
    #[error(
        "the baseline {} is {kind}, not a regular file: give the path of a report that `mneme-gate baseline` or `run --json` wrote",
        path.display()
    )]
    NotAFile { path: PathBuf, kind: &'static str },
    /// The file is larger than [`MAX_BASELINE_BYTES`].
    #[error(
        "the baseline {} is larger than {}, the most mneme-gate reads: it is not a report mneme-gate wrote; check the path, or re-pin it with `mneme-gate baseline`",
        path.display(),
        size_in_words(*limit)
    )]
    TooLarge { path: PathBuf, limit: u64 },
    #[error(
        "{path}:{line}:{column}: the baseline is not a mneme-gate report: {message}; re-pin it with `mneme-gate baseline`"
    )]
    Parse { path: String, line: usize, column: usize, message: String },
    #[error(
        "{path}: the baseline has schema `{found}`, this mneme-gate reads `{REPORT_SCHEMA}`; re-pin it with `mneme-gate baseline`"
    )]
    Schema { path: String, found: String },
    /// Parsed, but not something mneme-gate writes (a hand-edited report).
    #[error("{path}: the baseline is not a mneme-gate report: {message}; re-pin it with `mneme-gate baseline`")]
    Inconsistent { path: String, message: String },
}

/// Reads a baseline (or any saved report) from a file: only a regular file
/// (after symbolic links) of at most [`MAX_BASELINE_BYTES`], in UTF-8 (a
/// byte-order mark is allowed), or this process's standard input named by a
/// path (`diff OLD /dev/stdin`); never another pipe or a device.
pub fn load(path: &Path) -> Result<Report, BaselineError> {
    let bytes = match read_report(path, MAX_BASELINE_BYTES) {
        Ok(bytes) => bytes,
        Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(BaselineError::Missing { path: path.to_path_buf() })
        }
        Err(ReadError::Io(source)) => return Err(BaselineError::Read { path: path.to_path_buf(), source }),
        Err(ReadError::NotAFile(kind)) => return Err(BaselineError::NotAFile { path: path.to_path_buf(), kind }),
        Err(ReadError::TooLarge { limit }) => return Err(BaselineError::TooLarge { path: path.to_path_buf(), limit }),
    };
    let label = path.display().to_string();
    let text = match crate::confine::utf8_text(bytes) {
        Ok(text) => text,
        Err(crate::confine::NotUtf8 { line, column, .. }) => {
            return Err(BaselineError::Parse {
                path: label,
                line,
                column,
                message: "the file is not valid UTF-8".into(),
            });
        }
    };
    parse(&label, &text)
}

/// Parses a saved report; `label` names it in messages (a path, or
/// `REV:path` for one read from git). A leading byte-order mark is skipped.
pub fn parse(label: &str, text: &str) -> Result<Report, BaselineError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // The schema first, so that a future version says so instead of
    // failing on a field it renamed.
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(text) {
        if let Some(schema) = value.get("schema").and_then(|s| s.as_str()) {
            if schema != REPORT_SCHEMA {
                return Err(BaselineError::Schema { path: label.to_string(), found: schema.to_string() });
            }
        }
    }
    let report = crate::report::json::parse(text).map_err(|e| BaselineError::Parse {
        path: label.to_string(),
        line: e.line(),
        column: e.column().max(1),
        message: json_error(&e),
    })?;
    // A ranking never holds a decision twice; comparing one that does would
    // report moves that never happened.
    for s in &report.scenarios {
        let mut seen = std::collections::HashSet::new();
        if let Some(dup) = s.retrieved.iter().find(|r| !seen.insert(r.id.as_str())) {
            return Err(BaselineError::Inconsistent {
                path: label.to_string(),
                message: format!("scenario `{}` retrieves `{}` twice", s.id, dup.id),
            });
        }
    }
    Ok(report)
}

/// What makes two reports incomparable: a different `k`, profile or metric
/// definition, each in words. Empty when they are comparable.
pub fn incompatibilities(baseline: &Report, current: &Report) -> Vec<String> {
    let (b, c) = (&baseline.fingerprint, &current.fingerprint);
    let mut out = Vec::new();
    if b.k != c.k {
        out.push(format!("k: the baseline has {}, this run {}", b.k, c.k));
    }
    if b.metrics_version != c.metrics_version {
        out.push(format!("metric definitions: the baseline has {}, this run {}", b.metrics_version, c.metrics_version));
    }
    let (bp, cp) = (&b.profile, &c.profile);
    if bp.name != cp.name {
        out.push(format!("profile: the baseline used `{}`, this run `{}`", bp.name, cp.name));
    }
    let fields: [(&str, f64, f64); 8] = [
        ("weights.title", bp.weights.title, cp.weights.title),
        ("weights.tags", bp.weights.tags, cp.weights.tags),
        ("weights.constraint", bp.weights.constraint, cp.weights.constraint),
        ("weights.anti_patterns", bp.weights.anti_patterns, cp.weights.anti_patterns),
        ("weights.content", bp.weights.content, cp.weights.content),
        ("tag_boost", bp.tag_boost, cp.tag_boost),
        ("min_score", bp.min_score, cp.min_score),
        ("min_token_len", bp.min_token_len as f64, cp.min_token_len as f64),
    ];
    for (name, before, after) in fields {
        if before != after {
            out.push(format!("profile {name}: the baseline used {before}, this run {after}"));
        }
    }
    if bp.stem != cp.stem {
        out.push(format!("profile stem: the baseline used {}, this run {}", bp.stem, cp.stem));
    }
    let none = std::collections::BTreeMap::new();
    let (bb, cb) = (bp.bm25f.as_ref().unwrap_or(&none), cp.bm25f.as_ref().unwrap_or(&none));
    let keys: std::collections::BTreeSet<&String> = bb.keys().chain(cb.keys()).collect();
    for key in keys {
        let shown = |v: Option<&f64>| v.map_or("none".to_string(), f64::to_string);
        if bb.get(key) != cb.get(key) {
            out.push(format!(
                "profile bm25f.{key}: the baseline used {}, this run {}",
                shown(bb.get(key)),
                shown(cb.get(key))
            ));
        }
    }
    out
}

/// The report as pinned: no git metadata, no timings and no comparison, so
/// that re-pinning the same results gives the same bytes on any commit.
pub fn pinned(report: &Report) -> Report {
    let mut pinned = report.clone();
    pinned.git = None;
    pinned.timings = None;
    pinned.comparison = None;
    pinned.memory_diff = None;
    pinned
}
