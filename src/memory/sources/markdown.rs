//! The body of a Markdown source file as the sources read it: a flat list of
//! blocks (headings, list items, paragraphs, table rows), each with its plain
//! text and its line in the file.
//!
//! Why a flat list: every mapping of a source (`adr`, `rules`) asks the same
//! questions of a document, "the bullets under this heading", "the text of
//! that section", and a list in document order answers them with a scan.
//!
//! Parsing is CommonMark with GitHub's tables and task lists (pulldown-cmark),
//! so that what counts as a bullet is what a reader of the rendered file sees
//! as one: nothing inside a code block or an HTML comment (MADR templates are
//! full of `<!-- … -->`) is read. The text of a block is what it renders to:
//! emphasis markers and link targets dropped, code spans kept between
//! backticks, line breaks as spaces.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// What a block is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A heading of level 1 to 6.
    Heading(u8),
    /// The first paragraph of a list item (its own text, without nested
    /// lists); `depth` 1 is a top-level list.
    Item { depth: usize },
    /// A paragraph outside list items, or a later paragraph of an item.
    Text,
    /// A table row, its cells joined with ` | `.
    Row,
    /// A fenced or indented code block, its text as written (the mappings
    /// set it aside: code is not prose, but a section that holds only code
    /// is still a section).
    Code,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Block {
    pub kind: Kind,
    pub text: String,
    /// 1-based line of the block's first character in the file.
    pub line: usize,
    /// The targets of the links in the block, in order.
    pub links: Vec<String>,
}

impl Block {
    pub(crate) fn heading_level(&self) -> Option<u8> {
        match self.kind {
            Kind::Heading(l) => Some(l),
            _ => None,
        }
    }
}

/// The blocks of `body`, which starts at byte `body_start` of a file whose
/// line starts are `line_starts` (of the whole file).
pub(crate) fn blocks(body: &str, body_start: usize, line_starts: &[usize]) -> Vec<Block> {
    let body = &nbsp_headings(body);
    let body = body.as_str();
    let line_of = |offset: usize| line_starts.partition_point(|&s| s <= body_start + offset).max(1);
    let options = Options::ENABLE_TABLES | Options::ENABLE_TASKLISTS | Options::ENABLE_STRIKETHROUGH;
    let mut out = Vec::new();
    // The block whose text is being collected: its kind, line and text.
    let mut open: Option<(Kind, usize, String)> = None;
    let mut links: Vec<String> = Vec::new();
    let mut list_depth = 0usize;
    // Per open list item: whether its first paragraph was taken already.
    let mut items: Vec<bool> = Vec::new();
    let mut code = 0usize;
    let mut code_block: Option<(usize, String)> = None;
    let mut row_cells: Option<(usize, Vec<String>)> = None;
    let mut cell: Option<String> = None;
    let flush = |open: &mut Option<(Kind, usize, String)>, links: &mut Vec<String>, out: &mut Vec<Block>| {
        let links = std::mem::take(links);
        if let Some((kind, line, text)) = open.take() {
            let text = squash(&text);
            if !text.is_empty() {
                out.push(Block { kind, text, line, links });
            }
        }
    };
    for (event, range) in Parser::new_ext(body, options).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                flush(&mut open, &mut links, &mut out);
                open = Some((Kind::Heading(level as u8), line_of(range.start), String::new()));
            }
            Event::End(TagEnd::Heading(_)) => flush(&mut open, &mut links, &mut out),
            Event::Start(Tag::List(_)) => {
                // A nested list ends the text of the item that holds it.
                flush(&mut open, &mut links, &mut out);
                list_depth += 1;
            }
            Event::End(TagEnd::List(_)) => list_depth = list_depth.saturating_sub(1),
            Event::Start(Tag::Item) => {
                flush(&mut open, &mut links, &mut out);
                items.push(false);
                // A tight item has no paragraph: its text starts here.
                open = Some((Kind::Item { depth: list_depth.max(1) }, line_of(range.start), String::new()));
            }
            Event::End(TagEnd::Item) => {
                flush(&mut open, &mut links, &mut out);
                items.pop();
            }
            Event::Start(Tag::Paragraph) => {
                match items.last_mut() {
                    // The item's first paragraph is the item's own text.
                    Some(taken @ false) if matches!(open, Some((Kind::Item { .. }, _, _))) => {
                        *taken = true;
                        if let Some((_, line, _)) = &mut open {
                            *line = line_of(range.start);
                        }
                    }
                    _ => {
                        flush(&mut open, &mut links, &mut out);
                        if let Some(taken) = items.last_mut() {
                            *taken = true;
                        }
                        open = Some((Kind::Text, line_of(range.start), String::new()));
                    }
                }
            }
            Event::End(TagEnd::Paragraph) => flush(&mut open, &mut links, &mut out),
            Event::Start(Tag::CodeBlock(_)) => {
                flush(&mut open, &mut links, &mut out);
                code += 1;
                code_block = Some((line_of(range.start), String::new()));
            }
            Event::End(TagEnd::CodeBlock) => {
                code = code.saturating_sub(1);
                if let Some((line, text)) = code_block.take() {
                    let text = text.trim_end().to_string();
                    if !text.trim().is_empty() {
                        out.push(Block { kind: Kind::Code, text, line, links: Vec::new() });
                    }
                }
            }
            Event::Text(t) if code > 0 => {
                if let Some((_, text)) = &mut code_block {
                    text.push_str(&t);
                }
            }
            Event::Start(Tag::TableRow | Tag::TableHead) => {
                flush(&mut open, &mut links, &mut out);
                row_cells = Some((line_of(range.start), Vec::new()));
            }
            Event::End(TagEnd::TableRow | TagEnd::TableHead) => {
                if let Some((line, cells)) = row_cells.take() {
                    let text =
                        cells.iter().map(|c| squash(c)).filter(|c| !c.is_empty()).collect::<Vec<_>>().join(" | ");
                    if !text.is_empty() {
                        out.push(Block { kind: Kind::Row, text, line, links: std::mem::take(&mut links) });
                    }
                }
            }
            Event::Start(Tag::TableCell) => cell = Some(String::new()),
            Event::End(TagEnd::TableCell) => {
                if let (Some(c), Some((_, cells))) = (cell.take(), row_cells.as_mut()) {
                    cells.push(c);
                }
            }
            Event::Start(Tag::Link { dest_url, .. }) => links.push(dest_url.to_string()),
            Event::Text(t) if code == 0 => push_text(&mut cell, &mut open, &t),
            Event::Code(t) => push_text(&mut cell, &mut open, &format!("`{t}`")),
            Event::SoftBreak | Event::HardBreak => push_text(&mut cell, &mut open, " "),
            _ => {}
        }
    }
    flush(&mut open, &mut links, &mut out);
    out
}

/// `##\u{a0}Status` (a no-break space after the hashes, which editors
/// insert and renderers forgive) as `##  Status`: two ASCII spaces for the
/// two bytes of the no-break space, so every offset and line stays put.
fn nbsp_headings(body: &str) -> String {
    if !body.contains('\u{a0}') {
        return body.to_string();
    }
    let mut out = String::with_capacity(body.len());
    for line in body.split_inclusive('\n') {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let rest = &line[indent..];
        let hashes = rest.len() - rest.trim_start_matches('#').len();
        if indent < 4 && (1..=6).contains(&hashes) && rest[hashes..].starts_with('\u{a0}') {
            out.push_str(&line[..indent + hashes]);
            out.push_str("  ");
            out.push_str(&rest[hashes + '\u{a0}'.len_utf8()..]);
        } else {
            out.push_str(line);
        }
    }
    out
}

/// The prose blocks and the code blocks, apart: the mappings read prose,
/// and look at code only where a section holds nothing else.
pub(crate) fn without_code(blocks: Vec<Block>) -> (Vec<Block>, Vec<Block>) {
    blocks.into_iter().partition(|b| b.kind != Kind::Code)
}

/// Adds inline text to the table cell being read, else to the open block.
fn push_text(cell: &mut Option<String>, open: &mut Option<(Kind, usize, String)>, text: &str) {
    if let Some(c) = cell {
        c.push_str(text);
    } else if let Some((_, _, t)) = open {
        t.push_str(text);
    }
}

/// White space runs as one space, trimmed.
fn squash(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The level of the sections of a document: the level of its top-level
/// headings, except that a single level-1 heading that comes first is the
/// document's title, and then its sections are the shallowest headings
/// after it. `None` when the document has no section heading.
pub(crate) fn section_level(blocks: &[Block]) -> (Option<usize>, Option<u8>) {
    let headings: Vec<(usize, u8)> =
        blocks.iter().enumerate().filter_map(|(i, b)| b.heading_level().map(|l| (i, l))).collect();
    let Some(&(first, first_level)) = headings.first() else { return (None, None) };
    let top = headings.iter().map(|&(_, l)| l).min().unwrap_or(first_level);
    let tops = headings.iter().filter(|&&(_, l)| l == top).count();
    if first_level == top && tops == 1 {
        let below = headings.iter().skip(1).map(|&(_, l)| l).min();
        return (Some(first), below);
    }
    (None, Some(top))
}

/// Lowercase words of a heading, for matching names such as "Decision
/// Outcome": letters and digits, a leading number (`2.`) dropped.
pub(crate) fn heading_words(text: &str) -> String {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let skip = usize::from(words.first().is_some_and(|w| w.chars().all(|c| c.is_ascii_digit())));
    words[skip..].join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::lines::line_starts;

    fn parse(text: &str) -> Vec<(Kind, String, usize)> {
        without_code(blocks(text, 0, &line_starts(text))).0.into_iter().map(|b| (b.kind, b.text, b.line)).collect()
    }

    #[test]
    fn link_targets_are_kept() {
        let text = "Superseded by [15. DNS](0015-dns.md) and [x](y)\n";
        let b = blocks(text, 0, &line_starts(text));
        assert_eq!(b[0].links, ["0015-dns.md", "y"]);
        assert_eq!(b[0].text, "Superseded by 15. DNS and x");
    }

    #[test]
    fn blocks_have_their_text_and_line() {
        let text = "# 1. Use X\n\nDate: 2020\n\n## Decision\n\n- one *two*\n  three\n- [link](http://x) `code`\n  - nested\n\n  more text\n\n1. numbered\n";
        assert_eq!(
            parse(text),
            vec![
                (Kind::Heading(1), "1. Use X".into(), 1),
                (Kind::Text, "Date: 2020".into(), 3),
                (Kind::Heading(2), "Decision".into(), 5),
                (Kind::Item { depth: 1 }, "one two three".into(), 7),
                (Kind::Item { depth: 1 }, "link `code`".into(), 9),
                (Kind::Item { depth: 2 }, "nested".into(), 10),
                (Kind::Text, "more text".into(), 12),
                (Kind::Item { depth: 1 }, "numbered".into(), 14),
            ]
        );
    }

    #[test]
    fn code_blocks_and_html_comments_are_not_read() {
        let text = "<!-- - not a bullet\n# not a heading -->\n\n```md\n- not a bullet\n# nor this\n```\n\n- [ ] a task\n\n| a | b |\n|---|---|\n| c | `d` |\n";
        assert_eq!(
            parse(text),
            vec![
                (Kind::Item { depth: 1 }, "a task".into(), 9),
                (Kind::Row, "a | b".into(), 11),
                (Kind::Row, "c | `d`".into(), 13),
            ]
        );
    }

    #[test]
    fn a_no_break_space_after_the_hashes_still_makes_a_heading() {
        let text = "# T\n\n##\u{a0}Status\n\nAccepted\n";
        let (prose, _) = without_code(blocks(text, 0, &line_starts(text)));
        assert_eq!(prose[1].kind, Kind::Heading(2));
        assert_eq!(prose[1].text, "Status");
        assert_eq!(prose[2].line, 5);
        let text = "```\nfn x() {}\n```\n";
        let b = blocks(text, 0, &line_starts(text));
        assert_eq!((b[0].kind, b[0].text.as_str(), b[0].line), (Kind::Code, "fn x() {}", 1));
    }

    #[test]
    fn the_body_is_placed_in_the_file() {
        let file = "---\ntitle: x\n---\n# T\n\n- a\n";
        let start = file.find("# T").unwrap();
        let b = blocks(&file[start..], start, &line_starts(file));
        assert_eq!(b.iter().map(|b| b.line).collect::<Vec<_>>(), [4, 6]);
    }

    #[test]
    fn sections_are_under_a_single_leading_title() {
        let level = |text: &str| section_level(&blocks(text, 0, &line_starts(text)));
        assert_eq!(level("# T\n## A\n## B\n### c\n"), (Some(0), Some(2)));
        assert_eq!(level("# A\n# B\n"), (None, Some(1)));
        assert_eq!(level("intro\n## A\n## B\n"), (None, Some(2)));
        assert_eq!(level("# T\ntext\n"), (Some(0), None));
        assert_eq!(level("text\n"), (None, None));
        assert_eq!(heading_words("2. Decision Outcome:"), "decision outcome");
        assert_eq!(heading_words("Don't"), "don't");
    }
}
