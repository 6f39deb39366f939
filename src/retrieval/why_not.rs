//! Why one decision was not retrieved for a query: where it ranked, what
//! the decisions retrieved ahead of it matched that it did not, and what
//! became of each of the query's words in it. Built from
//! [`Index::explain`], so it never disagrees with the ranking or with
//! `explain`'s table.

use std::cell::OnceCell;
use std::collections::BTreeMap;

use rustc_hash::FxHashSet;

use serde::{Deserialize, Serialize};

use super::{ExplainedRecord, Explanation, Index, Query, Ranked, ScopeCheck, Scratch};
use crate::profile::{Field, Milli};

/// A decision counts as everywhere, and its words as weighing little, when
/// more than this share of the pool holds them (thousandths).
const COMMON_SHARE: u64 = 500;

/// Competitors' words listed per decision ahead, at most.
const WORDS_PER_COMPETITOR: usize = 6;

/// The answer to "why not this decision?" for one query.
#[derive(Debug, Clone, Serialize)]
pub struct WhyNot {
    pub id: String,
    pub title: String,
    /// Where it was read (`file:line`), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    pub task: String,
    pub file: Option<String>,
    pub profile: String,
    pub k: usize,
    pub min_score: Milli,
    /// How many decisions the pool holds.
    pub pool: u64,
    /// Its place in the ranking of every candidate above `min_score` (1 is
    /// the best), when it is in that ranking.
    pub rank: Option<usize>,
    /// Its score, when it is in the pool.
    pub score: Option<Milli>,
    /// It is retrieved (rank ≤ k, and the task is no chore).
    pub retrieved: bool,
    /// The outcome code `explain` gives it (`beyond_k`, `below_min_score`,
    /// `out_of_scope`, `chore`, `duplicate_id`, `inactive_status`,
    /// `not_eligible_type`), none when retrieved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Its scope globs, when the scope kept it out.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scope_globs: Vec<String>,
    /// The score of the last retrieved decision: what it had to beat.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bar: Option<Milli>,
    /// The retrieved decisions ranked ahead of it, best first.
    pub ahead: Vec<Competitor>,
    /// Each word of the query and what became of it in this decision, in
    /// query order (the task's tokens, then the path's; each text's dropped
    /// words after its tokens).
    pub words: Vec<QueryWord>,
    /// The causes, most decisive first.
    pub causes: Vec<Cause>,
}

/// A retrieved decision ranked ahead of the one asked about.
#[derive(Debug, Clone, Serialize)]
pub struct Competitor {
    pub id: String,
    pub title: String,
    pub rank: usize,
    pub score: Milli,
    /// Query tokens it scored on that the decision asked about does not
    /// score on, largest first.
    pub only_theirs: Vec<Gain>,
    /// Query tokens both score on, where it earns more, largest gap first.
    pub shared_more: Vec<SharedGain>,
    /// It holds at least one of its winning tokens in more than half of
    /// the pool's decisions.
    pub wins_on_common_words: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct Gain {
    /// A query token, or `tag <tag>` for the boost of a complete tag.
    pub token: String,
    pub contribution: Milli,
    /// How many decisions of the pool hold the token (none for a tag).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub df: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SharedGain {
    pub token: String,
    pub theirs: Milli,
    pub ours: Milli,
}

/// Where a query word came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WordFrom {
    Task,
    Path,
}

/// One word of the query, as the decision asked about took it.
#[derive(Debug, Clone, Serialize)]
pub struct QueryWord {
    pub word: String,
    pub from: WordFrom,
    #[serde(flatten)]
    pub fate: Fate,
}

/// What became of a query word in the decision asked about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "fate", rename_all = "snake_case")]
pub enum Fate {
    /// It scored: `contribution` to the decision's score, from `fields`;
    /// `common` when more than half of the pool holds it and the profile
    /// weighs words by an idf (it then weighs little).
    Scored { contribution: Milli, fields: Vec<Field>, df: u64, n: u64, common: bool },
    /// A stopword: never a token; `held` when the decision's text has it.
    Stopword { held: bool },
    /// A task word that says what kind of change the task is (`add`,
    /// `fix`, `use`: `bm25::TASK_VERBS`), which profile `default` does not
    /// score.
    TaskVerb,
    /// A word of the label of the reference number the task opens with
    /// (`feature #15063`), or of the credit it then ends with
    /// (`(NoResponseMate)`): `bm25::about_part`, which profile `default`
    /// does not score.
    TaskLabel,
    /// Shorter than `min_token_len`: never a token; `held` when the
    /// decision's text has it.
    TooShort { min_token_len: usize, held: bool },
    /// A path word in more than `path_max_df` of the decisions: the path
    /// does not score it.
    PathTooCommon { df: u64, n: u64, path_max_df: Milli },
    /// A path token another spelling of the same path word (`by`) scores
    /// at least as much as in this decision: the word counts once, by `by`.
    Outvoted { by: String },
    /// The decision holds it only in fields the profile does not score, or
    /// (`subsections`) in the text of its Context's and Decision's
    /// sub-sections, which only a profile that reads the sections scores.
    Unscored { fields: Vec<Field>, subsections: bool },
    /// The decision holds it only inside other words (`forms`): an
    /// identifier the profile does not split (`identifier`), or another
    /// form of the word.
    OtherForm { forms: Vec<String>, identifier: bool },
    /// The decision does not hold it; `df` other decisions do.
    Absent { df: u64 },
    /// No decision of the pool holds it (in a field the profile scores, or
    /// in any form).
    NotInMemory,
}

/// A cause of the miss, for people and for tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    /// Not a candidate: kept out of the pool (status, type, duplicate id).
    NotInPool,
    /// The edited file is outside its scope globs.
    OutOfScope,
    /// The task is a chore; nothing is retrieved.
    Chore,
    /// It scored no more than `min_score`.
    BelowMinScore,
    /// It ranked below `k` others.
    BeyondK,
    /// A decision ahead won on words held by more than half of the pool.
    CommonWordsWin,
    /// A decision ahead scored on words of the query this one does not
    /// hold (and that most decisions do not hold either).
    LacksWords,
    /// A decision ahead gains more on words both hold (in a heavier field,
    /// or a shorter text) than on the words this one lacks.
    Outweighed,
    /// Query words sit in its text the profile does not score.
    UnscoredField,
    /// Query words sit in it only inside identifiers the profile does not split.
    UnsplitIdentifier,
    /// Query words sit in it only in another form (plural, compound).
    OtherForm,
    /// Path words it holds are too common for the path to score.
    PathTooCommon,
    /// Words of the task it holds are too short to be tokens (not
    /// stopwords).
    NotTokens,
    /// It shares no scored word with the query.
    NoSharedWords,
}

impl Cause {
    /// The stable code of the cause, as JSON writes it.
    pub fn code(self) -> &'static str {
        match self {
            Cause::NotInPool => "not_in_pool",
            Cause::OutOfScope => "out_of_scope",
            Cause::Chore => "chore",
            Cause::BelowMinScore => "below_min_score",
            Cause::BeyondK => "beyond_k",
            Cause::CommonWordsWin => "common_words_win",
            Cause::LacksWords => "lacks_words",
            Cause::Outweighed => "outweighed",
            Cause::UnscoredField => "unscored_field",
            Cause::UnsplitIdentifier => "unsplit_identifier",
            Cause::OtherForm => "other_form",
            Cause::PathTooCommon => "path_too_common",
            Cause::NotTokens => "not_tokens",
            Cause::NoSharedWords => "no_shared_words",
        }
    }
}

/// A missing expected decision in brief, as a run's report carries it for
/// each scenario (`explain --why-not` gives the whole answer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Miss {
    pub id: String,
    /// Its rank among every candidate above `min_score`, when it is in
    /// that ranking.
    pub rank: Option<usize>,
    /// Its score, when it is in the pool.
    pub score: Option<f64>,
    /// The score of the last retrieved decision, when `k` were retrieved.
    pub bar: Option<f64>,
    /// The causes, most decisive first.
    pub causes: Vec<Cause>,
    /// The decisions retrieved ahead of it, best first.
    pub ahead: Vec<Ahead>,
    /// Query words it holds that were not scored, each with the cause.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unscored: Vec<UnscoredWord>,
}

/// A decision retrieved ahead of a missing one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Ahead {
    pub id: String,
    /// The query words (or `tag <tag>`) it scored on that the missing
    /// decision does not, at most three, largest first.
    pub words: Vec<String>,
}

/// A query word a missing decision holds without scoring on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct UnscoredWord {
    pub word: String,
    /// `unscored_field`, `unsplit_identifier`, `other_form`,
    /// `path_too_common` or `not_tokens`.
    pub cause: Cause,
}

/// Words per decision ahead that a [`Miss`] keeps.
const MISS_WORDS: usize = 3;

impl WhyNot {
    /// The answer in brief, for a run's report.
    pub fn brief(&self) -> Miss {
        Miss {
            id: self.id.clone(),
            rank: self.rank,
            score: self.score.map(Milli::as_f64),
            bar: self.bar.map(Milli::as_f64),
            causes: self.causes.clone(),
            ahead: self
                .ahead
                .iter()
                .map(|c| Ahead {
                    id: c.id.clone(),
                    words: c.only_theirs.iter().take(MISS_WORDS).map(|g| g.token.clone()).collect(),
                })
                .collect(),
            unscored: self
                .words
                .iter()
                .filter_map(|w| {
                    let cause = match &w.fate {
                        Fate::Unscored { .. } => Cause::UnscoredField,
                        Fate::OtherForm { identifier: true, .. } => Cause::UnsplitIdentifier,
                        Fate::OtherForm { identifier: false, .. } => Cause::OtherForm,
                        Fate::PathTooCommon { .. } => Cause::PathTooCommon,
                        Fate::TooShort { held: true, .. } if w.from == WordFrom::Task => Cause::NotTokens,
                        _ => return None,
                    };
                    Some(UnscoredWord { word: w.word.clone(), cause })
                })
                .collect(),
        }
    }
}

impl Ranked<'_, '_> {
    /// Why each of the decisions `ids` is not retrieved by this ranking, in
    /// brief and in order: for each id, [`WhyNot::brief`] of
    /// [`Index::why_not`] (none for an id no record has). The query is
    /// explained once for all of them, from the scores its ranking kept
    /// when they tell what is needed, else ranked again for each id; only
    /// the words of the query the brief reads are looked up.
    pub fn misses(mut self, ids: &[String]) -> Vec<Miss> {
        if ids.is_empty() {
            return Vec::new();
        }
        let index = self.index;
        if let Some(e) = index.explain_kept(&self, ids) {
            return ids.iter().filter_map(|id| index.why_not_in(&e, id, Words::Brief)).map(|w| w.brief()).collect();
        }
        self.release();
        let query = self.query;
        ids.iter()
            .filter_map(|id| {
                let e = index.explain_some(query, Some(Some(id)), self.scratch);
                index.why_not_in(&e, id, Words::Brief)
            })
            .map(|w| w.brief())
            .collect()
    }
}

impl Index {
    /// Why the decision `id` is, or is not, retrieved for `query`; `None`
    /// when no record of the memory has that id.
    pub fn why_not(&self, query: Query<'_>, id: &str) -> Option<WhyNot> {
        self.why_not_with(query, id, &mut Scratch::default())
    }

    /// [`Index::why_not`], reusing `scratch` between calls (a run asks it
    /// for each missed decision).
    pub fn why_not_with(&self, query: Query<'_>, id: &str, scratch: &mut Scratch) -> Option<WhyNot> {
        let e = self.explain_some(query, Some(Some(id)), scratch);
        self.why_not_in(&e, id, Words::Every)
    }

    /// [`Index::why_not`] from an explanation of the query that holds the
    /// record `id` and the retrieved ones (records of other decisions it
    /// holds change nothing), listing the query's `words`.
    fn why_not_in(&self, e: &Explanation, id: &str, words: Words) -> Option<WhyNot> {
        // A repeated id (profile `mneme`): the copy that ranks, else the first.
        let at = e
            .records
            .iter()
            .position(|r| r.id == id && r.rank.is_some())
            .or_else(|| e.records.iter().position(|r| r.id == id && r.reason.as_deref() != Some("duplicate_id")))
            .or_else(|| e.records.iter().position(|r| r.id == id))?;
        let me = &e.records[at];
        let n = self.decisions.len() as u64;
        let df = |token: &str| self.vocab.get(token).map(|&t| self.posting(t).len() as u64);
        let common = |df: u64| n > 0 && df * 1000 > n * COMMON_SHARE;
        let mine = contributions(me);

        // Its place among every candidate above min_score.
        let rank = me.place;

        let mut retrieved: Vec<&ExplainedRecord> = e.records.iter().filter(|r| r.rank.is_some()).collect();
        retrieved.sort_by_key(|r| r.rank);
        let bar = retrieved.last().and_then(|r| r.score).filter(|_| retrieved.len() >= self.profile.k);
        let ahead: Vec<Competitor> = retrieved
            .iter()
            .filter(|r| me.rank.is_none_or(|mine| r.rank.is_some_and(|theirs| theirs < mine)))
            .map(|r| {
                let theirs = contributions(r);
                let mut only: Vec<Gain> = theirs
                    .iter()
                    .filter(|(t, c)| c.0 > 0 && mine.get(*t).is_none_or(|m| m.0 <= 0))
                    .map(|(t, c)| Gain { token: t.clone(), contribution: *c, df: df(t) })
                    .collect();
                only.sort_by(|a, b| b.contribution.cmp(&a.contribution).then_with(|| a.token.cmp(&b.token)));
                let mut shared: Vec<SharedGain> = theirs
                    .iter()
                    .filter_map(|(t, c)| {
                        let m = mine.get(t).copied().filter(|m| m.0 > 0)?;
                        (c.0 > m.0).then(|| SharedGain { token: t.clone(), theirs: *c, ours: m })
                    })
                    .collect();
                shared.sort_by(|a, b| {
                    (b.theirs.0 - b.ours.0).cmp(&(a.theirs.0 - a.ours.0)).then_with(|| a.token.cmp(&b.token))
                });
                let wins_on_common_words = only.iter().any(|g| g.df.is_some_and(common));
                only.truncate(WORDS_PER_COMPETITOR);
                shared.truncate(WORDS_PER_COMPETITOR);
                Competitor {
                    id: r.id.clone(),
                    title: r.title.clone(),
                    rank: r.rank.unwrap_or_default(),
                    score: r.score.unwrap_or_default(),
                    only_theirs: only,
                    shared_more: shared,
                    wins_on_common_words,
                }
            })
            .collect();

        let decision = me.pool_order.map(|p| &self.decisions[p]);
        let texts = decision.map(TextWords::new);
        let words = self.query_words(e, me, texts.as_ref(), &mine, words);

        let mut causes = Vec::new();
        match (me.reason.as_deref(), &me.scope) {
            (None, _) => {}
            (_, ScopeCheck::NotInPool) | (Some("duplicate_id"), _) => causes.push(Cause::NotInPool),
            (Some("out_of_scope"), _) => causes.push(Cause::OutOfScope),
            (Some("chore"), _) => causes.push(Cause::Chore),
            (Some("below_min_score"), _) => causes.push(Cause::BelowMinScore),
            (Some(_), _) => causes.push(Cause::BeyondK),
        }
        if me.rank.is_none() && decision.is_some() {
            if ahead.iter().any(|c| c.wins_on_common_words) {
                causes.push(Cause::CommonWordsWin);
            }
            if ahead.iter().any(|c| c.only_theirs.iter().any(|g| g.df.is_some() && !g.df.is_some_and(common))) {
                causes.push(Cause::LacksWords);
            }
            // Outweighed when a decision ahead gains more on the words both
            // hold than on the words this one lacks.
            let outweighs = |c: &Competitor| {
                let shared: i64 = c.shared_more.iter().map(|g| g.theirs.0 - g.ours.0).sum();
                let only: i64 = c.only_theirs.iter().map(|g| g.contribution.0).sum();
                shared > 0 && shared >= only
            };
            if ahead.iter().any(outweighs) {
                causes.push(Cause::Outweighed);
            }
            let any = |f: &dyn Fn(&Fate) -> bool| words.iter().any(|w| f(&w.fate));
            if any(&|f| matches!(f, Fate::Unscored { .. })) {
                causes.push(Cause::UnscoredField);
            }
            if any(&|f| matches!(f, Fate::OtherForm { identifier: true, .. })) {
                causes.push(Cause::UnsplitIdentifier);
            }
            if any(&|f| matches!(f, Fate::OtherForm { identifier: false, .. })) {
                causes.push(Cause::OtherForm);
            }
            if any(&|f| matches!(f, Fate::PathTooCommon { .. })) {
                causes.push(Cause::PathTooCommon);
            }
            // A stopword is in most texts: only a short word of the task it
            // has counts (a path's `go`, `md` or `ts` says nothing).
            let short = |w: &QueryWord| w.from == WordFrom::Task && matches!(w.fate, Fate::TooShort { held: true, .. });
            if words.iter().any(short) {
                causes.push(Cause::NotTokens);
            }
            if !any(&|f| matches!(f, Fate::Scored { .. })) {
                causes.push(Cause::NoSharedWords);
            }
        }

        Some(WhyNot {
            id: me.id.clone(),
            title: me.title.clone(),
            source: me.source.clone(),
            task: e.task.clone(),
            file: e.file.clone(),
            profile: e.profile.name.to_string(),
            k: self.profile.k,
            min_score: self.profile.min_score,
            pool: n,
            rank,
            score: me.score,
            retrieved: me.rank.is_some(),
            outcome: me.reason.clone(),
            detail: me.detail.clone(),
            scope_globs: match (&me.scope, decision) {
                (ScopeCheck::OutOfScope, Some(d)) => d.paths.clone(),
                _ => Vec::new(),
            },
            bar,
            ahead,
            words,
            causes,
        })
    }

    /// Each distinct word of the task, then of the path, with what became
    /// of it in `decision` (none: the record is not in the pool); with
    /// [`Words::Brief`], only those the brief reads.
    fn query_words(
        &self,
        e: &Explanation,
        me: &ExplainedRecord,
        decision: Option<&TextWords<'_>>,
        mine: &BTreeMap<String, Milli>,
        listed: Words,
    ) -> Vec<QueryWord> {
        let n = self.decisions.len() as u64;
        let profile = &self.profile;
        let mut seen = std::collections::BTreeSet::new();
        let mut words = Vec::new();
        // Under BM25F the label and credit of the task are apart from it.
        let about = if profile.bm25f.is_some() { super::bm25::about_part(&e.task) } else { None };
        let labels = about.as_ref().map(|a| format!("{} {}", a.label, a.credit.unwrap_or(""))).unwrap_or_default();
        let sources = [
            (about.as_ref().map_or(e.task.as_str(), |a| a.text.as_str()), WordFrom::Task, false),
            (labels.as_str(), WordFrom::Task, true),
            (e.file.as_deref().unwrap_or(""), WordFrom::Path, false),
        ];
        for (text, from, label) in sources {
            // The tokens, in text order, then the runs the tokenizer drops.
            let mut items: Vec<(String, Item)> = Vec::new();
            self.tokenizer.each_token(text, &mut |t| items.push((t.to_string(), Item::Token)));
            self.tokenizer.each_run(text, &mut |run| {
                if !self.tokenizer.keeps(run) {
                    let stopword = self.tokenizer.is_stopword(run);
                    if listed == Words::Brief && (stopword || from == WordFrom::Path) {
                        items.push((run.to_string(), Item::Unlisted));
                        return;
                    }
                    let held = decision.is_some_and(|d| d.runs(&self.tokenizer).contains(run));
                    let fate = if stopword {
                        Fate::Stopword { held }
                    } else {
                        Fate::TooShort { min_token_len: profile.min_token_len, held }
                    };
                    items.push((run.to_string(), Item::Dropped(fate)));
                }
            });
            // A word left out still counts as seen, so that the words listed
            // are the ones `Words::Every` lists.
            for (word, item) in items {
                if !seen.insert(word.clone()) {
                    continue;
                }
                let fate = match item {
                    Item::Unlisted => continue,
                    _ if label => Fate::TaskLabel,
                    Item::Token
                        if from == WordFrom::Task
                            && !super::bm25::scores_as_task_word(&word, profile.bm25f.is_some(), &self.tokenizer) =>
                    {
                        Fate::TaskVerb
                    }
                    Item::Token => self.fate(&word, from, decision, me, mine, n),
                    Item::Dropped(f) => f,
                };
                words.push(QueryWord { word, from, fate });
            }
        }
        words
    }

    /// What became of the query token `token` in `decision`.
    fn fate(
        &self,
        token: &str,
        from: WordFrom,
        texts: Option<&TextWords<'_>>,
        me: &ExplainedRecord,
        mine: &BTreeMap<String, Milli>,
        n: u64,
    ) -> Fate {
        let t = self.vocab.get(token).copied();
        let df = t.map_or(0, |t| self.posting(t).len() as u64);
        let absent = if df == 0 { Fate::NotInMemory } else { Fate::Absent { df } };
        let Some(texts) = texts else { return absent };
        let decision = texts.decision;
        let d = me.pool_order.unwrap_or_default();
        let holding: Vec<Field> = match t {
            Some(t) => (0..self.nf)
                .filter(|&f| self.field(d, f).binary_search(&t).is_ok())
                .map(|f| self.profile.fields()[f])
                .collect(),
            None => Vec::new(),
        };
        if !holding.is_empty() {
            if let Some(c) = mine.get(token) {
                let scored: Vec<Field> =
                    holding.iter().copied().filter(|&f| self.profile.weight(f) != Milli::ZERO).collect();
                if !scored.is_empty() {
                    // Only an idf weighs a word by how many decisions hold it.
                    let common = self.profile.bm25f.is_some() && df * 1000 > n * COMMON_SHARE;
                    return Fate::Scored { contribution: *c, fields: scored, df, n, common };
                }
            } else if from == WordFrom::Path {
                if let Some(by) = me.terms.iter().find(|term| term.token == token).and_then(|t| t.outvoted_by.clone()) {
                    return Fate::Outvoted { by };
                }
                if let Some(b) = &self.profile.bm25f {
                    return Fate::PathTooCommon { df, n, path_max_df: b.path_max_df };
                }
            }
            let zero: Vec<Field> = holding.iter().copied().filter(|&f| self.profile.weight(f) == Milli::ZERO).collect();
            if !zero.is_empty() {
                return Fate::Unscored { fields: zero, subsections: false };
            }
        }
        // Fields the profile does not index at all (sections under `classic`).
        let unindexed: Vec<Field> = Field::EVERY
            .iter()
            .copied()
            .filter(|f| !self.profile.fields().contains(f))
            .filter(|&f| super::field_texts(decision, f, true).iter().any(|text| self.holds(text, token)))
            .collect();
        let subsections = !self.profile.reads_sections() && self.holds(&decision.sections().subsections, token);
        if !unindexed.is_empty() || subsections {
            return Fate::Unscored { fields: unindexed, subsections };
        }
        let (forms, identifier) =
            other_forms(texts.words(), token, self.profile.splits_identifiers(), &|w| self.tokenizer.is_stopword(w));
        if !forms.is_empty() {
            return Fate::OtherForm { forms, identifier };
        }
        absent
    }

    fn holds(&self, text: &str, token: &str) -> bool {
        let mut found = false;
        self.tokenizer.each_token(text, &mut |t| found |= t == token);
        found
    }
}

/// Which words of the query a [`WhyNot`] lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Words {
    /// Every word.
    Every,
    /// The words [`WhyNot::brief`] and the causes read: no stopword, and no
    /// word of the path too short to be a token (whether the decision
    /// holds those is not looked up).
    Brief,
}

/// A word of a text of the query, as [`Index::query_words`] reads it.
enum Item {
    /// A token: what became of it in the decision is looked up.
    Token,
    /// A run the tokenizer drops, and what became of it.
    Dropped(Fate),
    /// A run the tokenizer drops that the words listed leave out.
    Unlisted,
}

/// The words of the texts of the decision asked about, each read once for
/// all the words of the query, when first needed.
struct TextWords<'a> {
    decision: &'a crate::memory::Decision,
    /// Every word as [`other_forms`] cuts it (none empty), with its
    /// lowercase form.
    words: OnceCell<Vec<(&'a str, String)>>,
    /// Every run of letters and digits of its texts, lowercased (a word
    /// before any filter).
    runs: OnceCell<FxHashSet<String>>,
}

impl<'a> TextWords<'a> {
    fn new(decision: &'a crate::memory::Decision) -> TextWords<'a> {
        TextWords { decision, words: OnceCell::new(), runs: OnceCell::new() }
    }

    fn words(&self) -> &[(&'a str, String)] {
        self.words.get_or_init(|| {
            let mut out = Vec::new();
            for field in Field::EVERY {
                for text in super::field_texts(self.decision, field, true) {
                    for word in text.split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))) {
                        let word = word.trim_matches(|c| matches!(c, '_' | '-' | '.'));
                        if !word.is_empty() {
                            out.push((word, word.to_lowercase()));
                        }
                    }
                }
            }
            out
        })
    }

    fn runs(&self, tokenizer: &crate::tokenize::Tokenizer) -> &FxHashSet<String> {
        self.runs.get_or_init(|| {
            let mut out = FxHashSet::default();
            for field in Field::EVERY {
                for text in super::field_texts(self.decision, field, true) {
                    tokenizer.each_run(text, &mut |r| {
                        if !out.contains(r) {
                            out.insert(r.to_string());
                        }
                    });
                }
            }
            out
        })
    }
}

/// [`ExplainedRecord::token_contributions`], plus the boost of each
/// complete tag (as `tag <tag>`).
fn contributions(r: &ExplainedRecord) -> BTreeMap<String, Milli> {
    let mut out = r.token_contributions();
    if !r.tag_hits.is_empty() {
        let each = r.tag_boost.0 / r.tag_hits.len() as i64;
        for tag in &r.tag_hits {
            out.entry(format!("tag {tag}")).or_default().0 += each;
        }
    }
    out
}

/// The words of a decision's text ([`TextWords::words`]) that are another form of `token` (at
/// most three, sorted), and whether one of them is an identifier the
/// profile does not split. Another form: the token with a suffix of at most
/// three letters (`timeouts` for `timeout`) or the token less one
/// (`retry` for `retrying`), never a stopword, or, when the profile does not split
/// identifiers (`splits` false), an identifier one of whose parts is the
/// token (`MeshTimeout`, `mesh_timeout`, `mesh.timeout`).
fn other_forms(
    words: &[(&str, String)],
    token: &str,
    splits: bool,
    stopword: &dyn Fn(&str) -> bool,
) -> (Vec<String>, bool) {
    const SUFFIX: usize = 3;
    // A file name (`listeners.go`) has no other form but itself.
    if !token.chars().all(char::is_alphanumeric) {
        return (Vec::new(), false);
    }
    let mut forms = std::collections::BTreeSet::new();
    let mut identifier = false;
    let near = |a: &str, b: &str| a.len() >= 4 && b.starts_with(a) && b.len() > a.len() && b.len() - a.len() <= SUFFIX;
    for &(word, ref lower) in words {
        if lower == token {
            continue;
        }
        if !splits && is_identifier_part(word, token) {
            identifier = true;
            forms.insert(word.to_string());
        } else if lower.chars().all(char::is_alphanumeric)
            && !stopword(lower)
            && (near(token, lower) || near(lower, token))
        {
            forms.insert(word.to_string());
        }
    }
    (forms.into_iter().take(3).collect(), identifier)
}

/// Whether `token` is a proper part of the identifier `word` as the
/// identifier-splitting tokenizer cuts it (at `_`, `-`, `.` and case
/// changes: `MeshTimeout`, `mesh_timeout`).
fn is_identifier_part(word: &str, token: &str) -> bool {
    let mut found = false;
    crate::tokenize::each_identifier_piece(word, &mut |piece| {
        found |= piece.len() < word.len() && piece.to_lowercase() == token;
    });
    found
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::memory::Memory;
    use crate::profile::{Named, Profile};

    fn index(text: &str, profile: Profile) -> Index {
        let memory = Memory::parse(Path::new("m.json"), text.to_string(), profile.family);
        assert!(!memory.has_errors(), "{:?}", memory.diagnostics);
        Index::build(memory, profile)
    }

    fn why(ix: &Index, task: &str, file: Option<&str>, id: &str) -> WhyNot {
        ix.why_not(Query { task, file }, id).expect("the id is in the memory")
    }

    fn fate<'a>(w: &'a WhyNot, word: &str) -> &'a Fate {
        &w.words.iter().find(|x| x.word == word).unwrap_or_else(|| panic!("no word {word} in {w:#?}")).fate
    }

    /// Twenty filler decisions (`filler0` … `filler19`) that share `service`.
    fn fillers() -> String {
        (0..20)
            .map(|i| format!(r#"{{"id": "f{i}", "type": "rule", "title": "service filler{i}"}}"#))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The misses of `ids` for a query from the scores its ranking kept
    /// ([`Ranked::misses`]), checked against [`Index::why_not`] for each
    /// id; the ranking is the one of [`Index::retrieve_with_runner_up`],
    /// and `scratch` is clear afterwards.
    fn kept_misses(ix: &Index, scratch: &mut Scratch, task: &str, file: Option<&str>, ids: &[&str]) -> Vec<Miss> {
        let query = Query { task, file };
        let ids: Vec<String> = ids.iter().map(|id| id.to_string()).collect();
        let want: Vec<Miss> = ids.iter().filter_map(|id| ix.why_not(query, id)).map(|w| w.brief()).collect();
        let k = ix.profile.k;
        let (retrieval, runner_up, ranked) = ix.retrieve_kept(query, k, scratch);
        let got = ranked.misses(&ids);
        assert_eq!(got, want, "{task:?} {file:?}");
        assert_eq!((retrieval, runner_up), ix.retrieve_with_runner_up(query, k, &mut Scratch::default()));
        assert!(scratch.score.iter().all(|&s| s == 0) && scratch.touched.is_empty() && scratch.tag_count.is_empty());
        assert!(!scratch.seen.contains(&true) && !scratch.in_scope.contains(&true) && scratch.scope_marks.is_empty());
        got
    }

    fn causes(misses: &[Miss]) -> Vec<(&str, Vec<Cause>)> {
        misses.iter().map(|m| (m.id.as_str(), m.causes.clone())).collect()
    }

    #[test]
    fn misses_from_the_kept_ranking_are_why_not_for_each_id() {
        let ix = index(
            &format!(
                r#"[{{"id": "want", "type": "rule", "title": "retry budget"}},
                    {{"id": "want2", "type": "rule", "title": "retry policy", "content": "backoff notes"}},
                    {{"id": "b1", "type": "rule", "title": "retry backoff jitter"}},
                    {{"id": "b2", "type": "rule", "title": "retry backoff ceiling"}},
                    {{"id": "b3", "type": "rule", "title": "retry backoff logging"}},
                    {{"id": "weak", "type": "rule", "title": "service mention", "content": "nothing else"}},
                    {{"id": "web", "type": "rule", "title": "refund flow", "scope": "web/**"}},
                    {{"id": "refund", "type": "rule", "title": "refund flow rules"}},
                    {{"id": "refund2", "type": "rule", "title": "refund ledger"}},
                    {{"id": "old", "type": "rule", "title": "refund flow legacy", "status": "superseded"}},
                    {{"id": "schema", "type": "rule", "title": "schema migrations", "content": "the db owns it; go"}}, {}]"#,
                fillers()
            ),
            Profile::of(Named::Default),
        );
        let mut scratch = Scratch::default();
        // Short words of the task the decision holds are a cause; stopwords
        // and the path's short words are not.
        let got = kept_misses(&ix, &mut scratch, "the db retry with backoff", Some("db/go/io.go"), &["schema"]);
        let unscored: Vec<(&str, Cause)> = got[0].unscored.iter().map(|u| (u.word.as_str(), u.cause)).collect();
        assert_eq!(unscored, [("db", Cause::NotTokens)], "{got:#?}");
        assert!(got[0].causes.contains(&Cause::NotTokens), "{got:#?}");
        // Two decisions beyond k in one query, an unknown id and one kept
        // out of the pool.
        let got = kept_misses(&ix, &mut scratch, "retry with backoff", None, &["want", "want2", "nope", "old", "want"]);
        assert_eq!(got.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(), ["want", "want2", "old", "want"]);
        assert_eq!((got[0].rank, got[1].rank), (Some(5), Some(4)), "{got:#?}");
        assert_eq!(got[2].causes, [Cause::NotInPool]);
        // Out of scope, and a path that scores.
        let got = kept_misses(&ix, &mut scratch, "refund flow", Some("api/refunds.py"), &["web", "refund2"]);
        assert_eq!(got[0].causes[0], Cause::OutOfScope);
        // A chore: the decisions within k are `chore`, the others `beyond_k`
        // or below min_score.
        let got =
            kept_misses(&ix, &mut scratch, "fix typo in the refund flow", None, &["refund2", "web", "refund", "b1"]);
        assert_eq!(
            causes(&got).iter().map(|(id, c)| (*id, c[0])).collect::<Vec<_>>(),
            [("refund2", Cause::Chore), ("web", Cause::Chore), ("refund", Cause::Chore), ("b1", Cause::BelowMinScore)],
            "{got:#?}"
        );
        // A word most of the pool holds (the ranking's dense path).
        let got = kept_misses(&ix, &mut scratch, "service", None, &["weak", "f7", "want"]);
        assert_eq!(got[0].causes[0], Cause::BelowMinScore, "{got:#?}");
        kept_misses(&ix, &mut scratch, "service retry backoff", Some("web/checkout.ts"), &["want", "f3", "web"]);
        // A query without tokens: ranked again for each id.
        kept_misses(&ix, &mut scratch, "the and", None, &["want"]);
        // Nothing missed; the scratch is clear all the same.
        assert!(kept_misses(&ix, &mut scratch, "retry backoff", None, &[]).is_empty());
    }

    #[test]
    fn misses_from_the_kept_ranking_under_a_negative_floor_and_repeated_ids() {
        // Below a negative min_score every decision is a candidate, touched
        // by the query or not.
        let mut classic = Profile::of(Named::Classic);
        classic.min_score = Milli(-1);
        classic.k = 2;
        let ix = index(
            &format!(
                r#"[{{"id": "want", "type": "rule", "title": "retry budget"}},
                    {{"id": "b1", "type": "rule", "title": "retry backoff jitter"}},
                    {{"id": "b2", "type": "rule", "title": "retry backoff ceiling"}}, {}]"#,
                fillers()
            ),
            classic,
        );
        let mut scratch = Scratch::default();
        let got = kept_misses(&ix, &mut scratch, "retry with backoff", None, &["want", "f4", "f0"]);
        assert_eq!(got.iter().map(|m| m.rank).collect::<Vec<_>>(), [Some(3), Some(8), Some(4)], "{got:#?}");
        // Profile `mneme` keeps every copy of an id, and only the best one
        // ranks: ranked again for each id.
        let mut mneme = Profile::of(Named::Mneme);
        mneme.k = 1;
        let ix = index(
            r#"[{"id": "dup", "type": "rule", "title": "cache eviction size"},
                {"id": "dup", "type": "rule", "title": "cache eviction ttl"},
                {"id": "a", "type": "rule", "title": "cache eviction"},
                {"id": "b", "type": "rule", "title": "cache eviction ttl size"}]"#,
            mneme,
        );
        let got = kept_misses(&ix, &mut scratch, "cache eviction ttl size", None, &["dup", "a"]);
        assert_eq!(got.iter().map(|m| m.rank).collect::<Vec<_>>(), [Some(1), Some(3)], "{got:#?}");
    }

    #[test]
    fn an_unknown_id_has_no_answer_and_a_retrieved_one_no_cause() {
        let ix = index(
            &format!(r#"[{{"id": "a", "type": "rule", "title": "cache eviction policy"}}, {}]"#, fillers()),
            Profile::of(Named::Default),
        );
        assert!(ix.why_not(Query { task: "cache eviction", file: None }, "nope").is_none());
        let w = why(&ix, "cache eviction", None, "a");
        assert!(w.retrieved && w.causes.is_empty() && w.ahead.is_empty(), "{w:#?}");
        assert_eq!(w.rank, Some(1));
        assert!(matches!(fate(&w, "cache"), Fate::Scored { fields, .. } if fields == &[Field::Title]));
    }

    #[test]
    fn beyond_k_names_the_decisions_ahead_and_the_words_they_won_on() {
        let ix = index(
            &format!(
                r#"[{{"id": "want", "type": "rule", "title": "retry budget"}},
                    {{"id": "b1", "type": "rule", "title": "retry backoff jitter"}},
                    {{"id": "b2", "type": "rule", "title": "retry backoff ceiling"}},
                    {{"id": "b3", "type": "rule", "title": "retry backoff logging"}}, {}]"#,
                fillers()
            ),
            Profile::of(Named::Default),
        );
        let w = why(&ix, "retry with backoff", None, "want");
        assert_eq!((w.outcome.as_deref(), w.rank, w.retrieved), (Some("beyond_k"), Some(4), false), "{w:#?}");
        assert_eq!(w.causes, [Cause::BeyondK, Cause::LacksWords]);
        let ids: Vec<&str> = w.ahead.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["b1", "b2", "b3"]);
        assert!(w.ahead.iter().all(|c| c.only_theirs.iter().any(|g| g.token == "backoff")), "{w:#?}");
        assert_eq!(w.bar, w.ahead.last().map(|c| c.score));
        assert!(matches!(fate(&w, "backoff"), Fate::Absent { df: 3 }));
        assert!(matches!(fate(&w, "with"), Fate::Stopword { held: false }));
    }

    #[test]
    fn below_min_score_out_of_scope_chore_and_not_in_pool() {
        let ix = index(
            &format!(
                r#"[{{"id": "weak", "type": "rule", "title": "service mention", "content": "nothing else"}},
                    {{"id": "web", "type": "rule", "title": "refund flow", "scope": "web/**"}},
                    {{"id": "old", "type": "rule", "title": "refund flow legacy", "status": "superseded"}}, {}]"#,
                fillers()
            ),
            Profile::of(Named::Default),
        );
        let w = why(&ix, "service", None, "weak");
        assert_eq!((w.outcome.as_deref(), w.causes[0]), (Some("below_min_score"), Cause::BelowMinScore), "{w:#?}");
        assert!(matches!(fate(&w, "service"), Fate::Scored { common: true, .. }), "{w:#?}");
        let w = why(&ix, "refund flow", Some("api/refunds.py"), "web");
        assert_eq!(w.causes[0], Cause::OutOfScope);
        assert_eq!(w.scope_globs, ["web/**"]);
        let w = why(&ix, "fix typo in the refund flow", None, "web");
        assert_eq!(w.causes[0], Cause::Chore, "{w:#?}");
        let w = why(&ix, "refund flow", None, "old");
        assert_eq!((w.causes.as_slice(), w.score), (&[Cause::NotInPool][..], None), "{w:#?}");
    }

    /// Under `classic`, a word only in an ADR's sub-sections (which
    /// `default` scores with `content`) is said to be there, unscored.
    #[test]
    fn a_word_only_in_the_subsections_is_unscored_under_classic() {
        let text = r#"[{"id": "want", "type": "rule", "title": "partial hydration"},
                       {"id": "other", "type": "rule", "title": "island hydration pictures"}]"#;
        let with_subsections = |profile: Profile| {
            let mut memory = Memory::parse(Path::new("m.json"), text.to_string(), profile.family);
            memory.pool[0].rare_mut().sections.subsections = "Wrap each island.".into();
            Index::build(memory, profile)
        };
        let mut classic = Profile::of(Named::Classic);
        classic.k = 1;
        let w = why(&with_subsections(classic), "island hydration", None, "want");
        assert!(
            matches!(fate(&w, "island"), Fate::Unscored { fields, subsections: true } if fields.is_empty()),
            "{w:#?}"
        );
        assert!(w.causes.contains(&Cause::UnscoredField), "{:?}", w.causes);
        let w = why(&with_subsections(Profile::of(Named::Default)), "island hydration", None, "want");
        assert!(matches!(fate(&w, "island"), Fate::Scored { .. }), "{w:#?}");
    }

    #[test]
    fn unscored_fields_other_forms_and_unsplit_identifiers() {
        // Profile `classic` splits no identifier; a zero weight turns a field off.
        let mut classic = Profile::of(Named::Classic);
        classic.weights.content = Milli::ZERO;
        classic.k = 1;
        let ix = index(
            r#"[{"id": "want", "type": "rule", "title": "mesh policy", "content": "ledger notes",
                 "constraint": ["set MeshTimeout on every route", "retries stay bounded"]},
                {"id": "other", "type": "rule", "title": "route ledger retry timeout"}]"#,
            classic,
        );
        let w = why(&ix, "timeout route ledger retry", None, "want");
        assert!(matches!(fate(&w, "ledger"), Fate::Unscored { fields, .. } if fields == &[Field::Content]), "{w:#?}");
        assert!(
            matches!(fate(&w, "timeout"), Fate::OtherForm { forms, identifier: true } if forms == &["MeshTimeout"]),
            "{w:#?}"
        );
        // `retries` does not hold `retry`: no form of it, the word is absent.
        assert!(matches!(fate(&w, "retry"), Fate::Absent { df: 1 }), "{w:#?}");
        assert!(matches!(fate(&w, "route"), Fate::Scored { .. }));
        for cause in [Cause::BeyondK, Cause::UnscoredField, Cause::UnsplitIdentifier] {
            assert!(w.causes.contains(&cause), "{cause:?} in {:?}", w.causes);
        }
        // Profile `default` splits the identifier: the same word scores.
        let ix = index(
            r#"[{"id": "want", "type": "rule", "title": "mesh policy", "constraint": ["set MeshTimeout; timeouts vary"]}]"#,
            Profile::of(Named::Default),
        );
        let w = why(&ix, "timeout mesh", None, "want");
        assert!(matches!(fate(&w, "timeout"), Fate::Scored { .. }), "{w:#?}");
        // A longer form is another form; a word inside a longer one is not;
        // a plural is folded to its singular, and scores.
        let w = why(&ix, "timeout meshtimeouted vari", None, "want");
        assert!(
            matches!(fate(&w, "meshtimeouted"), Fate::OtherForm { forms, identifier: false } if forms == &["MeshTimeout"]),
            "{w:#?}"
        );
        let w = why(&ix, "meshtimeouts", None, "want");
        assert!(matches!(fate(&w, "meshtimeout"), Fate::Scored { .. }), "{w:#?}");
        let w = why(&ix, "timeout meshtimeouted vari", None, "want");
        assert!(matches!(fate(&w, "vari"), Fate::NotInMemory), "{w:#?}");
        let w = why(&ix, "vary the policy", None, "want");
        assert!(matches!(fate(&w, "vary"), Fate::Scored { .. }), "{w:#?}");
        // A word that says what kind of change the task is never scores.
        let w = why(&ix, "set the policy", None, "want");
        assert!(matches!(fate(&w, "set"), Fate::TaskVerb), "{w:#?}");
        // Nor does the label of a reference number, or its credit.
        let w = why(&ix, "feature #15 vary the policy (MeshAuthor)", None, "want");
        for word in ["feature", "meshauthor", "mesh", "author"] {
            assert!(matches!(fate(&w, word), Fate::TaskLabel), "{word}: {w:#?}");
        }
        assert!(matches!(fate(&w, "vary"), Fate::Scored { .. }), "{w:#?}");
    }

    #[test]
    fn other_form_and_too_common_path_words_and_words_nobody_holds() {
        let ix = index(
            &format!(
                r#"[{{"id": "want", "type": "rule", "title": "retrying outbound calls", "content": "handler code"}},
                    {}]"#,
                (0..12)
                    .map(|i| format!(r#"{{"id": "h{i}", "type": "rule", "title": "handler topic{i}"}}"#))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Profile::of(Named::Default),
        );
        let w = why(&ix, "retry zyzzyva", Some("src/handler.py"), "want");
        assert!(
            matches!(fate(&w, "retry"), Fate::OtherForm { forms, identifier: false } if forms == &["retrying"]),
            "{w:#?}"
        );
        assert!(matches!(fate(&w, "zyzzyva"), Fate::NotInMemory));
        assert!(matches!(fate(&w, "handler"), Fate::PathTooCommon { df: 13, n: 13, .. }), "{w:#?}");
        assert!(w.causes.contains(&Cause::OtherForm) && w.causes.contains(&Cause::PathTooCommon), "{:?}", w.causes);
        assert!(w.causes.contains(&Cause::NoSharedWords), "{:?}", w.causes);
    }

    #[test]
    fn a_spelling_of_a_path_word_that_does_not_count_is_outvoted_not_too_common() {
        let ix = index(
            r#"[{"id": "want", "type": "rule", "title": "security groups in terraform"},
                {"id": "redis", "type": "rule", "title": "backend redis cluster"},
                {"id": "o1", "type": "rule", "title": "other one"},
                {"id": "o2", "type": "rule", "title": "other two"}]"#,
            Profile::of(Named::Default),
        );
        let w = why(&ix, "talk to backend redis", Some("infra-security-groups/redis.tf"), "want");
        let outvoted: Vec<&str> = w
            .words
            .iter()
            .filter(|x| matches!(&x.fate, Fate::Outvoted { by } if by == "group" || by == "security"))
            .map(|x| x.word.as_str())
            .collect();
        assert_eq!(outvoted.len(), 1, "{w:#?}");
        assert!(!w.causes.contains(&Cause::PathTooCommon), "{:?}", w.causes);
    }

    #[test]
    fn a_short_word_the_decision_has_is_a_cause_and_one_it_lacks_is_not() {
        let ix = index(
            &format!(
                r#"[{{"id": "want", "type": "rule", "title": "schema migrations", "content": "the db owns it"}}, {}]"#,
                fillers()
            ),
            Profile::of(Named::Default),
        );
        let w = why(&ix, "db ui", None, "want");
        assert!(matches!(fate(&w, "db"), Fate::TooShort { min_token_len: 3, held: true }), "{w:#?}");
        assert!(matches!(fate(&w, "ui"), Fate::TooShort { held: false, .. }), "{w:#?}");
        assert!(w.causes.contains(&Cause::NotTokens), "{:?}", w.causes);
        let brief = w.brief();
        assert_eq!(brief.unscored.len(), 1);
        assert_eq!((brief.unscored[0].word.as_str(), brief.unscored[0].cause), ("db", Cause::NotTokens));
        let w = why(&ix, "ui schema", None, "want");
        assert!(!w.causes.contains(&Cause::NotTokens), "{:?}", w.causes);
    }

    #[test]
    fn a_competitor_holding_the_same_words_in_a_heavier_field_outweighs() {
        let mut profile = Profile::of(Named::Default);
        profile.k = 1;
        let ix = index(
            &format!(
                r#"[{{"id": "title", "type": "rule", "title": "ledger export"}},
                    {{"id": "body", "type": "rule", "title": "reports", "content": "the ledger export runs nightly"}}, {}]"#,
                fillers()
            ),
            profile,
        );
        let w = why(&ix, "ledger export", None, "body");
        assert_eq!(w.ahead[0].id, "title");
        assert!(w.ahead[0].only_theirs.is_empty(), "{w:#?}");
        let shared: Vec<&str> = w.ahead[0].shared_more.iter().map(|g| g.token.as_str()).collect();
        assert_eq!(shared, ["export", "ledger"], "{w:#?}");
        assert_eq!(w.causes, [Cause::BelowMinScore, Cause::Outweighed]);
    }

    #[test]
    fn a_competitor_winning_on_a_word_most_decisions_hold_is_named() {
        let mut profile = Profile::of(Named::Default);
        profile.k = 1;
        let ix = index(
            &format!(
                r#"[{{"id": "want", "type": "rule", "title": "ledger reconciliation"}},
                    {{"id": "hub", "type": "rule", "title": "service ledger service", "tags": ["service"]}}, {}]"#,
                fillers()
            ),
            profile,
        );
        let w = why(&ix, "ledger service", None, "want");
        assert_eq!(w.ahead.len(), 1, "{w:#?}");
        assert!(w.ahead[0].wins_on_common_words, "{w:#?}");
        assert!(w.causes.contains(&Cause::CommonWordsWin), "{:?}", w.causes);
    }
}
