/*!
The report: one serialisable model of a run, and the writers that render it.

[`Report`] is schema `mneme-gate.report/v1` (published as JSON Schema in
`schema/report.schema.json`). It holds everything every format needs, so the
writers are pure functions of it: [`json`] (the report itself), [`terminal`]
(the table for `mneme-gate run`), [`junit`], [`markdown`] and [`trec`].

Determinism: scenarios are sorted by id; paths are written relative to the
working directory with `/` separators; no clock time or duration appears
unless timings were asked for; floats are written at full precision by
serde_json. The same inputs give the same bytes on any machine and with any
number of threads.
*/

pub mod annotations;
pub mod comparison;
pub mod context;
pub mod explain;
pub(crate) mod figures;
pub mod json;
pub mod junit;
pub mod layout;
pub mod markdown;
pub mod model;
pub mod partition;
pub(crate) mod statistics;
pub mod suggest;
pub mod terminal;
pub mod trec;
pub mod tune;
pub mod validate;
pub mod why_not;

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use std::collections::BTreeMap;

use self::comparison::{Comparison, MemoryDiff};
use crate::context::{render_entries, Entry};
use crate::gate::GateOutcome;
use crate::metrics::{ScenarioMetrics, SuiteMetrics, METRICS_VERSION};
use crate::profile::Profile;
use crate::retrieval::Index;
use crate::run::{RunResult, ScenarioRun};
use crate::scenarios::{ReadDigest, ResponseRef, Scenario, ScenarioType, SuiteFormat};
use crate::verdict::Verdict;

// Defined beside the pipeline, where it is read from the repository.
pub use crate::git::GitInfo;

/// The schema name written in every report.
pub const REPORT_SCHEMA: &str = "mneme-gate.report/v1";

/// A whole run, as written by `--json` and pinned as a baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Report {
    /// Always `mneme-gate.report/v1`.
    pub schema: String,
    pub tool: Tool,
    pub fingerprint: Fingerprint,
    pub summary: SuiteMetrics,
    /// The gate's rules and whether the run passed them.
    pub gate: GateOutcome,
    /// Run-level warnings (suite loading, expected ids outside the pool, ...),
    /// sorted.
    pub warnings: Vec<String>,
    /// Every scenario, sorted by id.
    pub scenarios: Vec<ScenarioReport>,
    /// What the context block shows of every decision retrieved by some
    /// scenario, by id: enough to rebuild any scenario's block, so a later
    /// run can diff the block the model saw then against the one it sees now.
    #[serde(default)]
    pub decisions: BTreeMap<String, DecisionSnapshot>,
    /// The git commit the run was made in, when it ran in a git repository
    /// (never in a pinned baseline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<GitInfo>,
    /// The comparison with the pinned baseline, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comparison: Option<Comparison>,
    /// The decision corpus compared with a git revision (`--memory-ref`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_diff: Option<MemoryDiff>,
    /// Wall-clock timings, only with `--timings` (they make reports differ
    /// from run to run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timings: Option<Timings>,
    /// The model stage, when a model answered scenarios (docs/models.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<model::ModelRun>,
}

/// What the context block shows of one decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DecisionSnapshot {
    pub title: String,
    pub constraint: Vec<String>,
    pub anti_patterns: Vec<String>,
    pub tags: Vec<String>,
    /// Where the decision is written (`file:line`), when the memory was read
    /// from a list of decision sources (ADRs, rule files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Tool {
    pub name: String,
    pub version: String,
}

/// What the run depended on. Two reports with the same fingerprint come
/// from the same inputs and settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Fingerprint {
    pub memory: FileFingerprint,
    pub suite: SuiteFingerprint,
    /// The effective profile (after configuration overrides).
    pub profile: ProfileFingerprint,
    pub k: usize,
    /// The version of the metric definitions (`mneme-gate.metrics/1`).
    pub metrics_version: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FileFingerprint {
    pub path: String,
    /// Lower-case hex sha256 of the file's bytes.
    pub sha256: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SuiteFingerprint {
    /// The suite roots, as given.
    pub roots: Vec<String>,
    /// How many files the suite read (suite files, Mneme `scenario.json` and
    /// `query.txt`, response files).
    pub files: usize,
    /// sha256 over the sorted lines `<path>\t<sha256 of the file>\n` (a
    /// missing response file hashes as `missing`).
    pub sha256: String,
}

/// Every setting that decides a ranking.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ProfileFingerprint {
    pub name: String,
    pub weights: WeightsFingerprint,
    pub tag_boost: f64,
    pub min_token_len: usize,
    pub stem: bool,
    pub k: usize,
    pub min_score: f64,
    /// Profile `default` (BM25F): its other constants (`k1`, `b`,
    /// `path_weight`, `path_max_df`, `weights.summary`, ..., and
    /// `skip_chores`, 1 when a chore retrieves nothing, else 0); absent for
    /// profiles `classic` and `mneme`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bm25f: Option<std::collections::BTreeMap<String, f64>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct WeightsFingerprint {
    pub title: f64,
    pub tags: f64,
    pub constraint: f64,
    pub anti_patterns: f64,
    pub content: f64,
}

impl ProfileFingerprint {
    pub fn of(profile: &Profile) -> ProfileFingerprint {
        let w = &profile.weights;
        ProfileFingerprint {
            name: profile.name.to_string(),
            weights: WeightsFingerprint {
                title: w.title.as_f64(),
                tags: w.tags.as_f64(),
                constraint: w.constraint.as_f64(),
                anti_patterns: w.anti_patterns.as_f64(),
                content: w.content.as_f64(),
            },
            tag_boost: profile.tag_boost.as_f64(),
            min_token_len: profile.min_token_len,
            stem: profile.stem,
            k: profile.k,
            min_score: profile.min_score.as_f64(),
            bm25f: profile.bm25f.as_ref().map(|b| {
                let mut m = std::collections::BTreeMap::new();
                for (key, v) in
                    [("k1", b.k1), ("b", b.b), ("path_weight", b.path_weight), ("path_max_df", b.path_max_df)]
                {
                    m.insert(key.to_string(), v.as_f64());
                }
                for f in crate::profile::Field::SECTIONS {
                    m.insert(format!("weights.{}", f.name()), b.section(f).as_f64());
                }
                m.insert("skip_chores".to_string(), if b.skip_chores { 1.0 } else { 0.0 });
                m
            }),
        }
    }
}

/// Where a scenario is written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ScenarioSource {
    pub path: String,
    pub line: usize,
    pub column: usize,
}

impl std::fmt::Display for ScenarioSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.path, self.line, self.column)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RetrievedEntry {
    pub id: String,
    /// The exact score (a multiple of 0.001).
    pub score: f64,
    /// 1-based.
    pub rank: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Triggers {
    /// Triggers found in the control (ungoverned) answer.
    pub control: Vec<String>,
    /// Triggers found in the governed answer.
    pub governed: Vec<String>,
}

/// One scenario's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ScenarioReport {
    pub id: String,
    pub source: ScenarioSource,
    /// `native` (YAML) or `mneme` (benchmark folder).
    pub format: String,
    pub category: String,
    pub description: String,
    pub task: String,
    /// The file the task edits (the query's file), as the scenario names it;
    /// `null` when it names none. Not where the scenario is written: that is
    /// `source`.
    pub edited_file: Option<String>,
    pub expected: Vec<String>,
    pub acceptable: Vec<String>,
    pub retrieved: Vec<RetrievedEntry>,
    pub metrics: ScenarioMetrics,
    pub verdict: Verdict,
    pub explanation: String,
    pub triggers: Triggers,
    /// Violated assertions per side (Mneme's baseline / enhanced violation
    /// counts).
    pub violations: Violations,
    /// Expected ids that were not retrieved.
    pub missing: Vec<String>,
    /// Why each expected decision of the pool was not retrieved, in brief
    /// (`explain --why-not` gives the whole answer); absent when none was
    /// missed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub why_not: Vec<crate::retrieval::Miss>,
    /// Whether the governed answer was checked.
    pub layer2: bool,
    pub warnings: Vec<String>,
    /// What the model stage did, when a model answered this scenario.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<model::ScenarioModel>,
    /// `benign` for a benign scenario of Mneme's enforcement-quality
    /// benchmark (profile `mneme`); absent for every other scenario.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario_type: Option<ScenarioType>,
    /// The exposure contract (Mneme's `expected_exposed_decision_ids`,
    /// profile `mneme`): ids that had to be retrieved; absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exposed: Vec<String>,
    /// The commit a drafted scenario comes from (`commit:`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// True for a scenario marked `review: pending`: it ran and is reported,
    /// but the gate does not count it; absent once reviewed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub review_pending: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Violations {
    pub control: usize,
    pub governed: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Timings {
    pub load_ms: f64,
    pub run_ms: f64,
    pub total_ms: f64,
}

/// The characters of a trigger a report keeps: a trigger is the text an
/// assertion matched, and a regex such as `(?s).*` matches a whole answer.
pub const TRIGGER_EXCERPT: usize = 200;

/// A trigger as reports show it: its first [`TRIGGER_EXCERPT`] characters,
/// and `…` when there were more.
pub fn trigger_excerpt(trigger: &str) -> std::borrow::Cow<'_, str> {
    match trigger.char_indices().nth(TRIGGER_EXCERPT) {
        None => std::borrow::Cow::Borrowed(trigger),
        Some((end, _)) => std::borrow::Cow::Owned(format!("{}…", &trigger[..end])),
    }
}

/// Caps a scenario's triggers, and the triggers its explanation quotes (on
/// one line, as the explanation writes them), to [`trigger_excerpt`]s.
fn cap_triggers(triggers: &mut Triggers, explanation: &mut String) {
    for t in triggers.control.iter_mut().chain(triggers.governed.iter_mut()) {
        if let std::borrow::Cow::Owned(short) = trigger_excerpt(t) {
            let quoted = t.replace("\r\n", " ").replace(['\n', '\r'], " ");
            if explanation.contains(&quoted) {
                *explanation = explanation.replace(&quoted, &trigger_excerpt(&quoted));
            }
            *t = short;
        }
    }
}

/// Inputs of [`Report::build`] that the run itself does not know.
pub struct ReportInputs<'a> {
    /// The index the run used (for the decisions' texts).
    pub index: &'a Index,
    pub memory_path: &'a Path,
    /// Lower-case hex sha256 of the memory file's bytes ([`hex_sha256`]).
    pub memory_sha256: String,
    /// The suite's fingerprint ([`suite_files`], [`hash_suite`]).
    pub suite: SuiteFingerprint,
    pub profile: &'a Profile,
    pub warnings: Vec<String>,
}

impl Report {
    /// Builds the report of a run.
    /// Consumes the run: its strings move into the report instead of being
    /// copied, so a large suite is not held twice.
    pub fn build(run: RunResult, gate: GateOutcome, inputs: ReportInputs<'_>) -> Report {
        let suite = inputs.suite;
        let mut warnings = inputs.warnings;
        warnings.extend(run.scenarios.iter().flat_map(|s| s.warnings.iter().cloned()));
        warnings.sort();
        warnings.dedup();
        let mut decisions = BTreeMap::new();
        // Each id once, described by the first copy retrieved (profile
        // `mneme` may keep several copies of an id): marked by the pool
        // position of its first copy, not looked up by string for each of
        // the retrieved entries (30,000 at 10,000 scenarios).
        let index = inputs.index;
        let mut described = vec![false; index.decisions().len()];
        for r in run.scenarios.iter().flat_map(|s| &s.retrieved) {
            let Some(d) = index.decisions().get(r.pool) else { continue };
            let first = &mut described[index.copy_group(r.pool)];
            if std::mem::replace(first, true) {
                continue;
            }
            decisions.insert(
                r.id.clone(),
                DecisionSnapshot {
                    title: d.title.clone(),
                    constraint: d.constraint.clone(),
                    anti_patterns: d.anti_patterns.clone(),
                    tags: d.tags.clone(),
                    source: d.origin().map(ToString::to_string),
                },
            );
        }
        let (k, summary) = (run.k, run.summary);
        let mut scenarios: Vec<ScenarioReport> = run.scenarios.into_iter().map(scenario_report).collect();
        // Ids are unique in a suite (a duplicate is a load error), so the
        // order is the stable sort's; sorted in place, without the stable
        // sort's scratch copy of the scenarios (7 MB at 10,000 scenarios, at
        // the run's peak of memory).
        scenarios.sort_unstable_by(|a, b| a.id.cmp(&b.id));
        Report {
            schema: REPORT_SCHEMA.to_string(),
            tool: Tool { name: "mneme-gate".into(), version: env!("CARGO_PKG_VERSION").into() },
            fingerprint: Fingerprint {
                memory: FileFingerprint { path: display_path(inputs.memory_path), sha256: inputs.memory_sha256 },
                suite,
                profile: ProfileFingerprint::of(inputs.profile),
                k,
                metrics_version: METRICS_VERSION.to_string(),
            },
            summary,
            gate,
            warnings,
            scenarios,
            decisions,
            git: None,
            comparison: None,
            memory_diff: None,
            timings: None,
            model: None,
        }
    }

    /// The scenario with this id (scenarios are sorted by id).
    pub fn scenario(&self, id: &str) -> Option<&ScenarioReport> {
        self.scenarios.binary_search_by(|s| s.id.as_str().cmp(id)).ok().map(|i| &self.scenarios[i])
    }

    /// The context block a scenario's model saw, rebuilt from the saved
    /// decision texts (a decision missing from `decisions` shows its id only).
    pub fn context_block(&self, scenario: &ScenarioReport) -> String {
        const NONE: &[String] = &[];
        render_entries(scenario.retrieved.iter().map(|r| match self.decisions.get(&r.id) {
            Some(d) => Entry {
                id: &r.id,
                title: &d.title,
                constraint: &d.constraint,
                anti_patterns: &d.anti_patterns,
                tags: &d.tags,
            },
            None => Entry { id: &r.id, title: "", constraint: NONE, anti_patterns: NONE, tags: NONE },
        }))
    }

    /// The scenarios that did not pass, worst verdict first, then by id.
    pub fn failures_first(&self) -> Vec<&ScenarioReport> {
        let mut all: Vec<&ScenarioReport> = self.scenarios.iter().collect();
        all.sort_by(|a, b| a.verdict.severity_rank().cmp(&b.verdict.severity_rank()).then_with(|| a.id.cmp(&b.id)));
        all
    }
}

fn scenario_report(run: ScenarioRun) -> ScenarioReport {
    let s = run.scenario;
    let mut v = run.verdict;
    let mut triggers = Triggers { control: v.control_triggers, governed: v.governed_triggers };
    cap_triggers(&mut triggers, &mut v.explanation);
    ScenarioReport {
        source: ScenarioSource { path: display_path(&s.source), line: s.line, column: s.column },
        format: match s.format {
            SuiteFormat::Native => "native".into(),
            SuiteFormat::Mneme => "mneme".into(),
        },
        id: s.id,
        category: s.category,
        description: s.description,
        task: s.task,
        edited_file: s.file,
        expected: s.expect,
        acceptable: s.acceptable,
        retrieved: run
            .retrieved
            .into_iter()
            .map(|r| RetrievedEntry { id: r.id, score: r.score.as_f64(), rank: r.rank })
            .collect(),
        metrics: run.metrics,
        verdict: v.verdict,
        explanation: v.explanation,
        triggers,
        violations: Violations { control: v.control_violations, governed: v.governed_violations },
        missing: v.missing,
        why_not: run.why_not,
        layer2: run.layer2,
        warnings: run.warnings,
        model: None,
        scenario_type: (s.scenario_type == ScenarioType::Benign).then_some(ScenarioType::Benign),
        exposed: s.exposed,
        commit: s.commit,
        review_pending: s.review.is_pending(),
    }
}

/// The files the scenarios read (suite files, Mneme `query.txt`, response
/// files), each once, for [`hash_suite`], each with the digest its reader
/// records ([`ReadDigest`]): at load for a Mneme folder's files, when the
/// verdict reads it for a response.
pub fn suite_files<'a>(scenarios: impl Iterator<Item = &'a Scenario>) -> Vec<(PathBuf, ReadDigest)> {
    let mut files: Vec<(PathBuf, ReadDigest)> = Vec::new();
    let mut last_source: Option<&Path> = None;
    for s in scenarios {
        let read = |path: &Path| s.read.iter().find(|(p, _)| p == path).map(|(_, d)| d.clone()).unwrap_or_default();
        // The scenarios of a suite file come one after the other: the file
        // is listed once for all of them, not once per scenario (10,000
        // paths copied and sorted for 100 files).
        if last_source != Some(s.source.as_path()) {
            files.push((s.source.clone(), read(&s.source)));
            last_source = Some(&s.source);
        }
        if s.format == SuiteFormat::Mneme {
            if let Some(dir) = s.source.parent() {
                let query = dir.join("query.txt");
                let digest = read(&query);
                files.push((query, digest));
            }
        }
        for r in [&s.control, &s.governed].into_iter().flatten() {
            if let ResponseRef::Resolved { path, digest, .. } = r {
                files.push((path.clone(), digest.clone()));
            }
        }
    }
    // A suite file holds many scenarios: hash each file once. Sorted by
    // their bytes, not by `Path`'s order, which parses components at each
    // comparison (29 M instructions for the 4,000 files of 1,000 Mneme
    // folders, before the run could start): the order does not matter,
    // `hash_suite` sorts its lines, and two spellings of one path give one
    // line there.
    files.sort_unstable_by(|a, b| a.0.as_os_str().cmp(b.0.as_os_str()));
    files.dedup_by(|a, b| a.0.as_os_str() == b.0.as_os_str());
    files
}

/// The fingerprint of a suite: its roots, and its files (from
/// [`suite_files`]) read and hashed, one line each (its path as
/// [`display_path`] shows it, its hash), the lines sorted and each taken
/// once (a file that cannot be read hashes as `missing`). A file whose
/// reader recorded its digest is not read again: call it once the run has
/// read the responses.
pub fn hash_suite(roots: &[PathBuf], files: &[(PathBuf, ReadDigest)]) -> SuiteFingerprint {
    // Read and hashed on the caller's thread pool (the run's `--jobs`).
    use rayon::prelude::*;
    let mut lines: Vec<String> = files
        .par_iter()
        .map(|(p, digest)| {
            let hash = match digest.get() {
                Some(hex) => hex.to_string(),
                None => hash_file(p).unwrap_or_else(|_| "missing".into()),
            };
            format!("{}\t{hash}\n", display_path(p))
        })
        .collect();
    lines.sort();
    lines.dedup();
    let mut hasher = crate::digest::Hasher::new();
    for l in &lines {
        hasher.update(l);
    }
    SuiteFingerprint {
        roots: roots.iter().map(|r| display_path(r)).collect(),
        files: lines.len(),
        sha256: hasher.hex(),
    }
}

/// The SHA-256 of the file at `path` in lower-case hex, as
/// `hex_sha256(&fs::read(path)?)`: fed to the hasher while it is read, in
/// one buffer a thread, which saves the `statx` that `fs::read` makes to
/// size its vector, and the vector (a suite is thousands of small files).
fn hash_file(path: &Path) -> std::io::Result<String> {
    use std::io::Read as _;
    thread_local! {
        static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let mut file = std::fs::File::open(path)?;
    BUFFER.with_borrow_mut(|buffer| {
        buffer.resize(64 << 10, 0);
        let mut hasher = crate::digest::Hasher::new();
        loop {
            match file.read(buffer) {
                Ok(0) => return Ok(hasher.hex()),
                Ok(n) => hasher.update(&buffer[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    })
}

/// The SHA-256 of `bytes` in lower-case hex ([`crate::digest::sha256_hex`]).
pub fn hex_sha256(bytes: &[u8]) -> String {
    crate::digest::sha256_hex(bytes)
}

/// A path as reports show it: relative to the working directory when it is
/// inside it, `.` components dropped, `/` separators.
pub fn display_path(path: &Path) -> String {
    // Most paths are relative, in UTF-8 and already in the form shown
    // (`scenarios/x/scenario.json`): given back as they are, without
    // splitting them into components and joining them again.
    if let Some(text) = path.to_str() {
        let plain = std::path::MAIN_SEPARATOR == '/' && !path.is_absolute() && !text.is_empty();
        if plain && text.split('/').all(|part| !part.is_empty() && part != ".") {
            return text.to_string();
        }
    }
    display_path_by_components(path)
}

/// [`display_path`] for any path: made relative to the working folder
/// when it is inside it, its components (`.` dropped) joined with `/`.
fn display_path_by_components(path: &Path) -> String {
    // The working folder is asked for only when it matters: reports show a
    // path for every scenario and every file hashed, and most are relative.
    let cwd = if path.is_absolute() { std::env::current_dir().ok() } else { None };
    let relative = match cwd {
        Some(cwd) => path.strip_prefix(&cwd).map(Path::to_path_buf).unwrap_or(path.to_path_buf()),
        None => path.to_path_buf(),
    };
    let parts: Vec<String> = relative
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .map(|c| match c {
            Component::RootDir => String::new(),
            other => other.as_os_str().to_string_lossy().into_owned(),
        })
        .collect();
    if parts.is_empty() {
        ".".into()
    } else if parts.len() == 1 && parts[0].is_empty() {
        "/".into()
    } else {
        parts.join("/")
    }
}

/// Rounds a figure for tables: three decimals, more when three would make it
/// look like 1 or 0 and it is not (`0.9999`, see [`figures::rate`]), never
/// `-0.000`; `—` when absent.
pub fn figure(value: Option<f64>) -> String {
    match value {
        Some(v) => figures::rate(v, None),
        None => "—".into(),
    }
}

/// A score as written everywhere: the shortest exact decimal (`7.5`, `3.0`).
pub fn score(value: f64) -> String {
    crate::profile::Milli((value * 1000.0).round() as i64).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_path_is_relative_and_slashed() {
        assert_eq!(display_path(Path::new("./scenarios/a.yaml")), "scenarios/a.yaml");
        assert_eq!(display_path(Path::new("scenarios/./x/b.yaml")), "scenarios/x/b.yaml");
        assert_eq!(display_path(Path::new(".")), ".");
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(display_path(&cwd.join("fixtures/m.json")), "fixtures/m.json");
        assert_eq!(display_path(Path::new("/")), "/");
        // The shortcut for plain relative paths gives what the components give.
        for p in ["a", "a/b/c.json", "a//b", "a/./b", "./a", "a/.", "a/", "../a/b", "a/../b", ".", "..", "a/.b/..c"] {
            assert_eq!(display_path(Path::new(p)), display_path_by_components(Path::new(p)), "{p}");
        }
    }

    #[test]
    fn long_triggers_are_cut_to_an_excerpt_everywhere() {
        let long = format!("{}\r\n{}", "é".repeat(150), "x\ny".repeat(100));
        let mut triggers = Triggers { control: vec![long.clone(), "short".into()], governed: vec![long.clone()] };
        let quoted = long.replace("\r\n", " ").replace('\n', " ");
        let mut explanation = format!("triggered 2 violation(s) ({quoted}, short).");
        cap_triggers(&mut triggers, &mut explanation);
        let excerpt = format!("{}…", long.chars().take(TRIGGER_EXCERPT).collect::<String>());
        assert_eq!(triggers.control, [excerpt.clone(), "short".to_string()]);
        assert_eq!(triggers.governed, [excerpt]);
        let shown = format!("{}…", quoted.chars().take(TRIGGER_EXCERPT).collect::<String>());
        assert_eq!(explanation, format!("triggered 2 violation(s) ({shown}, short)."));
        assert_eq!(trigger_excerpt(&"a".repeat(200)), "a".repeat(200));
    }

    #[test]
    fn scores_print_exactly() {
        assert_eq!(score(7.5), "7.5");
        assert_eq!(score(3.0), "3.0");
        assert_eq!(score(0.1 + 0.2), "0.3");
        assert_eq!(figure(None), "—");
        assert_eq!(figure(Some(1.0 / 3.0)), "0.333");
        assert_eq!(figure(Some(-0.0)), "0.000");
        assert_eq!(figure(Some(0.9999)), "0.9999", "never shown as 1.000");
    }
}
