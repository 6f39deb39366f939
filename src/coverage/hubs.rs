//! Hubs: decisions that come back for a large share of the suite, or for a
//! control scenario, while few of the scenarios that retrieve them expect
//! them. Each is given with the query terms that make it win, summed from
//! the retriever's own explanation ([`Index::explain`]) of the scenarios that
//! retrieve it, so that the figures are the ones `explain` prints (each
//! explanation holds only the retrieved decisions:
//! [`Index::explain_retrieved`]).

use std::collections::BTreeMap;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::{Ranked, MIN_SUPPORT};
use crate::profile::Milli;
use crate::retrieval::{Index, Query};
use crate::scenarios::Scenario;

/// The default `--hub-share`: a quarter of the suite's scenarios.
pub const DEFAULT_HUB_SHARE: f64 = 0.25;

/// How many control scenarios a hub names (all of them are counted).
pub const CONTROL_LIMIT: usize = 10;

/// How many terms a hub lists.
pub const TERM_LIMIT: usize = 5;

/// Decisions retrieved far more often than they are expected.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Hubs {
    /// A decision retrieved by more than this share of the suite's
    /// scenarios (and by at least 2, [`MIN_SUPPORT`]) is a hub when it is
    /// rarely expected (`--hub-share`, as a fraction); so is one that a
    /// control scenario (one that expects no decision) retrieves.
    pub min_share: f64,
    /// The hubs: most scenarios first, then by id.
    pub decisions: Vec<Hub>,
}

/// A decision retrieved by many scenarios, or by a control, and expected by
/// fewer than half of the scenarios that retrieve it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Hub {
    pub id: String,
    pub title: String,
    /// Scenarios that retrieve it (in their top `k`).
    pub retrieved: usize,
    /// `retrieved / scenarios` of the suite.
    pub share: f64,
    /// Of those, the scenarios that expect it.
    pub expected: usize,
    /// Of those, the scenarios that list it as acceptable (they tolerate
    /// it; they do not need it).
    pub accepted: usize,
    /// Of those, the governed scenarios that do not expect it and miss one
    /// of their expected decisions: it holds a slot the missed one needed.
    pub missing: usize,
    /// Of those, the control scenarios (they expect no decision).
    pub controls: usize,
    /// The first control scenarios that retrieve it, by id (at most 10,
    /// [`CONTROL_LIMIT`]).
    pub control_scenarios: Vec<String>,
    /// The scenarios its terms are summed over: every scenario that
    /// retrieves it.
    pub explained: usize,
    /// The query tokens that add the most to its score, summed over the
    /// `explained` scenarios (at most 5, [`TERM_LIMIT`]), largest first,
    /// then by token.
    pub terms: Vec<HubTerm>,
    /// What complete tags added to its score, summed over the same
    /// scenarios.
    pub tag_boost: f64,
}

/// One query token of the scenarios that retrieve a hub.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HubTerm {
    pub token: String,
    /// What it added to the hub's score, summed over the hub's `explained`
    /// scenarios (each figure as `explain` gives it).
    pub contribution: f64,
    /// In how many of those scenarios it scored for the hub.
    pub scenarios: usize,
    /// How many pool decisions hold it (its document frequency).
    pub df: u64,
}

/// Per copy group: how the suite retrieves it.
#[derive(Default)]
struct Tally<'s> {
    retrieved: usize,
    expected: usize,
    accepted: usize,
    missing: usize,
    controls: Vec<&'s str>,
    /// The scenarios that retrieve it, by index.
    first: Vec<usize>,
}

/// One hub's figures in one scenario, read from its explanation.
struct Scored {
    group: usize,
    terms: Vec<(String, i64)>,
    tag_boost: i64,
}

/// One scenario's explanation, as far as its hubs go: their figures, and
/// the document frequency of their tokens.
struct Explained {
    scored: Vec<Scored>,
    df: Vec<(String, u64)>,
}

/// One hub's figures summed over the scenarios: per token, its milli-points
/// and in how many scenarios it scored; and the tag boost.
#[derive(Default)]
struct Sum {
    terms: BTreeMap<String, (i64, usize)>,
    tag_boost: i64,
    explained: usize,
}

/// The hubs of the suite: `min_share` is a fraction of the scenarios.
pub(super) fn hubs(index: &Index, scenarios: &[Scenario], ranked: &[Ranked], min_share: f64) -> Hubs {
    let mut tally: BTreeMap<usize, Tally> = BTreeMap::new();
    let mut groups: Vec<usize> = Vec::new();
    for (i, (s, r)) in scenarios.iter().zip(ranked).enumerate() {
        groups.clear();
        groups.extend(r.hits.iter().map(|h| index.copy_group(h.pool)));
        groups.sort_unstable();
        groups.dedup();
        let misses = s.expect.iter().any(|e| !r.hits.iter().any(|h| &index.decision(h.pool).id == e));
        for &g in &groups {
            let t = tally.entry(g).or_default();
            t.retrieved += 1;
            t.first.push(i);
            let id = &index.decision(g).id;
            if s.expect.contains(id) {
                t.expected += 1;
            } else if misses {
                t.missing += 1;
            }
            if s.acceptable.contains(id) {
                t.accepted += 1;
            }
            if !s.is_governed() {
                t.controls.push(&s.id);
            }
        }
    }
    let n = scenarios.len();
    // In the list's order: most scenarios first, then by id.
    let mut order: Vec<(usize, Tally)> = tally
        .into_iter()
        .filter(|(_, t)| {
            // Compared as the report prints it: `retrieved / scenarios`, then
            // `percent / 100`, each the nearest double to its fraction.
            let wide = t.retrieved >= MIN_SUPPORT && t.retrieved as f64 / n as f64 > min_share;
            (wide || !t.controls.is_empty()) && 2 * t.expected < t.retrieved
        })
        .collect();
    order.sort_by(|(a, x), (b, y)| {
        y.retrieved.cmp(&x.retrieved).then_with(|| index.decision(*a).id.cmp(&index.decision(*b).id))
    });

    // The scenarios to explain, each with the hubs it is explained for.
    // An explanation of the retrieved decisions only costs a ranking.
    let mut wanted: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (g, t) in &order {
        for &i in &t.first {
            wanted.entry(i).or_default().push(*g);
        }
    }
    let wanted: Vec<(usize, Vec<usize>)> = wanted.into_iter().collect();
    let explained: Vec<Explained> = wanted
        .par_iter()
        .map(|(i, hubs)| {
            let s = &scenarios[*i];
            let explanation = index.explain_retrieved(Query { task: &s.task, file: s.file.as_deref() });
            let mut scored = Vec::new();
            for h in &ranked[*i].hits {
                let group = index.copy_group(h.pool);
                if !hubs.contains(&group) || scored.iter().any(|x: &Scored| x.group == group) {
                    continue;
                }
                let Some(record) = explanation.records.iter().find(|x| x.pool_order == Some(h.pool)) else {
                    continue;
                };
                scored.push(Scored {
                    group,
                    terms: record.token_contributions().into_iter().map(|(t, c)| (t, c.0)).collect(),
                    tag_boost: record.tag_boost.0,
                });
            }
            let tokens: Vec<&str> = scored.iter().flat_map(|s| s.terms.iter().map(|(t, _)| t.as_str())).collect();
            let df = tokens.iter().map(|&t| (t.to_string(), index.document_frequency(t))).collect();
            Explained { scored, df }
        })
        .collect();

    // Summed in suite order: the same figures whatever the threads.
    let mut sums: FxHashMap<usize, Sum> = FxHashMap::default();
    let mut df: BTreeMap<String, u64> = BTreeMap::new();
    for e in explained {
        for s in e.scored {
            let sum = sums.entry(s.group).or_default();
            sum.explained += 1;
            sum.tag_boost += s.tag_boost;
            for (token, c) in s.terms {
                let slot = sum.terms.entry(token).or_default();
                slot.0 += c;
                slot.1 += 1;
            }
        }
        df.extend(e.df);
    }
    let decisions: Vec<Hub> = order
        .into_iter()
        .map(|(g, t)| {
            let decision = index.decision(g);
            let sum = sums.remove(&g).unwrap_or_default();
            let mut terms: Vec<HubTerm> = sum
                .terms
                .into_iter()
                .map(|(token, (c, scenarios))| HubTerm {
                    df: df.get(&token).copied().unwrap_or(0),
                    contribution: Milli(c).as_f64(),
                    scenarios,
                    token,
                })
                .collect();
            terms.sort_by(|a, b| b.contribution.total_cmp(&a.contribution).then_with(|| a.token.cmp(&b.token)));
            terms.truncate(TERM_LIMIT);
            let mut controls: Vec<String> = t.controls.iter().map(|s| s.to_string()).collect();
            controls.sort();
            let count = controls.len();
            controls.truncate(CONTROL_LIMIT);
            Hub {
                id: decision.id.clone(),
                title: decision.title.clone(),
                retrieved: t.retrieved,
                share: t.retrieved as f64 / n as f64,
                expected: t.expected,
                accepted: t.accepted,
                missing: t.missing,
                controls: count,
                control_scenarios: controls,
                explained: sum.explained,
                terms,
                tag_boost: Milli(sum.tag_boost).as_f64(),
            }
        })
        .collect();
    Hubs { min_share, decisions }
}
