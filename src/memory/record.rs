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
use std::sync::{Arc, OnceLock};

use globset::Glob;
use serde::Serialize;

use super::lines;
use crate::profile::Family;

/// One canonical decision of the retrieval pool.
///
/// Compact on purpose: a memory can hold a million records, so the fields
/// most records leave empty (ADR sections, status, supersession, origin,
/// typed rules) live together in one boxed [`Rare`], absent when all are
/// empty, and read through accessors. A scope glob is shared by every
/// record that writes it ([`Arc`]): the loaders compile each distinct
/// pattern once.
#[derive(Debug, Clone)]
pub struct Decision {
    pub id: String,
    pub title: String,
    pub tags: Vec<String>,
    pub constraint: Vec<String>,
    pub anti_patterns: Vec<String>,
    pub content: String,
    /// Scope globs as written (only item records under profile `default`).
    pub paths: Vec<String>,
    /// Where it came from: `decision record` or the item type.
    pub kind: RecordKind,
    /// Byte offset of the record (its `{`) in the memory text (0 for a
    /// record of a Markdown source, whose place is its origin).
    pub offset: usize,
    /// The compiled globs, in `paths` order (a trailing `/` already expanded).
    pub globs: Vec<Arc<Glob>>,
    /// The fields most records leave empty; `None` when every one is.
    pub rare: Option<Box<Rare>>,
}

/// The fields of a [`Decision`] that most records leave empty, boxed
/// together so that they cost one pointer where they are.
#[derive(Debug, Clone, Default)]
pub struct Rare {
    /// The rest of a decision's text, by part, as a Markdown source reads it
    /// (empty for a record of a JSON memory file): what `content` does not
    /// hold, so that a profile can weigh each part on its own.
    pub sections: Sections,
    pub status: Option<String>,
    /// The record that supersedes this one, when its source says (an ADR
    /// `Superseded by …`).
    pub superseded_by: Option<String>,
    /// Where the record was read, as `file:line`, when the memory was read
    /// from a list of sources ([`crate::memory::sources`]); `None` for a
    /// memory file read alone, whose records are placed by `offset`.
    pub origin: Option<Origin>,
    /// The typed rules of a decision record, read under profile `mneme` only
    /// (its prompt enforcer checks them); empty under `default`, which never
    /// uses them.
    pub rules: Vec<Rule>,
}

impl Rare {
    /// The box a [`Decision`] holds: `None` when every field is empty.
    pub fn boxed(self) -> Option<Box<Rare>> {
        let empty = self.sections.is_empty()
            && self.status.is_none()
            && self.superseded_by.is_none()
            && self.origin.is_none()
            && self.rules.is_empty();
        (!empty).then(|| Box::new(self))
    }
}

/// What [`Decision::sections`] answers for a record without any.
static NO_SECTIONS: Sections = Sections {
    summary: String::new(),
    decision: String::new(),
    context: String::new(),
    options: String::new(),
    consequences: String::new(),
    subsections: String::new(),
};

impl Decision {
    /// The rest of a decision's text, by part (see [`Rare::sections`]).
    pub fn sections(&self) -> &Sections {
        self.rare.as_ref().map_or(&NO_SECTIONS, |r| &r.sections)
    }

    pub fn status(&self) -> Option<&str> {
        self.rare.as_ref().and_then(|r| r.status.as_deref())
    }

    /// The record that supersedes this one, when its source says.
    pub fn superseded_by(&self) -> Option<&str> {
        self.rare.as_ref().and_then(|r| r.superseded_by.as_deref())
    }

    /// Where the record was read, when the memory was read from a list of
    /// sources (see [`Rare::origin`]).
    pub fn origin(&self) -> Option<&Origin> {
        self.rare.as_ref().and_then(|r| r.origin.as_ref())
    }

    /// The typed rules of a decision record (profile `mneme` only).
    pub fn rules(&self) -> &[Rule] {
        self.rare.as_ref().map_or(&[], |r| &r.rules)
    }

    /// The rare fields, to change them (boxed on first use).
    pub fn rare_mut(&mut self) -> &mut Rare {
        self.rare.get_or_insert_with(Default::default)
    }
}

/// The serialised form is that of the record before its rare fields were
/// boxed: the same members, in the same order.
impl Serialize for Decision {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let sections = self.sections();
        let mut st = serializer.serialize_struct("Decision", 12)?;
        st.serialize_field("id", &self.id)?;
        st.serialize_field("title", &self.title)?;
        st.serialize_field("tags", &self.tags)?;
        st.serialize_field("constraint", &self.constraint)?;
        st.serialize_field("anti_patterns", &self.anti_patterns)?;
        st.serialize_field("content", &self.content)?;
        if sections.is_empty() {
            st.skip_field("sections")?;
        } else {
            st.serialize_field("sections", sections)?;
        }
        st.serialize_field("paths", &self.paths)?;
        st.serialize_field("status", &self.status())?;
        match self.superseded_by() {
            Some(by) => st.serialize_field("superseded_by", by)?,
            None => st.skip_field("superseded_by")?,
        }
        st.serialize_field("kind", &self.kind)?;
        match self.origin() {
            Some(origin) => st.serialize_field("origin", origin)?,
            None => st.skip_field("origin")?,
        }
        st.end()
    }
}

/// The parts of a decision's text beyond `content`, each the text of its
/// part joined by newlines (an ADR's or MADR's subsections and other
/// sections, its front matter's summary). Empty for JSON memory records.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Sections {
    /// The front matter's `summary:` or `description:`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub summary: String,
    /// The bullets of the decision's own subsections (under headings nested
    /// inside Decision / Decision Outcome) and of the sections that name the
    /// decision (Implementation), which `content` does not hold.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub decision: String,
    /// The bullets of the context, of its subsections and of the other
    /// sections that state the problem (Problem Statement, Decision
    /// Drivers, …), and the text of sections that name no part.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub context: String,
    /// Considered options, and their pros and cons.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub options: String,
    /// Consequences (positive, negative, neutral) and the like.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub consequences: String,
    /// The text (paragraphs and headings) of the sections that belong to
    /// the Context or the Decision, other than the text right under their
    /// own headings (`content`): their subsections (`### Before` under
    /// `## Context`) and the sections that name the problem or the decision
    /// (Decision Drivers, Implementation). Profile `default` scores it as
    /// part of `content`; `classic`, which reads `content` as it always was,
    /// does not read it.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub subsections: String,
}

impl Sections {
    pub fn is_empty(&self) -> bool {
        self.summary.is_empty()
            && self.decision.is_empty()
            && self.context.is_empty()
            && self.options.is_empty()
            && self.consequences.is_empty()
            && self.subsections.is_empty()
    }
}

/// The file and line a record was read from (a Markdown source's heading or
/// front matter, or a record of a JSON source in a list of sources).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Origin {
    /// The file, as it was named (relative to the working folder when the
    /// source was), with `/` separators.
    pub file: String,
    pub line: usize,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
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
        /// The record that supersedes this one, when its source says.
        #[serde(skip_serializing_if = "Option::is_none")]
        superseded_by: Option<String>,
    },
    DuplicateId {
        kept_line: usize,
        /// The file of the record that wins, when it is not this record's
        /// (a memory read from a list of sources).
        #[serde(skip_serializing_if = "Option::is_none")]
        kept_file: Option<String>,
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
            Exclusion::InactiveStatus { status, superseded_by: None } => write!(f, "status `{status}` is inactive"),
            Exclusion::InactiveStatus { status, superseded_by: Some(by) } => {
                write!(f, "status `{status}` is inactive (superseded by {by})")
            }
            Exclusion::DuplicateId { kept_line, kept_file: None } => {
                write!(f, "duplicate id: the record at line {kept_line} wins")
            }
            Exclusion::DuplicateId { kept_line, kept_file: Some(file) } => {
                write!(f, "duplicate id: the record at {file}:{kept_line} wins")
            }
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
    /// The file the record is in, when the memory was read from a list of
    /// sources (else the memory file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    pub line: usize,
    pub column: usize,
    pub reason: Exclusion,
}

impl Excluded {
    /// `file:line:column`, the memory file standing in for a record placed
    /// in it.
    pub fn place(&self, memory_file: &str) -> String {
        format!("{}:{}:{}", self.file.as_deref().unwrap_or(memory_file), self.line, self.column)
    }
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
    /// The file the problem is in, when the memory was read from a list of
    /// sources (else the memory file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
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
        let file = match &self.file {
            Some(file) => file.clone(),
            None => path.display().to_string(),
        };
        format!("{file}:{}:{}: {sev}: {}{rec}", self.line, self.column, self.message)
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
    /// The last offset [`Memory::line_col`] answered for: (offset, 0-based
    /// line, 1-based column).
    pub(super) column_memo: std::sync::Mutex<Option<(usize, usize, usize)>>,
    /// Read from a list of sources: the list, as messages name it.
    pub(super) label: Option<String>,
    /// Read from a list of sources: every file read, in order (what orders
    /// the diagnostics).
    pub(super) files: Vec<String>,
    /// Records and list entries of a JSON memory text (the run-wide budget,
    /// [`super::MAX_MEMORY_ITEMS`]).
    pub(super) items: u64,
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
            column_memo: std::sync::Mutex::new(None),
            label: None,
            files: Vec::new(),
            items: 0,
        }
    }

    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.severity == Severity::Error)
    }

    pub(crate) fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Warning)
    }

    /// The memory file's text as read (what the report's fingerprint hashes);
    /// for a memory read from sources, every file read, each after its path
    /// and length.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// 1-based line and column of a byte offset in the file. Offsets asked
    /// in increasing order on one line (a minified file's records) count
    /// characters from the last one asked, not from the line's start: a
    /// line of thousands of located problems costs time linear in it.
    pub(crate) fn line_col(&self, offset: usize) -> (usize, usize) {
        let starts = self.lines.get_or_init(|| lines::line_starts(&self.text));
        let mut memo = self.column_memo.lock().unwrap_or_else(|e| e.into_inner());
        let (found, last) = lines::line_col_after(&self.text, starts, offset, *memo);
        *memo = Some(last);
        found
    }

    /// Records a problem at a byte offset of the file.
    pub(super) fn push(&mut self, severity: Severity, offset: usize, record_id: Option<&str>, message: String) {
        let (line, column) = self.line_col(offset);
        self.diagnostics.push(Diagnostic {
            severity,
            file: None,
            line,
            column,
            record_id: record_id.map(str::to_string),
            message,
        });
    }

    /// Sorts the problems as they are shown: errors first, then by position
    /// (the order of the files in a memory read from sources, then line and
    /// column; the sort is stable).
    pub(crate) fn sort_diagnostics(&mut self) {
        let files = &self.files;
        let rank = |d: &Diagnostic| d.file.as_ref().and_then(|f| files.iter().position(|x| x == f)).unwrap_or(0);
        self.diagnostics.sort_by_key(|d| (d.severity, rank(d), d.line, d.column));
    }

    /// Where a pool decision is, as (file, line, column): its origin, or its
    /// offset in the memory file.
    pub fn place(&self, d: &Decision) -> (String, usize, usize) {
        match d.origin() {
            Some(o) => (o.file.clone(), o.line, 1),
            None => {
                let (line, column) = self.line_col(d.offset);
                (self.path.display().to_string(), line, column)
            }
        }
    }

    /// Whether the memory was read from a list of sources (rather than one
    /// memory file read alone).
    pub fn from_sources(&self) -> bool {
        self.label.is_some()
    }

    /// What the memory was read from, as messages name it: the memory
    /// file, or the list of sources (`adr:docs/adr, cursor:.cursor/rules`).
    pub fn label(&self) -> String {
        match &self.label {
            Some(l) => l.clone(),
            None => self.path.display().to_string(),
        }
    }
}
