//! Reading the files of a Markdown source: which files (`walk`), the files
//! `CLAUDE.md` and `AGENTS.md` import (`imports`), the byte and item budgets
//! of one read, and each file mapped to records by its kind.

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};

use super::{
    adr, front_matter, imports, markdown, rules, walk, DecisionSource, FileRecords, Record, SourceKind,
    MAX_SOURCE_FILE_BYTES,
};
use crate::memory::{read_regular, Diagnostic, Memory, MemoryError, ReadError, Severity, MAX_MEMORY_BYTES};

/// What one source gave.
pub(super) enum Part {
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
pub(super) fn read_markdown(
    source: &DecisionSource,
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
                        crate::memory::size_in_words(MAX_MEMORY_BYTES)
                    ),
                    ReadError::TooLarge { .. } if left < MAX_SOURCE_FILE_BYTES => format!(
                        "the Markdown sources hold more than {}, the most mneme-gate reads of Markdown in one run: \
                         name smaller folders",
                        crate::memory::size_in_words(MAX_MARKDOWN_BYTES)
                    ),
                    ReadError::TooLarge { limit } => format!(
                        "the file is larger than {}, the most read from one Markdown file: split it",
                        crate::memory::size_in_words(limit)
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
        if budget.items.saturating_add(cost) > crate::memory::MAX_MEMORY_ITEMS {
            let message = crate::memory::too_many_items(budget.items.saturating_add(cost));
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
fn import_root(source: &DecisionSource, root: &Path) -> Option<(PathBuf, PathBuf)> {
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
    let starts = crate::memory::lines::line_starts(text);
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
pub(super) struct Budget {
    pub(super) bytes: u64,
    pub(super) markdown_bytes: u64,
    pub(super) markdown_items: u64,
    pub(super) items: u64,
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
pub(super) fn map_file(
    source: &DecisionSource,
    folder: &str,
    role: walk::Role,
    shown: &str,
    rel: &Path,
    text: &str,
) -> FileRecords {
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
fn folder_in_repository(source: &DecisionSource, root: &Path) -> String {
    let Ok(root) = std::fs::canonicalize(root) else { return String::new() };
    place_of(source_folder(source), &[root]).unwrap_or_default()
}

/// The source itself when it is a folder, else its file's folder.
fn source_folder(source: &DecisionSource) -> &Path {
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
