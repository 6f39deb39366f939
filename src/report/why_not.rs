/*!
`explain --why-not ID`: why one decision is not retrieved, in sentences at
80 columns (or the terminal's width, when narrower), or as JSON
(`mneme-gate.why-not/v1`). The answer itself is computed by
[`crate::retrieval::Index::why_not`]; this module only words it.
*/

use std::fmt::Write as _;

use serde::Serialize;

use super::layout;
use super::score;
use crate::describe::printable;
use crate::profile::Field;
use crate::retrieval::{Cause, Fate, Miss, QueryWord, WhyNot, WordFrom};

/// The widest the sentences are laid out, whatever the terminal.
const COLUMNS: usize = 80;

/// The JSON document (`mneme-gate.why-not/v1`), with a final newline.
pub fn json(why: &WhyNot) -> String {
    #[derive(Serialize)]
    struct Doc<'a> {
        schema: &'static str,
        #[serde(flatten)]
        why: &'a WhyNot,
    }
    super::json::pretty(&Doc { schema: "mneme-gate.why-not/v1", why })
}

/// The answer in sentences, each wrapped to 80 columns or `width`.
pub fn text(w: &WhyNot, width: Option<usize>) -> String {
    let columns = Some(width.map_or(COLUMNS, |c| c.min(COLUMNS)));
    let mut out = String::new();
    let mut say = |text: String, hang: usize| {
        for piece in layout::wrap(&text, columns, hang) {
            let _ = writeln!(out, "{}", piece.trim_end());
        }
    };
    let id = printable(&w.id).into_owned();
    say(format!("why not {id}: {}", printable(&w.title)), 2);
    if let Some(source) = &w.source {
        say(format!("  read at {}", printable(source)), 2);
    }
    say(format!("  task: {}", printable(w.task.trim())), 4);
    if let Some(file) = &w.file {
        say(format!("  file: {}", printable(file)), 4);
    }
    say(String::new(), 0);

    say(standing(w, &id), 0);
    if !w.causes.is_empty() {
        let causes: Vec<&str> = w.causes.iter().map(|&c| cause_words(c)).collect();
        say(format!("In short: {}.", causes.join("; ")), 10);
    }

    if !w.ahead.is_empty() {
        say(String::new(), 0);
        say(format!("Retrieved ahead of {id}:"), 0);
        for c in &w.ahead {
            let mut s = format!("{}. {} (score {})", c.rank, printable(&c.id), c.score);
            if c.only_theirs.is_empty() && c.shared_more.is_empty() {
                s.push_str(&format!(": no word of the query that {id} lacks; it wins on its tie-break or tags."));
            }
            if !c.only_theirs.is_empty() {
                let words: Vec<String> = c
                    .only_theirs
                    .iter()
                    .map(|g| match g.df {
                        Some(df) => format!("{} {} (df {df} of {})", printable(&g.token), g.contribution, w.pool),
                        None => format!("{} {}", printable(&g.token), g.contribution),
                    })
                    .collect();
                s.push_str(&format!(" scores on words {id} does not: {}", words.join(", ")));
                s.push_str(if c.shared_more.is_empty() { "." } else { ";" });
            }
            if !c.shared_more.is_empty() {
                let words: Vec<String> = c
                    .shared_more
                    .iter()
                    .map(|g| format!("{} {} against {}", printable(&g.token), g.theirs, g.ours))
                    .collect();
                s.push_str(&format!(" earns more on shared words: {}.", words.join(", ")));
            }
            if c.wins_on_common_words {
                s.push_str(" Some of those words are in more than half of the decisions.");
            }
            say(format!("  {s}"), 3);
        }
    }

    if !w.words.is_empty() {
        say(String::new(), 0);
        say(format!("The query's words, for {id}:"), 0);
        for word in &w.words {
            say(format!("  {}", word_line(word, w, &id)), 4);
        }
    }
    out
}

/// The decision's place: retrieved, ranked beyond k, below min_score, out
/// of scope, a chore, or kept out of the pool.
fn standing(w: &WhyNot, id: &str) -> String {
    let score = w.score.map(|s| s.to_string()).unwrap_or_default();
    let profile = printable(&w.profile);
    if w.retrieved {
        return format!("{id} is retrieved: rank {} with score {score}.", w.rank.unwrap_or_default());
    }
    let outcome = w.outcome.as_deref().unwrap_or("");
    match outcome {
        "beyond_k" => {
            let bar = w.bar.map(|b| format!(", and the last of them scored {b}")).unwrap_or_default();
            format!(
                "{id} ranks {} with score {score}: profile `{profile}` retrieves the top {}{bar}.",
                ordinal(w.rank.unwrap_or_default()),
                w.k
            )
        }
        "below_min_score" => format!(
            "{id} scores {score}, not above min_score {}: profile `{profile}` retrieves only decisions that score above it.",
            w.min_score
        ),
        "out_of_scope" => {
            let globs: Vec<String> = w.scope_globs.iter().map(|g| printable(g).into_owned()).collect();
            format!(
                "{id} is out of scope: the file matches none of its scope globs ({}), so it is not a candidate whatever its score ({score}).",
                globs.join(", ")
            )
        }
        "chore" => format!(
            "The task is a chore, so nothing is retrieved ({}).",
            printable(w.detail.as_deref().unwrap_or("retrieval.skip_chores"))
        ),
        _ => format!(
            "{id} is not a candidate ({outcome}): {}.",
            printable(w.detail.as_deref().unwrap_or("kept out of the pool"))
        ),
    }
}

fn word_line(word: &QueryWord, w: &WhyNot, id: &str) -> String {
    let from = match word.from {
        WordFrom::Task => "task",
        WordFrom::Path => "path",
    };
    let head = format!("{} ({from}):", printable(&word.word));
    let rest = match &word.fate {
        Fate::Scored { contribution, fields, df, n, common } => {
            let common = if *common { format!("; it is in {df} of {n} decisions, so it weighs little") } else { String::new() };
            format!("scores {contribution} in its {}{common}.", fields_list(fields))
        }
        Fate::Stopword { .. } => "a stopword, never scored.".to_string(),
        Fate::TaskVerb => "says what kind of change the task is, not what it is about; never scored.".to_string(),
        Fate::TaskLabel => {
            "labels the task's reference number or credits its author, not what it is about; never scored.".to_string()
        }
        Fate::TooShort { min_token_len, held: false } => {
            format!("shorter than min_token_len {min_token_len}, never scored.")
        }
        Fate::TooShort { min_token_len, held: true } => {
            format!("shorter than min_token_len {min_token_len}, never scored, though {id} has it.")
        }
        Fate::PathTooCommon { df, n, path_max_df } => format!(
            "{id} holds it, but it is in {df} of {n} decisions, more than path_max_df {path_max_df} of them, so the path does not score it."
        ),
        Fate::Outvoted { by } => format!(
            "{id} holds it, but its path word counts once, by {}, which scores at least as much there.",
            printable(by)
        ),
        Fate::Unscored { fields, subsections } => {
            let mut parts = Vec::new();
            if !fields.is_empty() {
                parts.push(format!("its {}", fields_list(fields)));
            }
            if *subsections {
                parts.push("the sub-sections of its Context or Decision".to_string());
            }
            format!("{id} holds it only in {}, which profile `{}` does not score.", parts.join(" and "), printable(&w.profile))
        }
        Fate::OtherForm { forms, identifier } => {
            let forms: Vec<String> = forms.iter().map(|f| printable(f).into_owned()).collect();
            if *identifier {
                format!(
                    "{id} has it only inside {}: an identifier profile `{}` does not split.",
                    forms.join(", "),
                    printable(&w.profile)
                )
            } else {
                format!("{id} has it only as part of {}, another word.", forms.join(", "))
            }
        }
        Fate::Absent { df: 1 } => format!("not in {id}; 1 other decision holds it."),
        Fate::Absent { df } => format!("not in {id}; {df} other decisions hold it."),
        Fate::NotInMemory => "no decision holds it.".to_string(),
    };
    format!("{head} {rest}")
}

fn fields_list(fields: &[Field]) -> String {
    let names: Vec<&str> = fields.iter().map(|f| f.name()).collect();
    match names.as_slice() {
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
        [] => String::new(),
    }
}

pub(crate) fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// A cause in a few words.
pub(crate) fn cause_words(c: Cause) -> &'static str {
    match c {
        Cause::NotInPool => "it is kept out of the pool",
        Cause::OutOfScope => "the file is outside its scope",
        Cause::Chore => "the task is a chore",
        Cause::BelowMinScore => "it does not score above min_score",
        Cause::BeyondK => "others rank above it",
        Cause::CommonWordsWin => "a decision ahead wins on words in most decisions",
        Cause::LacksWords => "a decision ahead scores on words of the query it does not hold",
        Cause::Outweighed => "a decision ahead earns more on words both hold (a heavier field, a shorter text)",
        Cause::UnscoredField => "query words sit in text the profile does not score",
        Cause::UnsplitIdentifier => "query words sit inside identifiers the profile does not split",
        Cause::OtherForm => "query words sit in it only in another form",
        Cause::PathTooCommon => "path words it holds are too common to score",
        Cause::NotTokens => "query words it has are too short to score",
        Cause::NoSharedWords => "it shares no scored word with the query",
    }
}

/// A missing expected decision in one sentence: where it ranked, what won
/// ahead of it and on which words, the words it holds unscored, and the
/// causes (`explain --why-not` gives the whole answer). `code` writes an
/// id or a command, `word` a word of the query, each as the report writes
/// strings from the inputs.
pub(crate) fn sentence(m: &Miss, code: &dyn Fn(&str) -> String, word: &dyn Fn(&str) -> String) -> String {
    let mut out = format!("why not {}: ", code(&m.id));
    let place = match (m.rank, m.score, m.bar) {
        (Some(r), Some(s), Some(b)) => {
            format!("ranked {} with {}, the last retrieved scored {}", ordinal(r), score(s), score(b))
        }
        (Some(r), Some(s), None) => format!("ranked {} with {}", ordinal(r), score(s)),
        (None, Some(s), _) => format!("scored {}", score(s)),
        _ => "not in the pool".to_string(),
    };
    out.push_str(&place);
    let ahead: Vec<String> = m
        .ahead
        .iter()
        .map(|a| {
            let words: Vec<String> = a.words.iter().map(|w| word(w)).collect();
            if words.is_empty() {
                code(&a.id)
            } else {
                format!("{} on {}", code(&a.id), words.join(", "))
            }
        })
        .collect();
    if !ahead.is_empty() {
        out.push_str(&format!("; ahead: {}", ahead.join("; ")));
    }
    if !m.unscored.is_empty() {
        let words: Vec<String> = m.unscored.iter().map(|u| format!("{} ({})", word(&u.word), u.cause.code())).collect();
        out.push_str(&format!("; holds unscored: {}", words.join(", ")));
    }
    let causes: Vec<&str> = m.causes.iter().map(|&c| cause_words(c)).collect();
    if !causes.is_empty() {
        out.push_str(&format!(". In short: {}", causes.join("; ")));
    }
    out.push_str(&format!(" ({} says more)", code(&format!("explain --why-not {}", m.id))));
    out
}
