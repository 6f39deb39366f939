/*!
Mneme 0.10.0's prompt enforcer, for the text answers of profile `mneme`.

Mneme judges a benchmark side that has no `.json` sibling by running its
prompt enforcer (`check_prompt`) on the text: every decision in its
*enforcement scope* is checked, and each match is one violation whose
trigger is reported. This module reproduces that check, violation for
violation and trigger for trigger, so that profile `mneme` gives Mneme's own
verdicts. Profile `default` never uses it (it checks such a side with
`expected_failure_terms`).

The scope comes in two tiers, in this order (the caller builds it from the
ranking, see `crate::run`):

- the retrieved decisions (Mneme's "retrieval-gated" tier), checked against
  everything they carry;
- every other decision, best score first, one copy per id, checked only
  against what is unambiguous whatever the ranking: its typed rules and its
  *literal* anti-patterns and `no X` constraints (one significant term).

For each decision, in order: its typed `FORBID_LITERAL` rules (a rule with
`include_paths` needs the path of the file checked, which a benchmark answer
does not have, so it never applies), its anti-patterns (a literal one when
its term occurs as a whole word, ignoring case; a longer one when all of its
tokens occur in order, one after the other), then its `no X` constraints (a
warning in Mneme, still one violation: the first term of `X` that occurs as
a whole word).

Words, letter case and white space are Python's, since Mneme's regular
expressions run on Python strings: a word character is what Python's `\w`
matches (`word_chars`, a table generated from Python), and ignoring case
lets `ſ` match `s`, `K` (Kelvin) `k`, and `ı` and `İ` match `i`.

It deliberately knows nothing of files, scenarios or verdicts.
*/

use rustc_hash::FxHashSet;

use crate::memory::{is_python_space, python_strip, Decision};

mod word_chars;

/// Words that Mneme's rule terms leave out.
const RULE_STOPWORDS: [&str; 21] = [
    "add", "use", "not", "get", "set", "run", "and", "the", "for", "with", "into", "from", "that", "this", "will",
    "should", "would", "could", "make", "keep", "have",
];

/// What the enforcer checks of one decision, worked out once per run (the
/// terms and phrases of its anti-patterns and constraints), in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Checks {
    /// The values of its typed rules that apply to an answer (a rule with
    /// `include_paths` never does).
    literals: Vec<String>,
    anti_patterns: Vec<AntiPattern>,
    /// The `no X` constraints: whether `X` is literal, and its terms.
    no_constraints: Vec<(bool, Vec<String>)>,
}

/// An anti-pattern: literal (one term), or a phrase (its runs, in order).
#[derive(Debug, Clone, PartialEq, Eq)]
enum AntiPattern {
    Literal(String),
    Phrase { runs: Vec<String>, text: String },
}

impl Checks {
    pub fn of(decision: &Decision) -> Checks {
        Checks {
            literals: decision.rules().iter().filter(|r| r.include_paths.is_none()).map(|r| r.value.clone()).collect(),
            anti_patterns: decision
                .anti_patterns
                .iter()
                .map(|a| match <[String; 1]>::try_from(rule_terms(a)) {
                    Ok([term]) => AntiPattern::Literal(term),
                    Err(_) => AntiPattern::Phrase { runs: ascii_runs(a), text: a.clone() },
                })
                .collect(),
            no_constraints: decision
                .constraint
                .iter()
                .filter_map(|c| no_phrase(c))
                .map(|phrase| {
                    let terms = rule_terms(phrase);
                    (terms.len() == 1, terms)
                })
                .collect(),
        }
    }

    /// Whether the second tier has anything to check here: a typed rule, a
    /// literal anti-pattern or a literal `no X` constraint. Only such
    /// decisions need to be ranked into the second tier.
    pub fn beyond_retrieval(&self) -> bool {
        !self.literals.is_empty()
            || self.anti_patterns.iter().any(|a| matches!(a, AntiPattern::Literal(_)))
            || self.no_constraints.iter().any(|(literal, _)| *literal)
    }
}

/// One decision to check, and whether only its literal checks apply (the
/// second tier).
#[derive(Debug, Clone, Copy)]
pub struct Scoped<'a> {
    pub checks: &'a Checks,
    pub literal_only: bool,
}

/// The triggers of every violation of `text` against the decisions of
/// `scope`, in Mneme's order (their number is the violation count).
pub fn check_prompt(text: &str, scope: &[Scoped<'_>]) -> Vec<String> {
    let text = Text::new(text);
    let mut triggers = Vec::new();
    for &Scoped { checks, literal_only } in scope {
        for literal in &checks.literals {
            if literal_in_text(literal, &text.raw) {
                triggers.push(literal.clone());
            }
        }
        for anti in &checks.anti_patterns {
            match anti {
                AntiPattern::Literal(term) if text.has_word(term) => triggers.push(term.clone()),
                AntiPattern::Phrase { runs, text: written } if !literal_only && text.has_phrase(runs) => {
                    triggers.push(written.clone())
                }
                _ => {}
            }
        }
        for (literal, terms) in &checks.no_constraints {
            if literal_only && !literal {
                continue;
            }
            if let Some(term) = terms.iter().find(|t| text.has_word(t)) {
                triggers.push(term.clone());
            }
        }
    }
    triggers
}

/// An answer as Mneme reads it (Python's universal newlines, stripped),
/// with what the checks need computed once.
struct Text {
    raw: String,
    /// Its whole words, as a term of `[a-z0-9]` could match them ignoring
    /// case: the maximal runs of Python word characters, case-folded (see
    /// [`Text::has_word`]); a run that no such term can match is left out.
    words: FxHashSet<String>,
    /// The runs of `[a-z0-9]` of the lowercased text, in order.
    tokens: Vec<String>,
}

impl Text {
    fn new(text: &str) -> Text {
        let raw = if text.contains('\r') { text.replace("\r\n", "\n").replace('\r', "\n") } else { text.to_string() };
        let raw = python_strip(&raw).to_string();
        let mut words = FxHashSet::default();
        let mut word = String::new();
        let mut matchable = true;
        for c in raw.chars().chain(std::iter::once(' ')) {
            if is_word(c) {
                match fold(c) {
                    Some(f) => word.push(f),
                    None => matchable = false,
                }
            } else if !word.is_empty() || !matchable {
                if matchable {
                    words.insert(std::mem::take(&mut word));
                }
                word.clear();
                matchable = true;
            }
        }
        let tokens = ascii_runs(&raw);
        Text { raw, words, tokens }
    }

    /// `re.search(r"\b" + re.escape(term) + r"\b", text, re.IGNORECASE)` for
    /// a term of `[a-z0-9]`. Every character such a term matches is a word
    /// character, so with a word boundary at both ends the match is a whole
    /// maximal run of word characters: the term is one of [`Text::words`].
    fn has_word(&self, term: &str) -> bool {
        self.words.contains(term)
    }

    /// Whether `phrase` occurs in the text's tokens, contiguous and in order.
    fn has_phrase(&self, phrase: &[String]) -> bool {
        !phrase.is_empty() && self.tokens.windows(phrase.len()).any(|w| w == phrase)
    }
}

/// The lowercase ASCII character that `c` matches when Python's `re`
/// ignores case, for a word character `c` that a term of `[a-z0-9]` can
/// match at all (`_` kept as itself, which no term holds); `None` for any
/// other.
fn fold(c: char) -> Option<char> {
    match c {
        _ if c.is_ascii() => Some(c.to_ascii_lowercase()),
        '\u{130}' | '\u{131}' => Some('i'),
        '\u{212a}' => Some('k'),
        '\u{17f}' => Some('s'),
        _ => None,
    }
}

/// `re.findall(r"[a-z0-9]+", text.lower())`.
fn ascii_runs(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
        .filter(|r| !r.is_empty())
        .map(str::to_string)
        .collect()
}

/// Mneme's significant terms of a rule phrase: its runs of at least three
/// characters that are not rule stopwords.
fn rule_terms(text: &str) -> Vec<String> {
    ascii_runs(text).into_iter().filter(|t| t.len() >= 3 && !RULE_STOPWORDS.contains(&t.as_str())).collect()
}

/// `X` of a constraint `no X` (`re.match(r"^no\s+(.+)$", c.strip(), re.I)`,
/// then stripped), or `None` when the constraint is not of that form.
fn no_phrase(constraint: &str) -> Option<&str> {
    let c = python_strip(constraint);
    let mut chars = c.chars();
    if !matches!(chars.next(), Some('n' | 'N')) || !matches!(chars.next(), Some('o' | 'O')) {
        return None;
    }
    let after_no = chars.as_str();
    let rest = after_no.trim_start_matches(is_python_space);
    // At least one space after `no`, then a rest without a line break (the
    // `.` of Python's regex does not match one, and `$` is the end).
    if rest.len() == after_no.len() || rest.is_empty() || rest.contains('\n') {
        return None;
    }
    Some(python_strip(rest))
}

/// Mneme's `literal_in_text`: the literal, case-sensitive, where a letter,
/// digit, `_` or `-` at an end of the literal must not continue in the text.
fn literal_in_text(literal: &str, text: &str) -> bool {
    let continues = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    let (Some(first), Some(last)) = (literal.chars().next(), literal.chars().next_back()) else { return false };
    let mut from = 0;
    while let Some(i) = text[from..].find(literal) {
        let start = from + i;
        let end = start + literal.len();
        let before_ok = !continues(first) || text[..start].chars().next_back().is_none_or(|c| !continues(c));
        let after_ok = !continues(last) || text[end..].chars().next().is_none_or(|c| !continues(c));
        if before_ok && after_ok {
            return true;
        }
        from = start + first.len_utf8();
    }
    false
}

/// A character of Python's `\w`.
fn is_word(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    let cp = c as u32;
    let ranges = &word_chars::WORD_RANGES;
    let i = ranges.partition_point(|&(_, end)| end < cp);
    i < ranges.len() && ranges[i].0 <= cp
}

#[cfg(test)]
mod tests;
