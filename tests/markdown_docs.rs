//! The README and every page of `docs/` read as GitHub renders them
//! (GitHub-flavoured Markdown, with comrak): no table that fell apart into
//! paragraphs of `|` cells, every table written is a table, no `**` left
//! unrendered, and every relative link leads to a file and a heading.

mod common;

use common::Test;

use std::path::{Path, PathBuf};

use comrak::nodes::{AstNode, NodeValue};
use comrak::{parse_document, Arena, Options};

/// GitHub's extensions: tables, strikethrough, autolinks, task lists and the
/// tag filter.
fn gfm() -> Options<'static> {
    let mut options = Options::default();
    options.extension.table = true;
    options.extension.strikethrough = true;
    options.extension.autolink = true;
    options.extension.tasklist = true;
    #[allow(deprecated)] // GitHub applies it; comrak 0.56 drops the option
    {
        options.extension.tagfilter = true;
    }
    options.render.r#unsafe = true;
    options
}

/// The text a reader sees in a paragraph, code spans left out (a `|` or
/// `**` in code is shown on purpose).
fn paragraph_text<'a>(node: &'a AstNode<'a>, out: &mut String) {
    for child in node.children() {
        match &child.data.borrow().value {
            NodeValue::Code(_) | NodeValue::HtmlInline(_) => continue,
            NodeValue::Text(t) => out.push_str(t),
            NodeValue::SoftBreak | NodeValue::LineBreak => out.push('\n'),
            _ => {}
        }
        paragraph_text(child, out);
    }
}

/// Every paragraph of `markdown` (outside code blocks) that shows a table
/// row or a `**`, with the line it starts on.
fn broken_paragraphs(markdown: &str) -> Vec<(usize, String)> {
    let arena = Arena::new();
    let root = parse_document(&arena, markdown, &gfm());
    let mut found = Vec::new();
    for node in root.descendants() {
        let data = node.data.borrow();
        if !matches!(data.value, NodeValue::Paragraph) {
            continue;
        }
        let mut text = String::new();
        paragraph_text(node, &mut text);
        let table_row = text.lines().any(|l| {
            let l = l.trim();
            (l.starts_with('|') && l.len() > 1) || l.starts_with("|---") || l.contains("|---|")
        });
        if table_row || text.contains("**") {
            found.push((data.sourcepos.start.line, text));
        }
    }
    found
}

/// How many tables the source means (delimiter rows such as `|---|---:|`
/// outside fenced code) and how many the renderer made.
fn tables(markdown: &str) -> (usize, usize) {
    let mut fence: Option<String> = None;
    let mut meant = 0;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        let ticks: String = trimmed.chars().take_while(|&c| c == '`' || c == '~').collect();
        match &fence {
            Some(open) if trimmed.starts_with(open.as_str()) && trimmed.trim_end() == ticks => fence = None,
            Some(_) => {}
            None if ticks.len() >= 3 => fence = Some(ticks),
            None => {
                let row = trimmed.trim_end();
                if row.starts_with('|')
                    && row.contains("---")
                    && row.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
                {
                    meant += 1;
                }
            }
        }
    }
    let arena = Arena::new();
    let root = parse_document(&arena, markdown, &gfm());
    let made = root.descendants().filter(|n| matches!(n.data.borrow().value, NodeValue::Table(_))).count();
    (meant, made)
}

fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

#[test]
fn every_table_and_every_bold_of_the_docs_renders() {
    let files = documents();
    assert!(files.len() > 5, "the README and the docs pages: {files:?}");
    let mut problems = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (line, shown) in broken_paragraphs(&text) {
            problems.push(format!("{}:{line}: {shown:?}", file.display()));
        }
        let (meant, made) = tables(&text);
        if meant != made {
            problems.push(format!("{}: {meant} table(s) written, {made} rendered", file.display()));
        }
    }
    assert!(problems.is_empty(), "paragraphs that show Markdown instead of rendering it:\n{}", problems.join("\n"));
}

#[test]
fn the_check_finds_a_table_broken_by_a_blank_line_and_stray_asterisks() {
    let broken = "| a | b |\n|---|---|\n| 1 | 2 |\n\n| 3 | 4 |\n\nSome ** bold ** text.\n";
    let found = broken_paragraphs(broken);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].0, 5, "the row after the blank line is a paragraph");
    assert_eq!(found[1].0, 7);
    let fine =
        "| a | b |\n|---|---|\n| `x \\| y` | **bold** |\n\n`**` and `|` in code.\n\n```\n| not | a table |\n```\n";
    assert_eq!(broken_paragraphs(fine), Vec::<(usize, String)>::new());
    assert_eq!(tables(fine), (1, 1));
    assert_eq!(tables("| a | b |\n|---|---|---|\n| 1 | 2 |\n"), (1, 0), "a delimiter row that does not match");
}

#[test]
fn the_reference_commands_table_is_one_table_with_a_row_per_command() {
    let reference = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/reference.md")).unwrap();
    let section = &reference[reference.find("## Commands\n").unwrap()..];
    let section = &section[..section[3..].find("\n## ").unwrap() + 3];
    let arena = Arena::new();
    let root = parse_document(&arena, section, &gfm());
    let tables: Vec<_> = root.descendants().filter(|n| matches!(n.data.borrow().value, NodeValue::Table(_))).collect();
    assert_eq!(tables.len(), 1, "{section}");
    let rows = tables[0].children().count();
    // Every command the binary has (its --help), but clap's own `help`.
    let help = Test::new().env("COLUMNS", "200").arg("--help").code(0).stdout;
    let listed = &help[help.find("Commands:\n").expect("--help lists the commands") + 10..];
    let commands: Vec<&str> = listed
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 9, "{help}");
    assert_eq!(rows, 1 + commands.len(), "a header and a row per command");
    for c in commands {
        assert!(section.contains(&format!("| `mneme-gate {c} ")), "{c}");
    }
}

/// The anchor GitHub gives a heading: lower case, every character but
/// letters, digits, `-`, `_` and spaces dropped, spaces made `-`; a repeated
/// anchor gets `-1`, `-2`, ...
fn anchors(markdown: &str) -> Vec<String> {
    let arena = Arena::new();
    let root = parse_document(&arena, markdown, &gfm());
    let (mut seen, mut bases): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    for node in root.descendants() {
        if !matches!(node.data.borrow().value, NodeValue::Heading(_)) {
            continue;
        }
        let mut text = String::new();
        for d in node.descendants() {
            match &d.data.borrow().value {
                NodeValue::Text(t) => text.push_str(t),
                NodeValue::Code(c) => text.push_str(&c.literal),
                _ => {}
            }
        }
        let slug: String = text
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let n = bases.iter().filter(|s| **s == slug).count();
        seen.push(if n == 0 { slug.clone() } else { format!("{slug}-{n}") });
        bases.push(slug);
    }
    seen
}

/// Every relative link of `markdown` (outside code): its target.
fn relative_links(markdown: &str) -> Vec<String> {
    let arena = Arena::new();
    let root = parse_document(&arena, markdown, &gfm());
    root.descendants()
        .filter_map(|n| match &n.data.borrow().value {
            NodeValue::Link(link) | NodeValue::Image(link) => Some(link.url.clone()),
            _ => None,
        })
        .filter(|url| !url.contains("://") && !url.starts_with("mailto:"))
        .collect()
}

#[test]
fn every_relative_link_of_the_docs_resolves() {
    let mut problems = Vec::new();
    for file in documents() {
        let text = std::fs::read_to_string(&file).unwrap();
        for url in relative_links(&text) {
            let (path, anchor) = url.split_once('#').map_or((url.as_str(), None), |(p, a)| (p, Some(a)));
            let target = if path.is_empty() { file.clone() } else { file.parent().unwrap().join(path) };
            if !target.exists() {
                problems.push(format!("{}: {url}: no such file", file.display()));
                continue;
            }
            if let Some(anchor) = anchor {
                if target.extension().is_some_and(|e| e == "md") {
                    let there = std::fs::read_to_string(&target).unwrap();
                    if !anchors(&there).iter().any(|a| a == anchor) {
                        problems.push(format!("{}: {url}: no such heading", file.display()));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "links that lead nowhere:\n{}", problems.join("\n"));
}

#[test]
fn anchors_are_the_ones_github_makes() {
    let page = "# Install\n\n## Configuration (`mneme-gate.yaml`)\n\n## In the agent's loop\n\n## Where we differ from Mneme 0.10.0\n\n## Install\n";
    assert_eq!(
        anchors(page),
        [
            "install",
            "configuration-mneme-gateyaml",
            "in-the-agents-loop",
            "where-we-differ-from-mneme-0100",
            "install-1"
        ]
    );
    assert_eq!(
        relative_links("[a](docs/x.md#y) [b](https://e.org) `[c](z.md)`\n\n```\n[d](w.md)\n```\n"),
        ["docs/x.md#y"]
    );
}

/// The words profile `default` does not score as task words are written
/// three times: in docs/retrieval.md (the block after "what kind of
/// change"), in the code, and in the independent reference
/// (tests/reference/bm25_ref.py). The three lists are the same words.
#[test]
fn the_task_verbs_of_the_docs_the_code_and_the_reference_are_the_same() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let code: Vec<&str> = mneme_gate::retrieval::bm25::TASK_VERBS.to_vec();
    let docs = std::fs::read_to_string(root.join("docs/retrieval.md")).unwrap();
    let after = &docs[docs.find("**what kind of change**").expect("the paragraph on task verbs")..];
    let block: Vec<&str> = after
        .lines()
        .skip_while(|l| !l.starts_with("    "))
        .take_while(|l| l.starts_with("    "))
        .flat_map(str::split_whitespace)
        .collect();
    assert_eq!(sorted(block), code, "docs/retrieval.md");
    let reference = std::fs::read_to_string(root.join("tests/reference/bm25_ref.py")).unwrap();
    let start = reference.find("TASK_VERBS = frozenset(\"\"\"").expect("the reference's list") + 26;
    let end = start + reference[start..].find("\"\"\"").unwrap();
    assert_eq!(sorted(reference[start..end].split_whitespace().collect()), code, "tests/reference/bm25_ref.py");
}

fn sorted(mut words: Vec<&str>) -> Vec<&str> {
    words.sort_unstable();
    words
}
