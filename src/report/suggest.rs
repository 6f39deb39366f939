/*!
`mneme-gate suggest`'s output: a paragraph per missing decision at 80
columns (or the terminal's width, when narrower), or JSON
(`mneme-gate.suggest/v1`). The suggestions are computed by
[`crate::suggest`]; this module only words them.
*/

use std::fmt::Write as _;

use serde::Serialize;

use super::layout;
use super::why_not::{cause_words, ordinal};
use crate::describe::printable;
use crate::suggest::{EditKind, NoEdit, Suggestions};

const COLUMNS: usize = 80;

/// The JSON document (`mneme-gate.suggest/v1`), with a final newline.
pub fn json(all: &Suggestions) -> String {
    #[derive(Serialize)]
    struct Doc<'a> {
        schema: &'static str,
        missing: usize,
        examined: usize,
        verified: usize,
        suggestions: &'a [crate::suggest::Suggestion],
    }
    let verified = all.suggestions.iter().filter(|s| s.edit.is_some()).count();
    super::json::pretty(&Doc {
        schema: "mneme-gate.suggest/v1",
        missing: all.missing,
        examined: all.suggestions.len(),
        verified,
        suggestions: &all.suggestions,
    })
}

/// A paragraph per missing decision, then a line of totals.
pub fn text(all: &Suggestions, width: Option<usize>) -> String {
    let suggestions = &all.suggestions;
    let columns = Some(width.map_or(COLUMNS, |c| c.min(COLUMNS)));
    let mut out = String::new();
    let mut say = |text: String, hang: usize| {
        for piece in layout::wrap(&text, columns, hang) {
            let _ = writeln!(out, "{}", piece.trim_end());
        }
    };
    for s in suggestions {
        let (id, scenario) = (printable(&s.decision), printable(&s.scenario));
        let cause = s.cause.map(|c| format!(" ({})", cause_words(c))).unwrap_or_default();
        say(format!("{id}, missed by {scenario}{cause}:"), 2);
        match (&s.edit, s.none) {
            (Some(e), _) => {
                let what = match e.kind {
                    EditKind::Tag => format!("add the tag `{}`", printable(&e.word)),
                    EditKind::TitleWord => format!("add `{}` to its title", printable(&e.word)),
                };
                say(format!("  {what} at {}:{}:", printable(&e.file), e.line), 4);
                say(format!("    {}", printable(&e.write)), 6);
                let also = if e.also_fixes.is_empty() {
                    String::new()
                } else {
                    let ids: Vec<String> = e.also_fixes.iter().map(|i| printable(i).into_owned()).collect();
                    format!("; it also fixes {}", ids.join(", "))
                };
                say(
                    format!(
                        "  Verified: it then ranks {} in {scenario}{also}, and no other scenario loses an expected decision or gets it as a control ({}).",
                        ordinal(e.rank_after),
                        tried(s.tried)
                    ),
                    4,
                );
            }
            (None, Some(NoEdit::NotACandidate)) => {
                say("  No edit: it is not a candidate for this scenario (scope, chore or pool), and no word changes that; `explain --why-not` says why.".to_string(), 4)
            }
            (None, Some(NoEdit::NoPlace)) => say(
                "  No edit: its file holds several records (a rule file's sections share the front matter and are named by heading), so a one-record edit cannot be written there.".to_string(),
                4,
            ),
            (None, _) => say(
                format!(
                    "  No one-word edit found: none of the {} both brings it in and keeps every other scenario's expected decisions; `explain --why-not` says what beat it.",
                    tried(s.tried)
                ),
                4,
            ),
        }
        say(String::new(), 0);
    }
    let verified = suggestions.iter().filter(|s| s.edit.is_some()).count();
    let examined = suggestions.len();
    say(
        match all.missing {
            0 => "Every scenario retrieves its expected decisions: nothing to suggest.".to_string(),
            n if n == examined => format!("{n} missing expected decision(s); a verified edit for {verified}."),
            n => format!(
                "{n} missing expected decision(s); the first {examined} examined (--max {examined}); a verified edit for {verified}."
            ),
        },
        0,
    );
    out
}

fn tried(n: usize) -> String {
    if n == 1 {
        "1 edit tried".to_string()
    } else {
        format!("{n} edits tried")
    }
}
