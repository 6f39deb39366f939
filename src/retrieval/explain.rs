//! Explaining a query record by record (spec §7), from the same stored
//! token sets the ranking uses, so an explanation never disagrees with it.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::bm25::TermScore;
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
        let mut all_tokens: Vec<String> = self.tokenizer.tokens(query.task);
        if let Some(p) = &path {
            all_tokens.extend(self.tokenizer.tokens(p));
        }
        all_tokens.sort();
        all_tokens.dedup();
        let mut q: Vec<u32> = all_tokens.iter().filter_map(|t| self.vocab.get(t.as_str()).copied()).collect();
        q.sort_unstable();
        // Under BM25F the task's tokens and the path's informative ones
        // are apart, exactly as the ranking takes them.
        let mut path_words = Vec::new();
        if self.profile.bm25f.is_some() {
            self.query_tokens(query.task, path.as_deref(), &mut q, &mut path_words);
        }
        let in_q = |t: &u32| q.binary_search(t).is_ok();
        let n = self.decisions.len() as u64;

        // A decision's place in the full ranking (none: not a candidate),
        // and the copy of its id that ranks: looked up in maps for every
        // record, or searched (or counted) for the few records of
        // `explain_some`.
        let rank_of: HashMap<usize, usize> = match only {
            None => full.hits.iter().enumerate().map(|(i, h)| (h.pool, i + 1)).collect(),
            Some(_) => HashMap::new(),
        };
        let place_of = |d: usize| match (only, ordered) {
            (None, _) => rank_of.get(&d).copied(),
            (Some(_), true) => full.hits.iter().position(|h| h.pool == d).map(|i| i + 1),
            (Some(_), false) => full
                .hits
                .iter()
                .find(|h| h.pool == d)
                .map(|me| 1 + full.hits.iter().filter(|h| super::rank::before(h, me)).count()),
        };
        // Copies of a repeated id (profile `mneme`): the one ranked, by id group.
        let ranked_copy: HashMap<usize, usize> = match (only, &self.copies) {
            (None, Some(_)) => full.hits.iter().map(|h| (self.copy_group(h.pool), h.pool)).collect(),
            _ => HashMap::new(),
        };
        let copy_ranked = |group: usize| match (only, &self.copies) {
            (_, None) => None,
            (None, Some(_)) => ranked_copy.get(&group).copied(),
            (Some(_), Some(_)) => full.hits.iter().find(|h| self.copy_group(h.pool) == group).map(|h| h.pool),
        };
        let retrieved: HashMap<usize, usize> =
            retrieval.hits.iter().enumerate().map(|(i, h)| (h.pool, i + 1)).collect();

        let mut records = Vec::with_capacity(match only {
            None => self.decisions.len() + self.excluded.len(),
            Some(_) => self.profile.k.min(self.decisions.len()) + 1,
        });
        // The records to build: every pool decision, or (`explain_some`) the
        // retrieved ones and those with the id asked about, in pool order.
        let chosen: Option<Vec<usize>> = only.map(|id| {
            let mut v: Vec<usize> = retrieved.keys().copied().collect();
            if let Some(id) = id {
                v.extend(self.positions_of(id));
            }
            v.sort_unstable();
            v.dedup();
            v
        });
        let pools: Box<dyn Iterator<Item = usize>> = match &chosen {
            Some(v) => Box::new(v.iter().copied()),
            None => Box::new(0..self.decisions.len()),
        };
        for d in pools {
            let decision = &self.decisions[d];
            let scope = match &path {
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
                for &t in &q {
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
            let rank = retrieved.get(&d).copied();
            // A retrieved record's place is its rank.
            let place = rank.or_else(|| place_of(d));
            let better_copy = copy_ranked(self.copy_group(d)).filter(|&c| c != d);
            let reason = if rank.is_some() {
                None
            } else if let Some(c) = better_copy {
                detail = Some(format!(
                    "the copy of this id at pool {c} ranks higher; profile mneme keeps the best-ranked copy of an id, as Mneme 0.10.0 does"
                ));
                Some("duplicate_id")
            } else if scope == ScopeCheck::OutOfScope {
                Some("out_of_scope")
            } else if let (Some(chore), Some(at)) = (retrieval.chore, within_k.get(&d)) {
                detail =
                    Some(format!("rank {at} of the ranking; the task is {}, so nothing is retrieved", chore.word()));
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
            records.push(ExplainedRecord {
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
            });
        }
        for ex in self.excluded.iter().filter(|ex| only.is_none_or(|id| id == Some(ex.id.as_str()))) {
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
        let note = retrieval.why_empty(&self.profile);
        Explanation {
            task: query.task.to_string(),
            file: path,
            query_tokens: all_tokens,
            path_tokens: {
                let mut v: Vec<String> = path_words.iter().map(|&(_, t)| self.words[t as usize].to_string()).collect();
                v.sort();
                v
            },
            profile: self.profile.clone(),
            retrieved: retrieval.hits.iter().map(|h| self.decisions[h.pool].id.clone()).collect(),
            note,
            records,
        }
    }
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
    pub profile: Profile,
    pub retrieved: Vec<String>,
    pub note: Option<String>,
    pub records: Vec<ExplainedRecord>,
}
