/*!
Partitions of a run: `run --partition K/N` runs the scenarios whose id
falls in partition K of N and writes a partial report ([`Partial`], schema
`mneme-gate.partial/v1`); `merge` reads the N partial reports and builds the
[`Report`] a single run would have built, byte for byte
(docs/partitions.md).

A scenario's partition is a function of its id alone ([`Slice::of`]: the
first eight bytes of the SHA-256 of the id, modulo N), so adding or removing
scenarios elsewhere in the suite never moves the others.

A partial report is the partition's own report (every scenario as the
report writes it, carried through `merge` as it is) and what `merge` needs
besides: the partition, how many scenarios the whole suite selected and a
hash of their ids (so a partial of another suite, or of the same suite with
another `--filter`, is refused), each scenario's position in the suite
(the gate lists scenarios in suite order), the explanations the report cut
(the gate quotes them whole), and the model stage's distinct requests. Its
fingerprint is the whole suite's, so partials of different inputs differ
there.

A partial report is an input like a baseline: read with a size cap, parsed
with every error located (`file:line:column`), and checked for consistency
before anything is merged.
*/

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::model::{Cost, ModelRun, TokenTotals};
use super::{Report, ScenarioReport, Tool, REPORT_SCHEMA};
use crate::describe::{json_error, printable};
use crate::gate::{absolute_rules_of, GateOutcome, GateSettings, Judged};
use crate::metrics::{Outcome, ScenarioMetrics, SuiteMetrics, METRICS_VERSION};
use crate::scenarios::ScenarioType;
use crate::verdict::Verdict;

/// The schema name written in every partial report.
pub const PARTIAL_SCHEMA: &str = "mneme-gate.partial/v1";

/// The most partitions a run can be cut into.
pub const MAX_PARTITIONS: usize = 10_000;

/// Partition `index` of `count` (both 1-based in words: `2/5`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Slice {
    /// 1-based: `K` of `K/N`.
    pub index: usize,
    /// `N` of `K/N`.
    pub count: usize,
}

impl Slice {
    /// Reads `K/N` (1 ≤ K ≤ N ≤ [`MAX_PARTITIONS`]).
    pub fn parse(text: &str) -> Result<Slice, String> {
        let usage = || format!("--partition `{}` is not K/N (for example 2/5, the second of five)", printable(text));
        let (k, n) = text.split_once('/').ok_or_else(usage)?;
        let (Ok(index), Ok(count)) = (k.trim().parse::<usize>(), n.trim().parse::<usize>()) else {
            return Err(usage());
        };
        if count == 0 || count > MAX_PARTITIONS {
            return Err(format!("--partition {text}: N must be from 1 to {MAX_PARTITIONS}"));
        }
        if index == 0 || index > count {
            return Err(format!("--partition {text}: K must be from 1 to N ({count})"));
        }
        Ok(Slice { index, count })
    }

    /// The partition (1-based) of the scenario `id` among `count`: the
    /// first eight bytes of the SHA-256 of the id, big-endian, modulo
    /// `count`, plus one.
    pub fn of(id: &str, count: usize) -> usize {
        let digest = Sha256::digest(id.as_bytes());
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        (u64::from_be_bytes(first) % count.max(1) as u64) as usize + 1
    }

    /// Whether the scenario `id` is in this partition.
    pub fn contains(&self, id: &str) -> bool {
        Slice::of(id, self.count) == self.index
    }
}

impl std::fmt::Display for Slice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// What a partition knows of the whole suite it was cut from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Whole {
    /// Scenarios the whole suite selected (after `--filter`).
    pub scenarios: usize,
    /// Lower-case hex SHA-256 of the selected ids in suite order, each
    /// followed by a line feed ([`ids_sha256`]).
    pub ids_sha256: String,
    /// The `--filter` globs, as given.
    pub filter: Vec<String>,
}

impl Whole {
    /// The whole suite's selection: its ids in suite order and the filter.
    pub fn of<'a>(ids: impl Iterator<Item = &'a str>, filter: Vec<String>) -> Whole {
        let (scenarios, ids_sha256) = ids_sha256(ids);
        Whole { scenarios, ids_sha256, filter }
    }
}

/// How many ids, and the SHA-256 of them, each followed by a line feed.
pub fn ids_sha256<'a>(ids: impl Iterator<Item = &'a str>) -> (usize, String) {
    let mut hasher = crate::digest::Hasher::new();
    let mut n = 0;
    for id in ids {
        hasher.update(id);
        hasher.update(b"\n");
        n += 1;
    }
    (n, hasher.hex())
}

/// Where one scenario of a partial report sits in the whole suite.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Placed {
    pub id: String,
    /// Its position in the suite's order, from 0.
    pub position: usize,
    /// The verdict's explanation as judged, when the report's is cut (a
    /// trigger longer than the report's excerpt): the gate quotes it whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
}

/// A partition's partial report (`run --partition K/N --json FILE`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Partial {
    /// Always `mneme-gate.partial/v1`.
    pub schema: String,
    pub partition: Slice,
    pub suite: Whole,
    /// One per scenario of `report`, in the same order (by id).
    pub scenarios: Vec<Placed>,
    /// The model stage's distinct requests (cassette key → input and
    /// output tokens), when a model answered scenarios of this partition.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub model_requests: BTreeMap<String, [u64; 2]>,
    /// The partition's report; its fingerprint is the whole suite's.
    pub report: Report,
}

impl Partial {
    /// A partition's partial report. `positions` gives each scenario's
    /// position in the whole suite, `explanations` the verdicts'
    /// explanations as judged (only those that differ from the report's
    /// are kept).
    pub fn new(
        report: Report,
        partition: Slice,
        suite: Whole,
        positions: &HashMap<String, usize>,
        explanations: &HashMap<String, String>,
        model_requests: BTreeMap<String, [u64; 2]>,
    ) -> Partial {
        let scenarios = report
            .scenarios
            .iter()
            .map(|s| Placed {
                id: s.id.clone(),
                position: positions.get(&s.id).copied().unwrap_or(usize::MAX),
                explanation: explanations.get(&s.id).filter(|e| **e != s.explanation).cloned(),
            })
            .collect();
        Partial { schema: PARTIAL_SCHEMA.to_string(), partition, suite, scenarios, model_requests, report }
    }
}

/// The partial report as pretty JSON with a final newline.
pub fn render(partial: &Partial) -> String {
    super::figures::to_json_pretty(partial).expect("a partial report always serialises")
}

/// Why partial reports cannot be read or merged.
#[derive(Debug, thiserror::Error)]
pub enum PartitionError {
    #[error("{path}:{line}:{column}: not a partial report of mneme-gate: {message}; write one with `mneme-gate run --partition K/N --json FILE`")]
    Parse { path: String, line: usize, column: usize, message: String },
    #[error("{path}: {message}")]
    Schema { path: String, message: String },
    /// Parsed, but not something mneme-gate writes (a file edited by hand).
    #[error("{path}: the partial report is not one mneme-gate wrote: {message}; run the partition again")]
    Inconsistent { path: String, message: String },
    /// Two partial reports of different runs.
    #[error("{path} and {first} are not partitions of the same run: {what}; run every partition with the same inputs and settings, then merge")]
    Mismatch { path: String, first: String, what: String },
    #[error("{second} and {first} are both partition {slice}: give each partition once")]
    Duplicate { slice: Slice, first: String, second: String },
    #[error("{} of the run's {count} partitions {} missing ({}): merge needs every partition", missing.len(), if missing.len() == 1 { "is" } else { "are" }, list_partitions(missing, *count))]
    Missing { count: usize, missing: Vec<usize> },
    /// The partitions are complete but do not hold the suite's scenarios.
    #[error("the partitions do not hold the suite's scenarios: {0}; run every partition again")]
    Incomplete(String),
}

/// `3/5, 4/5`, the first ten then how many more.
fn list_partitions(missing: &[usize], count: usize) -> String {
    const SHOWN: usize = 10;
    let mut out: Vec<String> = missing.iter().take(SHOWN).map(|k| format!("{k}/{count}")).collect();
    if missing.len() > SHOWN {
        out.push(format!("and {} more", missing.len() - SHOWN));
    }
    out.join(", ")
}

/// Parses a partial report; `label` names it in messages. A leading
/// byte-order mark is skipped. Checks that it is consistent in itself:
/// every scenario placed once and in its partition, the report's
/// scenarios sorted by id and unique, every retrieved decision described.
pub fn parse(label: &str, text: &str) -> Result<Partial, PartitionError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let path = || label.to_string();
    // The schema first, so that a full report or a future version says so
    // instead of failing on a field.
    #[derive(Deserialize)]
    struct Head {
        schema: Option<serde_json::Value>,
    }
    if let Ok(Head { schema: Some(schema) }) = serde_json::from_str::<Head>(text) {
        match schema.as_str() {
            Some(PARTIAL_SCHEMA) => {}
            Some(REPORT_SCHEMA) => {
                return Err(PartitionError::Schema {
                    path: path(),
                    message: format!(
                        "this is a whole report (`{REPORT_SCHEMA}`), not a partial one: merge reads what `mneme-gate run --partition K/N --json FILE` writes"
                    ),
                })
            }
            other => {
                let found = other.map_or_else(|| schema.to_string(), str::to_string);
                return Err(PartitionError::Schema {
                    path: path(),
                    message: format!(
                        "the partial report has schema `{}`, this mneme-gate reads `{PARTIAL_SCHEMA}`; run the partition again with this version",
                        printable(&found)
                    ),
                });
            }
        }
    }
    let partial: Partial = serde_json::from_str(text).map_err(|e| PartitionError::Parse {
        path: path(),
        line: e.line(),
        column: e.column().max(1),
        message: json_error(&e),
    })?;
    let bad = |message: String| Err(PartitionError::Inconsistent { path: path(), message });
    if partial.schema != PARTIAL_SCHEMA {
        return Err(PartitionError::Schema {
            path: path(),
            message: format!("the partial report has no schema `{PARTIAL_SCHEMA}`"),
        });
    }
    let slice = partial.partition;
    if slice.count == 0 || slice.count > MAX_PARTITIONS || slice.index == 0 || slice.index > slice.count {
        return bad(format!("partition {slice} is not K/N with 1 ≤ K ≤ N ≤ {MAX_PARTITIONS}"));
    }
    let report = &partial.report;
    if report.schema != REPORT_SCHEMA {
        return bad(format!("its report has schema `{}`, not `{REPORT_SCHEMA}`", printable(&report.schema)));
    }
    if partial.scenarios.len() != report.scenarios.len() {
        return bad(format!(
            "it places {} scenario(s) and its report holds {}",
            partial.scenarios.len(),
            report.scenarios.len()
        ));
    }
    if partial.scenarios.len() > partial.suite.scenarios {
        return bad(format!(
            "it holds {} scenario(s) of a suite of {}",
            partial.scenarios.len(),
            partial.suite.scenarios
        ));
    }
    for (i, (placed, s)) in partial.scenarios.iter().zip(&report.scenarios).enumerate() {
        if placed.id != s.id {
            return bad(format!(
                "scenario {} of the report is `{}`, but it places `{}` there",
                i + 1,
                printable(&s.id),
                printable(&placed.id)
            ));
        }
        if i > 0 && report.scenarios[i - 1].id >= s.id {
            return bad(format!("its scenarios are not sorted by id, or `{}` is there twice", printable(&s.id)));
        }
        if placed.position >= partial.suite.scenarios {
            return bad(format!(
                "scenario `{}` is at position {} of a suite of {}",
                printable(&s.id),
                placed.position,
                partial.suite.scenarios
            ));
        }
        // FALSE_POSITIVE is the verdict of a benign scenario only: counted
        // anywhere else, it would change a figure no run can produce.
        if s.verdict == Verdict::FalsePositive && s.scenario_type != Some(ScenarioType::Benign) {
            return bad(format!(
                "scenario `{}` is FALSE_POSITIVE, which only a benign scenario can be",
                printable(&s.id)
            ));
        }
        if !slice.contains(&s.id) {
            return bad(format!(
                "scenario `{}` belongs to partition {}/{}, not {slice}",
                printable(&s.id),
                Slice::of(&s.id, slice.count),
                slice.count
            ));
        }
        let mut seen = BTreeSet::new();
        for r in &s.retrieved {
            if !seen.insert(r.id.as_str()) {
                return bad(format!("scenario `{}` retrieves `{}` twice", printable(&s.id), printable(&r.id)));
            }
            if !report.decisions.contains_key(&r.id) {
                return bad(format!(
                    "scenario `{}` retrieves `{}`, which its decisions do not describe",
                    printable(&s.id),
                    printable(&r.id)
                ));
            }
        }
    }
    Ok(partial)
}

impl Outcome for ScenarioReport {
    fn category(&self) -> &str {
        &self.category
    }
    fn metrics(&self) -> &ScenarioMetrics {
        &self.metrics
    }
    fn verdict(&self) -> Verdict {
        self.verdict
    }
    fn layer2_evaluated(&self) -> bool {
        self.layer2
    }
    fn benign(&self) -> bool {
        self.scenario_type == Some(ScenarioType::Benign)
    }
}

/// Merges the partial reports of every partition of a run (each with the
/// label that names it in messages) into the report the single run would
/// have written: the same scenarios, summary, gate (the absolute rules of
/// `gate`), warnings, decisions and model stage. Refuses partials of
/// different runs, a partition given twice, a missing one, and partials
/// that do not hold the suite's scenarios.
pub fn merge(parts: Vec<(String, Partial)>, gate: &GateSettings) -> Result<Report, PartitionError> {
    let Some((first_label, first)) = parts.first() else {
        return Err(PartitionError::Missing { count: 0, missing: Vec::new() });
    };
    let version = env!("CARGO_PKG_VERSION");
    let mut by_index: BTreeMap<usize, &str> = BTreeMap::new();
    for (label, p) in &parts {
        let mismatch =
            |what: String| Err(PartitionError::Mismatch { path: label.clone(), first: first_label.clone(), what });
        if p.report.tool.version != version || p.report.tool.name != "mneme-gate" {
            return Err(PartitionError::Mismatch {
                path: label.clone(),
                first: "this merge".into(),
                what: format!(
                    "it was written by {} {}, this is mneme-gate {version}",
                    printable(&p.report.tool.name),
                    printable(&p.report.tool.version)
                ),
            });
        }
        if p.partition.count != first.partition.count {
            return mismatch(format!("it is partition {}, the other {}", p.partition, first.partition));
        }
        let (f, g) = (&p.report.fingerprint, &first.report.fingerprint);
        if f.memory != g.memory {
            return mismatch(format!(
                "the memory file differs ({} sha256 {}, the other {} sha256 {})",
                printable(&f.memory.path),
                short(&f.memory.sha256),
                printable(&g.memory.path),
                short(&g.memory.sha256)
            ));
        }
        if p.suite != first.suite {
            return mismatch(format!(
                "the scenarios selected differ ({} selected with --filter {:?}, the other {} with {:?})",
                p.suite.scenarios, p.suite.filter, first.suite.scenarios, first.suite.filter
            ));
        }
        if f.suite != g.suite {
            return mismatch(format!(
                "the suite differs ({} file(s) sha256 {}, the other {} sha256 {})",
                f.suite.files,
                short(&f.suite.sha256),
                g.suite.files,
                short(&g.suite.sha256)
            ));
        }
        if f.profile != g.profile || f.k != g.k || f.metrics_version != g.metrics_version {
            return mismatch("the profile, k or metric definitions differ".into());
        }
        if let Some(earlier) = by_index.insert(p.partition.index, label) {
            return Err(PartitionError::Duplicate {
                slice: p.partition,
                first: earlier.to_string(),
                second: label.clone(),
            });
        }
    }
    let count = first.partition.count;
    let missing: Vec<usize> = (1..=count).filter(|k| !by_index.contains_key(k)).collect();
    if !missing.is_empty() {
        return Err(PartitionError::Missing { count, missing });
    }
    let total = first.suite.scenarios;
    let held: usize = parts.iter().map(|(_, p)| p.scenarios.len()).sum();
    if held != total {
        return Err(PartitionError::Incomplete(format!("they hold {held} scenario(s), the suite selected {total}")));
    }
    // (part, scenario) by position in the suite.
    let mut order: Vec<(usize, usize)> = vec![(usize::MAX, 0); total];
    for (p, (label, part)) in parts.iter().enumerate() {
        for (i, placed) in part.scenarios.iter().enumerate() {
            let Some(slot) = order.get_mut(placed.position) else {
                return Err(PartitionError::Incomplete(format!(
                    "{label} places a scenario at position {}, beyond the suite's {total}",
                    placed.position
                )));
            };
            if slot.0 != usize::MAX {
                return Err(PartitionError::Incomplete(format!(
                    "{} and {} both place a scenario at position {}",
                    parts[slot.0].0, label, placed.position
                )));
            }
            *slot = (p, i);
        }
    }
    let scenario = |&(p, i): &(usize, usize)| &parts[p].1.report.scenarios[i];
    let (_, ids) = ids_sha256(order.iter().map(|o| scenario(o).id.as_str()));
    if ids != first.suite.ids_sha256 {
        return Err(PartitionError::Incomplete("their ids are not the ids the suite selected".into()));
    }

    let summary = SuiteMetrics::aggregate(order.iter().map(scenario));
    let judged: Vec<Judged<'_>> = order
        .iter()
        .map(|&(p, i)| {
            let s = &parts[p].1.report.scenarios[i];
            Judged {
                id: &s.id,
                metrics: &s.metrics,
                verdict: s.verdict,
                explanation: parts[p].1.scenarios[i].explanation.as_deref().unwrap_or(&s.explanation),
                governed_violations: s.violations.governed,
                review_pending: s.review_pending,
            }
        })
        .collect();
    let k = first.report.fingerprint.k;
    let gate = GateOutcome::new(absolute_rules_of(k, &summary, &judged, gate));

    let mut warnings: Vec<String> = parts.iter().flat_map(|(_, p)| p.report.warnings.iter().cloned()).collect();
    warnings.sort();
    warnings.dedup();
    // Each id described by the first scenario (in suite order) that retrieved it.
    let mut decisions = BTreeMap::new();
    for &(p, i) in &order {
        let report = &parts[p].1.report;
        for r in &report.scenarios[i].retrieved {
            if !decisions.contains_key(&r.id) {
                if let Some(d) = report.decisions.get(&r.id) {
                    decisions.insert(r.id.clone(), d.clone());
                }
            }
        }
    }
    let model = merge_model(&parts)?;

    let fingerprint = first.report.fingerprint.clone();
    debug_assert_eq!(fingerprint.metrics_version, METRICS_VERSION);
    let mut scenarios: Vec<ScenarioReport> = Vec::with_capacity(total);
    for (_, p) in parts {
        scenarios.extend(p.report.scenarios);
    }
    scenarios.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(Report {
        schema: REPORT_SCHEMA.to_string(),
        tool: Tool { name: "mneme-gate".into(), version: version.into() },
        fingerprint,
        summary,
        gate,
        warnings,
        scenarios,
        decisions,
        git: None,
        comparison: None,
        memory_diff: None,
        timings: None,
        model,
    })
}

/// The model stage of the whole run: the settings every partition shares,
/// the scenarios answered, the distinct requests and their tokens, pass^N.
fn merge_model(parts: &[(String, Partial)]) -> Result<Option<ModelRun>, PartitionError> {
    let runs: Vec<(&String, &ModelRun)> =
        parts.iter().filter_map(|(l, p)| p.report.model.as_ref().map(|m| (l, m))).collect();
    let Some(&(first_label, first)) = runs.first() else { return Ok(None) };
    let settings = |m: &ModelRun| {
        (
            m.model.clone(),
            m.temperature.to_bits(),
            m.seed,
            m.max_tokens,
            m.structured,
            m.repeat,
            m.estimated_cost.map(|c| (c.input_per_million.to_bits(), c.output_per_million.to_bits())),
        )
    };
    for &(label, m) in &runs {
        if settings(m) != settings(first) {
            return Err(PartitionError::Mismatch {
                path: label.clone(),
                first: first_label.clone(),
                what: "the model stage's settings differ".into(),
            });
        }
    }
    let mut requests: BTreeMap<&str, [u64; 2]> = BTreeMap::new();
    for (_, p) in parts {
        for (key, tokens) in &p.model_requests {
            requests.insert(key, *tokens);
        }
    }
    let (input, output) =
        requests.values().fold((0u64, 0u64), |(i, o), t| (i.saturating_add(t[0]), o.saturating_add(t[1])));
    let answered: usize = runs.iter().map(|(_, m)| m.scenarios).sum();
    let passed = parts
        .iter()
        .flat_map(|(_, p)| &p.report.scenarios)
        .filter(|s| s.model.as_ref().is_some_and(|m| m.passed_every_trial))
        .count();
    Ok(Some(ModelRun {
        model: first.model.clone(),
        temperature: first.temperature,
        seed: first.seed,
        max_tokens: first.max_tokens,
        structured: first.structured,
        repeat: first.repeat,
        scenarios: answered,
        requests: requests.len(),
        tokens: TokenTotals { input, output },
        pass_hat_n: (answered > 0).then(|| passed as f64 / answered as f64),
        estimated_cost: first.estimated_cost.map(|p| Cost {
            input_per_million: p.input_per_million,
            output_per_million: p.output_per_million,
            total: input as f64 * p.input_per_million / 1e6 + output as f64 * p.output_per_million / 1e6,
        }),
    }))
}

/// The first twelve hex digits of a hash, for messages.
fn short(sha256: &str) -> String {
    printable(&sha256.chars().take(12).collect::<String>()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slice_reads_k_of_n() {
        assert_eq!(Slice::parse("2/5"), Ok(Slice { index: 2, count: 5 }));
        assert_eq!(Slice::parse("1/1"), Ok(Slice { index: 1, count: 1 }));
        for bad in ["0/3", "4/3", "1/0", "x/3", "3", "", "1/10001", "-1/3"] {
            assert!(Slice::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(Slice { index: 2, count: 5 }.to_string(), "2/5");
    }

    #[test]
    fn a_scenario_stays_in_its_partition_whatever_else_is_in_the_suite() {
        // Pinned: a change of the hash would move every scenario of every
        // CI matrix.
        assert_eq!(Slice::of("refund-ledger", 5), Slice::of("refund-ledger", 5));
        let ids: Vec<String> = (0..1000).map(|i| format!("s{i}")).collect();
        for n in 1..=7 {
            let mut sizes = vec![0; n];
            for id in &ids {
                let k = Slice::of(id, n);
                assert!((1..=n).contains(&k));
                sizes[k - 1] += 1;
                assert!(Slice { index: k, count: n }.contains(id));
            }
            assert!(sizes.iter().all(|&s| s > 1000 / n / 2), "{n}: {sizes:?}");
        }
        assert_eq!(Slice::of("a", 1), 1);
        let digest = Sha256::digest(b"refund-ledger");
        let h = u64::from_be_bytes(digest[..8].try_into().unwrap());
        assert_eq!(Slice::of("refund-ledger", 7), (h % 7) as usize + 1);
    }

    #[test]
    fn a_whole_report_or_garbage_is_refused_with_its_place() {
        let e = parse("r.json", r#"{"schema": "mneme-gate.report/v1"}"#).unwrap_err();
        assert!(e.to_string().contains("whole report"), "{e}");
        let e = parse("p.json", "{\n  \"schema\": \"mneme-gate.partial/v1\",\n  \"partition\": 3\n}").unwrap_err();
        assert!(e.to_string().starts_with("p.json:3:"), "{e}");
        let e = parse("p.json", r#"{"schema": "mneme-gate.partial/v9"}"#).unwrap_err();
        assert!(e.to_string().contains("mneme-gate.partial/v9"), "{e}");
        let e = parse("p.json", "[1, 2").unwrap_err();
        assert!(e.to_string().starts_with("p.json:1:"), "{e}");
    }

    #[test]
    fn missing_partitions_are_listed() {
        let e = PartitionError::Missing { count: 5, missing: vec![3] };
        assert_eq!(e.to_string(), "1 of the run's 5 partitions is missing (3/5): merge needs every partition");
        let e = PartitionError::Missing { count: 20, missing: (1..=12).collect() };
        assert!(e.to_string().contains("10/20, and 2 more"), "{e}");
    }
}
