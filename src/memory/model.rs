/*!
The loaded memory as the rest of the crate sees it: the canonical
[`Decision`] of the retrieval pool, the records kept out of it
([`Excluded`], and why: [`Exclusion`]), the problems found ([`Diagnostic`])
and the [`Memory`] that holds them all.

Why it exists apart from the loaders: retrieval, the report and the command
line read these types and nothing else of loading. It deliberately holds no
parsing and no pool rules; the only behaviour here is presentation (how a
diagnostic, a record kind or an exclusion is worded) and the mapping of byte
offsets to lines and columns.
*/

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use globset::Glob;
use serde::Serialize;

use super::lines;
use crate::profile::Family;

/// One canonical decision of the retrieval pool.
#[derive(Debug, Clone, Serialize)]
pub struct Decision {
    pub id: String,
    pub title: String,
    pub tags: Vec<String>,
    pub constraint: Vec<String>,
    pub anti_patterns: Vec<String>,
    pub content: String,
    /// Scope globs as written (only item records under profile `default`).
    pub paths: Vec<String>,
    pub status: Option<String>,
    /// Where it came from: `decision record` or the item type.
    pub kind: RecordKind,
    /// Byte offset of the record (its `{`) in the memory text.
    #[serde(skip)]
    pub offset: usize,
    /// The compiled globs, in `paths` order (a trailing `/` already expanded).
    #[serde(skip)]
    pub globs: Vec<Glob>,
    /// The typed rules of a decision record, read under profile `mneme` only
    /// (its prompt enforcer checks them); empty under `default`, which never
    /// uses them.
    #[serde(skip)]
    pub rules: Vec<Rule>,
}

/// A typed rule of a decision record (`rules[]`), as Mneme 0.10.0 reads it.
/// Its type is always `FORBID_LITERAL`, the only one Mneme defines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// The literal the rule forbids, as written.
    pub value: String,
    /// `include_paths`: `None` when absent (the rule applies everywhere);
    /// otherwise a non-empty list of path selectors.
    pub include_paths: Option<Vec<String>>,
    /// `exclude_paths` (only with `include_paths`).
    pub exclude_paths: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "shape", content = "type", rename_all = "snake_case")]
pub enum RecordKind {
    /// A `decisions[]` element with a string `decision`.
    DecisionRecord,
    /// An item record and its `type`.
    Item(String),
}

impl fmt::Display for RecordKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordKind::DecisionRecord => f.write_str("decision record"),
            RecordKind::Item(t) => write!(f, "item of type `{t}`"),
        }
    }
}

/// Why a well-formed record is not in the pool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Exclusion {
    NotEligibleType {
        item_type: String,
    },
    InactiveStatus {
        status: String,
    },
    DuplicateId {
        kept_line: usize,
    },
    /// Profile `mneme`, a file with a `decision_index`: Mneme reads the
    /// decisions from the index and no longer migrates items.
    NotMigrated,
    /// Profile `default`, a file with a `decision_index`: an item that
    /// `mneme decision-index migrate` copied into `decisions[]`, where the
    /// copy (at `kept_line`) is the one in the pool.
    MigratedCopy {
        kept_line: usize,
    },
}

impl Exclusion {
    pub fn code(&self) -> &'static str {
        match self {
            Exclusion::NotEligibleType { .. } => "not_eligible_type",
            Exclusion::InactiveStatus { .. } => "inactive_status",
            Exclusion::DuplicateId { .. } | Exclusion::MigratedCopy { .. } => "duplicate_id",
            Exclusion::NotMigrated => "not_migrated",
        }
    }
}

impl fmt::Display for Exclusion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exclusion::NotEligibleType { item_type } => {
                write!(f, "item type `{item_type}` is not retrievable under this profile")
            }
            Exclusion::InactiveStatus { status } => write!(f, "status `{status}` is inactive"),
            Exclusion::DuplicateId { kept_line } => write!(f, "duplicate id: the record at line {kept_line} wins"),
            Exclusion::NotMigrated => f.write_str(
                "the file has a `decision_index`: profile mneme reads the decisions from it, as Mneme 0.10.0 does, and no longer migrates items",
            ),
            Exclusion::MigratedCopy { kept_line } => write!(
                f,
                "`mneme decision-index migrate` copied this item into decisions[] (line {kept_line}), and that copy is the one in the pool"
            ),
        }
    }
}

/// A well-formed record kept out of the pool.
#[derive(Debug, Clone, Serialize)]
pub struct Excluded {
    pub id: String,
    pub title: String,
    pub kind: RecordKind,
    pub line: usize,
    pub column: usize,
    pub reason: Exclusion,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// One problem found in the memory file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    pub line: usize,
    pub column: usize,
    pub record_id: Option<String>,
    pub message: String,
}

impl Diagnostic {
    /// `path:line:column: error: message (record "id")`.
    pub fn render(&self, path: &Path) -> String {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let rec = match &self.record_id {
            Some(id) => format!(" (record \"{id}\")"),
            None => String::new(),
        };
        format!("{}:{}:{}: {sev}: {}{rec}", path.display(), self.line, self.column, self.message)
    }
}

/// A loaded memory file: the pool in pool order, the records kept out of it,
/// and every problem found.
#[derive(Debug)]
pub struct Memory {
    pub path: PathBuf,
    pub family: Family,
    pub pool: Vec<Decision>,
    pub excluded: Vec<Excluded>,
    pub diagnostics: Vec<Diagnostic>,
    /// Records seen, well-formed or not.
    pub records: usize,
    /// Profile `mneme` read the pool from the file's persisted
    /// `decision_index` (its `decisions[]` verified against it).
    pub decision_index: bool,
    /// The memory text, for lines and columns.
    pub(super) text: String,
    /// Its line starts, computed on the first [`Memory::line_col`].
    pub(super) lines: OnceLock<Vec<usize>>,
}

impl Memory {
    /// A memory with nothing in it but `diagnostics`.
    pub(super) fn empty(path: &Path, family: Family, diagnostics: Vec<Diagnostic>) -> Memory {
        Memory {
            path: path.to_path_buf(),
            family,
            pool: Vec::new(),
            excluded: Vec::new(),
            diagnostics,
            records: 0,
            decision_index: false,
            text: String::new(),
            lines: OnceLock::new(),
        }
    }

    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.severity == Severity::Error)
    }

    pub(crate) fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Warning)
    }

    /// The memory file's text as read (what the report's fingerprint hashes).
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// 1-based line and column of a byte offset in the file.
    pub(crate) fn line_col(&self, offset: usize) -> (usize, usize) {
        let starts = self.lines.get_or_init(|| lines::line_starts(&self.text));
        lines::line_col(&self.text, starts, offset)
    }

    /// Records a problem at a byte offset of the file.
    pub(super) fn push(&mut self, severity: Severity, offset: usize, record_id: Option<&str>, message: String) {
        let (line, column) = self.line_col(offset);
        self.diagnostics.push(Diagnostic { severity, line, column, record_id: record_id.map(str::to_string), message });
    }

    /// Sorts the problems as they are shown: errors first, then by position.
    pub(super) fn sort_diagnostics(&mut self) {
        self.diagnostics.sort_by_key(|d| (d.severity, d.line, d.column));
    }
}
