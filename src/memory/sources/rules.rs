//! The rule files coding agents read, as decisions: Cursor (`.mdc`, legacy
//! `.cursorrules`), GitHub Copilot (`*.instructions.md`,
//! `copilot-instructions.md`) and Claude Code (`CLAUDE.md`,
//! `.claude/rules/*.md`).
//!
//! | file | records | id | title | scope |
//! |---|---|---|---|---|
//! | Cursor `.mdc` | one | `cursor/` + path below the rules folder, without `.mdc` | `description`, else the file name | `globs`; none with `alwaysApply: true` |
//! | `.cursorrules` | one per top-level section | `cursor/cursorrules/` + heading | the heading | none |
//! | Copilot `*.instructions.md` | one | `copilot/` + path without `.instructions.md` | `description`, else the first heading, else the file name | `applyTo` |
//! | `copilot-instructions.md` | one per top-level section | `copilot/` + heading | the heading | none |
//! | `CLAUDE.md` | one per top-level section | `claude/` + heading | the heading | none |
//! | `.claude/rules/*.md` | one per top-level section | `claude/rules/` + path + `/` + heading | the heading | `paths` |
//!
//! | `AGENTS.md` | one per top-level section | `agents/` (+ folder below the source) + heading | the heading | the folder from the repository root + `/**`; none at the root |
//!
//! A file without sections is one record (its id without the heading part);
//! so is the text before the first section of a file that has sections,
//! under the file's title (text before the title included). Ids that
//! records of two files would share are settled over every source by
//! `settle_rule_ids` (in `sources`).
//! In every record, bullets are constraints, and bullets that start with
//! "don't", "do not", "never" or "avoid", or that sit under a heading that says
//! what not to do (`Forbidden`, `Don'ts`, `Anti-patterns`, …), are
//! anti-patterns; the other text (paragraphs, table rows, sub-headings) is the
//! content.
//!
//! Globs: a comma-separated string or a list; `**`, `**/*` and `*` mean every
//! file (no scope); a glob without `/` matches at any depth (`*.ts` →
//! `**/*.ts`), as these tools match it; a leading `/` or `./` is dropped.

use super::front_matter::{self, Field};
use super::markdown::{self, section_level, Block, Kind};
use super::walk::Role;
use super::{is_anti_heading, slug, FileRecords, Record};

/// Maps one rule file of `role`; `folder`: its source's folder from the
/// repository root (`services` for `agents: services/`), where a nested
/// `AGENTS.md`'s scope starts.
pub(crate) fn map(role: Role, folder: &str, shown: &str, rel: &std::path::Path, text: &str) -> FileRecords {
    let mut out = FileRecords::default();
    let rel_text = rel.to_string_lossy().replace('\\', "/");
    let name = rel.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let (base, stem) = match role {
        Role::CursorRule => {
            let s = rel_text.strip_suffix(".mdc").unwrap_or(&rel_text).to_string();
            (format!("cursor/{s}"), name.strip_suffix(".mdc").unwrap_or(&name).to_string())
        }
        Role::CursorLegacy => ("cursor/cursorrules".to_string(), "cursorrules".to_string()),
        Role::CopilotInstructions => {
            let s = rel_text.strip_suffix(".instructions.md").unwrap_or(&rel_text).to_string();
            (format!("copilot/{s}"), name.strip_suffix(".instructions.md").unwrap_or(&name).to_string())
        }
        Role::CopilotRepository => ("copilot".to_string(), "copilot-instructions".to_string()),
        Role::ClaudeMemory => ("claude".to_string(), "CLAUDE".to_string()),
        // `AGENTS.md` at the root is `agents/…`; one in a folder is
        // `agents/<folder>/…`.
        Role::AgentsMemory => match rel.parent().map(|p| p.to_string_lossy().replace('\\', "/")) {
            Some(dir) if !dir.is_empty() => (format!("agents/{dir}"), "AGENTS".to_string()),
            _ => ("agents".to_string(), "AGENTS".to_string()),
        },
        // An imported file: its path from the repository, after an `@`.
        Role::Imported(kind) => {
            let s = rel_text.strip_suffix(".md").unwrap_or(&rel_text).to_string();
            (format!("{kind}/@{s}"), name.strip_suffix(".md").unwrap_or(&name).to_string())
        }
        Role::ClaudeRule | Role::Adr => {
            let s = rel_text.strip_suffix(".md").unwrap_or(&rel_text).to_string();
            (format!("claude/rules/{s}"), name.strip_suffix(".md").unwrap_or(&name).to_string())
        }
    };
    let split = front_matter::split(text);
    if let Some(p) = &split.problem {
        out.error(p.line, p.column, Some(&base), p.message.clone());
    }
    let fm = &split.front;
    let starts = crate::memory::lines::line_starts(text);
    let (blocks, code) = markdown::without_code(markdown::blocks(split.body, split.body_start, &starts));

    // Scope.
    let (globs, globs_field): (Vec<String>, Option<&Field>) = match role {
        Role::CursorRule => {
            let always = match &fm.always_apply {
                Some(f) => match front_matter::boolean(&f.value) {
                    Ok(b) => b.unwrap_or(false),
                    Err(found) => {
                        out.error(
                            f.line,
                            1,
                            Some(&base),
                            format!("`alwaysApply` must be true or false, found {found}"),
                        );
                        false
                    }
                },
                None => false,
            };
            match (&fm.globs, always) {
                (Some(f), false) => (out.list_field(f, "globs", &base), Some(f)),
                _ => (Vec::new(), None),
            }
        }
        Role::CopilotInstructions => match &fm.apply_to {
            Some(f) => (out.list_field(f, "applyTo", &base), Some(f)),
            None => (Vec::new(), None),
        },
        Role::ClaudeRule => match &fm.paths {
            Some(f) => (out.list_field(f, "paths", &base), Some(f)),
            None => (Vec::new(), None),
        },
        // A nested `AGENTS.md` applies to its folder, as the convention
        // says: the folder from the repository root, as every scope glob.
        Role::AgentsMemory => {
            let dir = rel.parent().map(|p| p.to_string_lossy().replace('\\', "/")).unwrap_or_default();
            let dir = match (folder.is_empty(), dir.is_empty()) {
                (_, true) => folder.to_string(),
                (true, false) => dir,
                (false, false) => format!("{folder}/{dir}"),
            };
            match dir.is_empty() {
                true => (Vec::new(), None),
                false => (vec![format!("{dir}/**")], None),
            }
        }
        _ => (Vec::new(), None),
    };
    let globs = scope_globs(globs);
    let globs_line = globs_field.map_or(1, |f| f.line);
    let tags = match &fm.tags {
        Some(f) => out.list_field(f, "tags", &base),
        None => Vec::new(),
    };
    let description = out.text_field(&fm.description, "description", &base);
    let fm_title = out.text_field(&fm.title, "title", &base);

    let record = |id: String, title: String, line: usize, blocks: &[Block], anti: bool| {
        let (constraint, anti_patterns, content) = body(blocks, anti);
        Record {
            id,
            title,
            tags: tags.clone(),
            constraint,
            anti_patterns,
            content,
            sections: Default::default(),
            globs: globs.clone(),
            globs_line,
            status: None,
            superseded_by: None,
            line,
            forced_inactive: false,
            file: shown.to_string(),
            id_parts: None,
            place: String::new(),
        }
    };
    let first_heading = blocks.iter().position(|b| b.heading_level().is_some());
    match role {
        // One record per file.
        Role::CursorRule | Role::CopilotInstructions => {
            let title = match role {
                Role::CursorRule => fm_title.or(description).unwrap_or(stem),
                _ => fm_title.or(description).or_else(|| first_heading.map(|i| blocks[i].text.clone())).unwrap_or(stem),
            };
            out.records.push(record(base, title, 1, &blocks, false));
        }
        // One record per top-level section.
        _ => {
            let (title_at, level) = section_level(&blocks);
            let doc_title =
                fm_title.or(description).or_else(|| title_at.map(|i| blocks[i].text.clone())).unwrap_or(stem);
            let doc_line = title_at.map_or(1, |i| blocks[i].line);
            // The blocks up to `end` but the title: the text before a title
            // (a rule file whose one `##` heading is its title) is kept.
            let untitled = |end: usize| -> Vec<Block> {
                blocks[..end].iter().enumerate().filter(|&(i, _)| Some(i) != title_at).map(|(_, b)| b.clone()).collect()
            };
            let Some(level) = level else {
                let body = untitled(blocks.len());
                if body.iter().any(|b| b.heading_level().is_none()) {
                    out.records.push(record(base, doc_title, doc_line, &body, false));
                }
                return out;
            };
            let starts: Vec<usize> = blocks
                .iter()
                .enumerate()
                .filter(|&(i, b)| Some(i) != title_at && b.heading_level() == Some(level))
                .map(|(i, _)| i)
                .collect();
            // The text before the first section: a record of its own, under
            // the document's title.
            let preamble = untitled(starts.first().copied().unwrap_or(blocks.len()));
            if !preamble.is_empty() {
                out.records.push(record(base.clone(), doc_title, doc_line, &preamble, false));
            }
            let mut used = crate::memory::unique::Used::default();
            for (n, &at) in starts.iter().enumerate() {
                let end = starts.get(n + 1).copied().unwrap_or(blocks.len());
                let end = blocks[at + 1..end]
                    .iter()
                    .position(|b| b.heading_level().is_some_and(|l| l < level))
                    .map_or(end, |p| at + 1 + p);
                let section = &blocks[at + 1..end];
                if section.is_empty() {
                    // A section that holds only code (a command list, a
                    // config sample) is a record of that code.
                    let (from, to) = (blocks[at].line, blocks.get(end).map_or(usize::MAX, |b| b.line));
                    let code: Vec<&str> =
                        code.iter().filter(|c| c.line > from && c.line < to).map(|c| c.text.as_str()).collect();
                    if code.is_empty() {
                        continue;
                    }
                    let id = crate::memory::unique::unique_id(&mut used, format!("{base}/{}", slug(&blocks[at].text)));
                    let mut r = record(id, blocks[at].text.clone(), blocks[at].line, &[], false);
                    r.content = code.join("\n");
                    out.records.push(r);
                    continue;
                }
                let id = crate::memory::unique::unique_id(&mut used, format!("{base}/{}", slug(&blocks[at].text)));
                let anti = is_anti_heading(&markdown::heading_words(&blocks[at].text));
                out.records.push(record(id, blocks[at].text.clone(), blocks[at].line, section, anti));
            }
        }
    }
    out
}

/// Constraints, anti-patterns and content of some blocks (see the module);
/// `anti_start`: the blocks are under a heading that says what not to do.
/// A level-1 heading (a document's title) says what the file is about, not
/// what its bullets are.
fn body(blocks: &[Block], anti_start: bool) -> (Vec<String>, Vec<String>, String) {
    let (mut constraint, mut anti, mut content) = (Vec::new(), Vec::new(), Vec::new());
    let mut anti_heading = anti_start;
    for b in blocks {
        match b.kind {
            Kind::Heading(level) => {
                if level > 1 {
                    anti_heading = is_anti_heading(&markdown::heading_words(&b.text));
                }
                content.push(b.text.clone());
            }
            Kind::Item { .. } if anti_heading || negative(&b.text) => anti.push(b.text.clone()),
            Kind::Item { .. } => constraint.push(b.text.clone()),
            Kind::Text | Kind::Row => content.push(b.text.clone()),
            Kind::Code => {}
        }
    }
    (constraint, anti, content.join("\n"))
}

/// Whether a bullet says what not to do.
pub(crate) fn negative(text: &str) -> bool {
    let t = text.trim_start().to_lowercase();
    ["don't ", "don’t ", "dont ", "do not ", "never ", "avoid ", "❌", "🚫"].iter().any(|p| t.starts_with(p))
}

/// The scope globs of a rule (see the module): empty when it applies to
/// every file.
pub(crate) fn scope_globs(raw: Vec<String>) -> Vec<String> {
    let mut out = Vec::new();
    for g in raw {
        let mut g = g.trim();
        while let Some(rest) = g.strip_prefix("./") {
            g = rest;
        }
        let g = g.trim_start_matches('/');
        if g.is_empty() {
            continue;
        }
        if matches!(g, "**" | "**/*" | "*" | "**/**") {
            return Vec::new();
        }
        let g = if g.contains('/') { g.to_string() } else { format!("**/{g}") };
        if !out.contains(&g) {
            out.push(g);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_before_a_lone_heading_is_kept() {
        let map = |text: &str| map(Role::ClaudeMemory, "", "CLAUDE.md", std::path::Path::new("CLAUDE.md"), text);
        // No `#` title, one `##` heading: the heading is the title, and the
        // text before it is in the record.
        let out = map("Payments are audited: read this before any change.\n\n## Testing\n\n- Run the tests.\n");
        assert_eq!(out.records.len(), 1);
        let r = &out.records[0];
        assert_eq!((r.id.as_str(), r.title.as_str()), ("claude", "Testing"));
        assert!(r.content.contains("Payments are audited"), "{:?}", r.content);
        assert_eq!(r.constraint, ["Run the tests."]);
        // Text before a `#` title with sections: in the first record.
        let out = map("Payments are audited.\n\n# Claude\n\n## Style\n\n- Short lines.\n");
        let ids: Vec<&str> = out.records.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["claude", "claude/style"]);
        assert_eq!(out.records[0].content, "Payments are audited.");
    }

    #[test]
    fn a_nested_agents_md_is_scoped_from_the_repository_root() {
        let text = "# Pay\n\n- Refunds are idempotent.\n";
        let scope = |folder: &str, rel: &str| {
            map(Role::AgentsMemory, folder, rel, std::path::Path::new(rel), text).records[0].globs.clone()
        };
        assert_eq!(scope("services", "pay/AGENTS.md"), ["services/pay/**"]);
        assert_eq!(scope("services", "AGENTS.md"), ["services/**"]);
        assert_eq!(scope("", "pay/AGENTS.md"), ["pay/**"]);
        assert!(scope("", "AGENTS.md").is_empty());
    }

    #[test]
    fn globs_are_read_as_the_tools_read_them() {
        let v = |x: &[&str]| x.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            scope_globs(v(&["*.ts", "src/**/*.rs", "./a/b", "/c/**", "Dockerfile"])),
            ["**/*.ts", "src/**/*.rs", "a/b", "c/**", "**/Dockerfile"]
        );
        assert!(scope_globs(v(&["src/**", "**"])).is_empty());
        assert!(scope_globs(v(&["**/*"])).is_empty());
        assert!(scope_globs(v(&["*"])).is_empty());
        assert_eq!(scope_globs(v(&["a/*", "a/*", " "])), ["a/*"]);
        assert!(negative("Never run as root"));
        assert!(negative("Don't use `any`"));
        assert!(!negative("Always handle errors — never assign to _"));
        assert!(!negative("Avoidance of X is good"));
    }
}
