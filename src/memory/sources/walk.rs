//! Which files a source reads: the folders of each kind of source, walked in
//! sorted path order, with the limits a hostile repository cannot get past.
//!
//! Why it exists apart from the mappings: the source folders are part of the
//! repository under test, which a pull request controls. Here, and only here,
//! the file system is looked at:
//!
//! - a symbolic link is followed only when it leads to a file inside the
//!   source's folder (after every link is resolved); one that leads out is an
//!   error, and a link to a folder is not followed (a warning), so a walk can
//!   neither leave the folder nor loop;
//! - a source path written inside the repository (relative, without `..`)
//!   must stay inside it once symbolic links are resolved;
//! - a named pipe, a socket or a device is never opened (a warning);
//! - at most [`MAX_FILES`] files per source, folders at most [`MAX_DEPTH`]
//!   deep; each file is read by `memory::file` with its own cap.
//!
//! Hidden folders (`.git`, …) and `node_modules` are not entered by a walk;
//! the hidden folders the tools use (`.cursor/rules`, `.claude/rules`,
//! `.github/instructions`) are walked when the source names their parent.

use std::fs;
use std::path::{Component, Path, PathBuf};

use super::{DecisionSource, SourceKind};

/// The most files one source may hold.
pub(crate) const MAX_FILES: usize = 10_000;

/// The deepest folder a walk enters, below the source's folder.
pub(crate) const MAX_DEPTH: usize = 32;

/// What a file is to its source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// An architecture decision record.
    Adr,
    /// A Cursor rule file (`.mdc`).
    CursorRule,
    /// Cursor's legacy `.cursorrules`.
    CursorLegacy,
    /// `copilot-instructions.md`, for the whole repository.
    CopilotRepository,
    /// A Copilot `*.instructions.md` file.
    CopilotInstructions,
    /// `CLAUDE.md`.
    ClaudeMemory,
    /// A Claude Code rule file (`.claude/rules/*.md`).
    ClaudeRule,
    /// An `AGENTS.md`, at the root or in a folder (its scope).
    AgentsMemory,
    /// A Markdown file that a `CLAUDE.md` or `AGENTS.md` imports
    /// (`@path`) or links, read by the source (`claude` or `agents`) named.
    Imported(&'static str),
}

/// A file to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// The path to open.
    pub path: PathBuf,
    /// The path as messages and origins show it (`/` separators, no `./`).
    pub shown: String,
    /// The path below the folder walked for it (for ids and tags).
    pub rel: PathBuf,
    pub role: Role,
}

/// A problem met while walking, on a file or folder of the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WalkProblem {
    pub shown: String,
    pub error: bool,
    pub message: String,
}

/// The files of a source, in pool order, and what was refused.
#[derive(Debug, Default)]
pub(crate) struct Walk {
    pub files: Vec<Found>,
    pub problems: Vec<WalkProblem>,
}

/// A path as shown: `/` separators, without a leading `./`.
pub(crate) fn shown(path: &Path) -> String {
    let mut text = path.to_string_lossy().replace('\\', "/");
    while text.contains("/./") {
        text = text.replace("/./", "/");
    }
    let mut t = text.as_str();
    while let Some(rest) = t.strip_prefix("./") {
        t = rest;
    }
    while let Some(rest) = t.strip_suffix("/.") {
        t = rest;
    }
    if t.is_empty() || t == "." {
        ".".to_string()
    } else {
        t.to_string()
    }
}

/// The files of `source`, whose relative paths are inside `root`; `Err`
/// with a sentence when the source itself cannot be read.
pub(crate) fn find(source: &DecisionSource, root: &Path) -> Result<Walk, String> {
    let path = &source.path;
    let meta = fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", shown(path)))?;
    let canonical = fs::canonicalize(path).map_err(|e| format!("cannot read {}: {e}", shown(path)))?;
    if written_inside(path, root) {
        if let Ok(root) = fs::canonicalize(root) {
            if !canonical.starts_with(&root) {
                return Err(format!(
                    "{} leads out of the repository through a symbolic link (to {}): refused; name the folder itself",
                    shown(path),
                    canonical.display()
                ));
            }
        }
    }
    let mut walk = Walk::default();
    if meta.is_file() {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let role = file_role(source.kind, &name);
        let rel = PathBuf::from(&name);
        walk.files.push(Found { path: path.clone(), shown: shown(path), rel, role });
        return Ok(walk);
    }
    if !meta.is_dir() {
        return Err(format!("{} is not a file or a folder", shown(path)));
    }
    let sub = |p: &str| path.join(p);
    match source.kind {
        SourceKind::Json => return Err(format!("{} is a folder: a JSON source is one memory file", shown(path))),
        SourceKind::Adr => walk_dir(path, &canonical, &mut walk, &|dir, name| {
            (adr_candidate(name) || folder_adr(dir, name)).then_some(Role::Adr)
        }),
        SourceKind::Agents => {
            walk_dir(path, &canonical, &mut walk, &|_, name| (name == "AGENTS.md").then_some(Role::AgentsMemory))
        }
        SourceKind::Cursor => {
            let legacy = sub(".cursorrules");
            let rules = if is_named(path, ".cursor") { sub("rules") } else { sub(".cursor/rules") };
            let keep = |_: &Path, name: &str| name.ends_with(".mdc").then_some(Role::CursorRule);
            if rules.is_dir() {
                walk_under(&rules, &canonical, &mut walk, &keep);
            }
            if legacy.is_file() {
                push_file(&legacy, PathBuf::from(".cursorrules"), Role::CursorLegacy, &canonical, &mut walk);
            }
            if !rules.is_dir() && !legacy.is_file() {
                walk_dir(path, &canonical, &mut walk, &keep);
            }
        }
        SourceKind::Copilot => {
            let base = if path.join(".github").is_dir() { path.join(".github") } else { path.clone() };
            let repository = base.join("copilot-instructions.md");
            let instructions = base.join("instructions");
            let keep = |_: &Path, name: &str| name.ends_with(".instructions.md").then_some(Role::CopilotInstructions);
            if repository.is_file() {
                push_file(
                    &repository,
                    PathBuf::from("copilot-instructions.md"),
                    Role::CopilotRepository,
                    &canonical,
                    &mut walk,
                );
            }
            if instructions.is_dir() {
                walk_under(&instructions, &canonical, &mut walk, &keep);
            } else if !repository.is_file() {
                walk_dir(&base, &canonical, &mut walk, &keep);
            }
        }
        SourceKind::Claude => {
            let memory = path.join("CLAUDE.md");
            if memory.is_file() {
                push_file(&memory, PathBuf::from("CLAUDE.md"), Role::ClaudeMemory, &canonical, &mut walk);
            }
            let rules = if is_named(path, ".claude") { path.join("rules") } else { path.join(".claude/rules") };
            let keep = |_: &Path, name: &str| name.ends_with(".md").then_some(Role::ClaudeRule);
            if rules.is_dir() {
                walk_under(&rules, &canonical, &mut walk, &keep);
            } else if is_named(path, "rules") {
                // The rules folder itself; any other folder is not walked
                // for `*.md`, which would read every README as a rule.
                walk_dir(path, &canonical, &mut walk, &keep);
            }
        }
    }
    if walk.files.is_empty() && walk.problems.is_empty() {
        walk.problems.push(WalkProblem {
            shown: shown(path),
            error: false,
            message: format!(
                "holds no {}: check the path (docs/sources.md says what each source reads)",
                match source.kind {
                    SourceKind::Adr | SourceKind::Json => "ADR (a numbered `NNNN-title.md`)",
                    SourceKind::Cursor => "Cursor rule (`.cursor/rules/*.mdc`, `.cursorrules`)",
                    SourceKind::Copilot =>
                        "Copilot instructions (`copilot-instructions.md`, `instructions/*.instructions.md`)",
                    SourceKind::Claude => "Claude Code memory (`CLAUDE.md`, `.claude/rules/*.md`)",
                    SourceKind::Agents => "`AGENTS.md`",
                }
            ),
        });
    }
    Ok(walk)
}

/// Whether the last component of `path` is `name`.
fn is_named(path: &Path, name: &str) -> bool {
    path.components().rev().find(|c| !matches!(c, Component::CurDir)).is_some_and(|c| c.as_os_str() == name)
}

/// Whether `path`, as written, names something inside `root`: relative,
/// without `..`, or absolute under an absolute `root`.
fn written_inside(path: &Path, root: &Path) -> bool {
    if path.is_absolute() {
        return root.is_absolute() && path.starts_with(root) && !path.components().any(|c| c == Component::ParentDir);
    }
    !path.components().any(|c| matches!(c, Component::ParentDir | Component::Prefix(_) | Component::RootDir))
}

/// The number an ADR's file name starts with (`0001`), if any, after an
/// `adr` prefix and its joiner when digits follow it: `adr-001-repo.md`
/// (as the Cosmos SDK, CometBFT and Hermes name their ADRs), `ADR_12_x.md`
/// and `adr001-x.md` are numbered like `001-repo.md`.
pub(crate) fn number(file_name: &str) -> Option<&str> {
    let name = unprefixed(file_name);
    let end = name.find(|c: char| !c.is_ascii_digit()).unwrap_or(name.len());
    (end > 0).then(|| &name[..end])
}

/// A file name without a leading `adr` (any case) and the `-` or `_` after
/// it, when a digit follows; else the name as it is (`adrian-notes.md`,
/// `adr-template.md`).
pub(crate) fn unprefixed(file_name: &str) -> &str {
    let Some(rest) = file_name.get(..3).filter(|p| p.eq_ignore_ascii_case("adr")).map(|_| &file_name[3..]) else {
        return file_name;
    };
    let rest = rest.strip_prefix(['-', '_']).unwrap_or(rest);
    if rest.starts_with(|c: char| c.is_ascii_digit()) {
        rest
    } else {
        file_name
    }
}

/// Whether a file name is a numbered ADR: Markdown, a leading number
/// (`0001-title.md`, `20200926-title.md`, `adr-001-title.md`), and not a
/// template.
pub(crate) fn adr_file(name: &str) -> bool {
    adr_candidate(name) && number(name).is_some()
}

/// Whether `name` in the folder `dir` (relative to the ADR source's folder)
/// is a decision kept as a folder of its own: a `README.md` or `index.md`
/// in a folder named like a numbered or dated ADR file
/// (`2022-02-10-use-jackson/README.md`, `0007-events/index.md`), a layout
/// teams use to keep a decision's images beside it.
pub(crate) fn folder_adr(dir: &Path, name: &str) -> bool {
    is_folder_adr_file(name) && dir.file_name().is_some_and(|folder| adr_folder(&folder.to_string_lossy()))
}

/// The names of the file that holds a decision kept as a folder of its own,
/// in the order they are looked for.
pub(crate) const FOLDER_ADR_FILES: [&str; 2] = ["README.md", "index.md"];

/// Whether a file name is one of [`FOLDER_ADR_FILES`], in any case.
pub(crate) fn is_folder_adr_file(name: &str) -> bool {
    FOLDER_ADR_FILES.iter().any(|f| f.eq_ignore_ascii_case(name))
}

/// Whether a folder is named as a numbered ADR file would be (`0007-events`).
pub(crate) fn adr_folder(name: &str) -> bool {
    adr_file(&format!("{name}.md"))
}

/// The decision's own path, without `.md`, for a file an ADR source keeps:
/// the file's (`0001-use-x` of `0001-use-x.md`), or its folder's when the
/// decision is a folder of its own ([`folder_adr`]).
pub(crate) fn adr_stem_path(rel: &Path) -> PathBuf {
    let name = rel.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    match rel.parent() {
        Some(dir) if folder_adr(dir, &name) => dir.to_path_buf(),
        _ => {
            let stem = name.strip_suffix(".md").or_else(|| name.strip_suffix(".markdown")).unwrap_or(&name);
            rel.with_file_name(stem)
        }
    }
}

/// Whether an ADR folder's file may be an ADR: Markdown, and not a
/// README, an index, a changelog or a template, also when leading
/// underscores sort it first (`_readme.md`, `_index.md`, as Sylius and Hugo
/// name them). A file without a number is read when its text reads as an
/// ADR (`adr::map`).
pub(crate) fn adr_candidate(name: &str) -> bool {
    let lower = name.to_lowercase();
    let Some(stem) = lower.strip_suffix(".md").or_else(|| lower.strip_suffix(".markdown")) else { return false };
    let stem = stem.trim_start_matches('_');
    !matches!(stem, "readme" | "index" | "changelog" | "contributing" | "license" | "licence" | "agents" | "claude")
        && !is_template(stem)
}

/// Whether a file stem is an ADR template: its words, without the number,
/// are `template` and the words that name a kind of template (`template`,
/// `adr-template`, `0000-template`, `adr-template-bare-minimal`), not any
/// name that holds the word (`0010-django-templates` is a decision).
fn is_template(stem: &str) -> bool {
    let words: Vec<&str> = stem
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    words.contains(&"template")
        && words.iter().all(|w| {
            matches!(
                *w,
                "template"
                    | "adr"
                    | "madr"
                    | "decision"
                    | "record"
                    | "nygard"
                    | "bare"
                    | "minimal"
                    | "full"
                    | "short"
                    | "long"
                    | "lightweight"
            )
        })
}

/// The role of a file named as a source of `kind`.
fn file_role(kind: SourceKind, name: &str) -> Role {
    match kind {
        SourceKind::Adr | SourceKind::Json => Role::Adr,
        SourceKind::Cursor if name == ".cursorrules" => Role::CursorLegacy,
        SourceKind::Cursor => Role::CursorRule,
        SourceKind::Copilot if name == "copilot-instructions.md" => Role::CopilotRepository,
        SourceKind::Copilot => Role::CopilotInstructions,
        SourceKind::Claude if name == "CLAUDE.md" => Role::ClaudeMemory,
        SourceKind::Claude => Role::ClaudeRule,
        SourceKind::Agents => Role::AgentsMemory,
    }
}

/// Adds one file that a source names by its place (`CLAUDE.md`,
/// `.cursorrules`), refusing it as a walk would.
fn push_file(path: &Path, rel: PathBuf, role: Role, root: &Path, walk: &mut Walk) {
    match check_file(path, root) {
        Ok(()) => walk.files.push(Found { path: path.to_path_buf(), shown: shown(path), rel, role }),
        Err(p) => walk.problems.push(p),
    }
}

/// Whether a file may be read: a regular file (after links) inside `root`.
fn check_file(path: &Path, root: &Path) -> Result<(), WalkProblem> {
    let problem = |error: bool, message: String| WalkProblem { shown: shown(path), error, message };
    let link = fs::symlink_metadata(path).map(|m| m.file_type().is_symlink()).unwrap_or(false);
    // Any component may be the link (`.github` with `copilot: .`), not only the last.
    if link || fs::canonicalize(path).is_ok_and(|target| !target.starts_with(root)) {
        match fs::canonicalize(path) {
            Ok(target) if target.starts_with(root) => {}
            Ok(target) => {
                return Err(problem(
                    true,
                    format!(
                        "a symbolic link that leads out of the source folder (to {}): refused; put the file itself in the folder",
                        target.display()
                    ),
                ))
            }
            Err(e) => return Err(problem(false, format!("a symbolic link that leads nowhere ({e}): skipped"))),
        }
    }
    match fs::metadata(path) {
        Ok(m) if m.is_file() => Ok(()),
        Ok(m) if m.is_dir() => Err(problem(false, "a folder with a file's name: skipped".into())),
        Ok(m) => Err(problem(false, format!("{}, not a regular file: skipped", special_kind(&m)))),
        Err(e) => Err(problem(false, format!("cannot be read ({e}): skipped"))),
    }
}

/// A file that is not regular, in words.
fn special_kind(meta: &fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    let _ = meta;
    "not a regular file"
}

/// Walks the source's own folder.
fn walk_dir(dir: &Path, root: &Path, walk: &mut Walk, keep: &dyn Fn(&Path, &str) -> Option<Role>) {
    walk_from(dir, PathBuf::new(), 0, root, walk, keep);
}

/// Walks a folder below the source's folder (`.cursor/rules`): the ids and
/// tags of its files are relative to it.
fn walk_under(dir: &Path, root: &Path, walk: &mut Walk, keep: &dyn Fn(&Path, &str) -> Option<Role>) {
    match fs::canonicalize(dir) {
        Ok(c) if c.starts_with(root) => walk_from(dir, PathBuf::new(), 0, root, walk, keep),
        Ok(c) => walk.problems.push(WalkProblem {
            shown: shown(dir),
            error: true,
            message: format!(
                "a symbolic link that leads out of the source folder (to {}): refused; put the folder itself there",
                c.display()
            ),
        }),
        Err(e) => walk.problems.push(WalkProblem {
            shown: shown(dir),
            error: false,
            message: format!("cannot be read ({e}): skipped"),
        }),
    }
}

fn walk_from(
    dir: &Path,
    rel: PathBuf,
    depth: usize,
    root: &Path,
    walk: &mut Walk,
    keep: &dyn Fn(&Path, &str) -> Option<Role>,
) {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            walk.problems.push(WalkProblem { shown: shown(dir), error: true, message: format!("cannot be read: {e}") });
            return;
        }
    };
    let mut names: Vec<(std::ffi::OsString, fs::FileType)> =
        entries.filter_map(Result::ok).filter_map(|e| e.file_type().ok().map(|t| (e.file_name(), t))).collect();
    names.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, file_type) in names {
        if walk.files.len() >= MAX_FILES {
            walk.problems.push(WalkProblem {
                shown: shown(dir),
                error: true,
                message: format!(
                    "the source holds more than {MAX_FILES} files, the most read from one source: name a smaller folder"
                ),
            });
            return;
        }
        let text = name.to_string_lossy().into_owned();
        let path = dir.join(&name);
        let rel_path = rel.join(&name);
        let is_dir =
            if file_type.is_symlink() { fs::metadata(&path).is_ok_and(|m| m.is_dir()) } else { file_type.is_dir() };
        if is_dir {
            if text.starts_with('.') || text == "node_modules" {
                continue;
            }
            if file_type.is_symlink() {
                walk.problems.push(WalkProblem {
                    shown: shown(&path),
                    error: false,
                    message: "a symbolic link to a folder is not followed: skipped".into(),
                });
                continue;
            }
            if depth + 1 > MAX_DEPTH {
                walk.problems.push(WalkProblem {
                    shown: shown(&path),
                    error: false,
                    message: format!("folders nested more than {MAX_DEPTH} deep are not read: skipped"),
                });
                continue;
            }
            walk_from(&path, rel_path, depth + 1, root, walk, keep);
            continue;
        }
        let Some(role) = keep(&rel, &text) else { continue };
        match check_file(&path, root) {
            Ok(()) => walk.files.push(Found { shown: shown(&path), path, rel: rel_path, role }),
            Err(p) => walk.problems.push(p),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adr_file_names() {
        for yes in
            ["0001-use-postgres.md", "20200926-use-x.md", "12-x.markdown", "0001_x.md", "0010-django-templates.md"]
        {
            assert!(adr_file(yes), "{yes}");
        }
        for no in [
            "README.md",
            "index.md",
            "template.md",
            "0000-template.md",
            "000-template.md",
            "adr-template.md",
            "adr-template-bare-minimal.md",
            "notes.md",
            "0001.png",
        ] {
            assert!(!adr_file(no), "{no}");
        }
        assert!(adr_candidate("dotenv.md"));
        assert!(adr_candidate("use-templates-for-emails.md"));
        assert!(!adr_candidate("README.md"));
        assert!(!adr_candidate("madr-template.md"));
    }

    #[test]
    fn a_decision_may_be_a_folder_of_its_own() {
        assert!(folder_adr(Path::new("2022-02-10-use-jackson"), "README.md"));
        assert!(folder_adr(Path::new("api/0007-events"), "index.md"));
        assert!(!folder_adr(Path::new(""), "README.md"), "the source's own README");
        assert!(!folder_adr(Path::new("images"), "README.md"), "a folder not named as an ADR");
        assert!(!folder_adr(Path::new("0007-events"), "notes.md"));
        assert!(!folder_adr(Path::new("0000-template"), "README.md"), "a template");
        assert_eq!(adr_stem_path(Path::new("2022-02-10-use-jackson/README.md")), Path::new("2022-02-10-use-jackson"));
        assert_eq!(adr_stem_path(Path::new("api/0001-use-x.md")), Path::new("api/0001-use-x"));
        assert_eq!(adr_stem_path(Path::new("0001-use-x/notes.md")), Path::new("0001-use-x/notes"));
    }

    #[test]
    fn paths_are_shown_with_slashes_and_without_dot() {
        assert_eq!(shown(Path::new("./.claude/rules/a.md")), ".claude/rules/a.md");
        assert_eq!(shown(Path::new("docs/adr/0001.md")), "docs/adr/0001.md");
        assert_eq!(shown(Path::new(".")), ".");
        assert_eq!(shown(Path::new("conf/.")), "conf");
        assert_eq!(shown(Path::new("./a/./b")), "a/b");
        assert!(written_inside(Path::new("docs/adr"), Path::new(".")));
        assert!(!written_inside(Path::new("../x"), Path::new(".")));
        assert!(!written_inside(Path::new("/etc"), Path::new(".")));
    }
}
