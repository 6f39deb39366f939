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
//! `mneme-gate import` writes).
//!
//! Ids are derived from the path and the heading, never from a position in a
//! list, so they stay the same across runs and across edits elsewhere.
//!
//! Which records are in the pool follows the rules of a memory file
//! (`memory::pool`): every record is a decision record; under profile
//! `default` an inactive status keeps it out and the first record of an id
//! wins; profile `mneme` reads them as Mneme would read their import (status
//! and scope globs ignored, every copy of an id kept).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};

use super::model::{Origin, Sections};
use super::{
    compile_glob, glob, read_regular, Decision, Diagnostic, Excluded, Exclusion, Memory, MemoryError, ReadError,
    RecordKind, Severity, MAX_MEMORY_BYTES,
};
use crate::profile::Family;

mod adr;
pub mod export;
pub(crate) mod front_matter;
mod imports;
pub(crate) mod markdown;
mod rules;
pub(crate) mod walk;

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
pub struct Source {
    pub kind: SourceKind,
    pub path: PathBuf,
    /// `adr`: the prefix of the ids (default `ADR-`).
    pub id_prefix: Option<String>,
    /// `adr`: what `Proposed` means.
    pub proposed: Proposed,
    /// `adr`: where the ids come from.
    pub id_from: IdFrom,
}

impl Source {
    pub fn new(kind: SourceKind, path: impl Into<PathBuf>) -> Source {
        Source { kind, path: path.into(), id_prefix: None, proposed: Proposed::Active, id_from: IdFrom::FrontMatter }
    }

    /// A source as the command line writes it: `KIND:PATH` (`adr:docs/adr`)
    /// for a kind of [`SourceKind`], else the path of a JSON memory file.
    pub fn parse_spec(spec: &Path) -> Source {
        if let Some(text) = spec.to_str() {
            if let Some((kind, path)) = text.split_once(':') {
                if let Some(kind) = SourceKind::parse(kind) {
                    return Source::new(kind, if path.is_empty() { "." } else { path });
                }
            }
        }
        Source::new(SourceKind::Json, spec)
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
    pub list: Vec<Source>,
    pub root: PathBuf,
}

impl Sources {
    /// One JSON memory file: the memory as it was before sources.
    pub fn json(path: impl Into<PathBuf>) -> Sources {
        Sources { list: vec![Source::new(SourceKind::Json, path)], root: PathBuf::from(".") }
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
        self.list.iter().map(Source::label).collect::<Vec<_>>().join(", ")
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

/// What one source gave.
enum Part {
    /// A JSON memory file, read as a memory file.
    Json(Memory),
    Markdown {
        records: Vec<Record>,
        diagnostics: Vec<Diagnostic>,
        files: Vec<(String, String)>,
    },
}

/// Reads the Markdown files of one source.
/// `walk` is the source's walk, done before any source is read (see
/// [`read`]).
fn read_markdown(
    source: &Source,
    root: &Path,
    walk: Result<walk::Walk, String>,
    budget: &mut Budget,
    seen: &mut HashSet<PathBuf>,
) -> Result<Part, MemoryError> {
    let walk = walk.map_err(|message| MemoryError::Source { label: source.label(), message })?;
    let mut diagnostics = Vec::new();
    let problem = |severity, file: &str, line, column, id: Option<String>, message| Diagnostic {
        severity,
        file: Some(file.to_string()),
        line,
        column,
        record_id: id,
        message,
    };
    for p in &walk.problems {
        let severity = if p.error { Severity::Error } else { Severity::Warning };
        diagnostics.push(problem(severity, &p.shown, 1, 1, None, p.message.clone()));
    }
    let mut records = Vec::new();
    let mut files = Vec::new();
    // The files to read: the walk's, then those they import or link (the
    // files every source walks are in `seen` already).
    let mut queue: VecDeque<(walk::Found, usize)> = walk.files.iter().cloned().map(|f| (f, 0)).collect();
    let repository = import_root(source, root);
    let folder = folder_in_repository(source, root);
    // Where a file's place is counted from: the repository, else (a
    // source outside it) the source's folder.
    let places: Vec<PathBuf> = [root.to_path_buf(), source_folder(source).to_path_buf()]
        .iter()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
    let source_dir = std::fs::canonicalize(&source.path).ok().filter(|p| p.is_dir());
    let mut imported = 0usize;
    while let Some((found, hops)) = queue.pop_front() {
        let found = &found;
        let left = budget.bytes.min(budget.markdown_bytes);
        let bytes = match read_regular(&found.path, MAX_SOURCE_FILE_BYTES.min(left)) {
            Ok(b) => b,
            Err(e) => {
                let message = match e {
                    ReadError::Io(e) => format!("cannot be read: {e}"),
                    ReadError::NotAFile(kind) => format!("{kind}, not a regular file: skipped"),
                    ReadError::TooLarge { .. } if budget.bytes < MAX_SOURCE_FILE_BYTES => format!(
                        "the sources hold more than {}, the most mneme-gate reads: name smaller folders",
                        super::size_in_words(MAX_MEMORY_BYTES)
                    ),
                    ReadError::TooLarge { .. } if left < MAX_SOURCE_FILE_BYTES => format!(
                        "the Markdown sources hold more than {}, the most mneme-gate reads of Markdown in one run: \
                         name smaller folders",
                        super::size_in_words(MAX_MARKDOWN_BYTES)
                    ),
                    ReadError::TooLarge { limit } => format!(
                        "the file is larger than {}, the most read from one Markdown file: split it",
                        super::size_in_words(limit)
                    ),
                };
                diagnostics.push(problem(Severity::Error, &found.shown, 1, 1, None, message));
                continue;
            }
        };
        budget.bytes = budget.bytes.saturating_sub(bytes.len() as u64);
        budget.markdown_bytes = budget.markdown_bytes.saturating_sub(bytes.len() as u64);
        let text = match crate::confine::utf8_text(bytes) {
            Ok(t) => t,
            Err(crate::confine::NotUtf8 { line, column, .. }) => {
                diagnostics.push(problem(
                    Severity::Error,
                    &found.shown,
                    line,
                    column,
                    None,
                    "the file is not valid UTF-8: save it as UTF-8".into(),
                ));
                continue;
            }
        };
        if let Some((canonical, shown_root)) = &repository {
            let place = imports::Place { root: canonical, shown_root, source: source_dir.as_deref() };
            follow(source.kind, found, hops, &text, &place, seen, &mut imported, &mut queue, &mut diagnostics);
        }
        let mapped = map_file(source, &folder, found.role, &found.shown, &found.rel, &text);
        // The whole run's budget of records and bullets: a file of one-word
        // bullets costs far more in memory than its bytes.
        let cost: u64 = mapped.records.iter().map(|r| 1 + (r.constraint.len() + r.anti_patterns.len()) as u64).sum();
        if budget.markdown_items.saturating_add(cost) > MAX_SOURCE_ITEMS {
            diagnostics.push(problem(
                Severity::Error,
                &found.shown,
                1,
                1,
                None,
                format!(
                    "the sources hold more than {MAX_SOURCE_ITEMS} records and bullets, the most mneme-gate reads in one run: \
                     name smaller folders; this file and the ones after it are not read"
                ),
            ));
            break;
        }
        if budget.items.saturating_add(cost) > super::MAX_MEMORY_ITEMS {
            let message = super::too_many_items(budget.items.saturating_add(cost));
            diagnostics.push(problem(Severity::Error, &found.shown, 1, 1, None, message));
            break;
        }
        budget.markdown_items += cost;
        budget.items += cost;
        for (severity, line, column, id, message) in mapped.problems {
            diagnostics.push(problem(severity, &found.shown, line, column, id, message));
        }
        let place = place_of(&found.path, &places).unwrap_or_else(|| found.shown.clone());
        records.extend(mapped.records.into_iter().map(|mut r| {
            r.place.clone_from(&place);
            r
        }));
        files.push((found.shown.clone(), text));
    }
    // ADR ids are settled over every `adr` source with the same prefix,
    // once all are read (`settle_adr_ids`).
    Ok(Part::Markdown { records, diagnostics, files })
}

/// The repository a source's imports must stay in, canonical and as
/// written: the sources' root when the source is written inside it, else
/// the source's own folder. `None` for a source that does not import.
fn import_root(source: &Source, root: &Path) -> Option<(PathBuf, PathBuf)> {
    if !matches!(source.kind, SourceKind::Claude | SourceKind::Agents) {
        return None;
    }
    let inside = !source.path.is_absolute() || source.path.starts_with(root);
    let base = if inside && !source.path.components().any(|c| c == std::path::Component::ParentDir) {
        root.to_path_buf()
    } else if source.path.is_dir() {
        source.path.clone()
    } else {
        source.path.parent().unwrap_or(Path::new(".")).to_path_buf()
    };
    std::fs::canonicalize(&base).ok().map(|c| (c, base))
}

/// Queues the files that `found` imports or links (see `imports`).
#[allow(clippy::too_many_arguments)]
fn follow(
    kind: SourceKind,
    found: &walk::Found,
    hops: usize,
    text: &str,
    place: &imports::Place<'_>,
    seen: &mut HashSet<PathBuf>,
    imported: &mut usize,
    queue: &mut VecDeque<(walk::Found, usize)>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let top = matches!(found.role, walk::Role::ClaudeMemory | walk::Role::AgentsMemory);
    if !(top || matches!(found.role, walk::Role::Imported(_))) || hops >= imports::MAX_HOPS {
        return;
    }
    let split = front_matter::split(text);
    let starts = super::lines::line_starts(text);
    let blocks = markdown::blocks(split.body, split.body_start, &starts);
    let name = match kind {
        SourceKind::Agents => "agents",
        _ => "claude",
    };
    for r in imports::references(&blocks, top) {
        let resolved = imports::resolve(&r.target, r.import, &found.path, &found.shown, place, name);
        let f = match resolved {
            imports::Resolved::Skip => continue,
            imports::Resolved::Problem(p) => {
                diagnostics.push(Diagnostic {
                    severity: Severity::Warning,
                    file: Some(p.shown),
                    line: 1,
                    column: 1,
                    record_id: None,
                    message: p.message,
                });
                continue;
            }
            imports::Resolved::File(f) => f,
        };
        let Ok(canonical) = std::fs::canonicalize(&f.path) else { continue };
        if !seen.insert(canonical) {
            continue;
        }
        if *imported >= imports::MAX_IMPORTS {
            diagnostics.push(Diagnostic {
                severity: Severity::Warning,
                file: Some(found.shown.clone()),
                line: 1,
                column: 1,
                record_id: None,
                message: format!("more than {} imported or linked files: the rest are not read", imports::MAX_IMPORTS),
            });
            return;
        }
        *imported += 1;
        // A link is one hop; an import is followed further.
        let next = if r.import { hops + 1 } else { imports::MAX_HOPS };
        queue.push_back((f, next));
    }
}

/// What one run may still read: bytes of every source, bytes of Markdown,
/// Markdown records and bullets, and records and list entries of every
/// source.
struct Budget {
    bytes: u64,
    markdown_bytes: u64,
    markdown_items: u64,
    items: u64,
}

/// The most bytes of Markdown (ADRs, rule files) that the sources of one
/// run may hold together (16 MiB, some sixteen thousand ADRs of a page):
/// prose of distinct words grows some 25 times in memory once indexed, so
/// this bounds what a hostile folder costs, where [`MAX_MEMORY_BYTES`]
/// bounds JSON.
pub const MAX_MARKDOWN_BYTES: u64 = 16 * 1024 * 1024;

/// The most records and bullets (constraints, anti-patterns) that the
/// Markdown sources of one run may hold together: memory stays proportional
/// to what is read, whatever the shape of the files.
pub const MAX_SOURCE_ITEMS: u64 = 500_000;

/// Maps one file of a source; `folder`: the source's folder from the
/// repository root (see [`folder_in_repository`]).
fn map_file(source: &Source, folder: &str, role: walk::Role, shown: &str, rel: &Path, text: &str) -> FileRecords {
    match role {
        walk::Role::Adr => adr::map(shown, rel, text, source),
        role => rules::map(role, folder, shown, rel, text),
    }
}

/// The folder of a source (the source itself, or the folder of a source
/// that is a file) as a path from the repository root, the folder the
/// configuration's paths resolve against (`services` for `agents:
/// services/`), with `/` between its parts: what a scope glob of the
/// source's files starts with. Empty for the root itself, and for a
/// source outside it (whose globs are then from its own folder).
fn folder_in_repository(source: &Source, root: &Path) -> String {
    let Ok(root) = std::fs::canonicalize(root) else { return String::new() };
    place_of(source_folder(source), &[root]).unwrap_or_default()
}

/// The source itself when it is a folder, else its file's folder.
fn source_folder(source: &Source) -> &Path {
    let dir = if source.path.is_dir() { source.path.as_path() } else { source.path.parent().unwrap_or(Path::new(".")) };
    if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    }
}

/// `path` from the first of the canonical folders `from` it is in, with
/// `/` between its parts (empty for the folder itself).
fn place_of(path: &Path, from: &[PathBuf]) -> Option<String> {
    let path = std::fs::canonicalize(path).ok()?;
    let rel = from.iter().find_map(|f| path.strip_prefix(f).ok())?;
    Some(rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"))
}

/// The fewest words of its own (content, constraints, anti-patterns and
/// sections, the title aside) a decision file's record should have: fewer,
/// and retrieval reads little more than its title.
const THIN_WORDS: usize = 8;

/// A warning for an ADR whose record holds almost no text of its own (a
/// title and a link to a document elsewhere), unless its status keeps it
/// out of the pool.
fn thin(r: &Record) -> Option<String> {
    r.id_parts.as_ref()?;
    // One that its status keeps out of the pool is never retrieved anyway.
    if r.status.as_deref().is_some_and(super::is_inactive) {
        return None;
    }
    let s = &r.sections;
    let words: usize = [&r.content, &s.summary, &s.decision, &s.context, &s.options, &s.consequences]
        .iter()
        .chain(r.constraint.iter().collect::<Vec<_>>().iter())
        .chain(r.anti_patterns.iter().collect::<Vec<_>>().iter())
        .map(|t| t.split_whitespace().count())
        .sum();
    (words < THIN_WORDS).then(|| {
        format!(
            "the decision holds almost no text of its own ({words} word(s) besides its title): retrieval has little more than the title to match; write its context and decision here (a link to a document elsewhere is not read)"
        )
    })
}

/// A record to admit to the pool: the decision, its glob problems (line,
/// message), and whether its source's options keep it out whatever its
/// status says.
type Admission = (Decision, Vec<(usize, String)>, bool);

/// A record as a canonical decision under `family`, with its glob problems.
fn decision(r: Record, family: Family) -> Admission {
    let mut globs = Vec::new();
    let mut paths = Vec::new();
    let mut errors = Vec::new();
    // Mneme ignores the scope globs of a decision record, and so does
    // profile `mneme` (as it does those `import` writes).
    if family == Family::Default {
        for pattern in r.globs {
            match compile_glob(&pattern) {
                Ok(g) => {
                    globs.push(g);
                    paths.push(pattern);
                }
                Err(msg) => {
                    errors.push((r.globs_line, format!("invalid scope glob {}: {msg}", glob::quoted(&pattern))))
                }
            }
        }
    }
    let d = Decision {
        id: r.id,
        title: r.title,
        tags: r.tags,
        constraint: r.constraint,
        anti_patterns: r.anti_patterns,
        content: r.content,
        sections: r.sections,
        paths,
        status: r.status,
        superseded_by: r.superseded_by,
        kind: RecordKind::DecisionRecord,
        offset: 0,
        origin: Some(Origin { file: r.file, line: r.line }),
        globs,
        rules: Vec::new(),
    };
    (d, errors, r.forced_inactive)
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
                    d.origin = Some(Origin { file: file.clone(), line });
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

/// Settles the ids of the ADRs of every `adr` source, the sources with
/// one prefix together (two folders each with an `0001` are two
/// decisions, as two files of one folder are; see `adr::assign_ids`), and
/// adds the warnings about shared numbers and thin decisions.
fn settle_adr_ids(list: &[Source], parts: &mut [Part]) {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, source) in list.iter().enumerate() {
        if source.kind != SourceKind::Adr {
            continue;
        }
        let prefix = source.id_prefix.clone().unwrap_or_else(|| "ADR-".into());
        match groups.iter_mut().find(|(p, _)| *p == prefix) {
            Some((_, members)) => members.push(i),
            None => groups.push((prefix, vec![i])),
        }
    }
    for (_, members) in groups {
        let mut joined = Vec::new();
        let mut lens = Vec::new();
        for &i in &members {
            if let Part::Markdown { records, .. } = &mut parts[i] {
                lens.push(records.len());
                joined.append(records);
            }
        }
        let warnings = adr::assign_ids(&mut joined);
        let mut rest = joined.into_iter();
        for (&i, len) in members.iter().zip(lens) {
            if let Part::Markdown { records, .. } = &mut parts[i] {
                records.extend(rest.by_ref().take(len));
            }
        }
        if let Some(Part::Markdown { diagnostics, .. }) = members.first().map(|&i| &mut parts[i]) {
            for (at, id, message) in warnings {
                diagnostics.push(diag(Severity::Warning, &at, id.as_deref(), message));
            }
        }
        for &i in &members {
            if let Part::Markdown { records, diagnostics, .. } = &mut parts[i] {
                for r in records.iter() {
                    if let Some(message) = thin(r) {
                        let at = Origin { file: r.file.clone(), line: r.line };
                        diagnostics.push(diag(Severity::Warning, &at, Some(&r.id), message));
                    }
                }
            }
        }
    }
}

/// Settles the ids of the rule files' records over every source: an id
/// that records of two files would share (a root `AGENTS.md`'s `##
/// Testing` and `testing/AGENTS.md`, both `agents/testing`) is no one's:
/// each of those records takes its file's path after an `@`
/// (`agents/testing@AGENTS.md`, `agents/testing@testing/AGENTS.md`), the
/// same whatever the order the files are read in, and a warning lists them,
/// once per id. An id no other file has is left as it is, so adding a file
/// changes no other id unless it collides, and then loudly. Two copies of one
/// file (read by two sources) are one file: the pool keeps the first.
fn settle_rule_ids(parts: &mut [Part]) {
    let mut by_id: BTreeMap<String, Vec<(usize, usize)>> = BTreeMap::new();
    for (p, part) in parts.iter().enumerate() {
        if let Part::Markdown { records, .. } = part {
            for (i, r) in records.iter().enumerate().filter(|(_, r)| r.id_parts.is_none()) {
                by_id.entry(r.id.clone()).or_default().push((p, i));
            }
        }
    }
    for (id, at) in by_id {
        let places: BTreeSet<String> = at.iter().map(|&(p, i)| markdown_record(parts, p, i).place.clone()).collect();
        if places.len() < 2 {
            continue;
        }
        let mut list: Vec<String> = Vec::new();
        for &(p, i) in &at {
            let r = markdown_record_mut(parts, p, i);
            r.id = format!("{id}@{}", r.place);
            let entry = format!("{} → {}", r.file, r.id);
            if !list.contains(&entry) {
                list.push(entry);
            }
        }
        let (p, i) = at[0];
        let first = markdown_record(parts, p, i);
        let at = Origin { file: first.file.clone(), line: first.line };
        let message = format!(
            "{} files would share the id \"{id}\": each takes its file's path ({}); a scenario or baseline that names \"{id}\" must name one of these ids, or rename a heading or a file so that each has an id of its own",
            places.len(),
            list.join(", ")
        );
        if let Part::Markdown { diagnostics, .. } = &mut parts[p] {
            diagnostics.push(diag(Severity::Warning, &at, None, message));
        }
    }
}

/// Record `i` of the Markdown part `p`.
fn markdown_record(parts: &[Part], p: usize, i: usize) -> &Record {
    match &parts[p] {
        Part::Markdown { records, .. } => &records[i],
        Part::Json(_) => unreachable!("only Markdown records are settled"),
    }
}

/// Record `i` of the Markdown part `p`, to change.
fn markdown_record_mut(parts: &mut [Part], p: usize, i: usize) -> &mut Record {
    match &mut parts[p] {
        Part::Markdown { records, .. } => &mut records[i],
        Part::Json(_) => unreachable!("only Markdown records are settled"),
    }
}

/// What the fingerprint hashes: every file read, with its path and length.
fn add_to_manifest(manifest: &mut String, file: &str, text: &str) {
    manifest.push_str(&format!("{file}\n{}\n", text.len()));
    manifest.push_str(text);
    manifest.push('\n');
}

/// The pool rules (`memory::pool`) for records that come with their place,
/// source after source.
struct Admit {
    /// The first pool record of each id, where it is.
    seen: HashMap<String, Origin>,
}

impl Admit {
    /// Admits the records of one source: `within`, whether two records of
    /// the batch with one id are duplicates (a JSON file's were settled by
    /// its own pool).
    fn batch(&mut self, memory: &mut Memory, batch: Vec<Admission>, within: bool) {
        let family = memory.family;
        let mut added: Vec<(String, Origin)> = Vec::new();
        for (d, glob_errors, forced) in batch {
            let origin = d.origin.clone().expect("records of sources have an origin");
            let inactive = match family {
                Family::Default if forced => d.status.clone().or_else(|| Some("proposed".into())),
                Family::Default => d.status.clone().filter(|s| super::is_inactive(s)),
                Family::Mneme => None,
            };
            let reason = if let Some(status) = inactive {
                Some(Exclusion::InactiveStatus { status, superseded_by: d.superseded_by.clone() })
            } else if let Some(kept) = self.seen.get(&d.id) {
                match family {
                    Family::Default => {
                        let msg = format!(
                            "duplicate id \"{}\": the record at {kept} wins and this one is dropped; give it a unique id",
                            d.id
                        );
                        memory.diagnostics.push(diag(Severity::Warning, &origin, Some(&d.id), msg));
                        Some(Exclusion::DuplicateId { kept_line: kept.line, kept_file: Some(kept.file.clone()) })
                    }
                    Family::Mneme => {
                        let msg = format!(
                            "duplicate id \"{}\" (also at {kept}): profile mneme keeps every copy in the pool, as Mneme 0.10.0 does, and retrieves the best-ranked one; give it a unique id",
                            d.id
                        );
                        memory.diagnostics.push(diag(Severity::Warning, &origin, Some(&d.id), msg));
                        None
                    }
                }
            } else {
                None
            };
            for (line, message) in glob_errors {
                let at = Origin { file: origin.file.clone(), line };
                if reason.is_none() {
                    memory.diagnostics.push(diag(Severity::Error, &at, Some(&d.id), message));
                } else {
                    let message = format!("{message} (the record is out of the pool, so this is not used yet)");
                    memory.diagnostics.push(diag(Severity::Warning, &at, Some(&d.id), message));
                }
            }
            match reason {
                None => {
                    if within {
                        self.seen.entry(d.id.clone()).or_insert_with(|| origin.clone());
                    } else {
                        added.push((d.id.clone(), origin.clone()));
                    }
                    memory.pool.push(d);
                }
                Some(reason) => memory.excluded.push(Excluded {
                    id: d.id,
                    title: d.title,
                    kind: d.kind,
                    file: Some(origin.file.clone()),
                    line: origin.line,
                    column: 1,
                    reason,
                }),
            }
        }
        for (id, origin) in added {
            self.seen.entry(id).or_insert(origin);
        }
    }
}

fn diag(severity: Severity, at: &Origin, id: Option<&str>, message: String) -> Diagnostic {
    Diagnostic {
        severity,
        file: Some(at.file.clone()),
        line: at.line,
        column: 1,
        record_id: id.map(str::to_string),
        message,
    }
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
    let source = Source::new(kind, name);
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
