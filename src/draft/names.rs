//! How a commit's message and paths name decisions: numbers (`ADR-0012`,
//! `adr 12`), ids, titles, and the words of one title that no other title
//! has: the evidence of a draft that is not an edited file.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use regex::Regex;

use super::{Commit, Evidence};
use crate::retrieval::Index;

/// The ways a message names decisions: numbers (`ADR-0012`, `adr 12`),
/// ids and titles.
pub(super) struct Names {
    numbers: HashMap<u32, Vec<usize>>,
    ids: Vec<(String, usize)>,
    titles: Vec<(String, usize)>,
    /// Words of one decision's title that no other title has, by their
    /// stem (`attachments`, `attachment` and `attach` are one word).
    topic: HashMap<String, usize>,
    /// A topic word's stem, and the word as its title writes it.
    shown: HashMap<String, String>,
    stemmer: rust_stemmers::Stemmer,
    /// The topic words that are two title words written as one: a word
    /// that begins with one points at it too (`ElectricityMapsFree`).
    compounds: BTreeSet<String>,
    number: Regex,
}

impl Names {
    pub(super) fn of(index: &Index) -> Names {
        let mut numbers: HashMap<u32, Vec<usize>> = HashMap::new();
        let mut ids = Vec::new();
        let mut titles = Vec::new();
        for (pool, d) in index.decisions().iter().enumerate() {
            let file_number = d.origin().and_then(|o| o.file.rsplit('/').next()).and_then(leading_number);
            let id_number = if d.id.to_ascii_lowercase().starts_with("adr") { trailing_number(&d.id) } else { None };
            for n in file_number.into_iter().chain(id_number).collect::<BTreeSet<_>>() {
                numbers.entry(n).or_default().push(pool);
            }
            let id = d.id.to_lowercase();
            if id.chars().count() >= 4 && id.chars().any(|c| c.is_ascii_digit() || c == '-' || c == '_') {
                ids.push((id, pool));
            }
            let title = normalise(&d.title);
            if title.split(' ').filter(|w| !w.is_empty()).count() >= 3 && title.len() >= 12 {
                titles.push((title, pool));
            }
        }
        let stemmer = rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English);
        let mut seen: HashMap<String, Vec<usize>> = HashMap::new();
        let mut shown: HashMap<String, String> = HashMap::new();
        let mut compounds = BTreeSet::new();
        for (pool, d) in index.decisions().iter().enumerate() {
            let mut words: BTreeSet<String> = BTreeSet::new();
            for w in words_of(&d.title).filter(|w| is_topic_word(w)) {
                let stem = stemmer.stem(&w).into_owned();
                shown.entry(stem.clone()).or_insert(w);
                words.insert(stem);
            }
            // Two adjacent words of the title written as one, as paths and
            // identifiers often do ("Dev Containers": `.devcontainer/`).
            let all: Vec<String> = words_of(&d.title).collect();
            for pair in all.windows(2) {
                let joined = format!("{}{}", pair[0], pair[1]);
                if pair.iter().all(|w| w.len() >= 3 && !w.chars().all(|c| c.is_ascii_digit()))
                    && joined.len() >= COMPOUND_MIN
                {
                    compounds.insert(joined.clone());
                    shown.entry(joined.clone()).or_insert_with(|| joined.clone());
                    words.insert(joined);
                }
            }
            for w in words {
                let owners = seen.entry(w).or_default();
                if !owners.iter().any(|&p| index.decision(p).id == d.id) {
                    owners.push(pool);
                }
            }
        }
        let topic: HashMap<String, usize> =
            seen.into_iter().filter(|(_, o)| o.len() == 1).map(|(w, o)| (w, o[0])).collect();
        compounds.retain(|c| topic.contains_key(c));
        shown.retain(|k, _| topic.contains_key(k));
        let number = Regex::new(r"(?i)\badr[\s_#:-]{0,3}0*([0-9]{1,6})\b").expect("a valid regex");
        Names { numbers, ids, titles, topic, shown, stemmer, compounds, number }
    }

    /// The pool decisions a message names, each with the words that named
    /// it, in pool order.
    pub(super) fn mentioned(&self, message: &str) -> Vec<(usize, String)> {
        let mut out: BTreeMap<usize, String> = BTreeMap::new();
        for m in self.number.captures_iter(message).take(64) {
            let Ok(n) = m[1].parse::<u32>() else { continue };
            for &pool in self.numbers.get(&n).into_iter().flatten() {
                out.entry(pool).or_insert_with(|| m[0].to_string());
            }
        }
        let lower = message.to_lowercase();
        for (id, pool) in &self.ids {
            if contains_word(&lower, id) {
                out.entry(*pool).or_insert_with(|| id.clone());
            }
        }
        let normal = normalise(message);
        for (title, pool) in &self.titles {
            if contains_word(&normal, title) {
                out.entry(*pool).or_insert_with(|| title.clone());
            }
        }
        out.into_iter().collect()
    }
}

impl Names {
    /// Forgets the title words that are everywhere in this history (a
    /// project's name, `client`, `remove`): a word in the messages or
    /// paths of more than one commit in [`COMMON_SHARE`] (and of more than
    /// three) points at no decision in particular.
    pub(super) fn drop_common(&mut self, commits: &[Commit]) {
        let mut count: HashMap<&str, usize> = HashMap::new();
        for c in commits {
            let mut seen: BTreeSet<&str> = BTreeSet::new();
            let message = words_of(&c.subject).chain(c.body.iter().flat_map(|b| words_of(b).collect::<Vec<_>>()));
            let paths = c
                .files
                .iter()
                .take(MAX_TOPIC_PATHS)
                .flat_map(|f| words_of(without_extension(&f.path)).collect::<Vec<_>>());
            for w in message.chain(paths) {
                if let Some((word, _)) = self.topic_of(&w) {
                    seen.insert(word);
                }
            }
            for w in seen {
                *count.entry(w).or_default() += 1;
            }
        }
        let limit = (commits.len() / COMMON_SHARE).max(3);
        let common: Vec<String> = count.into_iter().filter(|(_, n)| *n > limit).map(|(w, _)| w.to_string()).collect();
        for w in common {
            self.topic.remove(&w);
            self.compounds.remove(&w);
        }
    }

    /// A topic word as its decision's title writes it.
    fn shown(&self, key: &str) -> String {
        self.shown.get(key).cloned().unwrap_or_else(|| key.to_string())
    }

    /// The topic word a word is, or begins with when that is a compound,
    /// and its decision.
    fn topic_of(&self, w: &str) -> Option<(&str, usize)> {
        // Two title words written as one are kept as written; one word by
        // its stem.
        let found = match self.compounds.contains(w) {
            true => self.topic.get_key_value(w),
            false => self.topic.get_key_value(self.stemmer.stem(w).as_ref()),
        };
        if let Some((word, &pool)) = found {
            return Some((word.as_str(), pool));
        }
        (COMPOUND_MIN..w.len()).rev().filter(|&n| w.is_char_boundary(n)).find_map(|n| {
            let word = self.compounds.get(&w[..n])?;
            Some((word.as_str(), *self.topic.get(word)?))
        })
    }

    /// The decisions whose distinctive title words the message or a
    /// changed path has, each once (the message first, then paths in
    /// order), in pool order.
    pub(super) fn topics<'a>(&self, message: &str, paths: impl Iterator<Item = &'a str>) -> Vec<(usize, Evidence)> {
        let mut out: BTreeMap<usize, Evidence> = BTreeMap::new();
        for w in words_of(message).take(512) {
            if let Some((word, pool)) = self.topic_of(&w) {
                out.entry(pool).or_insert_with(|| Evidence::Topic { word: self.shown(word), file: None });
            }
        }
        for path in paths.take(MAX_TOPIC_PATHS) {
            for w in words_of(without_extension(path)) {
                if let Some((word, pool)) = self.topic_of(&w) {
                    out.entry(pool)
                        .or_insert_with(|| Evidence::Topic { word: self.shown(word), file: Some(path.to_string()) });
                }
            }
        }
        out.into_iter().collect()
    }
}

/// A title word in more than one commit in this many is too common to
/// point at a decision.
const COMMON_SHARE: usize = 20;

/// The shortest two title words written as one that count as a word.
const COMPOUND_MIN: usize = 8;

/// The most changed paths looked at for title words.
const MAX_TOPIC_PATHS: usize = 200;

/// Title words too common in decisions to point at one.
const GENERIC: &[&str] = &[
    "about",
    "adopt",
    "adopting",
    "after",
    "allow",
    "architecture",
    "change",
    "changes",
    "decision",
    "decisions",
    "default",
    "every",
    "first",
    "record",
    "records",
    "should",
    "support",
    "their",
    "these",
    "using",
    "where",
    "which",
    "while",
    "within",
    "without",
];

/// A word of a title that may point at its decision: three letters or more
/// (acronyms such as `epp` or `csv` are the most telling), not a number,
/// not a generic word of decisions nor a short English one.
fn is_topic_word(w: &str) -> bool {
    w.len() >= 3
        && !w.chars().all(|c| c.is_ascii_digit())
        && !GENERIC.contains(&w)
        && (w.len() >= 5 || !SHORT.contains(&w))
}

/// Short English words that point at nothing.
const SHORT: &[&str] = &[
    "add", "adds", "all", "also", "and", "any", "are", "back", "been", "both", "but", "can", "does", "done", "each",
    "for", "from", "has", "have", "how", "into", "its", "just", "make", "more", "most", "new", "not", "off", "once",
    "one", "only", "our", "out", "over", "own", "per", "same", "some", "such", "than", "that", "the", "them", "then",
    "they", "this", "two", "use", "used", "uses", "very", "via", "was", "way", "what", "when", "who", "why", "will",
    "with", "you", "your",
];

/// A path without its file's extension: `.json` or `.cs` says what kind of
/// file it is, not what it is about.
fn without_extension(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rfind('.') {
        Some(dot) if dot > 0 => &path[..path.len() - (name.len() - dot)],
        _ => path,
    }
}

/// Lowercase words of a text, a plural `s` dropped (not after `e` or `s`).
fn words_of(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(|w| {
        let w = w.to_lowercase();
        match w.strip_suffix('s') {
            Some(stem) if stem.len() >= 4 && !stem.ends_with('s') && !stem.ends_with('e') => stem.to_string(),
            _ => w,
        }
    })
}

/// `needle` in `hay` with no letter or digit on either side.
fn contains_word(hay: &str, needle: &str) -> bool {
    let mut start = 0;
    while let Some(at) = hay[start..].find(needle) {
        let at = start + at;
        let before = hay[..at].chars().next_back();
        let after = hay[at + needle.len()..].chars().next();
        if !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric) {
            return true;
        }
        start = at + needle.len().max(1);
        if start >= hay.len() {
            break;
        }
        while !hay.is_char_boundary(start) {
            start += 1;
        }
    }
    false
}

/// Lowercase words separated by single spaces.
fn normalise(text: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

fn leading_number(name: &str) -> Option<u32> {
    let digits: String = name.chars().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() || digits.len() > 6 {
        return None;
    }
    digits.parse().ok()
}

fn trailing_number(id: &str) -> Option<u32> {
    let digits: Vec<char> = id.chars().rev().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() || digits.len() > 6 || digits.len() == id.len() {
        return None;
    }
    digits.into_iter().rev().collect::<String>().parse().ok()
}
