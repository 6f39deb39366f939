/*!
Coverage and confidence (`mneme-gate coverage`): what a green gate does not
say. A suite that passes says nothing about the decisions it never tests, nor
about a retrieval that holds by a hair. This stage works that out for a
memory and a suite, as plain data ([`Coverage`], schema
`mneme-gate.coverage/v1`, published in `schema/coverage.schema.json`):

- **ungated decisions**: pool decisions that no scenario expects, and the
  share of the pool that is gated, per record kind and per scope folder;
- **unreachable decisions**: decisions that do not come back in the top `k`
  for their own title (with, for a scoped decision, a path each of its globs
  matches), named with the decisions that beat them; decisions whose scope
  matches no file git tracks; decisions with no tokens;
- **fragile retrievals**: governed scenarios whose margin (the same figure
  as the run report's `metrics.margin`, docs/metrics.md) is below a
  threshold;
- **overlap**: pairs of decisions retrieved together in most scenarios that
  retrieve either, and decisions that compete for the same scenarios;
- **hubs**: decisions in the top `k` of more than a share of the suite
  (`--hub-share`), or of a control scenario, that fewer than half of the
  scenarios retrieving them expect, each with the query terms that make it
  win, summed from the retriever's own explanation of those scenarios.

Every per-scenario figure comes from that scenario's own ranking, computed
as `run` computes it ([`crate::run::runner_up_of`],
[`ScenarioMetrics::with_margins`]). The all-pairs figures are built from the
per-scenario retrieved lists (at most `k` decisions each), never by
comparing every pair of the pool. Lists are sorted, so the same inputs give
the same bytes whatever the number of threads.

The code: this module gathers the figures; `probe` makes the representative
paths and asks the retriever; `hubs` finds the hubs and explains them;
`terminal` and `markdown` render them.
*/

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::memory::{Decision, RecordKind};
use crate::metrics::{RunnerUpEntry, ScenarioMetrics};
use crate::profile::{Field, Milli};
use crate::report::{display_path, ProfileFingerprint};
use crate::retrieval::{Hit, Index, Query, RunnerUp, Scratch};
use crate::run::{retrieved_of, runner_up_of, scored};
use crate::scenarios::Scenario;

mod hubs;
pub mod markdown;
mod probe;
pub mod terminal;
#[cfg(test)]
mod tests;

pub use hubs::{Hub, HubTerm, Hubs, CONTROL_LIMIT, DEFAULT_HUB_SHARE, TERM_LIMIT};

/// The schema name written in every coverage report.
pub const COVERAGE_SCHEMA: &str = "mneme-gate.coverage/v1";

/// Pairs and competitions need at least this many scenarios: one scenario
/// retrieving two decisions together says nothing about merging them.
pub const MIN_SUPPORT: usize = 2;

/// The coverage of a memory by a suite (`coverage --json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Coverage {
    /// Always `mneme-gate.coverage/v1`.
    pub schema: String,
    pub tool: Tool,
    pub inputs: Inputs,
    /// Decisions in the retrieval pool.
    pub pool: usize,
    /// Scenarios in the suite.
    pub scenarios: usize,
    /// Scenarios that expect at least one decision.
    pub governed: usize,
    pub gating: Gating,
    pub unreachable: Unreachable,
    pub fragile: Fragile,
    pub overlap: Overlap,
    pub hubs: Hubs,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Tool {
    pub name: String,
    pub version: String,
}

/// What the analysis read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Inputs {
    /// The memory file, as the run report's `fingerprint.memory.path`.
    pub memory: String,
    /// Lower-case hex SHA-256 of the memory file's bytes.
    pub memory_sha256: String,
    /// The suite roots, as given.
    pub suite_roots: Vec<String>,
    /// The effective profile.
    pub profile: ProfileFingerprint,
    pub k: usize,
}

/// Which pool decisions some scenario expects (gated) and which none does
/// (ungated).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Gating {
    /// How many pool decisions have an id some scenario expects.
    pub gated_count: usize,
    /// How many pool decisions have an id no scenario expects.
    pub ungated_count: usize,
    /// `gated_count / pool`; `null` for an empty pool.
    pub gated_share: Option<f64>,
    /// The ungated decisions, in pool order.
    pub ungated_decisions: Vec<DecisionEntry>,
    /// Per record kind (`decision record`, or the item's type), by name.
    pub by_kind: Vec<Group>,
    /// Per scope folder (the literal folder each scope glob starts with;
    /// `(no scope)`, `(root)`, `(any folder)`), by name. A decision with
    /// globs in several folders counts in each.
    pub by_scope_folder: Vec<Group>,
}

/// A decision, as the lists show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DecisionEntry {
    pub id: String,
    pub title: String,
    /// `decision record`, or the item's type.
    pub kind: String,
    /// Its scope globs, as written.
    pub scope: Vec<String>,
}

/// The gated share of one group of decisions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Group {
    pub name: String,
    /// How many pool decisions are in the group.
    pub decision_count: usize,
    /// How many of them some scenario expects.
    pub gated_count: usize,
    /// How many of them no scenario expects.
    pub ungated_count: usize,
    /// `gated_count / decision_count`.
    pub gated_share: f64,
}

/// Decisions that cannot reach the agent, or only some of the time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Unreachable {
    /// Decisions that do not come back in the top `k` for their own words,
    /// in pool order.
    pub shadowed: Vec<Shadowed>,
    /// Scope globs for which no path that the glob matches could be made
    /// (a negated class that excludes every candidate character, say): not
    /// probed.
    pub unprobed: Vec<GlobEntry>,
    /// Scope globs checked against the repository's files.
    pub scope_check: ScopeCheck,
    /// Decisions whose every field tokenises to nothing: no query retrieves
    /// them (profile `mneme` aside, whose empty-query fallback may).
    pub no_tokens: Vec<DecisionEntry>,
}

/// A decision that does not come back for its own words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Shadowed {
    pub id: String,
    pub title: String,
    /// The queries it did not come back for.
    pub probes: Vec<Probe>,
}

/// One query made of a decision's own words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Probe {
    /// The task: the decision's title (all of its text when the title has
    /// no tokens).
    pub task: String,
    /// The file: a path one of its scope globs matches; `null` for the
    /// query without a file.
    pub file: Option<String>,
    /// The glob `file` was made from.
    pub glob: Option<String>,
    /// The decision's own score for the query.
    pub score: f64,
    /// Its rank among every candidate of the query; `null` when it is not a
    /// candidate (its score is not above `min_score`).
    pub rank: Option<usize>,
    /// The decisions retrieved instead (the top `k`), with their scores.
    pub beaten_by: Vec<Scored>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Scored {
    pub id: String,
    /// The exact score (a multiple of 0.001).
    pub score: f64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GlobEntry {
    pub id: String,
    pub glob: String,
}

/// The scope globs against the repository's files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ScopeCheck {
    /// Whether the globs were checked (against the files git tracks).
    pub checked: bool,
    /// Why not, when they were not.
    pub note: Option<String>,
    /// How many files were checked.
    pub files: usize,
    /// Scoped decisions with a glob that matches no file, in pool order.
    pub decisions: Vec<UnmatchedScope>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct UnmatchedScope {
    pub id: String,
    pub title: String,
    /// Its globs (as written) that match no file.
    pub globs: Vec<String>,
    /// No glob of its scope matches a file: with a file given, it is never
    /// in scope.
    pub every_glob: bool,
}

/// Governed scenarios whose expected decisions win by less than the
/// threshold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Fragile {
    /// The threshold: a scenario whose margin is below it is fragile.
    pub margin_below: f64,
    /// Where the threshold comes from: `--min-margin`, `gate.min_margin`,
    /// or `the heaviest field weight` (the score one word of that field adds).
    pub threshold_from: String,
    /// Governed scenarios with a margin (every expected decision retrieved,
    /// and a runner-up).
    pub with_margin: usize,
    /// The smallest margin observed in the suite (the run report's
    /// `summary.smallest_margin`); `null` when no scenario has a margin.
    pub smallest_margin: Option<f64>,
    /// The fragile scenarios, smallest margin first, then by id.
    pub scenarios: Vec<FragileScenario>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FragileScenario {
    pub id: String,
    /// `path:line:column`.
    pub source: String,
    pub margin: f64,
    pub confidence: Option<f64>,
    /// The lowest-ranked expected decision.
    pub last_expected: RankedEntry,
    /// The best decision left out.
    pub runner_up: RunnerUpEntry,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RankedEntry {
    pub id: String,
    pub score: f64,
    /// 1-based.
    pub rank: usize,
}

/// Decisions that go together, and decisions that compete.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Overlap {
    /// Pairs retrieved together in more than half of the scenarios that
    /// retrieve either, and in at least [`MIN_SUPPORT`] scenarios:
    /// candidates for merging. Highest share first.
    pub together: Vec<Together>,
    /// An expected decision and a decision that competes with it (the
    /// runner-up of a scenario expecting it, or a decision retrieved in a
    /// scenario that misses it), in at least [`MIN_SUPPORT`] scenarios.
    /// Most scenarios first.
    pub competing: Vec<Competing>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Together {
    /// The pair, in id order.
    pub a: String,
    pub b: String,
    /// Scenarios retrieving both.
    pub together: usize,
    /// Scenarios retrieving either.
    pub either: usize,
    /// `together / either`.
    pub share: f64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Competing {
    /// The decision the scenarios expect.
    pub expected: String,
    /// The decision that competes with it.
    pub competitor: String,
    /// The scenarios, by id.
    pub scenarios: Vec<String>,
}

/// The repository's files the scope globs are checked against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Files {
    /// Paths from the root of the repository, `/`-separated.
    Tracked(Vec<String>),
    /// Not checked, and why.
    NotChecked(String),
}

/// What the analysis needs besides the index and the suite.
#[derive(Debug, Clone)]
pub struct Options {
    pub files: Files,
    /// The fragility threshold: a margin below it is fragile.
    pub margin_below: Milli,
    /// Where it comes from, in words.
    pub threshold_from: String,
    /// The memory file and its bytes, and the suite roots, for the header.
    pub memory_path: std::path::PathBuf,
    pub memory_sha256: String,
    pub suite_roots: Vec<std::path::PathBuf>,
    /// The share of the suite's scenarios (a fraction) above which a
    /// rarely expected decision is a hub ([`DEFAULT_HUB_SHARE`]).
    pub hub_share: f64,
}

/// The default fragility threshold: the heaviest field weight, what one word
/// added to that field of another decision adds to its score.
pub fn default_margin_below(index: &Index) -> Milli {
    Field::ALL.iter().map(|&f| index.profile().weights.of(f)).max().unwrap_or(Milli::ZERO).max(Milli::ZERO)
}

/// One scenario's ranking, as the analysis reads it.
struct Ranked {
    hits: Vec<Hit>,
    runner_up: Option<RunnerUp>,
    margin: Option<f64>,
    confidence: Option<f64>,
}

/// The coverage of `index`'s pool by `scenarios`. Runs on the current rayon
/// pool.
pub fn analyse(index: &Index, scenarios: &[Scenario], options: &Options) -> Coverage {
    let k = index.profile().k;
    let ranked: Vec<Ranked> = scenarios
        .par_iter()
        .map_init(Scratch::default, |scratch, s| {
            let query = Query { task: &s.task, file: s.file.as_deref() };
            let (retrieval, runner_up) = index.retrieve_with_runner_up(query, k, scratch);
            let retrieved = retrieved_of(index, &retrieval.hits);
            let ids: Vec<&str> = retrieved.iter().map(|r| r.id.as_str()).collect();
            // The run report's figures, computed the same way.
            let metrics = ScenarioMetrics::compute(&ids, &s.expect, &s.acceptable, k).with_margins(
                &scored(&retrieved),
                &s.expect,
                runner_up_of(index, runner_up),
            );
            // The ranking keeps its candidates' room; only the top k are kept here.
            let mut hits = retrieval.hits;
            hits.shrink_to_fit();
            Ranked { hits, runner_up, margin: metrics.margin, confidence: metrics.confidence }
        })
        .collect();

    let pool = index.decisions();
    let gating = gating(pool, scenarios);
    let (shadowed, unprobed) = probe::shadowed(index);
    let unreachable = Unreachable {
        shadowed,
        unprobed,
        scope_check: scope_check(index, &options.files),
        no_tokens: no_tokens(index),
    };
    Coverage {
        schema: COVERAGE_SCHEMA.to_string(),
        tool: Tool { name: "mneme-gate".into(), version: env!("CARGO_PKG_VERSION").into() },
        inputs: Inputs {
            memory: display_path(&options.memory_path),
            memory_sha256: options.memory_sha256.clone(),
            suite_roots: options.suite_roots.iter().map(|r| display_path(r)).collect(),
            profile: ProfileFingerprint::of(index.profile()),
            k,
        },
        pool: pool.len(),
        scenarios: scenarios.len(),
        governed: scenarios.iter().filter(|s| s.is_governed()).count(),
        gating,
        unreachable,
        fragile: fragile(index, scenarios, &ranked, options),
        overlap: overlap(index, scenarios, &ranked),
        hubs: hubs::hubs(index, scenarios, &ranked, options.hub_share),
    }
}

/// `decision record`, or the item's type.
fn kind(d: &Decision) -> String {
    match &d.kind {
        RecordKind::DecisionRecord => "decision record".into(),
        RecordKind::Item(t) => t.clone(),
    }
}

fn entry(d: &Decision) -> DecisionEntry {
    DecisionEntry { id: d.id.clone(), title: d.title.clone(), kind: kind(d), scope: d.paths.clone() }
}

/// The folder a scope glob (as written) starts with: its literal text up to
/// the last `/` before the first wildcard; `(root)` when that is nothing,
/// `(any folder)` for a glob that starts with `**`.
pub fn scope_folder(glob: &str) -> String {
    let first_meta = glob.find(['*', '?', '[', '{', '\\']).unwrap_or(glob.len());
    let literal = &glob[..first_meta];
    let folder = if first_meta == glob.len() && literal.ends_with('/') {
        literal.trim_end_matches('/')
    } else {
        literal.rfind('/').map_or("", |i| &literal[..i])
    };
    let folder = folder.trim_start_matches("./").trim_matches('/');
    if !folder.is_empty() {
        folder.to_string()
    } else if glob.starts_with("**") {
        "(any folder)".into()
    } else {
        "(root)".into()
    }
}

/// The gated share of the pool, per kind and per scope folder.
fn gating(pool: &[Decision], scenarios: &[Scenario]) -> Gating {
    let expected: BTreeSet<&str> = scenarios.iter().flat_map(|s| s.expect.iter().map(String::as_str)).collect();
    let is_gated = |d: &Decision| expected.contains(d.id.as_str());
    let mut by_kind: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut by_folder: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for d in pool {
        let g = usize::from(is_gated(d));
        let slot = by_kind.entry(kind(d)).or_default();
        slot.0 += 1;
        slot.1 += g;
        let folders: BTreeSet<String> = if d.paths.is_empty() {
            BTreeSet::from(["(no scope)".to_string()])
        } else {
            d.paths.iter().map(|p| scope_folder(p)).collect()
        };
        for f in folders {
            let slot = by_folder.entry(f).or_default();
            slot.0 += 1;
            slot.1 += g;
        }
    }
    let groups = |m: BTreeMap<String, (usize, usize)>| -> Vec<Group> {
        m.into_iter()
            .map(|(name, (n, g))| Group {
                name,
                decision_count: n,
                gated_count: g,
                ungated_count: n - g,
                gated_share: g as f64 / n as f64,
            })
            .collect()
    };
    let ungated_decisions: Vec<DecisionEntry> = pool.iter().filter(|d| !is_gated(d)).map(entry).collect();
    let ungated_count = ungated_decisions.len();
    Gating {
        gated_count: pool.len() - ungated_count,
        ungated_count,
        gated_share: (!pool.is_empty()).then(|| (pool.len() - ungated_count) as f64 / pool.len() as f64),
        ungated_decisions,
        by_kind: groups(by_kind),
        by_scope_folder: groups(by_folder),
    }
}

/// Pool decisions whose every field tokenises to nothing.
fn no_tokens(index: &Index) -> Vec<DecisionEntry> {
    let silent: BTreeSet<usize> = crate::retrieval::silent_decisions(index.decisions(), index.profile())
        .into_iter()
        .map(|(offset, _)| offset)
        .collect();
    index.decisions().iter().filter(|d| silent.contains(&d.offset)).map(entry).collect()
}

/// Each distinct scope glob against the repository's files.
fn scope_check(index: &Index, files: &Files) -> ScopeCheck {
    let files = match files {
        Files::Tracked(files) => files,
        Files::NotChecked(note) => {
            return ScopeCheck { checked: false, note: Some(note.clone()), files: 0, decisions: Vec::new() }
        }
    };
    let globs = index.scope_glob_count();
    let matched: Vec<bool> = files
        .par_chunks(1024)
        .fold(
            || (vec![false; globs], Vec::new()),
            |(mut hit, mut buf), chunk| {
                for f in chunk {
                    index.matching_scope_globs(f, &mut buf);
                    for &g in &buf {
                        hit[g] = true;
                    }
                }
                (hit, buf)
            },
        )
        .map(|(hit, _)| hit)
        .reduce(
            || vec![false; globs],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x |= y);
                a
            },
        );
    // Per decision, its globs (as compiled) that match nothing.
    let mut dead: FxHashMap<u32, BTreeSet<&str>> = FxHashMap::default();
    for (g, hit) in matched.iter().enumerate() {
        if !hit {
            let (glob, owners) = index.scope_glob(g);
            for &d in owners {
                dead.entry(d).or_default().insert(glob.glob());
            }
        }
    }
    let decisions = index
        .decisions()
        .iter()
        .enumerate()
        .filter_map(|(d, decision)| {
            let dead = dead.get(&(d as u32))?;
            // Shown as written: a trailing `/` was compiled as `/**`.
            let written: Vec<String> = decision
                .paths
                .iter()
                .zip(&decision.globs)
                .filter(|(_, g)| dead.contains(g.glob()))
                .map(|(p, _)| p.clone())
                .collect();
            let every_glob = decision.globs.iter().all(|g| dead.contains(g.glob()));
            Some(UnmatchedScope { id: decision.id.clone(), title: decision.title.clone(), globs: written, every_glob })
        })
        .collect();
    ScopeCheck { checked: true, note: None, files: files.len(), decisions }
}

/// The fragile scenarios: governed, every expected decision retrieved, and
/// a margin below the threshold.
fn fragile(index: &Index, scenarios: &[Scenario], ranked: &[Ranked], options: &Options) -> Fragile {
    let threshold = options.margin_below.as_f64();
    let mut with_margin = 0;
    let mut smallest_margin: Option<f64> = None;
    let mut list = Vec::new();
    for (s, r) in scenarios.iter().zip(ranked) {
        let Some(margin) = r.margin else { continue };
        with_margin += 1;
        smallest_margin = Some(smallest_margin.map_or(margin, |l| l.min(margin)));
        if margin >= threshold {
            continue;
        }
        let Some((rank, hit)) =
            r.hits.iter().enumerate().rev().find(|(_, h)| s.expect.contains(&index.decision(h.pool).id))
        else {
            continue;
        };
        let Some(up) = r.runner_up else { continue };
        list.push(FragileScenario {
            id: s.id.clone(),
            source: format!("{}:{}:{}", display_path(&s.source), s.line, s.column),
            margin,
            confidence: r.confidence,
            last_expected: RankedEntry {
                id: index.decision(hit.pool).id.clone(),
                score: hit.score.as_f64(),
                rank: rank + 1,
            },
            runner_up: RunnerUpEntry {
                id: up.touched.then(|| index.decision(up.pool).id.clone()),
                score: up.score.as_f64(),
            },
        });
    }
    list.sort_by(|a, b| a.margin.total_cmp(&b.margin).then_with(|| a.id.cmp(&b.id)));
    Fragile {
        margin_below: threshold,
        threshold_from: options.threshold_from.clone(),
        with_margin,
        smallest_margin,
        scenarios: list,
    }
}

/// Pairs retrieved together, and competitions, from the per-scenario lists.
fn overlap(index: &Index, scenarios: &[Scenario], ranked: &[Ranked]) -> Overlap {
    // Decisions by their copy group (one per id), counted per scenario.
    let mut retrieved_in: FxHashMap<usize, usize> = FxHashMap::default();
    let mut pairs: FxHashMap<(usize, usize), usize> = FxHashMap::default();
    let mut competing: BTreeMap<(usize, usize), Vec<&str>> = BTreeMap::new();
    let mut groups = Vec::new();
    let mut first: FxHashMap<&str, usize> = FxHashMap::default();
    for (d, decision) in index.decisions().iter().enumerate() {
        first.entry(decision.id.as_str()).or_insert(d);
    }
    for (s, r) in scenarios.iter().zip(ranked) {
        groups.clear();
        groups.extend(r.hits.iter().map(|h| index.copy_group(h.pool)));
        groups.sort_unstable();
        groups.dedup();
        for (i, &a) in groups.iter().enumerate() {
            *retrieved_in.entry(a).or_default() += 1;
            for &b in &groups[i + 1..] {
                *pairs.entry((a, b)).or_default() += 1;
            }
        }
        if !s.is_governed() {
            continue;
        }
        let id_of = |h: &Hit| index.decision(h.pool).id.as_str();
        let expected_group = |id: &str| first.get(id).copied();
        let missed: Vec<&String> = s.expect.iter().filter(|e| !r.hits.iter().any(|h| id_of(h) == e.as_str())).collect();
        if missed.is_empty() {
            // The runner-up competes with the lowest-ranked expected decision.
            let last = r.hits.iter().rev().find(|h| s.expect.iter().any(|e| e == id_of(h)));
            if let (Some(last), Some(up)) = (last, r.runner_up.filter(|u| u.touched)) {
                competing.entry((index.copy_group(last.pool), index.copy_group(up.pool))).or_default().push(&s.id);
            }
        } else {
            // Each retrieved decision the scenario neither expects nor
            // accepts holds a slot a missed one needed.
            for h in &r.hits {
                let id = id_of(h);
                if s.expect.iter().any(|e| e == id) || s.acceptable.iter().any(|a| a == id) {
                    continue;
                }
                for m in &missed {
                    if let Some(e) = expected_group(m) {
                        competing.entry((index.copy_group(e), index.copy_group(h.pool))).or_default().push(&s.id);
                    }
                }
            }
        }
    }
    let id = |g: usize| index.decision(g).id.clone();
    let mut together: Vec<Together> = pairs
        .into_iter()
        .filter_map(|((a, b), n)| {
            let either = retrieved_in[&a] + retrieved_in[&b] - n;
            (n >= MIN_SUPPORT && 2 * n > either).then(|| {
                let (a, b) = if id(a) <= id(b) { (id(a), id(b)) } else { (id(b), id(a)) };
                Together { a, b, together: n, either, share: n as f64 / either as f64 }
            })
        })
        .collect();
    together.sort_by(|x, y| {
        y.share.total_cmp(&x.share).then(y.together.cmp(&x.together)).then_with(|| (&x.a, &x.b).cmp(&(&y.a, &y.b)))
    });
    let mut competing: Vec<Competing> = competing
        .into_iter()
        .filter(|(_, list)| list.len() >= MIN_SUPPORT)
        .map(|((e, c), list)| {
            let mut scenarios: Vec<String> = list.into_iter().map(str::to_string).collect();
            scenarios.sort();
            scenarios.dedup();
            Competing { expected: id(e), competitor: id(c), scenarios }
        })
        .collect();
    competing.sort_by(|x, y| {
        y.scenarios
            .len()
            .cmp(&x.scenarios.len())
            .then_with(|| (&x.expected, &x.competitor).cmp(&(&y.expected, &y.competitor)))
    });
    Overlap { together, competing }
}

/// The JSON Schema of [`Coverage`], as committed in
/// `schema/coverage.schema.json` (only with the `schema` feature).
#[cfg(feature = "schema")]
pub fn schema() -> String {
    let schema = schemars::schema_for!(Coverage);
    let mut text = serde_json::to_string_pretty(&schema).expect("a schema always serialises");
    text.push('\n');
    text
}
