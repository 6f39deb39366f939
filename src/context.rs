/*!
The context block (spec §8): the retrieved decisions rendered, in retrieval
order, as the plain text an agent's prompt receives.

The block is a pure function of the decisions given to it: no clock, no
scores, no re-ranking or filtering. When a prompt is built, the block comes
first and the task after it ([`prompt`]).
*/

use crate::memory::Decision;

/// What the block shows of one decision.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    pub id: &'a str,
    pub title: &'a str,
    pub constraint: &'a [String],
    pub anti_patterns: &'a [String],
    pub tags: &'a [String],
}

impl<'a> From<&'a Decision> for Entry<'a> {
    fn from(d: &'a Decision) -> Entry<'a> {
        Entry { id: &d.id, title: &d.title, constraint: &d.constraint, anti_patterns: &d.anti_patterns, tags: &d.tags }
    }
}

/// Renders the block. Nothing retrieved renders as the empty string, so an
/// editor hook injects nothing rather than an empty heading.
pub fn render<'a>(decisions: impl IntoIterator<Item = &'a Decision>) -> String {
    render_entries(decisions.into_iter().map(Entry::from))
}

/// Renders the block from what it shows of each decision (a saved report
/// keeps only that, so a baseline's block can be rebuilt for a diff).
pub fn render_entries<'a>(entries: impl IntoIterator<Item = Entry<'a>>) -> String {
    let mut out = String::new();
    for (i, d) in entries.into_iter().enumerate() {
        if i == 0 {
            out.push_str("## Project decisions\n\n");
            out.push_str("These architectural decisions govern this task. Follow them; do not work around them.\n");
        }
        out.push('\n');
        push_indented(&mut out, &format!("{}. [{}] ", i + 1, d.id), d.title);
        let indent = " ".repeat(format!("{}. ", i + 1).len());
        section(&mut out, &indent, "Constraints", d.constraint);
        section(&mut out, &indent, "Anti-patterns (do not)", d.anti_patterns);
        if !d.tags.is_empty() {
            out.push_str(&indent);
            out.push_str("Tags: ");
            out.push_str(&d.tags.join(", "));
            out.push('\n');
        }
    }
    out
}

fn section(out: &mut String, indent: &str, heading: &str, items: &[String]) {
    let items: Vec<&String> = items.iter().filter(|s| !s.trim().is_empty()).collect();
    if items.is_empty() {
        return;
    }
    out.push_str(indent);
    out.push_str(heading);
    out.push_str(":\n");
    for item in items {
        push_indented(out, &format!("{indent}- "), item);
    }
}

/// Writes `first` then `text`, indenting continuation lines under the text.
fn push_indented(out: &mut String, first: &str, text: &str) {
    let pad = " ".repeat(first.chars().count());
    for (i, line) in text.trim().lines().enumerate() {
        out.push_str(if i == 0 { first } else { &pad });
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if text.trim().is_empty() {
        out.push_str(first.trim_end());
        out.push('\n');
    }
}

/// A model prompt: the block first, then the task.
pub fn prompt(block: &str, task: &str) -> String {
    if block.is_empty() {
        format!("## Task\n\n{}\n", task.trim())
    } else {
        format!("{block}\n## Task\n\n{}\n", task.trim())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::RecordKind;

    fn decision(id: &str, title: &str, constraint: &[&str], anti: &[&str], tags: &[&str]) -> Decision {
        Decision {
            id: id.into(),
            title: title.into(),
            tags: tags.iter().map(|s| s.to_string()).collect(),
            constraint: constraint.iter().map(|s| s.to_string()).collect(),
            anti_patterns: anti.iter().map(|s| s.to_string()).collect(),
            content: "not shown".into(),
            paths: vec![],
            kind: RecordKind::DecisionRecord,
            offset: 0,
            globs: vec![],
            rare: None,
        }
    }

    #[test]
    fn renders_in_the_given_order_with_every_section() {
        let a = decision(
            "PAY-003",
            "Payments never open a database connection",
            &["Use LedgerClient for every write", "Line one\nline two"],
            &["psycopg2.connect"],
            &["payments", "ledger"],
        );
        let b = decision("WEB-001", "Server components by default", &[], &[], &[]);
        let block = render([&b, &a]);
        assert_eq!(
            block,
            "## Project decisions\n\nThese architectural decisions govern this task. Follow them; do not work around them.\n\n\
1. [WEB-001] Server components by default\n\n\
2. [PAY-003] Payments never open a database connection\n   Constraints:\n   - Use LedgerClient for every write\n   - Line one\n     line two\n   Anti-patterns (do not):\n   - psycopg2.connect\n   Tags: payments, ledger\n"
        );
        assert_eq!(render([&b, &a]), block);
    }

    #[test]
    fn nothing_retrieved_is_an_empty_block_and_the_prompt_puts_the_block_first() {
        assert_eq!(render(std::iter::empty()), "");
        assert_eq!(prompt("", " do it "), "## Task\n\ndo it\n");
        let block = render([&decision("A", "T", &[], &[], &[])]);
        let p = prompt(&block, "do it");
        assert!(p.starts_with(&block) && p.ends_with("## Task\n\ndo it\n"));
    }
}
