//! Where a repository keeps its decisions, found by content rather than by a
//! list of usual names: every folder of numbered Markdown files that read as
//! ADRs (a status, or a Context / Decision heading), wherever it is (`docs/adr`,
//! `docs/madr/decisions`, one folder per service of a monorepo…), the folders
//! log4brains' configuration and adr-tools' `.adr-dir` name, and the
//! `AGENTS.md` files.
//!
//! Hostile input, as everywhere: the walk stays in the repository (symbolic
//! links to folders are not followed), skips hidden, dependency and build
//! folders, goes at most [`MAX_DEPTH`] deep and visits at most
//! [`MAX_FOLDERS`] folders, and reads at most [`PEEK_BYTES`] of at most
//! [`PEEK_FILES`] files per folder, regular files only.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::memory::sources::walk::{adr_file, adr_folder, FOLDER_ADR_FILES};

/// How deep the walk goes below the repository.
pub const MAX_DEPTH: usize = 8;

/// The most folders visited.
pub const MAX_FOLDERS: usize = 20_000;

/// The most numbered files read in one folder to tell whether it is an ADR
/// folder.
pub const PEEK_FILES: usize = 3;

/// The most bytes read of one of them.
pub const PEEK_BYTES: u64 = 64 * 1024;

/// Folders never walked: dependencies and build output.
const SKIPPED: [&str; 6] = ["node_modules", "target", "vendor", "dist", "build", "__pycache__"];

/// What the walk found, paths relative to the repository with `/`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// The ADR folders, each with a trailing `/`, in sorted order, none
    /// inside another (an `adr` source reads its subfolders).
    pub adr_folders: Vec<String>,
    /// Whether an `AGENTS.md` is anywhere.
    pub agents: bool,
}

/// The decision folders and `AGENTS.md` files of the repository at `root`;
/// `known`: folders a team's tools name or that carry a usual name
/// (`docs/adr`), where one numbered Markdown file is enough.
pub fn find(root: &Path, known: &[String]) -> Found {
    let mut found = Found::default();
    let mut folders: Vec<String> = Vec::new();
    for k in known.iter().chain(log4brains_folders(root).iter()) {
        let k = k.trim_end_matches('/');
        if has_numbered(&root.join(k)) && !folders.iter().any(|f| f == k) {
            folders.push(k.to_string());
        }
    }
    let mut visited = 0usize;
    let mut stack: Vec<(PathBuf, String, usize)> = vec![(root.to_path_buf(), String::new(), 0)];
    while let Some((dir, rel, depth)) = stack.pop() {
        visited += 1;
        if visited > MAX_FOLDERS {
            break;
        }
        let Ok(entries) = fs::read_dir(&dir) else { continue };
        let mut names: Vec<(String, fs::FileType)> = entries
            .filter_map(Result::ok)
            .filter_map(|e| e.file_type().ok().map(|t| (e.file_name().to_string_lossy().into_owned(), t)))
            .collect();
        names.sort_by(|a, b| a.0.cmp(&b.0));
        let mut numbered = Vec::new();
        for (name, t) in &names {
            if t.is_dir() {
                numbered.extend(folder_decision(&dir.join(name)));
                if depth < MAX_DEPTH && !name.starts_with('.') && !SKIPPED.contains(&name.as_str()) {
                    let child = if rel.is_empty() { name.clone() } else { format!("{rel}/{name}") };
                    stack.push((dir.join(name), child, depth + 1));
                }
            } else if t.is_file() {
                if name == "AGENTS.md" {
                    found.agents = true;
                }
                if adr_file(name) {
                    numbered.push(dir.join(name));
                }
            }
        }
        if !rel.is_empty() && numbered.iter().take(PEEK_FILES).any(|p| reads_as_adr(p)) && !folders.contains(&rel) {
            folders.push(rel);
        }
    }
    folders.sort();
    // A folder inside another is read by the other's source.
    let mut kept: Vec<String> = Vec::new();
    for f in folders {
        if !kept.iter().any(|k| f.starts_with(&format!("{k}/"))) {
            kept.push(f);
        }
    }
    found.adr_folders = kept.into_iter().map(|f| format!("{f}/")).collect();
    found
}

/// The `id_prefix` of each ADR folder when there are several (a monorepo
/// numbers each folder from 1, and two `ADR-0001` would be one id): the
/// folder's path without its generic parts (`docs`, `adr`, `decisions`…),
/// then `/ADR-` (`services/pay/docs/adr/` → `services/pay/ADR-`); `None`
/// for the folder that has nothing else (`docs/adr/`), which keeps `ADR-`.
pub fn prefixes(folders: &[String]) -> Vec<Option<String>> {
    const GENERIC: [&str; 10] = [
        "docs",
        "doc",
        "adr",
        "adrs",
        "decisions",
        "architecture",
        "madr",
        "records",
        "decision-records",
        "architecture-decisions",
    ];
    if folders.len() < 2 {
        return vec![None; folders.len()];
    }
    let short = |f: &str| {
        let parts: Vec<&str> = f.split('/').filter(|p| !p.is_empty() && !GENERIC.contains(p)).collect();
        parts.join("/")
    };
    let shorts: Vec<String> = folders.iter().map(|f| short(f)).collect();
    folders
        .iter()
        .zip(&shorts)
        .map(|(f, s)| {
            let clash = s.is_empty() && shorts.iter().filter(|o| o.is_empty()).count() > 1
                || !s.is_empty() && shorts.iter().filter(|o| *o == s).count() > 1;
            if clash {
                Some(format!("{}/ADR-", f.trim_end_matches('/')))
            } else if s.is_empty() {
                None
            } else {
                Some(format!("{s}/ADR-"))
            }
        })
        .collect()
}

/// Whether `dir` (a real folder, not a link) holds a numbered Markdown file,
/// or a numbered folder with a `README.md` or `index.md` (a decision kept as
/// a folder of its own).
fn has_numbered(dir: &Path) -> bool {
    let is_dir = fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir());
    let numbered = |e: &fs::DirEntry| match e.file_type() {
        Ok(t) if t.is_file() => adr_file(&e.file_name().to_string_lossy()),
        Ok(t) if t.is_dir() => folder_decision(&e.path()).is_some(),
        _ => false,
    };
    is_dir && fs::read_dir(dir).map(|entries| entries.filter_map(Result::ok).any(|e| numbered(&e))).unwrap_or(false)
}

/// The file of a decision kept as a folder of its own: the `README.md` or
/// `index.md` (a regular file) of a folder named as a numbered ADR file
/// (`0007-events/README.md`).
fn folder_decision(folder: &Path) -> Option<PathBuf> {
    let name = folder.file_name()?.to_string_lossy();
    if !adr_folder(&name) {
        return None;
    }
    FOLDER_ADR_FILES.iter().map(|own| folder.join(own)).find(|f| fs::symlink_metadata(f).is_ok_and(|m| m.is_file()))
}

/// Whether the start of a file reads as an ADR: a status (front matter,
/// a `Status:` line, a Status heading) or a Context / Decision heading.
fn reads_as_adr(path: &Path) -> bool {
    // Opened without blocking and without following a link, then checked: a
    // named pipe swapped in after the folder was listed is never waited on.
    let Ok((file, _)) = crate::confine::open_regular(path, true) else { return false };
    let mut text = String::new();
    let mut bytes = Vec::new();
    if file.take(PEEK_BYTES).read_to_end(&mut bytes).is_err() {
        return false;
    }
    text.push_str(&String::from_utf8_lossy(&bytes));
    text.lines().any(|line| {
        let l = line.trim().trim_start_matches(['*', '-', '+', ' ']).trim().replace('\u{a0}', " ");
        let l = l.trim_start_matches("**").to_lowercase();
        let heading = l.starts_with('#');
        let words =
            l.trim_start_matches('#').trim().trim_start_matches(|c: char| c.is_ascii_digit() || c == '.').trim();
        l.starts_with("status:")
            || l.starts_with("status**:")
            || (heading
                && (words.starts_with("status")
                    || words.starts_with("context")
                    || words.starts_with("decision")
                    || words.starts_with("problem statement")))
    })
}

/// The ADR folders log4brains' `.log4brains.yml` names (`adrFolder:`, the
/// project's and each package's), relative to the repository.
fn log4brains_folders(root: &Path) -> Vec<String> {
    let path = root.join(".log4brains.yml");
    if !fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
        return Vec::new();
    }
    let Ok((file, _)) = crate::confine::open_regular(&path, true) else { return Vec::new() };
    let mut bytes = Vec::new();
    if file.take(PEEK_BYTES).read_to_end(&mut bytes).is_err() {
        return Vec::new();
    }
    String::from_utf8_lossy(&bytes)
        .lines()
        .filter_map(|l| l.trim().strip_prefix("adrFolder:"))
        .map(|v| v.trim().trim_matches(['"', '\'']).trim_start_matches("./").trim_end_matches('/').to_string())
        .filter(|d| !d.is_empty() && !d.starts_with('/') && !d.split('/').any(|c| c == ".."))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, path: &str, text: &str) {
        let p = root.join(path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    #[test]
    fn adr_folders_are_found_by_their_content_anywhere() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "docs/madr/decisions/001-a.md", "# A\n\n* Status: accepted\n");
        write(root, "services/pay/docs/adr/0001-b.md", "# 1. B\n\n## Context\n\nx\n");
        write(root, "services/pay/docs/adr/sub/0002-c.md", "# 2. C\n\n## Status\n\nAccepted\n");
        write(root, "packages/web/decisions/0001-d.md", "# D\n\n##\u{a0}Status\n\nAccepted\n");
        // Numbered files that are not ADRs (release notes, migrations).
        write(root, "db/migrations/0001-init.md", "# Init\n\nCreate the tables.\n");
        write(root, "node_modules/x/docs/adr/0001-e.md", "# E\n\n## Status\n\nAccepted\n");
        write(root, ".hidden/adr/0001-f.md", "# F\n\n## Status\n\nAccepted\n");
        write(root, "pkg/AGENTS.md", "# Agents\n");
        let found = find(root, &[]);
        assert_eq!(found.adr_folders, ["docs/madr/decisions/", "packages/web/decisions/", "services/pay/docs/adr/"]);
        assert!(found.agents);
        // A usual name with one numbered file is enough, as before.
        write(root, "docs/adr/0001-g.md", "# 1. G\n");
        assert_eq!(find(root, &["docs/adr".into()]).adr_folders[0], "docs/adr/");
        // log4brains names its folders.
        write(root, ".log4brains.yml", "project:\n  adrFolder: ./arch/records\n");
        write(root, "arch/records/20200101-h.md", "# H\n");
        assert!(find(root, &[]).adr_folders.contains(&"arch/records/".to_string()));
    }

    #[test]
    fn adr_prefixed_and_underscore_dated_names_are_adr_folders() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        // The Cosmos SDK, CometBFT and Hermes name their ADRs `adr-NNN-title.md`
        // in a folder with no usual name.
        write(
            root,
            "docs/architecture/adr-001-repo.md",
            "# ADR 001: Repository

## Status

Accepted
",
        );
        write(
            root,
            "docs/architecture/architecture.md",
            "# Architecture

An overview.
",
        );
        // Sylius dates its ADRs with underscores.
        write(
            root,
            "shop/adr/2020_03_03_api_translations.md",
            "# API - Translations

* Status: accepted
",
        );
        let found = find(root, &[]);
        assert_eq!(found.adr_folders, ["docs/architecture/", "shop/adr/"]);
    }

    #[test]
    fn several_adr_folders_get_a_prefix_each() {
        let v = |x: &[&str]| x.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(prefixes(&v(&["docs/adr/"])), [None]);
        assert_eq!(
            prefixes(&v(&["docs/adr/", "katana_mcp_server/docs/adr/", "packages/web/docs/decisions/"])),
            [None, Some("katana_mcp_server/ADR-".into()), Some("packages/web/ADR-".into())]
        );
        assert_eq!(prefixes(&v(&["docs/adr/", "adr/"])), [Some("docs/adr/ADR-".into()), Some("adr/ADR-".into())]);
    }
}
