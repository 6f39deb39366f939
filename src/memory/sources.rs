//! Decision sources: the memory read from a list of sources rather than one
//! memory file. A source is a JSON memory file, or a folder (or file) of the
//! Markdown decisions teams already write: architecture decision records
//! (`adr`), Cursor rules (`cursor`), GitHub Copilot instructions (`copilot`),
//! Claude Code memory and rules (`claude`) and `AGENTS.md` files (`agents`),
//! with the files `CLAUDE.md` and `AGENTS.md` import or link. Each is read into the same
//! canonical [`Decision`]s, in the listed order, which is the pool order.
//!
//! Why it exists: a team's decisions live in the files its people and its
//! agents edit; a converted copy drifts. Reading them where they are, with the
//! file and line of every record, lets `validate`, `explain` and the reports
//! point into the file the team edits.
//!
//! The children, one concept each: `walk` (which files, and the limits of a
//! repository a pull request controls), `front_matter` (lenient YAML, with
//! lines), `markdown` (blocks with lines), `adr` and `rules` (the mapping of
//! each kind of file, each documented there), `imports` (what `CLAUDE.md` and
//! `AGENTS.md` bring in, confined to the repository), `export` (the Mneme file
//! `mneme-gate import` writes), `files` (reading a Markdown source's files
//! within the budgets of a read), `ids` (settling ids across sources) and
//! `admit` (records into the pool).
//!
//! Ids are derived from the path and the heading, never from a position in a
//! list, so they stay the same across runs and across edits elsewhere.
//!
//! Which records are in the pool follows the rules of a memory file
//! (`memory::pool`): every record is a decision record; under profile
//! `default` an inactive status keeps it out and the first record of an id
//! wins; profile `mneme` reads them as Mneme would read their import (status
//! and scope globs ignored, every copy of an id kept).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::record::{Origin, Sections};
use super::{Decision, Diagnostic, Memory, MemoryError, Severity, MAX_MEMORY_BYTES};
use crate::profile::Family;

mod admit;
mod adr;
pub mod export;
mod files;
pub(crate) mod front_matter;
mod ids;
mod imports;
pub(crate) mod markdown;
mod rules;
pub(crate) mod walk;

use admit::{decision, Admission, Admit};
use files::{map_file, read_markdown, Budget, Part};
pub use files::{MAX_MARKDOWN_BYTES, MAX_SOURCE_ITEMS};
use ids::{settle_adr_ids, settle_rule_ids};

/// The largest Markdown source file read, in bytes (1 MiB): far above any
/// ADR or rule file, and a bound on what one file costs.
pub const MAX_SOURCE_FILE_BYTES: u64 = 1024 * 1024;

/// The kinds of source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    /// A JSON memory file (`project_memory.json`).
    Json,
    /// Architecture decision records.
    Adr,
    /// Cursor rules.
    Cursor,
    /// GitHub Copilot instructions.
    Copilot,
    /// Claude Code memory and rules.
    Claude,
    /// `AGENTS.md` files (the cross-agent convention), each scoped to its
    /// folder.
    Agents,
}

impl SourceKind {
    pub const ALL: [SourceKind; 6] = [
        SourceKind::Json,
        SourceKind::Adr,
        SourceKind::Cursor,
        SourceKind::Copilot,
        SourceKind::Claude,
        SourceKind::Agents,
    ];

    /// The name in `mneme-gate.yaml` and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            SourceKind::Json => "json",
            SourceKind::Adr => "adr",
            SourceKind::Cursor => "cursor",
            SourceKind::Copilot => "copilot",
            SourceKind::Claude => "claude",
            SourceKind::Agents => "agents",
        }
    }

    pub fn parse(name: &str) -> Option<SourceKind> {
        SourceKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// What an ADR `Proposed` means.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Proposed {
    /// In the pool, as an accepted ADR (the default).
    #[default]
    Active,
    /// Kept out of the pool under profile `default`.
    Inactive,
}

/// Where an ADR's id comes from (`id_from`), each falling back to the next:
/// front matter `id:`, the file's number when no other file of the source
/// shares it, the file's stem.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum IdFrom {
    /// Front matter `id:`, else the number, else the stem (the default).
    #[default]
    FrontMatter,
    /// The number, else the stem; front matter `id:` is not read.
    Number,
    /// Always the stem (`ADR-0001-use-postgres`).
    Stem,
}

impl IdFrom {
    pub fn parse(name: &str) -> Option<IdFrom> {
        match name {
            "front_matter" => Some(IdFrom::FrontMatter),
            "number" => Some(IdFrom::Number),
            "stem" => Some(IdFrom::Stem),
            _ => None,
        }
    }
}

/// One source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecisionSource {
    pub kind: SourceKind,
    pub path: PathBuf,
    /// `adr`: the prefix of the ids (default `ADR-`).
    pub id_prefix: Option<String>,
    /// `adr`: what `Proposed` means.
    pub proposed: Proposed,
    /// `adr`: where the ids come from.
    pub id_from: IdFrom,
}

impl DecisionSource {
    pub fn new(kind: SourceKind, path: impl Into<PathBuf>) -> DecisionSource {
        DecisionSource {
            kind,
            path: path.into(),
            id_prefix: None,
            proposed: Proposed::Active,
            id_from: IdFrom::FrontMatter,
        }
    }

    /// A source as the command line writes it: `KIND:PATH` (`adr:docs/adr`)
    /// for a kind of [`SourceKind`], else the path of a JSON memory file.
    pub fn parse_spec(spec: &Path) -> DecisionSource {
        if let Some(text) = spec.to_str() {
            if let Some((kind, path)) = text.split_once(':') {
                if let Some(kind) = SourceKind::parse(kind) {
                    return DecisionSource::new(kind, if path.is_empty() { "." } else { path });
                }
            }
        }
        DecisionSource::new(SourceKind::Json, spec)
    }

    /// The source as messages and the command line name it: the path of a
    /// JSON file, `kind:path` for the others.
    pub fn label(&self) -> String {
        match self.kind {
            SourceKind::Json => self.path.display().to_string(),
            kind => {
                let shown = walk::shown(&self.path);
                let shown = if shown.len() > 1 { shown.trim_end_matches('/') } else { &shown };
                format!("{}:{shown}", kind.name())
            }
        }
    }
}

/// The sources of a memory, in pool order, and the folder their paths
/// must not leave through a symbolic link (the configuration's folder, or
/// the working folder).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sources {
    pub list: Vec<DecisionSource>,
    pub root: PathBuf,
}

impl Sources {
    /// One JSON memory file: the memory as it was before sources.
    pub fn json(path: impl Into<PathBuf>) -> Sources {
        Sources { list: vec![DecisionSource::new(SourceKind::Json, path)], root: PathBuf::from(".") }
    }

    /// The memory file, when the sources are one JSON file (then the memory
    /// is read exactly as a memory file, its cache included).
    pub fn single_json(&self) -> Option<&Path> {
        match self.list.as_slice() {
            [s] if s.kind == SourceKind::Json => Some(&s.path),
            _ => None,
        }
    }

    /// The sources as messages name them: `adr:docs/adr, cursor:.cursor/rules`.
    pub fn label(&self) -> String {
        self.list.iter().map(DecisionSource::label).collect::<Vec<_>>().join(", ")
    }

    /// Makes every relative path absolute against `dir` (a long-running
    /// server keeps naming the same files).
    pub fn absolute(mut self, dir: &Path) -> Sources {
        for s in &mut self.list {
            s.path = dir.join(&s.path);
        }
        self.root = dir.join(&self.root);
        self
    }
}

/// One record of a Markdown file, before it is a [`Decision`].
#[derive(Debug, Clone)]
pub(crate) struct Record {
    pub id: String,
    pub title: String,
    pub tags: Vec<String>,
    pub constraint: Vec<String>,
    pub anti_patterns: Vec<String>,
    pub content: String,
    /// The text beyond `content`, by part (ADRs).
    pub sections: Sections,
    /// Scope globs as the file gives them (normalised by `rules`).
    pub globs: Vec<String>,
    /// The line of the key that gave the globs.
    pub globs_line: usize,
    pub status: Option<String>,
    pub superseded_by: Option<String>,
    /// The line of the record (its heading, or the file's first line).
    pub line: usize,
    /// Kept out of the pool under profile `default` whatever its status
    /// (an ADR `Proposed` under `proposed: inactive`).
    pub forced_inactive: bool,
    pub file: String,
    /// An ADR's id candidates, settled over its source by
    /// [`adr::assign_ids`]; `None` for a rule file's record.
    pub id_parts: Option<adr::IdParts>,
    /// The file's path from the repository root (`/` between its parts),
    /// which settles a rule id that two files would share
    /// ([`settle_rule_ids`]); empty until the file is placed.
    pub place: String,
}

/// The records of one file and its problems (line, column, record, message).
#[derive(Debug, Default)]
pub(crate) struct FileRecords {
    pub records: Vec<Record>,
    pub problems: Vec<(Severity, usize, usize, Option<String>, String)>,
}

impl FileRecords {
    fn error(&mut self, line: usize, column: usize, id: Option<&str>, message: String) {
        self.problems.push((Severity::Error, line, column, id.map(str::to_string), message));
    }

    /// A front matter value meant as one string; a wrong type is an error.
    fn text_field(&mut self, field: &Option<front_matter::Field>, key: &str, id: &str) -> Option<String> {
        let f = field.as_ref()?;
        match front_matter::text(&f.value) {
            Ok(t) => t,
            Err(found) => {
                self.error(f.line, 1, Some(id), format!("`{key}` must be a string, found {found}"));
                None
            }
        }
    }

    /// A front matter value meant as a list (or a comma-separated string).
    fn list_field(&mut self, f: &front_matter::Field, key: &str, id: &str) -> Vec<String> {
        match front_matter::split_list(&f.value) {
            Ok(l) => l,
            Err(found) => {
                self.error(
                    f.line,
                    1,
                    Some(id),
                    format!("`{key}` must be a string, a comma-separated string or a list of strings, found {found}"),
                );
                Vec::new()
            }
        }
    }
}

/// A heading that says what not to do (`Don'ts`, `Anti-patterns`, `What to
/// avoid`, `Forbidden`, `Never`), from its [`markdown::heading_words`].
pub(crate) fn is_anti_heading(words: &str) -> bool {
    let w: Vec<&str> = words.split(' ').collect();
    let has = |x: &str| w.contains(&x);
    has("don't")
        || has("don'ts")
        || has("dont")
        || has("donts")
        || has("never")
        || has("avoid")
        || has("forbidden")
        || has("prohibited")
        || has("antipattern")
        || has("antipatterns")
        || words.contains("anti pattern")
        || words.contains("do not")
        || words.contains("not to do")
}

/// A heading as an id part: lowercase letters and digits, other runs as
/// one `-`, at most 64 bytes.
pub(crate) fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            if out.len() + c.len_utf8() > 64 {
                break;
            }
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-').to_string();
    if out.is_empty() {
        "section".to_string()
    } else {
        out
    }
}

/// A memory read from sources, and every record read (the pool's and
/// those kept out, in source order: what `import` writes).
pub struct Read {
    pub memory: Memory,
    pub records: Vec<(SourceKind, Decision)>,
}

/// Reads `sources` under `family` (see [`Memory::read_sources`]).
pub fn read(sources: &Sources, family: Family) -> Result<Read, MemoryError> {
    let label = sources.label();
    let mut memory = Memory::empty(Path::new(&label), family, Vec::new());
    memory.label = Some(label);
    let mut budget =
        Budget { bytes: MAX_MEMORY_BYTES, markdown_bytes: MAX_MARKDOWN_BYTES, markdown_items: 0, items: 0 };
    let mut manifest = String::new();
    let mut all = Vec::new();
    let mut admit = Admit { seen: HashMap::new() };
    // Every Markdown file a source walks, then every file read (canonical):
    // a file that a source reads directly is never read again as what
    // another file imports, whichever source is listed first; an import is
    // read once.
    let mut seen = HashSet::new();
    let mut walks: Vec<Option<Result<walk::Walk, String>>> = sources
        .list
        .iter()
        .map(|source| (source.kind != SourceKind::Json).then(|| walk::find(source, &sources.root)))
        .collect();
    for f in walks.iter().flatten().flatten().flat_map(|w| &w.files) {
        if let Ok(c) = std::fs::canonicalize(&f.path) {
            seen.insert(c);
        }
    }
    let mut parts = Vec::with_capacity(sources.list.len());
    for (source, walk) in sources.list.iter().zip(&mut walks) {
        parts.push(match source.kind {
            SourceKind::Json => {
                // JSON sources count against the run's budgets too: a file
                // over what is left of the records and list entries is
                // refused before it is parsed.
                let m = Memory::read_counted(&source.path, family, budget.items)?;
                budget.bytes = budget.bytes.saturating_sub(m.text.len() as u64);
                budget.items = budget.items.saturating_add(m.items);
                Part::Json(m)
            }
            _ => {
                let walk = walk.take().expect("every Markdown source is walked");
                read_markdown(source, &sources.root, walk, &mut budget, &mut seen)?
            }
        });
    }
    settle_adr_ids(&sources.list, &mut parts);
    settle_rule_ids(&mut parts);
    for (source, part) in sources.list.iter().zip(parts) {
        match part {
            Part::Json(m) => {
                let file = walk::shown(&m.path);
                add_to_manifest(&mut manifest, &file, &m.text);
                memory.files.push(file.clone());
                memory.records += m.records;
                memory.decision_index |= m.decision_index;
                let mut decisions = Vec::with_capacity(m.pool.len());
                for mut d in m.pool.iter().cloned() {
                    let (line, _) = m.line_col(d.offset);
                    d.rare_mut().origin = Some(Origin { file: file.clone(), line });
                    decisions.push(d);
                }
                for mut d in m.diagnostics {
                    d.file.get_or_insert_with(|| file.clone());
                    memory.diagnostics.push(d);
                }
                for mut ex in m.excluded {
                    ex.file.get_or_insert_with(|| file.clone());
                    memory.excluded.push(ex);
                }
                all.extend(decisions.iter().map(|d| (SourceKind::Json, d.clone())));
                // Duplicates inside the file were settled by its own pool.
                admit.batch(&mut memory, decisions.into_iter().map(|d| (d, Vec::new(), false)).collect(), false);
            }
            Part::Markdown { records, diagnostics, files } => {
                for (file, text) in &files {
                    add_to_manifest(&mut manifest, file, text);
                    memory.files.push(file.clone());
                }
                memory.diagnostics.extend(diagnostics);
                memory.records += records.len();
                let batch: Vec<Admission> = records.into_iter().map(|r| decision(r, family)).collect();
                all.extend(batch.iter().map(|(d, _, _)| (source.kind, d.clone())));
                admit.batch(&mut memory, batch, true);
            }
        }
    }
    memory.text = manifest;
    memory.sort_diagnostics();
    Ok(Read { memory, records: all })
}

/// What the fingerprint hashes: every file read, with its path and length.
fn add_to_manifest(manifest: &mut String, file: &str, text: &str) {
    manifest.push_str(&format!("{file}\n{}\n", text.len()));
    manifest.push_str(text);
    manifest.push('\n');
}

/// The decisions of one Markdown file of a source of `kind` named `name`,
/// and its problems, as a memory read from that source would hold them
/// (every record, in the pool or not): for tests and the fuzzer, which
/// have no files.
pub fn parse_file(kind: SourceKind, name: &str, text: &str, family: Family) -> (Vec<Decision>, Vec<Diagnostic>) {
    let role = match kind {
        SourceKind::Adr | SourceKind::Json => walk::Role::Adr,
        SourceKind::Cursor if name == ".cursorrules" => walk::Role::CursorLegacy,
        SourceKind::Cursor => walk::Role::CursorRule,
        SourceKind::Copilot if name == "copilot-instructions.md" => walk::Role::CopilotRepository,
        SourceKind::Copilot => walk::Role::CopilotInstructions,
        SourceKind::Claude if name == "CLAUDE.md" => walk::Role::ClaudeMemory,
        SourceKind::Claude => walk::Role::ClaudeRule,
        SourceKind::Agents => walk::Role::AgentsMemory,
    };
    let source = DecisionSource::new(kind, name);
    let mut mapped = map_file(&source, "", role, name, Path::new(name), text);
    if role == walk::Role::Adr {
        adr::assign_ids(&mut mapped.records);
    }
    let diagnostics = mapped
        .problems
        .into_iter()
        .map(|(severity, line, column, record_id, message)| Diagnostic {
            severity,
            file: Some(name.to_string()),
            line,
            column,
            record_id,
            message,
        })
        .collect();
    (mapped.records.into_iter().map(|r| decision(r, family).0).collect(), diagnostics)
}

#[cfg(test)]
mod tests;
