//! Explaining a query record by record (spec §7), from the same stored
//! token sets the ranking uses, so an explanation never disagrees with it.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::bm25::TermScore;
use super::rank::Left;
use super::{Index, Query, Scratch};
use crate::memory::is_inactive;
use crate::profile::{Family, Field, Milli, Profile};
use crate::tokenize::normalise_path;

impl Index {
    /// Explains one query record by record (spec §7).
    pub fn explain(&self, query: Query<'_>) -> Explanation {
        self.explain_some(query, None, &mut Scratch::default())
    }

    /// [`Index::explain`] with records only for the decisions retrieved:
    /// the ranking and `k` records, whatever the size of the pool.
    pub fn explain_retrieved(&self, query: Query<'_>) -> Explanation {
        self.explain_some(query, Some(None), &mut Scratch::default())
    }

    /// [`Index::explain`]; with `only`, records only for the decisions
    /// retrieved and those with the id it holds, if any: what [`Index::why_not`]
    /// needs, at the cost of the ranking and a few records. `scratch` is
    /// the retrieval's working memory, reused.
    pub(super) fn explain_some(
        &self,
        query: Query<'_>,
        only: Option<Option<&str>>,
        scratch: &mut Scratch,
    ) -> Explanation {
        assert!(self.only.is_none(), "an index built for one query cannot explain");
        let asked = self.asked(query, None);
        // Every candidate above min_score tells `beyond_k` apart from
        // `below_min_score`; the first k of its ranking are the retrieval.
        // A chore is ranked all the same, to show what it would have got.
        // For a few records (`explain_some`) the candidates are not sorted:
        // the first k are selected, and a record's place is counted.
        let full = match only {
            None => self.rank_query(query, usize::MAX, scratch, false).0,
            Some(_) => self.candidates(query, scratch),
        };
        let ordered = only.is_none() || self.copies.is_some();
        let mut top: Vec<super::Hit> = if ordered {
            full.hits.iter().take(self.profile.k).copied().collect()
        } else {
            let mut top = full.hits.clone();
            super::rank(&mut top, self.profile.k);
            top
        };
        let within_k: HashMap<usize, usize> = top.iter().enumerate().map(|(i, h)| (h.pool, i + 1)).collect();
        let chore = self.chore_of(query);
        if chore.is_some() {
            top.clear();
        }
        let retrieval = super::Retrieval { hits: top, empty_query: full.empty_query, chore };
        let retrieved = ranks(&retrieval.hits);
        // The records to build: every pool decision, or (`explain_some`) the
        // retrieved ones and those with the id asked about, in pool order.
        let chosen: Option<Vec<usize>> = only.map(|id| self.chosen(&retrieved, id.into_iter()));

        // A decision's place in the full ranking (none: not a candidate),
        // and the copy of its id that ranks: every candidate's, or the
        // place searched (or counted) for each of the few records of
        // `explain_some` not retrieved (a retrieved one's place is its rank).
        let place_of = |d: usize| {
            if ordered {
                full.hits.iter().position(|h| h.pool == d).map(|i| i + 1)
            } else {
                full.hits
                    .iter()
                    .find(|h| h.pool == d)
                    .map(|me| 1 + full.hits.iter().filter(|h| super::rank::before(h, me)).count())
            }
        };
        let places: HashMap<usize, usize> = match &chosen {
            None => ranks(&full.hits),
            Some(v) => {
                v.iter().filter(|d| !retrieved.contains_key(d)).filter_map(|&d| place_of(d).map(|p| (d, p))).collect()
            }
        };
        // Copies of a repeated id (profile `mneme`): the one ranked, by id group.
        let ranked_copy: HashMap<usize, usize> = match (&chosen, &self.copies) {
            (_, None) => HashMap::new(),
            (None, Some(_)) => full.hits.iter().map(|h| (self.copy_group(h.pool), h.pool)).collect(),
            (Some(v), Some(_)) => v
                .iter()
                .map(|&d| self.copy_group(d))
                .filter_map(|g| full.hits.iter().find(|h| self.copy_group(h.pool) == g).map(|h| (g, h.pool)))
                .collect(),
        };
        let standing = Standing { retrieval, retrieved, within_k, places, ranked_copy };
        let records = self.records(&asked, &standing, chosen.as_deref(), |id| only.is_none_or(|only| only == Some(id)));
        self.explanation(query, asked, &standing.retrieval, records)
    }

    /// [`Index::explain_some`] with records for the decisions retrieved
    /// and those with any of the ids `ids`, from the scores and scope marks
    /// `ranked` kept instead of a ranking of the query again. `None` when
    /// they do not tell what explaining needs: the query had no tokens, the
    /// pool repeats ids (only the best-ranked copy of an id ranks), or
    /// `ranked` retrieved other than the profile's `k`.
    pub(super) fn explain_kept(&self, ranked: &super::Ranked<'_, '_>, ids: &[String]) -> Option<Explanation> {
        if ranked.left == Left::Nothing || self.copies.is_some() || ranked.k != self.profile.k {
            return None;
        }
        assert!(self.only.is_none(), "an index built for one query cannot explain");
        let query = ranked.query;
        let asked = self.asked(query, Some(&*ranked.scratch));
        let retrieval = super::Retrieval { hits: ranked.hits.clone(), empty_query: false, chore: ranked.chore };
        let retrieved = ranks(&retrieval.hits);
        let chosen = self.chosen(&retrieved, ids.iter().map(String::as_str));
        let missed: Vec<usize> = chosen.iter().copied().filter(|d| !retrieved.contains_key(d)).collect();
        let places = ranked.places(&missed, asked.path.is_some());
        // A chore retrieved nothing; the first k of its ranking are the
        // decisions placed within k.
        let within_k = match ranked.chore {
            Some(_) => places.iter().filter(|&(_, &p)| p <= self.profile.k).map(|(&d, &p)| (d, p)).collect(),
            None => retrieved.clone(),
        };
        let standing = Standing { retrieval, retrieved, within_k, places, ranked_copy: HashMap::new() };
        let records = self.records(&asked, &standing, Some(&chosen), |id| ids.iter().any(|i| i == id));
        Some(self.explanation(query, asked, &standing.retrieval, records))
    }

    /// What explaining needs of the query itself, whatever ranked it.
    /// `ranked`: the scratch of a ranking of the query that kept its state
    /// ([`super::Ranked`]), whose query tokens are taken as they are.
    fn asked(&self, query: Query<'_>, ranked: Option<&Scratch>) -> Asked<'_> {
        let path = query.file.map(normalise_path).filter(|p| !p.is_empty());
        // The globs that match, from the same set retrieval uses.
        let matched_globs: Vec<&str> = match &path {
            Some(p) => {
                let mut m = Vec::new();
                self.scopes.matches_into(p.as_str(), &mut m);
                m.iter().map(|&g| self.scopes.globs[g].glob()).collect()
            }
            None => Vec::new(),
        };
        let bm25 = self.profile.bm25f.is_some();
        // Under BM25F a reference label and its credit are not the task's words.
        let about = if bm25 { super::bm25::about_part(query.task) } else { None };
        let task_labels: Vec<String> =
            about.iter().flat_map(|a| std::iter::once(a.label).chain(a.credit)).map(str::to_string).collect();
        let mut all_tokens: Vec<String> = self.tokenizer.tokens(about.as_ref().map_or(query.task, |a| a.text.as_str()));
        let task_verbs: Vec<String> = all_tokens
            .iter()
            .filter(|t| !super::bm25::scores_as_task_word(t, bm25, &self.tokenizer))
            .cloned()
            .collect();
        if let Some(p) = &path {
            all_tokens.extend(self.tokenizer.tokens(p));
        }
        all_tokens.sort();
        all_tokens.dedup();
        // Under BM25F the task's tokens and the path's informative ones
        // are apart, exactly as the ranking takes them.
        let (q, path_words) = match (&self.profile.bm25f, ranked) {
            (None, _) => {
                let mut q: Vec<u32> = all_tokens.iter().filter_map(|t| self.vocab.get(t.as_str()).copied()).collect();
                q.sort_unstable();
                (q, Vec::new())
            }
            (Some(_), Some(scratch)) => (scratch.query.clone(), scratch.path_words.clone()),
            (Some(_), None) => {
                let (mut q, mut path_words) = (Vec::new(), Vec::new());
                self.query_tokens(query.task, path.as_deref(), &mut q, &mut path_words);
                (q, path_words)
            }
        };
        Asked { path, matched_globs, all_tokens, task_verbs, task_labels, q, path_words }
    }

    /// The pool decisions retrieved and those with the ids `ids`, in pool
    /// order.
    fn chosen<'i>(&self, retrieved: &HashMap<usize, usize>, ids: impl Iterator<Item = &'i str>) -> Vec<usize> {
        let mut v: Vec<usize> = retrieved.keys().copied().collect();
        for id in ids {
            v.extend(self.positions_of(id));
        }
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The records of the pool decisions `chosen` (every one when `None`),
    /// in pool order, then those of the records kept out of the pool whose
    /// id `wanted` takes.
    fn records(
        &self,
        asked: &Asked<'_>,
        standing: &Standing,
        chosen: Option<&[usize]>,
        wanted: impl Fn(&str) -> bool,
    ) -> Vec<ExplainedRecord> {
        let mut records = Vec::with_capacity(match chosen {
            None => self.decisions.len() + self.excluded.len(),
            Some(_) => self.profile.k.min(self.decisions.len()) + 1,
        });
        match chosen {
            Some(v) => records.extend(v.iter().map(|&d| self.record(d, asked, standing))),
            None => records.extend((0..self.decisions.len()).map(|d| self.record(d, asked, standing))),
        }
        for ex in self.excluded.iter().filter(|ex| wanted(&ex.id)) {
            let place = match &ex.file {
                Some(file) => format!("{file}:{}", ex.line),
                None => format!("line {}", ex.line),
            };
            records.push(ExplainedRecord {
                id: ex.id.clone(),
                title: ex.title.clone(),
                source: ex.file.as_ref().map(|f| format!("{f}:{}", ex.line)),
                pool_order: None,
                scope: ScopeCheck::NotInPool,
                fields: Vec::new(),
                terms: Vec::new(),
                tag_hits: Vec::new(),
                tag_boost: Milli::ZERO,
                score: None,
                rank: None,
                place: None,
                reason: Some(ex.reason.code().to_string()),
                detail: Some(format!("{place}: {}", ex.reason)),
            });
        }
        records
    }

    /// The record of pool decision `d`.
    fn record(&self, d: usize, asked: &Asked<'_>, standing: &Standing) -> ExplainedRecord {
        let Asked { path, matched_globs, q, path_words, .. } = asked;
        let retrieval = &standing.retrieval;
        let in_q = |t: &u32| q.binary_search(t).is_ok();
        let n = self.decisions.len() as u64;
        let decision = &self.decisions[d];
        let scope = match path {
            _ if !self.has_scope[d] => ScopeCheck::Unscoped,
            None => ScopeCheck::NoPath,
            Some(_) => match decision.globs.iter().position(|g| matched_globs.contains(&g.glob())) {
                Some(i) => ScopeCheck::Matched { glob: decision.paths[i].clone() },
                None => ScopeCheck::OutOfScope,
            },
        };
        let mut fields = Vec::new();
        let mut terms = Vec::new();
        let mut total = 0i64;
        if let Some(params) = &self.profile.bm25f {
            let all_fields = self.profile.fields();
            let term_of = |t: u32, from_path: bool| {
                let holding: Vec<usize> =
                    (0..self.nf).filter(|&f| self.field(d, f).binary_search(&t).is_ok()).collect();
                (!holding.is_empty()).then(|| {
                    super::bm25::term_score(
                        params,
                        &self.words[t as usize],
                        from_path,
                        self.posting(t).len() as u64,
                        n,
                        holding.iter().map(|&f| {
                            let field = all_fields[f];
                            (field, self.profile.weight(field), self.field(d, f).len() as u64, self.field_total[f])
                        }),
                    )
                })
            };
            for &t in q {
                if let Some(term) = term_of(t, false) {
                    total += term.contribution.0;
                    terms.push(term);
                }
            }
            // A path word counts once, by its best token here.
            for word in path_words.chunk_by(|a, b| a.0 == b.0) {
                let mut held: Vec<super::bm25::TermScore> =
                    word.iter().filter_map(|&(_, t)| term_of(t, true)).collect();
                held.sort_by(|a, b| b.contribution.cmp(&a.contribution).then_with(|| a.token.cmp(&b.token)));
                let Some(best) = held.first().map(|b| b.token.clone()) else { continue };
                total += held[0].contribution.0;
                for (i, mut term) in held.into_iter().enumerate() {
                    if i > 0 {
                        term.outvoted_by = Some(best.clone());
                    }
                    terms.push(term);
                }
            }
            // What counts first, the outvoted path tokens last.
            terms.sort_by(|a, b| {
                (a.outvoted_by.is_some(), b.contribution)
                    .cmp(&(b.outvoted_by.is_some(), a.contribution))
                    .then_with(|| a.token.cmp(&b.token))
            });
        }
        for (f, field) in Field::ALL.iter().enumerate().filter(|_| self.profile.bm25f.is_none()) {
            let matched: Vec<String> =
                self.field(d, f).iter().filter(|t| in_q(t)).map(|&t| self.words[t as usize].to_string()).collect();
            let weight = self.profile.weights.of(*field);
            let contribution = Milli(weight.0 * matched.len() as i64);
            total += contribution.0;
            if !matched.is_empty() {
                fields.push(FieldMatch {
                    field: *field,
                    count: matched.len(),
                    weight,
                    contribution,
                    tokens: sorted(matched),
                });
            }
        }
        let tag_hits: Vec<String> = self
            .tags_of(d)
            .iter()
            .filter(|t| self.tag_entry_tokens(t).iter().all(in_q))
            .map(|t| decision.tags[t.position as usize].clone())
            .collect();
        let tag_boost = Milli(self.profile.tag_boost.0 * tag_hits.len() as i64);
        let mut detail = None;
        total += tag_boost.0;
        let mut score = Milli(total);
        if retrieval.empty_query && self.profile.family == Family::Mneme {
            score = Milli(1000);
        }
        let rank = standing.retrieved.get(&d).copied();
        // A retrieved record's place is its rank.
        let place = rank.or_else(|| standing.places.get(&d).copied());
        let better_copy = match &self.copies {
            Some(_) => standing.ranked_copy.get(&self.copy_group(d)).copied().filter(|&c| c != d),
            None => None,
        };
        let reason = if rank.is_some() {
            None
        } else if let Some(c) = better_copy {
            detail = Some(format!(
                "the copy of this id at pool {c} ranks higher; profile mneme keeps the best-ranked copy of an id, as Mneme 0.10.0 does"
            ));
            Some("duplicate_id")
        } else if scope == ScopeCheck::OutOfScope {
            Some("out_of_scope")
        } else if let (Some(chore), Some(at)) = (retrieval.chore, standing.within_k.get(&d)) {
            detail = Some(format!("rank {at} of the ranking; the task is {}, so nothing is retrieved", chore.word()));
            Some("chore")
        } else if place.is_some() || (retrieval.empty_query && self.profile.family == Family::Mneme) {
            Some("beyond_k")
        } else {
            Some("below_min_score")
        };
        if detail.is_none() && self.profile.family == Family::Mneme {
            detail = decision
                .status()
                .filter(|s| is_inactive(s))
                .map(|s| format!("status `{s}` is inactive; profile mneme ignores status, as Mneme 0.10.0 does"));
        }
        ExplainedRecord {
            id: decision.id.clone(),
            title: decision.title.clone(),
            source: decision.origin().map(ToString::to_string),
            pool_order: Some(d),
            scope,
            fields,
            terms,
            tag_hits,
            tag_boost,
            score: Some(score),
            rank,
            place,
            reason: reason.map(str::to_string),
            detail,
        }
    }

    /// The explanation of `query` from its parts.
    fn explanation(
        &self,
        query: Query<'_>,
        asked: Asked<'_>,
        retrieval: &super::Retrieval,
        records: Vec<ExplainedRecord>,
    ) -> Explanation {
        let Asked { path, all_tokens, task_verbs, task_labels, path_words, .. } = asked;
        Explanation {
            task: query.task.to_string(),
            path_tokens: {
                let mut v: Vec<String> = path_words.iter().map(|&(_, t)| self.words[t as usize].to_string()).collect();
                v.sort();
                v
            },
            task_verbs,
            task_labels,
            file: path,
            query_tokens: all_tokens,
            profile: self.profile.clone(),
            retrieved: retrieval.hits.iter().map(|h| self.decisions[h.pool].id.clone()).collect(),
            note: retrieval.why_empty(&self.profile),
            records,
        }
    }
}

/// What explaining needs of a query, read once for all its records.
struct Asked<'i> {
    /// Its path, normalised (none when empty).
    path: Option<String>,
    /// The scope globs the path matches.
    matched_globs: Vec<&'i str>,
    /// Its tokens, sorted, known or not.
    all_tokens: Vec<String>,
    /// The task's tokens that do not score as task words (profile
    /// `default`'s [`super::bm25::TASK_VERBS`]), sorted.
    task_verbs: Vec<String>,
    /// Profile `default`: the reference label and credit the task opens
    /// and ends with ([`super::bm25::about_part`]), as written.
    task_labels: Vec<String>,
    /// The ids of the tokens that score as the task's (under BM25F the
    /// task's alone), sorted.
    q: Vec<u32>,
    /// Under BM25F: the path's informative tokens, as the ranking takes
    /// them ([`Index::query_tokens`]).
    path_words: Vec<(u32, u32)>,
}

/// How the query ranked, as each record reads it.
struct Standing {
    /// What was retrieved (nothing for a chore).
    retrieval: super::Retrieval,
    /// The rank of each decision retrieved.
    retrieved: HashMap<usize, usize>,
    /// The place of each of the first `k` of the ranking, for a chore.
    within_k: HashMap<usize, usize>,
    /// The place in the ranking of every candidate of the records to build
    /// that are candidates and not retrieved.
    places: HashMap<usize, usize>,
    /// Profile `mneme`, with repeated ids: the copy of an id (by id group)
    /// that ranks.
    ranked_copy: HashMap<usize, usize>,
}

/// The rank (1 the best) of each of `hits`, by pool position.
fn ranks(hits: &[super::Hit]) -> HashMap<usize, usize> {
    hits.iter().enumerate().map(|(i, h)| (h.pool, i + 1)).collect()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// What the scope pre-filter did with one record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum ScopeCheck {
    /// The record has no scope globs: always a candidate.
    Unscoped,
    /// The query has no path: scope is not checked.
    NoPath,
    Matched {
        glob: String,
    },
    OutOfScope,
    NotInPool,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct FieldMatch {
    pub field: Field,
    pub tokens: Vec<String>,
    pub count: usize,
    pub weight: Milli,
    pub contribution: Milli,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ExplainedRecord {
    pub id: String,
    pub title: String,
    /// Where the record was read (`file:line`), for a memory read from a
    /// list of sources.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    pub pool_order: Option<usize>,
    pub scope: ScopeCheck,
    /// Profiles `classic` and `mneme`: per field, the query tokens it holds
    /// and what they add (count × weight).
    pub fields: Vec<FieldMatch>,
    /// Profile `default` (BM25F): per query token the record holds, its
    /// contribution with every constant ([`TermScore`]), largest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub terms: Vec<TermScore>,
    pub tag_hits: Vec<String>,
    pub tag_boost: Milli,
    pub score: Option<Milli>,
    pub rank: Option<usize>,
    /// Its place (1-based) in the ranking of every candidate above
    /// `min_score`, before `k` and the chore rule cut it; none when it is
    /// not a candidate.
    #[serde(skip)]
    pub place: Option<usize>,
    /// Why it was not retrieved: `not_eligible_type`, `inactive_status`,
    /// `duplicate_id`, `out_of_scope`, `chore` (in the top k of a task that
    /// is a chore), `below_min_score` or `beyond_k`.
    pub reason: Option<String>,
    pub detail: Option<String>,
}

impl ExplainedRecord {
    /// Each query token the record scores on, with what it adds: its
    /// term's contribution under BM25F, else the weights of the fields
    /// holding it (complete tags' boosts apart, in `tag_boost`).
    pub fn token_contributions(&self) -> BTreeMap<String, Milli> {
        let mut out: BTreeMap<String, Milli> = BTreeMap::new();
        for t in self.terms.iter().filter(|t| t.outvoted_by.is_none()) {
            out.entry(t.token.clone()).or_default().0 += t.contribution.0;
        }
        for f in &self.fields {
            for token in &f.tokens {
                out.entry(token.clone()).or_default().0 += f.weight.0;
            }
        }
        out
    }
}

/// The answer to "why these decisions?" for one query.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Explanation {
    pub task: String,
    pub file: Option<String>,
    pub query_tokens: Vec<String>,
    /// Profile `default`: the path's tokens that score (informative, not
    /// task tokens), at `path_weight`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub path_tokens: Vec<String>,
    /// Profile `default`: the task's tokens that say what kind of change it
    /// is (`add`, `fix`), which are not scored.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub task_verbs: Vec<String>,
    /// Profile `default`: the label of the reference number the task opens
    /// with (`feature #15063`, `Story #2177`) and the credit it then ends
    /// with (`(NoResponseMate)`), as written, which are not scored.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub task_labels: Vec<String>,
    pub profile: Profile,
    pub retrieved: Vec<String>,
    pub note: Option<String>,
    pub records: Vec<ExplainedRecord>,
}
