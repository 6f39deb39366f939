//! The files a `CLAUDE.md` or an `AGENTS.md` brings in: Claude Code's
//! imports (`@path/to/rules.md`, followed from imported files too, at most
//! [`MAX_HOPS`] deep, as Claude Code follows them) and plain Markdown links to
//! Markdown files of the repository (`[Testing](docs/testing.md)`, one hop:
//! the files the rule file itself points at). Each is read as decisions of
//! its own, by the source that read the file naming it.
//!
//! Why: teams keep their real coding rules in such files, and the agents read
//! them; a gate that does not read them misses the decisions the agent follows.
//!
//! Hostile input, as everywhere: a reference is resolved from the folder of
//! the file that holds it and must stay inside the repository once symbolic
//! links are resolved (else a warning, never a read); only regular `.md` files
//! are read; every file is read once (no cycles); at most [`MAX_IMPORTS`]
//! files per source. Numbered ADR files (`0001-x.md`) are left to an `adr`
//! source, and a file a source already reads is not read again.

use std::path::{Component, Path, PathBuf};

use super::markdown::{Block, Kind};
use super::walk::{adr_file, shown, Found, Role, WalkProblem};

/// How deep imports are followed (Claude Code's own limit).
pub(crate) const MAX_HOPS: usize = 5;

/// The most files one source imports.
pub(crate) const MAX_IMPORTS: usize = 256;

/// A reference in a file: its target as written, and whether it is an
/// import (`@path`) rather than a link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reference {
    pub target: String,
    pub import: bool,
}

/// The references of a file's prose blocks (never of code blocks or code
/// spans), in order, each once; links only when `links` (the first hop).
pub(crate) fn references(blocks: &[Block], links: bool) -> Vec<Reference> {
    let mut out: Vec<Reference> = Vec::new();
    let mut push = |target: String, import: bool| {
        if !out.iter().any(|r| r.target == target) {
            out.push(Reference { target, import });
        }
    };
    for b in blocks {
        if b.kind == Kind::Code {
            continue;
        }
        for word in b.text.split_whitespace() {
            if let Some(path) = word.strip_prefix('@') {
                let path = path.trim_end_matches(['.', ',', ';', ':', ')', '!', '?']);
                if path.to_lowercase().ends_with(".md") {
                    push(path.to_string(), true);
                }
            }
        }
        if links {
            for link in &b.links {
                if let Some(target) = local_link(link) {
                    push(target, false);
                }
            }
        }
    }
    out
}

/// A link's target when it names a Markdown file of the repository: no
/// scheme, no anchor-only link; the anchor and query dropped, `%20` read.
fn local_link(link: &str) -> Option<String> {
    let l = link.trim();
    if l.is_empty() || l.starts_with('#') || l.contains("://") || l.starts_with("mailto:") || l.starts_with("//") {
        return None;
    }
    let l = l.split(['#', '?']).next().unwrap_or(l).replace("%20", " ");
    l.to_lowercase().ends_with(".md").then_some(l)
}

/// What became of a reference.
pub(crate) enum Resolved {
    /// A file to read.
    File(Found),
    /// Nothing to read, nothing to say (a numbered ADR, a missing link target).
    Skip,
    /// A problem to report on the referring file.
    Problem(WalkProblem),
}

/// Where a source's imports are placed: the repository's canonical folder
/// (`root`) and the same as written (`shown_root`, to show the file), and
/// the source's own canonical folder (`source`; an id is the path below it,
/// else below the repository).
pub(crate) struct Place<'a> {
    pub root: &'a Path,
    pub shown_root: &'a Path,
    pub source: Option<&'a Path>,
}

/// Resolves `target`, named in the file `from`, in `place`. `kind`: the
/// source's name.
pub(crate) fn resolve(
    target: &str,
    import: bool,
    from: &Path,
    from_shown: &str,
    place: &Place<'_>,
    kind: &'static str,
) -> Resolved {
    let (root, rel_root) = (place.root, place.shown_root);
    let problem = |message: String| WalkProblem { shown: from_shown.to_string(), error: false, message };
    let quoted = format!("`{}`", crate::describe::printable(target));
    if target.starts_with('~') || Path::new(target).is_absolute() {
        return Resolved::Problem(problem(format!(
            "{} {quoted} is outside the repository: not read (a gate reads the repository only)",
            if import { "imports" } else { "links" }
        )));
    }
    let name = Path::new(target).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if adr_file(&name) {
        return Resolved::Skip;
    }
    let dir = from.parent().unwrap_or(Path::new(""));
    let path = dir.join(target);
    let canonical = match std::fs::canonicalize(&path) {
        Ok(c) => c,
        Err(_) if !import => return Resolved::Skip,
        Err(e) => return Resolved::Problem(problem(format!("imports {quoted}, which cannot be read ({e}): skipped"))),
    };
    if !canonical.starts_with(root) {
        return Resolved::Problem(problem(format!(
            "{} {quoted}, which is outside the repository once links are resolved: not read",
            if import { "imports" } else { "links" }
        )));
    }
    match std::fs::metadata(&canonical) {
        Ok(m) if m.is_file() => {}
        _ => return Resolved::Skip,
    }
    // The path as the sources show it: the repository's folder as written,
    // then the file below it.
    let below = canonical.strip_prefix(root).unwrap_or(&canonical).to_path_buf();
    let path = rel_root.join(&below);
    let rel = normal(place.source.and_then(|s| canonical.strip_prefix(s).ok()).unwrap_or(&below));
    Resolved::File(Found { shown: shown(&path), path, rel, role: Role::Imported(kind) })
}

/// A relative path without `.` parts.
fn normal(p: &Path) -> PathBuf {
    p.components().filter(|c| matches!(c, Component::Normal(_))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::lines::line_starts;
    use crate::memory::sources::markdown::blocks;

    #[test]
    fn imports_and_links_are_found_in_prose_only() {
        let text = "# Rules\n\n@AGENTS.md\n\nSee [testing](docs/testing.md#top), [site](https://x.org/a.md), [here](#x), a@b.md and `@code.md`.\n\n```\n@in-code.md\n```\n\n- @docs/style.md.\n";
        let b = blocks(text, 0, &line_starts(text));
        let r = |t: &str, import| Reference { target: t.into(), import };
        assert_eq!(references(&b, true), [r("AGENTS.md", true), r("docs/testing.md", false), r("docs/style.md", true)]);
        assert_eq!(references(&b, false), [r("AGENTS.md", true), r("docs/style.md", true)]);
    }
}
