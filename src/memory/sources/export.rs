//! The Mneme memory file that `mneme-gate import` writes from any sources:
//! every record as a Mneme decision record, in pool order, with where it came
//! from. The bytes depend only on the records, so the same sources always give
//! the same file.
//!
//! What Mneme reads of it: `meta.name`, `meta.description` (both required by
//! Mneme's loader) and, per record, `id`, `decision`, `rationale`, `scope`,
//! `constraints`, `anti_patterns`, and `source` (`type`, `path` relative to the
//! file's folder). What only mneme-gate reads: `paths` (scope globs),
//! `status` and `sections` (the rest of an ADR's text, by part: `summary`,
//! `decision`, `context`, `options`, `consequences`, `subsections`, each a string, written
//! when not empty); `superseded_by` and `source.line` are for people. Loading the file
//! gives the same pool as loading the sources (under the profile it was
//! written with).

use std::path::{Component, Path, PathBuf};

use serde::Serialize;

use super::SourceKind;
use crate::memory::{Decision, Sections};

#[derive(Serialize)]
struct File<'a> {
    meta: Meta,
    decisions: Vec<Record<'a>>,
}

#[derive(Serialize)]
struct Meta {
    name: &'static str,
    description: String,
}

#[derive(Serialize)]
struct Record<'a> {
    id: &'a str,
    decision: &'a str,
    rationale: &'a str,
    scope: &'a [String],
    constraints: &'a [String],
    anti_patterns: &'a [String],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    paths: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    superseded_by: Option<&'a str>,
    #[serde(skip_serializing_if = "Sections::is_empty")]
    sections: &'a Sections,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<SourceRef>,
}

#[derive(Serialize)]
struct SourceRef {
    #[serde(rename = "type")]
    kind: &'static str,
    path: String,
    line: usize,
}

/// The file for `records` (each with the kind of its source) read from
/// the sources named `label`, to be written in the folder `dir` (source
/// paths are written relative to it). Pretty JSON with a final newline.
pub fn mneme_json(records: &[(SourceKind, Decision)], label: &str, dir: &Path) -> String {
    // A file written elsewhere (`--out /tmp/m.json`) from relative sources:
    // both paths from the working folder, so that `source.path` is still
    // relative to the written file's folder, as documented.
    let cwd = std::env::current_dir().ok();
    let absolute = |p: &Path| match &cwd {
        Some(c) if !p.is_absolute() => c.join(p),
        _ => p.to_path_buf(),
    };
    let mixed =
        records.iter().any(|(_, d)| d.origin().is_some_and(|o| Path::new(&o.file).is_absolute() != dir.is_absolute()));
    let dir = if mixed { absolute(dir) } else { dir.to_path_buf() };
    let place = |file: &str| {
        let f = Path::new(file);
        if mixed {
            relative_to(&absolute(f), &dir)
        } else {
            relative_to(f, &dir)
        }
    };
    let file = File {
        meta: Meta { name: "decisions", description: format!("Imported by mneme-gate import from {label}") },
        decisions: records
            .iter()
            .map(|(kind, d)| Record {
                id: &d.id,
                decision: &d.title,
                rationale: &d.content,
                scope: &d.tags,
                constraints: &d.constraint,
                anti_patterns: &d.anti_patterns,
                paths: &d.paths,
                status: d.status(),
                superseded_by: d.superseded_by(),
                sections: d.sections(),
                source: d.origin().map(|o| SourceRef { kind: kind.name(), path: place(&o.file), line: o.line }),
            })
            .collect(),
    };
    let mut text = serde_json::to_string_pretty(&file).expect("an imported memory always serialises");
    text.push('\n');
    text
}

/// `file` relative to the folder `dir`, lexically (`docs/adr/1.md` from
/// `.mneme` is `../docs/adr/1.md`), with `/` separators; `file` as given
/// when the two cannot be related without the file system.
pub(crate) fn relative_to(file: &Path, dir: &Path) -> String {
    let norm = |p: &Path| -> Option<Vec<String>> {
        let mut out: Vec<String> = Vec::new();
        for c in p.components() {
            match c {
                Component::CurDir => {}
                Component::ParentDir => {
                    if out.pop().is_none_or(|last| last == "..") {
                        return None;
                    }
                }
                Component::Normal(s) => out.push(s.to_string_lossy().into_owned()),
                Component::RootDir | Component::Prefix(_) => out.push(c.as_os_str().to_string_lossy().into_owned()),
            }
        }
        Some(out)
    };
    let shown = || super::walk::shown(file);
    if file.is_absolute() != dir.is_absolute() {
        return shown();
    }
    let (Some(f), Some(d)) = (norm(file), norm(dir)) else { return shown() };
    let common = f.iter().zip(&d).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..d.len() {
        out.push("..");
    }
    for part in &f[common..] {
        out.push(part);
    }
    super::walk::shown(&out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_paths_are_relative_to_the_written_file() {
        assert_eq!(relative_to(Path::new("docs/adr/0001-a.md"), Path::new("")), "docs/adr/0001-a.md");
        assert_eq!(relative_to(Path::new("docs/adr/0001-a.md"), Path::new(".")), "docs/adr/0001-a.md");
        assert_eq!(relative_to(Path::new("docs/adr/0001-a.md"), Path::new(".mneme")), "../docs/adr/0001-a.md");
        assert_eq!(relative_to(Path::new("docs/adr/0001-a.md"), Path::new("docs")), "adr/0001-a.md");
        assert_eq!(relative_to(Path::new("/r/docs/a.md"), Path::new("/r/x")), "../docs/a.md");
        assert_eq!(relative_to(Path::new("a.md"), Path::new("../up")), "a.md");
    }

    #[test]
    fn a_file_written_outside_the_working_folder_still_points_at_the_sources() {
        let cwd = std::env::current_dir().unwrap();
        let d = Decision {
            id: "ADR-0001".into(),
            title: "t".into(),
            tags: vec![],
            constraint: vec![],
            anti_patterns: vec![],
            content: String::new(),
            paths: vec![],
            kind: crate::memory::RecordKind::DecisionRecord,
            offset: 0,
            globs: vec![],
            rare: crate::memory::Rare {
                origin: Some(crate::memory::Origin { file: "docs/adr/0001-a.md".into(), line: 1 }),
                ..Default::default()
            }
            .boxed(),
        };
        let out = cwd.join("elsewhere/deeper");
        let text = mneme_json(&[(SourceKind::Adr, d)], "adr:docs/adr", &out);
        assert!(text.contains("\"path\": \"../../docs/adr/0001-a.md\""), "{text}");
    }
}
