//! `mneme-gate draft`: a suite drafted from the git history, merged into the
//! file written before (reviewed scenarios kept), and its review page.

use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

use crate::cli::output;
use crate::cli::settings::DraftSettings;
use crate::cli::suite::load_memory;
use crate::draft::yaml::{self, Entry};
use crate::error::{exit, Error};
use crate::git::GitError;
use crate::report::display_path;
use crate::retrieval::Index;

/// The most bytes of a suite file `draft` merges into.
const MAX_EXISTING: u64 = 16 * 1024 * 1024;

pub(crate) fn execute(s: DraftSettings) -> Result<i32, Error> {
    let index = Index::build(load_memory(&s.memory)?, s.memory.profile.clone());
    let draft = match crate::draft::draft_repository(Path::new("."), Path::new("."), &index, &s.window) {
        Ok(Some(d)) => d,
        Ok(None) => {
            return Err(Error::Usage("draft reads the git history, and this repository has no commit yet".into()))
        }
        Err(GitError::NotARepository { .. }) => {
            return Err(Error::Usage(
                "draft reads the git history: run it inside a git repository (a clone with its history)".into(),
            ))
        }
        Err(e) => return Err(e.into()),
    };
    let workdir = crate::draft::history::open(Path::new("."))?
        .workdir()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    for path in std::iter::once(&s.out).chain(&s.html) {
        inside(path, &workdir)?;
    }
    let (entries, existing) = existing(&s.out)?;
    let (text, merged) = yaml::merge(&draft, &existing, &entries).map_err(|e| {
        Error::Usage(format!(
            "{} cannot be merged into ({}); draft never overwrites a reviewed scenario: fix the file, or write to another --out",
            display_path(&s.out),
            e.0
        ))
    })?;
    output::file(&s.out, &text)?;
    if let Some(html) = &s.html {
        output::file(html, &crate::draft::html::render(&draft))?;
    }

    let controls = draft.scenarios.iter().filter(|d| d.control.is_some()).count();
    let governed = draft.scenarios.len() - controls;
    let strong = draft.scenarios.iter().flat_map(|d| &d.expect).filter(|p| p.is_strong()).count();
    let mut out = String::new();
    let window = if draft.stopped_at_max { " (stopped at --max)" } else { "" };
    let _ = writeln!(
        out,
        "examined    {} first-parent commit(s) of HEAD {}{window}",
        draft.examined,
        &draft.head[..draft.head.len().min(12)]
    );
    let _ = writeln!(
        out,
        "drafted     {governed} scenario(s) from changes a decision plausibly governs ({strong} expected id(s) from strong evidence) and {controls} control(s)"
    );
    if draft.left_out > 0 {
        let _ = writeln!(out, "left out    {} more commit(s) with evidence (narrow --since)", draft.left_out);
    }
    let mut kept = Vec::new();
    if merged.replaced > 0 {
        kept.push(format!("{} pending redrafted", merged.replaced));
    }
    if merged.kept_reviewed > 0 {
        kept.push(format!("{} reviewed kept as they were", merged.kept_reviewed));
    }
    if merged.kept_other > 0 {
        kept.push(format!("{} other scenario(s) kept", merged.kept_other));
    }
    let kept = if kept.is_empty() { String::new() } else { format!(" ({})", kept.join(", ")) };
    let _ = writeln!(out, "wrote       {}{kept}", display_path(&s.out));
    if let Some(html) = &s.html {
        let _ = writeln!(out, "wrote       {} (the review page)", display_path(html));
    }
    let _ = write!(
        out,
        "\nEvery drafted scenario is marked `review: pending`: the gate runs it but does not count it.\n\
         Review each one (the evidence is above its `expect`), then delete its `review: pending` line.\n"
    );
    output::text(&out, false)?;
    Ok(exit::OK)
}

/// The scenarios of the file written before (id, line, pending) and its
/// text; none when there is no such file. A file that is not a valid suite
/// is refused: draft never overwrites what it cannot read.
fn existing(path: &Path) -> Result<(Vec<Entry>, String), Error> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), String::new())),
        Err(source) => return Err(Error::Read { path: path.to_path_buf(), source }),
        Ok(m) if !m.file_type().is_file() => {
            return Err(Error::Usage(format!(
                "--out {} is not a regular file (a link, a folder or a device): draft writes only a regular suite file",
                display_path(path)
            )))
        }
        Ok(_) => {}
    }
    let loaded = crate::scenarios::load_root(path).map_err(|errors| {
        output::note(&format!("{} exists and is not a suite draft can read, so it is left alone", display_path(path)));
        Error::Suite(errors)
    })?;
    let bytes = crate::memory::read_regular(path, MAX_EXISTING).map_err(|_| {
        Error::Usage(format!("{} cannot be read as a regular file of at most 16 MiB", display_path(path)))
    })?;
    let text = String::from_utf8(bytes).map_err(|_| Error::Usage(format!("{} is not UTF-8", display_path(path))))?;
    let mut entries: Vec<Entry> = loaded
        .scenarios
        .iter()
        .map(|s| Entry { id: s.id.clone(), line: s.line, pending: s.review.is_pending() })
        .collect();
    entries.sort_by_key(|e| e.line);
    Ok((entries, text))
}

/// Refuses a path outside the repository's work tree (`..` climbing out,
/// an absolute path elsewhere).
fn inside(path: &Path, workdir: &Path) -> Result<(), Error> {
    let cwd = std::env::current_dir().map_err(|source| Error::Read { path: PathBuf::from("."), source })?;
    let mut full = if path.is_absolute() { PathBuf::new() } else { cwd.canonicalize().unwrap_or(cwd) };
    for c in path.components() {
        match c {
            Component::ParentDir => {
                full.pop();
            }
            Component::CurDir => {}
            other => full.push(other.as_os_str()),
        }
    }
    let root = workdir.canonicalize().unwrap_or_else(|_| workdir.to_path_buf());
    // The nearest folder that exists, its links followed, must be inside too.
    let mut existing = full.parent().map(Path::to_path_buf);
    while let Some(dir) = &existing {
        if let Ok(real) = dir.canonicalize() {
            if !real.starts_with(&root) {
                full = real;
            }
            break;
        }
        existing = dir.parent().map(Path::to_path_buf);
    }
    if full.starts_with(&root) && full != root {
        Ok(())
    } else {
        Err(Error::Usage(format!(
            "{} is outside the repository ({}): draft writes only inside it",
            display_path(path),
            display_path(&root)
        )))
    }
}

/// The suite `init` writes when the repository's history drafts at least
/// one governed scenario: its file, its text and how many scenarios it
/// has; `None` (then `init` writes its title-as-task starters) without a
/// history or when the history drafts nothing a decision governs.
pub(crate) fn for_init(index: &Index) -> Option<(&'static str, String, usize)> {
    let window = crate::draft::Window { since: None, max: crate::draft::DEFAULT_MAX };
    match crate::draft::draft_repository(Path::new("."), Path::new("."), index, &window) {
        Ok(Some(d)) if d.scenarios.iter().any(|s| s.control.is_none()) => {
            Some((INIT_FILE, yaml::render(&d), d.scenarios.len()))
        }
        Ok(_) | Err(GitError::NotARepository { .. }) => None,
        Err(e) => {
            output::note(&format!("the git history cannot be drafted from ({e}); writing the starter suite instead"));
            None
        }
    }
}

/// Where `init` writes a drafted suite.
pub(crate) const INIT_FILE: &str = "scenarios/drafted.yaml";
