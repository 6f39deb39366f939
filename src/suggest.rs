/*!
Suggested edits (`mneme-gate suggest`): for each expected decision a
scenario misses, the smallest edit to that decision (one tag, or one word
of its title) that brings it into the scenario's top `k` **without pushing
any other scenario's expected decision out and without injecting it into a
control scenario**, verified by retrieving the whole suite again on the
edited memory. None when no such one-word edit exists; never an edit that
was not verified.

The words tried are the query's own, from [`Index::why_not`]: first those
the decision already holds without scoring much on them (in a weak field,
an unscored field, another form), then those it lacks, the rarer first (a
rare word says more about the change and less about every other task); the
task's words only (the path says where a change is, not what it is about),
never a stopword, a token too short, a number, a file name, a kind of
change (`feat`, `fix`, ...), a word of more than a tenth of the suite's
tasks that do not expect the decision (`add`, `update`: a decision tagged
so would come back for all of them), or a word already in its title and
tags. A tag is tried before a title word:
tags are what a team adds for this.

An edit is offered only where it can be written as verified: a record of a
JSON memory file (its `tags` list or title, at the record's line), or a
Markdown file that holds this one record (front matter `tags`, or the title);
a rule file whose sections are several records shares its front matter and
names records by heading, so no edit is offered there.
*/

use rayon::prelude::*;
use serde::Serialize;

use crate::memory::Decision;
use crate::retrieval::{Cause, Fate, Index, Query, Scratch, WordFrom};
use crate::scenarios::Scenario;

/// Candidate words tried per missing decision, at most (each is tried as a
/// tag, then as a title word).
pub const MAX_WORDS: usize = 8;

/// Words of a commit subject that say what kind of change it is, not what
/// it is about (the Conventional Commits types): never a tag or title word.
const CHANGE_KINDS: [&str; 11] =
    ["feat", "fix", "chore", "docs", "refactor", "test", "perf", "build", "style", "revert", "deps"];

/// Where a decision is written, as the caller read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub file: String,
    pub line: usize,
    pub format: Format,
}

/// The kind of file a decision is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// A record of a JSON memory file.
    MemoryFile,
    /// A Markdown file (an ADR, a rule file) that holds this one record.
    Markdown,
    /// A Markdown file with several records (sections): not edited.
    SharedMarkdown,
}

/// The kind of edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EditKind {
    Tag,
    TitleWord,
}

/// A verified edit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Edit {
    pub kind: EditKind,
    pub word: String,
    pub file: String,
    pub line: usize,
    /// What to write there, in the file's own format.
    pub write: String,
    /// The decision's rank in the scenario once edited.
    pub rank_after: usize,
    /// Other scenarios that expect the decision and retrieve it once edited.
    pub also_fixes: Vec<String>,
}

/// Why no edit is offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NoEdit {
    /// Not a candidate for this query (out of scope, a chore, kept out of
    /// the pool): no word would bring it in.
    NotACandidate,
    /// Its file holds several records, or its place is unknown.
    NoPlace,
    /// No one-word edit of the words tried both fixes this scenario and
    /// keeps every other scenario's expected decisions.
    NoWordWorks,
}

/// The answer for one expected decision a scenario misses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Suggestion {
    pub scenario: String,
    pub decision: String,
    /// The first cause of the miss ([`Index::why_not`]).
    pub cause: Option<Cause>,
    pub edit: Option<Edit>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub none: Option<NoEdit>,
    /// One-word edits tried and retrieved the whole suite for.
    pub tried: usize,
}

/// The suggestions for a suite: at most `max` misses are examined, the
/// first in suite order (each costs a search that retrieves the whole
/// suite again up to 16 times).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Suggestions {
    /// Expected decisions the suite misses, in all.
    pub missing: usize,
    /// The suggestions, scenarios in suite order and their missing
    /// decisions in `expect` order; at most `max` of them.
    pub suggestions: Vec<Suggestion>,
}

/// The misses `suggest` examines unless told otherwise.
pub const DEFAULT_MAX: usize = 50;

/// Every suggestion for the first `max` misses of the suite. `places[d]`
/// is where pool decision `d` is written. `progress` is called once per
/// miss examined.
pub fn suggest(
    index: &Index,
    scenarios: &[Scenario],
    places: &[Option<Place>],
    max: usize,
    progress: &(dyn Fn() + Sync),
) -> Suggestions {
    let before = retrieve_all(index, scenarios);
    let words: Vec<std::collections::HashSet<String>> =
        scenarios.iter().map(|s| index.tokenizer().tokens(&s.task).into_iter().collect()).collect();
    let mut misses = Vec::new();
    for (s, scenario) in scenarios.iter().enumerate() {
        for id in &scenario.expect {
            let retrieved = before[s].iter().any(|&p| index.decision(p).id == *id);
            if !retrieved {
                misses.push((s, id.clone()));
            }
        }
    }
    let missing = misses.len();
    let suggestions = misses
        .iter()
        .take(max)
        .map(|(s, id)| {
            let answer = suggest_one(index, scenarios, places, &before, &words, *s, id);
            progress();
            answer
        })
        .collect();
    Suggestions { missing, suggestions }
}

fn suggest_one(
    index: &Index,
    scenarios: &[Scenario],
    places: &[Option<Place>],
    before: &[Vec<usize>],
    words: &[std::collections::HashSet<String>],
    s: usize,
    id: &str,
) -> Suggestion {
    let scenario = &scenarios[s];
    let query = Query { task: &scenario.task, file: scenario.file.as_deref() };
    let mut answer = Suggestion {
        scenario: scenario.id.clone(),
        decision: id.to_string(),
        cause: None,
        edit: None,
        none: None,
        tried: 0,
    };
    let Some(why) = index.why_not(query, id) else {
        answer.none = Some(NoEdit::NotACandidate);
        return answer;
    };
    answer.cause = why.causes.first().copied();
    let pool = index.decisions().iter().position(|d| d.id == id);
    let (Some(d), Some(Cause::BeyondK | Cause::BelowMinScore)) = (pool, answer.cause) else {
        answer.none = Some(NoEdit::NotACandidate);
        return answer;
    };
    let Some(place) = places.get(d).cloned().flatten().filter(|p| p.format != Format::SharedMarkdown) else {
        answer.none = Some(NoEdit::NoPlace);
        return answer;
    };
    let decision = index.decision(d);
    let generic = |w: &str| {
        let n = scenarios
            .iter()
            .zip(words)
            .filter(|(sc, task)| task.contains(w) && !sc.expect.iter().any(|e| e == id))
            .count();
        n >= 2 && n * GENERIC_SHARE > scenarios.len()
    };
    for word in candidate_words(&why, decision, index.tokenizer()).into_iter().filter(|w| !generic(w)) {
        for kind in [EditKind::Tag, EditKind::TitleWord] {
            let mut pool: Vec<Decision> = index.decisions().to_vec();
            match kind {
                EditKind::Tag => pool[d].tags.push(word.clone()),
                EditKind::TitleWord => pool[d].title = format!("{} {word}", pool[d].title),
            }
            let edited = index.with_pool(pool);
            let after = retrieve_all(&edited, scenarios);
            answer.tried += 1;
            if let Some(rank_after) = verify(index, scenarios, before, &after, s, d) {
                let also_fixes = scenarios
                    .iter()
                    .enumerate()
                    .filter(|&(t, sc)| {
                        t != s && sc.expect.iter().any(|e| e == id) && !before[t].contains(&d) && after[t].contains(&d)
                    })
                    .map(|(_, sc)| sc.id.clone())
                    .collect();
                answer.edit = Some(Edit {
                    kind,
                    write: write(&place, decision, kind, &word),
                    word,
                    file: place.file.clone(),
                    line: place.line,
                    rank_after,
                    also_fixes,
                });
                return answer;
            }
        }
    }
    answer.none = Some(NoEdit::NoWordWorks);
    answer
}

/// A word of more than one task in this many (and of at least two), of the
/// tasks that do not expect the decision, is generic: what tasks say in
/// general (`add`, `update`), not what this decision is about. A decision
/// that took it as a tag would come back for all of them.
const GENERIC_SHARE: usize = 10;

/// The words to try, best first (see the module's documentation).
fn candidate_words(
    why: &crate::retrieval::WhyNot,
    decision: &Decision,
    tokenizer: &crate::tokenize::Tokenizer,
) -> Vec<String> {
    // Compared as tokens: a word the title holds in another spelling
    // (`Forms` for `form`) is in it.
    let tags: Vec<String> = decision.tags.iter().flat_map(|t| tokenizer.tokens(t)).collect();
    let title = tokenizer.tokens(&decision.title);
    let in_title = |w: &str| title.iter().any(|t| t == w);
    let mut words: Vec<(u8, u64, &str)> = why
        .words
        .iter()
        // The task's words: the path's are where the change is, not what it is about.
        .filter(|w| w.from == WordFrom::Task && !w.word.contains('.'))
        .filter(|w| w.word.chars().count() >= 3 && !w.word.chars().all(|c| c.is_ascii_digit()))
        .filter(|w| !tags.iter().any(|t| t == &w.word) && !in_title(&w.word))
        .filter(|w| !CHANGE_KINDS.contains(&w.word.as_str()))
        .filter_map(|w| {
            let (group, df) = match &w.fate {
                Fate::Scored { df, .. } => (0, *df),
                Fate::Unscored { .. } | Fate::OtherForm { .. } => (0, 0),
                Fate::PathTooCommon { df, .. } => (0, *df),
                Fate::Outvoted { .. } => (0, 0),
                Fate::Absent { df } => (1, *df),
                Fate::NotInMemory => (2, 0),
                Fate::Stopword { .. } | Fate::TooShort { .. } | Fate::TaskVerb | Fate::TaskLabel => return None,
            };
            Some((group, df, w.word.as_str()))
        })
        .collect();
    words.sort();
    words.dedup_by(|a, b| a.2 == b.2);
    words.into_iter().take(MAX_WORDS).map(|(_, _, w)| w.to_string()).collect()
}

/// The decision's rank in scenario `s` on the edited memory, when the edit
/// brings it in, keeps every other scenario's retrieved expected decisions
/// and injects it into no control scenario.
fn verify(
    index: &Index,
    scenarios: &[Scenario],
    before: &[Vec<usize>],
    after: &[Vec<usize>],
    s: usize,
    d: usize,
) -> Option<usize> {
    let rank = after[s].iter().position(|&p| p == d)? + 1;
    for (t, scenario) in scenarios.iter().enumerate() {
        let kept = scenario.expect.iter().all(|e| {
            let was = before[t].iter().any(|&p| index.decision(p).id == *e);
            !was || after[t].iter().any(|&p| index.decision(p).id == *e)
        });
        let control = scenario.expect.is_empty() && scenario.acceptable.is_empty();
        let injected = control && after[t].contains(&d) && !before[t].contains(&d);
        if !kept || injected {
            return None;
        }
    }
    Some(rank)
}

/// What to write, in the file's own format.
fn write(place: &Place, decision: &Decision, kind: EditKind, word: &str) -> String {
    let mut tags = decision.tags.clone();
    tags.push(word.to_string());
    let title = format!("{} {word}", decision.title);
    match (place.format, kind) {
        (Format::MemoryFile, EditKind::Tag) => {
            format!("\"tags\": {}", serde_json::to_string(&tags).unwrap_or_default())
        }
        (Format::MemoryFile, EditKind::TitleWord) => {
            format!("the title {}", serde_json::to_string(&title).unwrap_or_default())
        }
        (_, EditKind::Tag) => {
            let list: Vec<String> = tags.iter().map(|t| yaml_item(t)).collect();
            format!("tags: [{}] in the front matter (a `---` block at the top of the file)", list.join(", "))
        }
        (_, EditKind::TitleWord) => format!("the title (front matter `title:` or the first heading): {title}"),
    }
}

/// A flow-sequence item of YAML: plain when that reads back as the same
/// string, else double-quoted as JSON (which YAML reads).
fn yaml_item(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars().all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | ' '))
        && !s.starts_with(['-', ' '])
        && !s.ends_with(' ')
        && !matches!(s.to_lowercase().as_str(), "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "~")
        && s.parse::<f64>().is_err();
    if plain {
        s.to_string()
    } else {
        serde_json::to_string(s).unwrap_or_default()
    }
}

/// Each scenario's retrieved pool positions, in suite order.
fn retrieve_all(index: &Index, scenarios: &[Scenario]) -> Vec<Vec<usize>> {
    scenarios
        .par_iter()
        .map_init(Scratch::default, |scratch, s| {
            let q = Query { task: &s.task, file: s.file.as_deref() };
            index.retrieve_with(q, index.profile().k, scratch).hits.iter().map(|h| h.pool).collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::memory::Memory;
    use crate::profile::{Named, Profile};
    use crate::scenarios::Suite;

    /// An index of `memory` (JSON) under profile `default` with `k` 1, and
    /// the suite `yaml`.
    fn setup(memory: &str, yaml: &str) -> (Index, Vec<Scenario>, Vec<Option<Place>>) {
        let mut profile = Profile::of(Named::Default);
        profile.k = 1;
        profile.min_score = Milli::ZERO;
        let memory = Memory::parse(Path::new("m.json"), memory.to_string(), profile.family);
        assert!(!memory.has_errors(), "{:?}", memory.diagnostics);
        let places = memory
            .pool
            .iter()
            .map(|d| {
                Some(Place { file: "m.json".into(), line: memory.line_col(d.offset).0, format: Format::MemoryFile })
            })
            .collect();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("suite.yaml"), yaml).unwrap();
        let suite = Suite::load(&[dir.path().join("suite.yaml")]).unwrap();
        (Index::build(memory, profile), suite.scenarios, places)
    }

    use crate::profile::Milli;

    fn answers(memory: &str, yaml: &str) -> Vec<Suggestion> {
        let (index, scenarios, places) = setup(memory, yaml);
        suggest(&index, &scenarios, &places, DEFAULT_MAX, &|| {}).suggestions
    }

    const MEMORY: &str = r#"[
        {"id": "ledger", "type": "rule", "title": "Ledger writes", "content": "reconciliation runs nightly"},
        {"id": "queue", "type": "rule", "title": "Queue consumers", "content": "reconciliation of offsets"}
    ]"#;

    #[test]
    fn a_tag_that_fixes_the_miss_is_verified_and_written_as_json() {
        let got = answers(
            MEMORY,
            "scenarios:\n  - id: s1\n    task: nightly reconciliation job\n    expect: [ledger]\n  - id: s2\n    task: queue consumers lag\n    expect: [queue]\n",
        );
        // Already retrieved? `ledger` holds `nightly` and `reconciliation`: no miss.
        assert!(got.is_empty(), "{got:?}");
        let got = answers(
            MEMORY,
            "scenarios:\n  - id: s1\n    task: offsets reconciliation in the ledger export\n    expect: [queue]\n  - id: s2\n    task: ledger writes\n    expect: [ledger]\n",
        );
        assert_eq!(got.len(), 1, "{got:?}");
        let edit = got[0].edit.as_ref().expect("a verified edit");
        assert_eq!((got[0].scenario.as_str(), got[0].decision.as_str()), ("s1", "queue"));
        let write = match edit.kind {
            EditKind::Tag => format!("\"tags\": [\"{}\"]", edit.word),
            EditKind::TitleWord => format!("the title \"Queue consumers {}\"", edit.word),
        };
        assert_eq!(edit.write, write);
        // The words `queue` holds come first: `offsets` (as the token
        // `offset`, its plural folded), then `reconciliation`.
        assert_eq!(edit.word, "offset");
        assert_eq!((edit.file.as_str(), edit.line, edit.rank_after), ("m.json", 3, 1));
        // `ledger` would win `s2` back for `queue`? No: s2 keeps `ledger`.
        assert_ne!(edit.word, "ledger");
    }

    #[test]
    fn no_edit_that_pushes_another_expected_decision_out_or_injects_into_a_control() {
        // The only word `queue` could take is `export`, which s2 expects `ledger` for,
        // and a control mentions.
        let memory = r#"[
            {"id": "ledger", "type": "rule", "title": "Ledger export"},
            {"id": "queue", "type": "rule", "title": "Queue consumers"}
        ]"#;
        let yaml = "scenarios:\n  - id: s1\n    task: export\n    expect: [queue]\n  - id: s2\n    task: export\n    expect: [ledger]\n";
        let got = answers(memory, yaml);
        assert_eq!(got.len(), 1);
        assert_eq!((got[0].edit.as_ref(), got[0].none), (None, Some(NoEdit::NoWordWorks)), "{got:?}");
        assert!(got[0].tried >= 2, "a tag and a title word were tried: {got:?}");
        // A control that would get `queue` once it holds `backlog` blocks that word.
        let yaml = "scenarios:\n  - id: s1\n    task: backlog\n    expect: [queue]\n  - id: c1\n    task: backlog grooming\n    expect: []\n";
        let got = answers(memory, yaml);
        assert_eq!((got[0].edit.as_ref(), got[0].none), (None, Some(NoEdit::NoWordWorks)), "{got:?}");
        let yaml = "scenarios:\n  - id: s1\n    task: backlog\n    expect: [queue]\n";
        let got = answers(memory, yaml);
        assert_eq!(
            got[0].edit.as_ref().map(|e| (e.kind, e.word.as_str())),
            Some((EditKind::Tag, "backlog")),
            "{got:?}"
        );
    }

    #[test]
    fn out_of_scope_and_shared_files_get_no_edit_and_generic_words_are_not_tried() {
        let memory = r#"[
            {"id": "web", "type": "rule", "title": "Web forms", "scope": "web/**"},
            {"id": "api", "type": "rule", "title": "Api forms"}
        ]"#;
        let yaml = "scenarios:\n  - id: s1\n    task: forms validation\n    file: api/forms.py\n    expect: [web]\n";
        let got = answers(memory, yaml);
        assert_eq!((got[0].cause, got[0].none), (Some(Cause::OutOfScope), Some(NoEdit::NotACandidate)));
        let (index, scenarios, mut places) =
            setup(memory, "scenarios:\n  - id: s1\n    task: api forms validation\n    expect: [web]\n");
        places[0] = Some(Place { file: "CLAUDE.md".into(), line: 3, format: Format::SharedMarkdown });
        let got = suggest(&index, &scenarios, &places, DEFAULT_MAX, &|| {}).suggestions;
        assert_eq!(got[0].none, Some(NoEdit::NoPlace), "{got:?}");
        // `tweak` is in more than a tenth of the tasks that do not expect `web`
        // (`api` comes first in the pool, so it wins a tie).
        let memory = r#"[
            {"id": "api", "type": "rule", "title": "Api forms"},
            {"id": "web", "type": "rule", "title": "Web forms"}
        ]"#;
        let mut yaml = "scenarios:\n  - id: s1\n    task: tweak forms\n    expect: [web]\n".to_string();
        for i in 0..4 {
            yaml.push_str(&format!("  - id: o{i}\n    task: tweak api forms {i}\n    expect: [api]\n"));
        }
        let got = answers(memory, &yaml);
        assert_eq!((got[0].none, got[0].tried), (Some(NoEdit::NoWordWorks), 0), "{got:?}");
        // In one task of the two that do not expect it, it is not generic: tried and verified.
        let yaml = "scenarios:\n  - id: s1\n    task: tweak forms\n    expect: [web]\n  - id: o1\n    task: api forms\n    expect: [api]\n  - id: o2\n    task: tweak api\n    expect: [api]\n";
        let got = answers(memory, yaml);
        assert_eq!(got[0].edit.as_ref().map(|e| e.word.as_str()), Some("tweak"), "{got:?}");
    }
}
