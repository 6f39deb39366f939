//! A missing expected decision of a scenario, in one line of the summary.

use super::escape::{code, inline};
use crate::report::score;
use crate::report::why_not::{cause_words, ordinal};
use crate::retrieval::Miss;

/// A missing expected decision in one sentence: where it ranked, what won
/// ahead of it and on which words, the words it holds unscored, and the
/// causes (`explain --why-not` gives the whole answer).
pub(super) fn why_not(m: &Miss) -> String {
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
            let words: Vec<String> = a.words.iter().map(|w| inline(w)).collect();
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
        let words: Vec<String> =
            m.unscored.iter().map(|u| format!("{} ({})", inline(&u.word), u.cause.code())).collect();
        out.push_str(&format!("; holds unscored: {}", words.join(", ")));
    }
    let causes: Vec<&str> = m.causes.iter().map(|&c| cause_words(c)).collect();
    if !causes.is_empty() {
        out.push_str(&format!(". In short: {}", causes.join("; ")));
    }
    out.push_str(&format!(" ({} says more)", code(&format!("explain --why-not {}", m.id))));
    out
}
