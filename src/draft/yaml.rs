/*!
The drafted suite as a native YAML suite file, and its merge into a file
written before: a scenario a person reviewed (its `review: pending` line
removed) is kept byte for byte, whatever the new draft says about its
commit; a scenario still pending is replaced by its new draft; scenarios
the new draft does not have are kept, in their order, after it.

Every string from the repository is a double-quoted YAML scalar with
everything YAML does not print escaped, or, in a comment, made printable
on one line.
*/

use std::fmt::Write as _;

use super::{Draft, Drafted};
use crate::describe::printable;

/// What a merge did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Merged {
    /// Drafted scenarios written (new, or replacing a pending one).
    pub drafted: usize,
    /// Of those, how many replaced a pending scenario of the same id.
    pub replaced: usize,
    /// Reviewed scenarios kept as they were (the draft of their commit dropped).
    pub kept_reviewed: usize,
    /// Scenarios of the old file the draft does not have, kept.
    pub kept_other: usize,
}

/// A scenario of the file being merged into: its id, the 1-based line its
/// entry starts on, and whether it still waits for review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub id: String,
    pub line: usize,
    pub pending: bool,
}

/// Why a file cannot be merged into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotMergeable(pub String);

/// The file's header.
pub fn header(draft: &Draft) -> String {
    let window = match (draft.stopped_at_max, draft.reached_since) {
        (true, _) => " (stopped at --max: older commits were not examined)",
        (_, true) => " (down to --since)",
        _ => " (the whole first-parent history)",
    };
    let left = if draft.left_out > 0 {
        format!(
            "\n# {} more commit(s) with evidence were left out (at most {} scenarios): narrow --since.",
            draft.left_out,
            super::MAX_SCENARIOS
        )
    } else {
        String::new()
    };
    format!(
        "# Drafted by `mneme-gate draft` from the git history: {} first-parent commit(s) of HEAD\n\
         # {}{window}.{left}\n\
         # Every scenario waits for review (`review: pending`): the gate runs it and reports it, but does\n\
         # not count it. Check the task, the file and `expect` against the commit (`git show <commit>`),\n\
         # using the evidence written above `expect`, then delete the `review: pending` line. The\n\
         # retriever's current top k is shown apart: it is never a reason to expect a decision.\n\
         # Running `mneme-gate draft` again replaces pending scenarios and keeps reviewed ones.\n\
         scenarios:\n",
        draft.examined, draft.head
    )
}

/// One scenario, as a list entry indented by two spaces.
pub fn block(s: &Drafted, k: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "  - id: {}", quote(&s.id));
    out.push_str("    review: pending\n");
    let _ = writeln!(out, "    commit: {}", quote(&s.commit.hash));
    let category = if s.control.is_some() { "control" } else { "drafted" };
    let _ = writeln!(out, "    category: {category}");
    let _ = writeln!(out, "    task: {}", quote(&s.task));
    if let Some(f) = &s.file {
        let _ = writeln!(out, "    file: {}", quote(f));
    }
    if let Some(kind) = s.control {
        let _ = writeln!(out, "    # control: {}; no decision governs it, so nothing should be injected", kind.word());
    }
    for p in &s.expect {
        for e in &p.evidence {
            let _ = writeln!(out, "    # expect {} ({}): {}", comment(&p.id), comment(&p.title), comment(&e.words()));
        }
    }
    for note in &s.notes {
        let _ = writeln!(out, "    # not proposed: {}", comment(note));
    }
    let ids: Vec<String> = s.expect.iter().map(|p| quote(&p.id)).collect();
    let _ = writeln!(out, "    expect: [{}]", ids.join(", "));
    let top = if s.top.is_empty() {
        "nothing".to_string()
    } else {
        s.top.iter().map(|r| format!("{} {:.3}", comment(&r.id), r.score.as_f64())).collect::<Vec<_>>().join(", ")
    };
    let _ = writeln!(out, "    # the retriever today (top {k}, not copied into expect): {top}");
    out
}

/// The whole file, with nothing to merge into.
pub fn render(draft: &Draft) -> String {
    merge(draft, "", &[]).map(|(text, _)| text).unwrap_or_default()
}

/// The draft merged into `existing` (the text of the file written before,
/// `""` for none) whose scenarios are `entries`, in file order.
pub fn merge(draft: &Draft, existing: &str, entries: &[Entry]) -> Result<(String, Merged), NotMergeable> {
    let lines: Vec<&str> = existing.split_inclusive('\n').collect();
    let mut blocks: Vec<(&Entry, String)> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let start = e.line.saturating_sub(1);
        let end = entries.get(i + 1).map_or(lines.len(), |n| n.line.saturating_sub(1));
        let first = lines.get(start).copied().unwrap_or("");
        if !first.starts_with("  - ") || end <= start || end > lines.len() {
            return Err(NotMergeable(format!(
                "line {}: scenario `{}` does not start a `  - ` entry at the start of its line, as `draft` writes them",
                e.line,
                printable(&e.id)
            )));
        }
        let mut text: String = lines[start..end].concat();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        blocks.push((e, text));
    }
    let mut out = header(draft);
    let mut merged = Merged::default();
    let mut used = vec![false; blocks.len()];
    for s in &draft.scenarios {
        match blocks.iter().position(|(e, _)| e.id == s.id) {
            Some(i) if !blocks[i].0.pending => {
                used[i] = true;
                merged.kept_reviewed += 1;
                out.push_str(&blocks[i].1);
            }
            found => {
                if let Some(i) = found {
                    used[i] = true;
                    merged.replaced += 1;
                }
                merged.drafted += 1;
                out.push_str(&block(s, draft.k));
            }
        }
    }
    for (i, (_, text)) in blocks.iter().enumerate() {
        if !used[i] {
            merged.kept_other += 1;
            out.push_str(text);
        }
    }
    Ok((out, merged))
}

/// A double-quoted YAML scalar: `"` and `\` escaped, and every character
/// YAML does not print (controls, DEL, C1, U+2028, U+2029, U+FEFF,
/// U+FFFE, U+FFFF) written as `\uXXXX`.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..
                if !matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}') =>
            {
                out.push(c)
            }
            c => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
        }
    }
    out.push('"');
    out
}

/// A string from the repository made safe for a comment: on one line,
/// every character YAML or a terminal would not print escaped.
fn comment(s: &str) -> String {
    let p = printable(s);
    let q = quote(&p);
    q[1..q.len() - 1].replace("\\\"", "\"").replace("\\\\", "\\")
}
