/*!
Loading `project_memory.json` (spec §1): the two top-level shapes, decision
records and item records, the mapping of both onto one canonical
[`Decision`], Mneme's migration of items, and the retrieval pool.

Loading never stops at the first problem: every record is checked and every
problem becomes a [`Diagnostic`] with a line, a column and the record id when
known, so that `validate` can list them all. Commands that retrieve refuse a
memory with errors; warnings (a duplicate id, say) are printed and the run
goes on.

This module knows nothing of tokens or scores; the index is built from its
output by `retrieval`.
*/

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use globset::{Glob, GlobBuilder};
use serde::Serialize;

use crate::json::{self, LineIndex, Node, Value};
use crate::profile::Family;
use rustc_hash::FxBuildHasher as FxBuild;

mod fast;

/// The statuses that keep a record out of the pool (compared ignoring case).
pub const INACTIVE_STATUSES: [&str; 4] = ["superseded", "deprecated", "rejected", "retired"];

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
    #[serde(skip)]
    pub offset: usize,
    /// The compiled globs, in `paths` order (a trailing `/` already expanded).
    #[serde(skip)]
    pub globs: Vec<Glob>,
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
    NotEligibleType { item_type: String },
    InactiveStatus { status: String },
    DuplicateId { kept_line: usize },
}

impl Exclusion {
    pub fn code(&self) -> &'static str {
        match self {
            Exclusion::NotEligibleType { .. } => "not_eligible_type",
            Exclusion::InactiveStatus { .. } => "inactive_status",
            Exclusion::DuplicateId { .. } => "duplicate_id",
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
    text: String,
    lines: OnceLock<Vec<usize>>,
}

/// The memory file could not be used.
#[derive(Debug)]
pub enum MemoryError {
    Read { path: PathBuf, source: std::io::Error },
    Invalid { path: PathBuf, diagnostics: Vec<Diagnostic> },
}

impl fmt::Display for MemoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MemoryError::Read { path, source } => {
                write!(f, "cannot read the memory file {}: {source}", path.display())
            }
            MemoryError::Invalid { path, diagnostics } => {
                let errors: Vec<&Diagnostic> = diagnostics.iter().filter(|d| d.severity == Severity::Error).collect();
                write!(f, "the memory file {} has {} error(s):", path.display(), errors.len())?;
                for d in errors {
                    write!(f, "\n  {}", d.render(path))?;
                }
                write!(f, "\nrun `mneme-gate validate --memory {}` to see every problem", path.display())
            }
        }
    }
}

impl std::error::Error for MemoryError {}

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

impl Memory {
    /// Reads and parses a memory file; I/O failure is the only error here.
    /// Check [`Memory::has_errors`] before retrieving.
    pub fn read(path: &Path, family: Family) -> Result<Memory, MemoryError> {
        let bytes = std::fs::read(path).map_err(|source| MemoryError::Read { path: path.to_path_buf(), source })?;
        Ok(match String::from_utf8(bytes) {
            Ok(text) => Memory::parse(path, text, family),
            Err(e) => {
                let valid = e.utf8_error().valid_up_to();
                let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
                let prefix = &text[..text.char_indices().nth(valid).map_or(text.len(), |(i, _)| i).min(text.len())];
                let (line, column) = LineIndex::new(prefix).line_col(prefix.len());
                let diag = Diagnostic {
                    severity: Severity::Error,
                    line,
                    column,
                    record_id: None,
                    message: "the file is not valid UTF-8: save it as UTF-8".into(),
                };
                Memory::empty(path, family, vec![diag])
            }
        })
    }

    /// Reads a memory file and refuses it if it has errors.
    pub fn load(path: &Path, family: Family) -> Result<Memory, MemoryError> {
        let memory = Memory::read(path, family)?;
        if memory.has_errors() {
            return Err(MemoryError::Invalid { path: memory.path.clone(), diagnostics: memory.diagnostics });
        }
        Ok(memory)
    }

    fn empty(path: &Path, family: Family, diagnostics: Vec<Diagnostic>) -> Memory {
        Memory {
            path: path.to_path_buf(),
            family,
            pool: Vec::new(),
            excluded: Vec::new(),
            diagnostics,
            records: 0,
            text: String::new(),
            lines: OnceLock::new(),
        }
    }

    /// Parses memory text. `path` is only used in messages.
    ///
    /// A well-formed file takes the typed `serde_json` fast path
    /// (`memory::fast`); anything unusual falls back to the tolerant reader,
    /// which alone words the errors. Both give the same `Memory`.
    pub fn parse(path: &Path, text: String, family: Family) -> Memory {
        match fast::load(&text, family) {
            Ok((records, candidates)) => {
                let mut memory = Memory::empty(path, family, Vec::new());
                memory.text = text;
                memory.records = records;
                let mut loader = Loader { memory: &mut memory, family, syntax: Vec::new() };
                loader.build_pool(candidates);
                memory.diagnostics.sort_by_key(|d| (d.severity, d.line, d.column));
                memory
            }
            Err(fast::Bail) => Memory::parse_tolerant(path, text, family),
        }
    }

    /// The tolerant path of [`Memory::parse`]: every problem, with its line
    /// and column.
    fn parse_tolerant(path: &Path, text: String, family: Family) -> Memory {
        let parsed = json::parse(&text);
        let mut memory = Memory::empty(path, family, Vec::new());
        memory.text = text;
        let mut loader = Loader { memory: &mut memory, family, syntax: Vec::new() };
        for e in &parsed.errors {
            loader.syntax.push((e.offset, e.message.clone()));
        }
        if let Some(root) = &parsed.root {
            loader.load_root(root);
        }
        let syntax = std::mem::take(&mut loader.syntax);
        for (offset, message) in syntax {
            memory.push(Severity::Error, offset, None, message);
        }
        memory.diagnostics.sort_by_key(|d| (d.severity, d.line, d.column));
        memory
    }

    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.severity == Severity::Error)
    }

    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Warning)
    }

    /// 1-based line and column of a byte offset in the file.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let starts = self.lines.get_or_init(|| json::line_starts(&self.text));
        json::line_col(&self.text, starts, offset)
    }

    fn push(&mut self, severity: Severity, offset: usize, record_id: Option<&str>, message: String) {
        let (line, column) = self.line_col(offset);
        self.diagnostics.push(Diagnostic { severity, line, column, record_id: record_id.map(str::to_string), message });
    }
}

/// A record that passed shape checks, before eligibility and dedup.
struct Candidate {
    decision: Decision,
    /// The glob problems of this record: (offset, message).
    glob_errors: Vec<(usize, String)>,
}

struct Loader<'m> {
    memory: &'m mut Memory,
    family: Family,
    syntax: Vec<(usize, String)>,
}

/// Collects field problems of one record.
struct Fields<'a> {
    node: &'a Node,
    problems: Vec<(usize, String)>,
}

impl<'a> Fields<'a> {
    fn new(node: &'a Node) -> Self {
        Fields { node, problems: Vec::new() }
    }

    /// A present, non-null member.
    fn member(&self, key: &str) -> Option<&'a Node> {
        self.node.get(key).filter(|n| n.value != Value::Null)
    }

    fn required_str(&mut self, key: &str, what: &str) -> Option<String> {
        match self.node.get(key) {
            None | Some(Node { value: Value::Null, .. }) => {
                self.problems.push((self.node.offset, format!("missing required field `{key}` ({what})")));
                None
            }
            Some(n) => match &n.value {
                Value::String(s) if s.trim().is_empty() => {
                    self.problems.push((n.offset, format!("field `{key}` is empty: give it {what}")));
                    None
                }
                Value::String(s) => Some(s.clone()),
                other => {
                    self.problems
                        .push((n.offset, format!("field `{key}` must be a string, found {}", other.type_name())));
                    None
                }
            },
        }
    }

    fn opt_str(&mut self, key: &str) -> Option<String> {
        let n = self.member(key)?;
        match &n.value {
            Value::String(s) => Some(s.clone()),
            other => {
                self.problems.push((n.offset, format!("field `{key}` must be a string, found {}", other.type_name())));
                None
            }
        }
    }

    /// An array of strings; with `one_ok`, a single string is a one-element list.
    fn str_list(&mut self, key: &str, one_ok: bool) -> Vec<String> {
        self.str_list_at(key, one_ok).into_iter().map(|(_, s)| s).collect()
    }

    fn str_list_at(&mut self, key: &str, one_ok: bool) -> Vec<(usize, String)> {
        let Some(n) = self.member(key) else { return Vec::new() };
        let expected = if one_ok { "a string or an array of strings" } else { "an array of strings" };
        match &n.value {
            Value::String(s) if one_ok => vec![(n.offset, s.clone())],
            Value::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    match &item.value {
                        Value::String(s) => out.push((item.offset, s.clone())),
                        other => self.problems.push((
                            item.offset,
                            format!("`{key}[{i}]` must be a string, found {} ({key} is {expected})", other.type_name()),
                        )),
                    }
                }
                out
            }
            other => {
                self.problems
                    .push((n.offset, format!("field `{key}` must be {expected}, found {}", other.type_name())));
                Vec::new()
            }
        }
    }
}

impl Loader<'_> {
    fn error(&mut self, offset: usize, id: Option<&str>, message: String) {
        self.memory.push(Severity::Error, offset, id, message);
    }

    fn warning(&mut self, offset: usize, id: Option<&str>, message: String) {
        self.memory.push(Severity::Warning, offset, id, message);
    }

    fn load_root(&mut self, root: &Node) {
        let (decisions, items): (Option<&Node>, Option<&Node>) = match &root.value {
            Value::Array(_) => (None, Some(root)),
            Value::Object(_) => {
                if let Some(meta) = root.get("meta") {
                    if !matches!(meta.value, Value::Object(_) | Value::Null) {
                        self.warning(
                            meta.offset,
                            None,
                            format!("`meta` should be an object, found {}; it is ignored", meta.value.type_name()),
                        );
                    }
                }
                let d = self.top_array(root, "decisions");
                let i = self.top_array(root, "items");
                if root.get("decisions").is_none() && root.get("items").is_none() {
                    self.warning(
                        root.offset,
                        None,
                        "the file has neither `decisions` nor `items`: nothing can be retrieved".into(),
                    );
                }
                (d, i)
            }
            other => {
                self.error(
                    root.offset,
                    None,
                    format!("the memory file must be a JSON object or array, found {}", other.type_name()),
                );
                return;
            }
        };
        let mut decision_records = Vec::new();
        let mut item_records = Vec::new();
        if let Some(Node { value: Value::Array(elements), .. }) = decisions {
            for (i, el) in elements.iter().enumerate() {
                self.memory.records += 1;
                match self.record(el, true, &format!("decisions[{i}]")) {
                    Some(c) if c.decision.kind == RecordKind::DecisionRecord => decision_records.push(c),
                    Some(c) => item_records.push(c),
                    None => {}
                }
            }
        }
        let items_label = if matches!(root.value, Value::Array(_)) { "" } else { "items" };
        if let Some(Node { value: Value::Array(elements), .. }) = items {
            for (i, el) in elements.iter().enumerate() {
                self.memory.records += 1;
                if let Some(c) = self.record(el, false, &format!("{items_label}[{i}]")) {
                    item_records.push(c);
                }
            }
        }
        self.build_pool(vec![decision_records, item_records]);
    }

    fn top_array<'n>(&mut self, root: &'n Node, key: &str) -> Option<&'n Node> {
        let n = root.get(key)?;
        match n.value {
            Value::Array(_) => Some(n),
            Value::Null => None,
            ref other => {
                self.error(n.offset, None, format!("`{key}` must be an array of records, found {}", other.type_name()));
                None
            }
        }
    }

    /// Shape-checks one record and maps it; `None` when it is unusable.
    fn record(&mut self, node: &Node, in_decisions: bool, place: &str) -> Option<Candidate> {
        if !matches!(node.value, Value::Object(_)) {
            self.error(
                node.offset,
                None,
                format!("{place} must be an object (a record), found {}", node.value.type_name()),
            );
            return None;
        }
        let mut f = Fields::new(node);
        let id = f.required_str("id", "a unique string id");
        let is_decision_record = in_decisions && node.get("decision").is_some_and(|n| n.value != Value::Null);
        let mut glob_errors = Vec::new();
        let decision = if is_decision_record {
            let title = f.required_str("decision", "the decision itself, one sentence");
            let content = f.opt_str("rationale").unwrap_or_default();
            let tags = f.str_list("scope", false);
            let constraint = f.str_list("constraints", false);
            let anti_patterns = f.str_list("anti_patterns", false);
            let status = f.opt_str("status");
            self.check_rules(&mut f);
            Decision {
                id: id.clone().unwrap_or_default(),
                title: title.unwrap_or_default(),
                tags,
                constraint,
                anti_patterns,
                content,
                paths: Vec::new(),
                status,
                kind: RecordKind::DecisionRecord,
                offset: node.offset,
                globs: Vec::new(),
            }
        } else {
            let has_title = node.get("title").is_some();
            if in_decisions && !has_title {
                let msg = format!(
                    "{place} has neither a string `decision` (a decision record) nor a `title` (an item record): add one"
                );
                f.problems.push((node.offset, msg));
            }
            let item_type = if in_decisions && node.get("type").is_none() {
                Some("decision".to_string())
            } else {
                f.required_str("type", "the item type, for example `decision`, `rule` or `anti_pattern`")
            };
            let title = if in_decisions && !has_title { None } else { f.required_str("title", "a short title") };
            let content = f.opt_str("content").unwrap_or_default();
            let constraint = f.str_list("constraint", true);
            let tags = f.str_list("tags", false);
            let scope = f.str_list_at("scope", true);
            let anti_patterns = f.str_list("anti_patterns", false);
            let status = f.opt_str("status");
            let item_type = item_type.unwrap_or_default();
            let mut d = Decision {
                id: id.clone().unwrap_or_default(),
                title: title.unwrap_or_default(),
                tags,
                constraint,
                anti_patterns,
                content,
                paths: Vec::new(),
                status,
                kind: RecordKind::Item(item_type.clone()),
                offset: node.offset,
                globs: Vec::new(),
            };
            match self.family {
                Family::Default => {
                    for (offset, pattern) in scope {
                        match compile_glob(&pattern) {
                            Ok(glob) => {
                                d.paths.push(pattern);
                                d.globs.push(glob);
                            }
                            Err(msg) => glob_errors.push((offset, format!("invalid scope glob \"{pattern}\": {msg}"))),
                        }
                    }
                }
                Family::Mneme => migrate(&mut d, &item_type),
            }
            d
        };
        if f.problems.is_empty() {
            return Some(Candidate { decision, glob_errors });
        }
        let problems = std::mem::take(&mut f.problems);
        for (offset, message) in problems {
            self.error(offset, id.as_deref(), message);
        }
        None
    }

    /// `rules` is not used for retrieval; check its shape so typos surface.
    fn check_rules(&mut self, f: &mut Fields<'_>) {
        let Some(rules) = f.member("rules") else { return };
        let Value::Array(items) = &rules.value else {
            f.problems
                .push((rules.offset, format!("field `rules` must be an array, found {}", rules.value.type_name())));
            return;
        };
        for (i, rule) in items.iter().enumerate() {
            match rule.get("type").map(|n| &n.value) {
                Some(Value::String(t)) if t == "FORBID_LITERAL" => {}
                Some(Value::String(t)) => {
                    let id = f.node.get("id").and_then(Node::as_str).map(str::to_string);
                    self.warning(rule.offset, id.as_deref(), format!("rules[{i}] has type `{t}`; only `FORBID_LITERAL` is defined and it is ignored by retrieval"));
                }
                _ => f.problems.push((rule.offset, format!("rules[{i}] must be an object with a string `type`"))),
            }
        }
    }

    /// Builds the pool from the candidates, read segment after segment.
    fn build_pool(&mut self, segments: Vec<Vec<Candidate>>) {
        let count = segments.iter().map(Vec::len).sum();
        // First every reason (and its diagnostics, in record order), with ids
        // borrowed from the candidates; then the moves into pool and excluded.
        let mut reasons: Vec<Option<Exclusion>> = Vec::with_capacity(count);
        // Record offsets are nearly sorted: a cursor counts lines between
        // them instead of indexing every line start of the file.
        let mut cursor = LineCursor::new();
        let mut seen: HashMap<&str, usize, FxBuild> = HashMap::default();
        seen.reserve(count);
        for Candidate { decision, glob_errors } in segments.iter().flatten() {
            let eligible = match (&decision.kind, self.family) {
                (RecordKind::DecisionRecord, _) => true,
                (RecordKind::Item(t), Family::Default) => matches!(t.as_str(), "decision" | "rule" | "anti_pattern"),
                (RecordKind::Item(t), Family::Mneme) => matches!(t.as_str(), "rule" | "anti_pattern"),
            };
            let inactive = decision
                .status
                .as_deref()
                .filter(|s| INACTIVE_STATUSES.iter().any(|x| x.eq_ignore_ascii_case(s.trim())));
            let reason = if !eligible {
                let RecordKind::Item(t) = &decision.kind else { unreachable!("decision records are eligible") };
                Some(Exclusion::NotEligibleType { item_type: t.clone() })
            } else if let Some(status) = inactive {
                Some(Exclusion::InactiveStatus { status: status.to_string() })
            } else if let Some(&first) = seen.get(decision.id.as_str()) {
                let (kept_line, _) = cursor.line_col(&self.memory.text, first);
                let msg = format!("duplicate id \"{}\": the record at line {kept_line} wins and this one is dropped; give it a unique id", decision.id);
                self.warning(decision.offset, Some(&decision.id), msg);
                Some(Exclusion::DuplicateId { kept_line })
            } else {
                None
            };
            // Invalid globs break retrieval only where the record is in the pool.
            for (offset, message) in glob_errors {
                if reason.is_none() {
                    self.error(*offset, Some(&decision.id), message.clone());
                } else {
                    self.warning(
                        *offset,
                        Some(&decision.id),
                        format!("{message} (the record is out of the pool, so this is not used yet)"),
                    );
                }
            }
            if reason.is_none() {
                seen.insert(&decision.id, decision.offset);
            }
            reasons.push(reason);
        }
        drop(seen);
        let in_pool = reasons.iter().filter(|r| r.is_none()).count();
        self.memory.pool.reserve(in_pool);
        self.memory.excluded.reserve(count - in_pool);
        for (Candidate { decision, .. }, reason) in segments.into_iter().flatten().zip(reasons) {
            match reason {
                None => self.memory.pool.push(decision),
                Some(reason) => {
                    let (line, column) = cursor.line_col(&self.memory.text, decision.offset);
                    self.memory.excluded.push(Excluded {
                        id: decision.id,
                        title: decision.title,
                        kind: decision.kind,
                        line,
                        column,
                        reason,
                    });
                }
            }
        }
    }
}

/// Line and column of offsets visited in (mostly) increasing order: the
/// same answers as [`Memory::line_col`], counting newlines from the last
/// offset asked.
struct LineCursor {
    offset: usize,
    /// 0-based line of `offset`.
    line: usize,
}

impl LineCursor {
    fn new() -> LineCursor {
        LineCursor { offset: 0, line: 0 }
    }

    fn line_col(&mut self, text: &str, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let newlines = |a: usize, b: usize| text.as_bytes()[a..b].iter().filter(|&&c| c == b'\n').count();
        if offset >= self.offset {
            self.line += newlines(self.offset, offset);
        } else {
            self.line -= newlines(offset, self.offset);
        }
        self.offset = offset;
        let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        (self.line + 1, text[start..offset].chars().count() + 1)
    }
}

/// Mneme 0.10's migration of a `rule` or `anti_pattern` item (spec §1).
fn migrate(d: &mut Decision, item_type: &str) {
    let content = std::mem::take(&mut d.content);
    let constraint = if content.is_empty() { Vec::new() } else { vec![content] };
    d.tags = vec!["general".to_string()];
    d.constraint = constraint;
    d.paths.clear();
    d.globs.clear();
    if item_type == "anti_pattern" {
        d.anti_patterns = vec![d.title.clone()];
        d.title = format!("Avoid: {}", d.title);
    } else {
        d.anti_patterns.clear();
    }
}

/// Compiles one scope glob with the semantics of spec §5.
pub fn compile_glob(pattern: &str) -> Result<Glob, String> {
    if pattern.is_empty() {
        return Err("the glob is empty".into());
    }
    let expanded;
    let pattern = if pattern.ends_with('/') {
        expanded = format!("{pattern}**");
        expanded.as_str()
    } else {
        pattern
    };
    GlobBuilder::new(pattern).literal_separator(true).build().map_err(|e| match e.kind() {
        globset::ErrorKind::UnclosedClass => "unclosed character class `[`: close it with `]`".to_string(),
        globset::ErrorKind::UnclosedAlternates => "unclosed alternation `{`: close it with `}`".to_string(),
        globset::ErrorKind::UnopenedAlternates => "`}` without a matching `{`".to_string(),
        globset::ErrorKind::NestedAlternates => "nested alternations `{a,{b,c}}` are not supported".to_string(),
        _ => e.kind().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses through [`Memory::parse`] and checks that the tolerant path
    /// alone gives the same memory (whichever path `parse` took).
    fn parse(text: &str, family: Family) -> Memory {
        let m = Memory::parse(Path::new("m.json"), text.to_string(), family);
        assert_same(&m, &Memory::parse_tolerant(Path::new("m.json"), text.to_string(), family), text);
        m
    }

    fn assert_same(fast: &Memory, tolerant: &Memory, text: &str) {
        let view = |m: &Memory| format!("{:#?}", (&m.pool, &m.excluded, &m.diagnostics, m.records, m.family));
        assert_eq!(view(fast), view(tolerant), "the two paths disagree on {text}");
    }

    fn took_fast_path(text: &str, family: Family) -> bool {
        fast::load(text, family).is_ok()
    }

    #[test]
    fn fast_and_tolerant_paths_agree_on_unusual_files() {
        let cases = [
            // Well-formed: the fast path must take these.
            r#"{"decisions": [{"id": "a", "decision": "x", "rules": [{"type": "FORBID_LITERAL", "value": "v"}], "extra": {"deep": [[1, 2], {"k": null}]}}]}"#,
            r#"{"items": [{"id": "a", "type": "rule", "title": "T", "scope": "src/", "constraint": "c"}], "decisions": null, "meta": null}"#,
            "[\n  {\n \"id\": \"a\", \"type\": \"rule\", \"title\": \"T\\u00e9\\n\"},\n{\"id\": \"a\", \"type\": \"rule\", \"title\": \"dup\"}]",
            r#"{"decisions": [{"id": "x", "decision": "y", "status": "Retired"}, {"id": "p", "type": "preference", "title": "P"}]}"#,
            r#"{"decisions": [{"id": "x", "decision": "y", "title": 5, "tags": {}, "type": 1}], "items": [{"id": "i", "type": "rule", "title": "t", "decision": 5, "rules": 3}]}"#,
            r#"{"decisions": [{"id": "x", "decision": "y", "rules": null}, {"id": "z", "title": "t", "rules": 1}]}"#,
            r#"{"decisions": [{"id": "a", "decision": "x", "rules": [{"type": 1, "type": "FORBID_LITERAL"}]}]}"#,
            // Unusual: the fast path must give up, and `parse` must still match.
            "\u{feff}[]",
            "",
            "42",
            "[1]",
            "{}",
            r#"{"decisions": [{"id": "x", "title": null}]}"#,
            r#"{"meta": 3, "items": []}"#,
            r#"{"items": [{"id": "a", "id": "b", "type": "rule", "title": "T"}]}"#,
            r#"{"items": [{"i\u0064": "a", "type": "rule", "title": "T"}]}"#,
            r#"{"items": [{"id": "a", "ty\u0070e": "rule", "title": "T"}]}"#,
            r#"{"items": [{"id": "a", "type": "rule", "title": "T", "scope": "src/[ab"}]}"#,
            r#"{"items": [{"id": "a", "type": "rule", "title": "T", "scope": "src/[ab", "status": "retired"}]}"#,
            r#"{"decisions": [{"id": "a", "decision": "x", "rules": [{"type": "OTHER"}]}]}"#,
            r#"{"decisions": [{"id": "a", "decision": "x", "rules": [{"type": "FORBID_LITERAL", "type": 1}]}]}"#,
            r#"{"decisions": [{"id": "a", "decision": "x", "rules": ["x"]}]}"#,
            r#"{"decisions": [{"id": "a", "decision": "x", "scope": "one"}]}"#,
            r#"{"decisions": [{"id": " ", "decision": "x"}]}"#,
            r#"{"decisions": [{"id": "a", "decision": ""}]}"#,
            r#"{"decisions": [{"id": "a", "type": null, "title": "t"}]}"#,
            r#"{"items": [{"id": "a", "type": "rule", "title": "T", "tags": ["x", 1]}]}"#,
            r#"{"items": [{"id": "a", "type": "rule", "title": "T"},]}"#,
            r#"{"items": [{"id": "a", "type": "rule", "title": "T"}]} x"#,
            r#"{"items": [{"id": "a", "type": "rule", "title": "T", "x": "\ud800"}]}"#,
            r#"{"items": [{"id": "a", "type": "rule", "title": "T", "x": "\ud800\u0041"}]}"#,
            r#"{"items": [{"id": "a", "type": "rule", "title": "T", "x": "\udc00"}]}"#,
            r#"{"items": [{"id": "a", "type": "rule", "title": "T", "x": 01}]}"#,
            r#"{"items": [{}]}"#,
            r#"{"items": [{"id": "a", "type": "rule", "title": "T"}], "items": []}"#,
        ];
        for text in cases {
            for family in [Family::Default, Family::Mneme] {
                parse(text, family);
            }
        }
        for text in &cases[..7] {
            assert!(took_fast_path(text, Family::Default), "{text}");
        }
        for text in &cases[7..] {
            assert!(!took_fast_path(text, Family::Default), "{text}");
        }
        for depth in [90, 97, 98, 99, 100, 101, 126, 127, 128, 129, 200] {
            let deep = format!(
                r#"{{"items": [{{"id": "a", "type": "rule", "title": "T", "x": {}{}}}]}}"#,
                "[".repeat(depth),
                "]".repeat(depth)
            );
            parse(&deep, Family::Default);
        }
    }

    #[test]
    fn the_line_cursor_agrees_with_line_col() {
        let text = "ab\n€é\"x\n\n  {\"a\": 1}\nlast";
        let memory = parse("[]", Family::Default);
        let memory = Memory { text: text.to_string(), ..memory };
        let mut cursor = LineCursor::new();
        for offset in [0, 3, 5, 4, 9, 1, 12, 13, 30, 7, 0, text.len(), 100] {
            assert_eq!(cursor.line_col(text, offset), memory.line_col(offset), "{offset}");
        }
    }

    fn ids(m: &Memory) -> Vec<&str> {
        m.pool.iter().map(|d| d.id.as_str()).collect()
    }

    const MIXED: &str = r#"{
  "meta": {"name": "x"},
  "items": [
    {"id": "I1", "type": "decision", "title": "Item decision", "content": "c", "constraint": "one", "tags": ["t"], "scope": "src/**"},
    {"id": "R1", "type": "rule", "title": "A rule", "content": "Rule body", "tags": ["x"], "scope": ["a/"]},
    {"id": "A1", "type": "anti_pattern", "title": "Global state", "content": "No singletons"},
    {"id": "P1", "type": "preference", "title": "Pref"},
    {"id": "F1", "type": "fact", "title": "Fact"},
    {"id": "S1", "type": "rule", "title": "Old rule", "status": "Superseded"}
  ],
  "decisions": [
    {"id": "D1", "decision": "Use the ledger", "rationale": "why", "scope": ["payments"], "constraints": ["no db"], "anti_patterns": ["psycopg2"]},
    {"id": "D2", "title": "Item inside decisions", "content": "body"}
  ]
}"#;

    #[test]
    fn pool_order_is_decision_records_then_items_and_maps_fields() {
        let m = parse(MIXED, Family::Default);
        assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
        assert_eq!(ids(&m), ["D1", "D2", "I1", "R1", "A1"]);
        let d1 = &m.pool[0];
        assert_eq!((d1.title.as_str(), d1.content.as_str()), ("Use the ledger", "why"));
        assert_eq!(
            (d1.tags.clone(), d1.constraint.clone(), d1.anti_patterns.clone()),
            (vec!["payments".to_string()], vec!["no db".to_string()], vec!["psycopg2".to_string()])
        );
        assert_eq!(m.pool[1].kind, RecordKind::Item("decision".into()));
        let i1 = &m.pool[2];
        assert_eq!((i1.constraint.clone(), i1.paths.clone()), (vec!["one".to_string()], vec!["src/**".to_string()]));
        assert_eq!(m.pool[3].paths, ["a/"]);
        let reasons: Vec<_> = m.excluded.iter().map(|e| (e.id.as_str(), e.reason.code())).collect();
        assert_eq!(reasons, [("P1", "not_eligible_type"), ("F1", "not_eligible_type"), ("S1", "inactive_status")]);
    }

    #[test]
    fn mneme_profile_migrates_rules_and_anti_patterns_only() {
        let m = parse(MIXED, Family::Mneme);
        assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
        assert_eq!(ids(&m), ["D1", "R1", "A1"]);
        let r1 = &m.pool[1];
        assert_eq!(r1.title, "A rule");
        assert_eq!(r1.tags, ["general"]);
        assert_eq!(r1.constraint, ["Rule body"]);
        assert!(r1.anti_patterns.is_empty() && r1.content.is_empty() && r1.paths.is_empty());
        let a1 = &m.pool[2];
        assert_eq!(a1.title, "Avoid: Global state");
        assert_eq!(a1.anti_patterns, ["Global state"]);
        assert_eq!(a1.constraint, ["No singletons"]);
        let excluded: Vec<_> = m.excluded.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(excluded, ["D2", "I1", "P1", "F1", "S1"]);
    }

    #[test]
    fn mneme_migration_of_empty_content_gives_no_constraint() {
        let m = parse(r#"[{"id": "r", "type": "rule", "title": "T"}]"#, Family::Mneme);
        assert!(m.pool[0].constraint.is_empty());
    }

    #[test]
    fn top_level_array_is_items() {
        let m = parse(
            r#"[{"id": "a", "type": "rule", "title": "T"}, {"id": "b", "type": "decision", "title": "U"}]"#,
            Family::Default,
        );
        assert_eq!(ids(&m), ["a", "b"]);
    }

    #[test]
    fn inactive_statuses_ignore_case_and_active_ones_stay() {
        let text = r#"{"decisions": [
            {"id": "a", "decision": "x", "status": "DEPRECATED"},
            {"id": "b", "decision": "x", "status": "rejected"},
            {"id": "c", "decision": "x", "status": "Retired"},
            {"id": "d", "decision": "x", "status": "accepted"},
            {"id": "e", "decision": "x", "status": "proposed"}
        ]}"#;
        let m = parse(text, Family::Default);
        assert_eq!(ids(&m), ["d", "e"]);
    }

    #[test]
    fn duplicate_ids_first_wins_with_a_warning_and_inactive_ones_do_not_count() {
        let text = "{\"decisions\": [\n{\"id\": \"a\", \"decision\": \"old\", \"status\": \"superseded\"},\n{\"id\": \"a\", \"decision\": \"first\"},\n{\"id\": \"a\", \"decision\": \"second\"}\n]}";
        let m = parse(text, Family::Default);
        assert_eq!(m.pool.len(), 1);
        assert_eq!(m.pool[0].title, "first");
        assert_eq!(m.diagnostics.len(), 1);
        let d = &m.diagnostics[0];
        assert_eq!((d.severity, d.line, d.record_id.as_deref()), (Severity::Warning, 4, Some("a")));
        assert!(d.message.contains("line 3 wins"), "{}", d.message);
        assert!(!m.has_errors());
    }

    #[test]
    fn field_errors_name_line_column_and_record() {
        let text = "{\"items\": [\n  {\"type\": \"rule\", \"title\": \"no id\"},\n  {\"id\": \"x\", \"type\": \"rule\", \"title\": \"T\", \"tags\": \"solo\"},\n  {\"id\": 7, \"type\": \"rule\", \"title\": \"T\"},\n  {\"id\": \"y\", \"title\": \"T\"},\n  {\"id\": \"z\", \"type\": \"rule\", \"title\": \"T\", \"constraint\": [1]}\n]}";
        let m = parse(text, Family::Default);
        let shown: Vec<String> = m.diagnostics.iter().map(|d| d.render(Path::new("m.json"))).collect();
        assert_eq!(
            shown,
            [
                "m.json:2:3: error: missing required field `id` (a unique string id)",
                "m.json:3:53: error: field `tags` must be an array of strings, found a string (record \"x\")",
                "m.json:4:10: error: field `id` must be a string, found a number",
                "m.json:5:3: error: missing required field `type` (the item type, for example `decision`, `rule` or `anti_pattern`) (record \"y\")",
                "m.json:6:60: error: `constraint[0]` must be a string, found a number (constraint is a string or an array of strings) (record \"z\")",
            ]
        );
        assert!(m.pool.is_empty());
    }

    #[test]
    fn decisions_entries_need_a_decision_or_a_title() {
        let m = parse(r#"{"decisions": [{"id": "a", "rationale": "r"}, "text"]}"#, Family::Default);
        let msgs: Vec<&str> = m.diagnostics.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(msgs.len(), 2, "{msgs:?}");
        assert!(msgs[0].contains("neither a string `decision`"));
        assert!(msgs[1].contains("must be an object"));
    }

    #[test]
    fn syntax_errors_do_not_hide_other_problems() {
        let text = "{\"items\": [\n {\"id\": \"a\", \"type\": \"rule\", \"title\": \"T\",},\n {\"type\": \"rule\", \"title\": \"T\"},\n {\"id\": \"b\", \"type\": \"rule\", \"title\": \"T\", \"scope\": \"src/{a,b\"},\n {\"id\": \"c\", \"type\": \"rule\", \"title\": \"T\"},\n {\"id\": \"c\", \"type\": \"rule\", \"title\": \"T\"}\n]}";
        let m = parse(text, Family::Default);
        let lines: Vec<(usize, Severity)> = m.diagnostics.iter().map(|d| (d.line, d.severity)).collect();
        assert_eq!(
            lines,
            [(2, Severity::Error), (3, Severity::Error), (4, Severity::Error), (6, Severity::Warning)],
            "{:#?}",
            m.diagnostics
        );
        assert!(m.diagnostics[2].message.contains("unclosed alternation"), "{}", m.diagnostics[2].message);
        assert_eq!(m.diagnostics[2].record_id.as_deref(), Some("b"));
    }

    #[test]
    fn invalid_globs_in_inactive_records_are_only_warnings() {
        let m = parse(
            r#"[{"id": "a", "type": "rule", "title": "T", "scope": "[ab", "status": "retired"}]"#,
            Family::Default,
        );
        assert!(!m.has_errors());
        assert_eq!(m.warnings().count(), 1);
    }

    #[test]
    fn shapes_that_are_not_memory_files_are_errors() {
        assert!(parse("42", Family::Default).has_errors());
        assert!(parse(r#"{"items": {}}"#, Family::Default).has_errors());
        let empty = parse("{}", Family::Default);
        assert!(!empty.has_errors() && empty.warnings().count() == 1);
        assert!(parse("", Family::Default).has_errors());
    }

    #[test]
    fn nulls_are_absent_optional_fields() {
        let m = parse(
            r#"{"decisions": [{"id": "a", "decision": "x", "rationale": null, "scope": null, "status": null}]}"#,
            Family::Default,
        );
        assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
        assert_eq!(m.pool.len(), 1);
    }

    #[test]
    fn globs_follow_the_spec_forms() {
        let matches = |glob: &str, path: &str| compile_glob(glob).unwrap().compile_matcher().is_match(path);
        assert!(matches("services/payments/", "services/payments/a/b.py"));
        assert!(!matches("services/payments/", "services/paymentsx/a.py"));
        assert!(matches("src/*.rs", "src/a.rs"));
        assert!(!matches("src/*.rs", "src/x/a.rs"));
        assert!(!matches("src/?.rs", "src//.rs"));
        assert!(matches("**/test_*.py", "a/b/test_x.py"));
        assert!(matches("**/test_*.py", "test_x.py"));
        assert!(matches("a/**/b", "a/b"));
        assert!(matches("a/**/b", "a/x/y/b"));
        assert!(matches("a/**", "a/x/y"));
        assert!(matches("src/a**", "src/abc"));
        assert!(!matches("src/a**", "src/a/b"));
        assert!(matches("web/{app,lib}/*.ts", "web/lib/x.ts"));
        assert!(matches("v[12]/x", "v2/x"));
        assert!(!matches("v[!12]/x", "v2/x"));
        assert!(!matches("Src/*", "src/a"));
        assert!(!matches("src/*", "x/src/a"));
        assert!(compile_glob("src/[ab").is_err());
        assert!(compile_glob("").is_err());
    }
}
