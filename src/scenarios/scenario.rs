/*!
The loaded suite: [`Suite`], its [`Scenario`]s and the responses they name.

Plain data, in the shape every later stage reads (retrieval, verdicts,
metrics, reports): each field is already validated and defaulted, and each
scenario knows where, in which file, it was written. Nothing here reads a
file or validates a value: `native` and `mneme` build these values and
`load` gathers them.
*/

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use serde::Serialize;

use super::assertions::AssertionSpec;
use super::root::{read_through, Folder, Refusal};

/// The category of a scenario that names none.
pub(crate) const DEFAULT_CATEGORY: &str = "uncategorised";

/// Every scenario of one run, from one or more suite roots, ids unique.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Suite {
    /// The suite roots, in the order given (a file root is replaced by the
    /// folder holding it).
    pub roots: Vec<PathBuf>,
    /// The scenarios: roots in the order given, files in sorted path order,
    /// scenarios in file order.
    pub scenarios: Vec<Scenario>,
    /// Things worth telling the user that do not stop the load (ignored
    /// Mneme keys, a root given twice, a suite file with no scenarios).
    pub warnings: Vec<String>,
}

impl Suite {
    // `Suite::load` is in `load`.

    /// The scenario with this id.
    pub fn get(&self, id: &str) -> Option<&Scenario> {
        self.scenarios.iter().find(|s| s.id == id)
    }
}

/// The layout a scenario was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SuiteFormat {
    /// A `scenarios:` entry of a `*.yaml` / `*.yml` file.
    Native,
    /// A Mneme benchmark folder (`scenario.json`, `query.txt`, ...).
    Mneme,
}

/// One governed situation (scenarios.md).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scenario {
    pub id: String,
    /// `"uncategorised"` when the suite names none.
    pub category: String,
    /// Empty when the suite gives none.
    pub description: String,
    /// The task text, surrounding whitespace stripped.
    pub task: String,
    /// The file being edited, as written (retrieval normalises it).
    pub file: Option<String>,
    /// Ids that must be retrieved; empty means the scenario is ungoverned.
    pub expect: Vec<String>,
    /// Ids that may be retrieved without counting as irrelevant.
    pub acceptable: Vec<String>,
    /// The answer given without governance, if the scenario has one.
    pub control: Option<ResponseRef>,
    /// The answer given with the context block, if the scenario has one.
    pub governed: Option<ResponseRef>,
    /// The assertions, each parsed or kept with the reason it is invalid.
    pub assertions: Vec<AssertionSpec>,
    /// Mneme's `expected_failure_terms` (empty for native scenarios): the
    /// forbidden text of a Mneme `.txt` side that has no `.json` sibling,
    /// under profile `default`.
    pub expected_failure_terms: Vec<String>,
    /// Mneme's `scenario_type` (read under profile `mneme` only; a
    /// violation scenario otherwise).
    pub scenario_type: ScenarioType,
    /// Mneme's `expected_exposed_decision_ids` (profile `mneme` only): ids
    /// that must be retrieved before a clean governed answer counts.
    pub exposed: Vec<String>,
    /// Why the scenario is MALFORMED, found when it was loaded (profile
    /// `mneme`: an unknown `scenario_type`, say); empty for most scenarios.
    pub problems: Vec<String>,
    /// The commit the scenario was drafted from (`commit:`, a full hash as
    /// `mneme-gate draft` writes it), so that a reviewer can open it.
    pub commit: Option<String>,
    /// Whether a person has reviewed the scenario: `review: pending` (what
    /// `mneme-gate draft` writes) until someone removes the key. A pending
    /// scenario runs and is reported, but the gate does not count it.
    pub review: Review,
    /// The suite file (YAML) or the `scenario.json` the scenario comes from.
    pub source: PathBuf,
    /// 1-based line where the scenario starts (its `- id:` mapping in YAML;
    /// 1 for a Mneme `scenario.json`).
    pub line: usize,
    /// 1-based column where the scenario's mapping starts.
    pub column: usize,
    /// The suite root the scenario was loaded from.
    pub suite_root: PathBuf,
    pub format: SuiteFormat,
    /// The files of the scenario read when it loaded, besides its responses
    /// (a Mneme folder's `scenario.json` and `query.txt`), with their
    /// digests, for the suite's fingerprint; empty for a native scenario.
    #[serde(skip)]
    pub read: Vec<(PathBuf, ReadDigest)>,
}

impl Scenario {
    /// A governed scenario expects at least one decision (metrics.md).
    pub fn is_governed(&self) -> bool {
        !self.expect.is_empty()
    }

    /// `path:line:column` of the scenario, for messages.
    pub(crate) fn location(&self) -> SourceLocation {
        SourceLocation { path: self.source.clone(), line: self.line, column: self.column }
    }
}

/// Whether a scenario has been reviewed by a person (`review:` in a native
/// suite file; absent means reviewed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Review {
    /// No `review:` key: a person wrote or reviewed the scenario.
    #[default]
    Reviewed,
    /// `review: pending`: drafted by a tool, waiting for a person.
    Pending,
}

impl Review {
    /// True for `review: pending`.
    pub fn is_pending(self) -> bool {
        self == Review::Pending
    }
}

/// Mneme's `scenario_type` (its enforcement-quality benchmark).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ScenarioType {
    /// The answers are checked for violations (the control answer must break
    /// a decision, the governed one must not).
    #[default]
    Violation,
    /// A control case of benign content: the governed answer must trigger
    /// nothing, and a violation is a FALSE_POSITIVE.
    Benign,
}

/// A place in a suite file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceLocation {
    pub path: PathBuf,
    pub line: usize,
    pub column: usize,
}

impl fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.path.display(), self.line, self.column)
    }
}

/// How a response file is read and checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ResponseFormat {
    /// A `.json` file: `{refused, files_changed, dependencies_added, text}`.
    Structured,
    /// A Mneme `without_mneme.json` / `with_mneme.json` under profile
    /// `mneme`, read as Mneme reads it: `refused`, `files_changed` and
    /// `dependencies_added` (`null` is a wrong type), any other key ignored,
    /// a byte-order mark refused.
    MnemeStructured,
    /// Any other file: its text, checked by the text assertions.
    Text,
    /// A Mneme `without_mneme.txt` / `with_mneme.txt` with no `.json`
    /// sibling: under profile `default`, checked only with
    /// `expected_failure_terms` as case-insensitive forbidden text, and the
    /// run warns; under `mneme`, checked with Mneme's prompt enforcer.
    MnemeText,
}

/// A response named by a scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ResponseRef {
    /// A path inside the suite root. The file may not exist: that is found
    /// out when it is read, and makes the scenario MALFORMED. It was checked
    /// when the suite loaded (inside the root, a regular file, not too
    /// large) and is checked again when it is read.
    Resolved {
        /// The path as written in the suite (or the Mneme file name).
        declared: String,
        /// The path to open: the suite root joined with the normalised path.
        path: PathBuf,
        format: ResponseFormat,
        /// The canonical suite root: `path` is read only if it resolves
        /// inside it, symlinks followed.
        #[serde(skip)]
        canonical_root: PathBuf,
        /// The most bytes the file may hold (`max_response_bytes`).
        #[serde(skip)]
        max_bytes: u64,
        /// The SHA-256 of the file once the verdict has read it.
        #[serde(skip)]
        digest: ReadDigest,
        /// The file's folder as the load resolved it, when it did: the
        /// verdict reads the file through it.
        #[serde(skip)]
        folder: ResponseFolder,
    },
    /// A response that was named but cannot be used (an empty or null
    /// path, a symlink that leads outside the suite root, a file that is
    /// not regular or too large); the scenario is MALFORMED with this
    /// reason.
    Unusable { declared: String, reason: String },
    /// An answer held in memory, not in a file: a model's reply given by
    /// the model stage (from a cassette or a call), read as `format`.
    Answer { declared: String, format: ResponseFormat, text: String },
}

/// The SHA-256 of a file as the run read it (lower-case hex), kept so that
/// the suite's fingerprint does not open and read the file a second time
/// ([`crate::report::hash_suite`]): at 1,000 Mneme folders, reading their
/// 4,000 files again was a quarter of the run's processor time. Set once,
/// by whoever reads the file; the clones of a value share it.
///
/// A note on what was read, not part of what a scenario says: any two are
/// equal.
#[derive(Debug, Clone, Default)]
pub struct ReadDigest(Arc<OnceLock<String>>);

impl ReadDigest {
    /// A digest already known.
    pub(crate) fn of(hex: String) -> ReadDigest {
        let digest = ReadDigest::default();
        digest.set(hex);
        digest
    }

    /// Records the digest of the file's bytes; the first one stays.
    pub(crate) fn set(&self, hex: String) {
        let _ = self.0.set(hex);
    }

    /// The digest, once the file has been read.
    pub(crate) fn get(&self) -> Option<&str> {
        self.0.get().map(String::as_str)
    }
}

impl PartialEq for ReadDigest {
    fn eq(&self, _: &ReadDigest) -> bool {
        true
    }
}

impl Eq for ReadDigest {}

/// The folder of a response file, resolved inside the suite root when the
/// suite loaded, so that the verdict opens the file through it
/// (`O_NOFOLLOW`, checked once open) instead of resolving the file's path
/// again: at 1,000 Mneme folders or 5,000 recorded answers in one folder,
/// resolving each path (a `readlink` for every component) was most of the
/// time spent reading them. Empty when the load did not resolve it; a file
/// the folder cannot vouch for is read by its path, which words the refusal.
///
/// Like [`ReadDigest`], a note on how to read, not part of what a scenario
/// says: any two are equal.
#[derive(Debug, Clone, Default)]
pub struct ResponseFolder(Option<Arc<Folder>>);

impl ResponseFolder {
    pub(super) fn of(folder: Arc<Folder>) -> ResponseFolder {
        ResponseFolder(Some(folder))
    }

    /// The bytes of the response at `path`, which must resolve inside the
    /// canonical suite `root`, be a regular file and hold at most
    /// `max_bytes` ([`super::read_inside`]): through the folder when it can
    /// vouch for the file, by its path otherwise.
    pub(crate) fn read(&self, root: &Path, path: &Path, max_bytes: u64) -> Result<Vec<u8>, Refusal> {
        read_through(self.0.as_deref(), root, path, max_bytes)
    }
}

impl PartialEq for ResponseFolder {
    fn eq(&self, _: &ResponseFolder) -> bool {
        true
    }
}

impl Eq for ResponseFolder {}

/// The scenarios of one suite root (ids not yet checked across roots). While
/// a root loads, `native` and `mneme` fill one per file and `load` gathers
/// them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoadedRoot {
    /// The suite root: the folder, or the folder holding the file given.
    pub root: PathBuf,
    pub scenarios: Vec<Scenario>,
    pub warnings: Vec<String>,
}
