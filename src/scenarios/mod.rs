/*!
Scenario suites: finding them on disk, parsing them and validating them.

A suite is read once into plain [`Scenario`] values. Everything that can be
checked without opening a response file is checked here, and every problem
that makes the suite itself unusable (a YAML syntax error, a wrong type, an
unknown key, a missing `task` or `id`, a response path that leaves the suite
root, two scenarios with the same id) is a [`SuiteError`] that points into the
file (`path:line:column`) and says what to do. One load collects as many of
those errors as it can, so a user fixes a suite in one pass, not one error at
a time.

What this module deliberately does not do:

- it never opens a response file: the `verdict` stage does, so that a missing
  or broken response spoils its own scenario (MALFORMED) and not the run;
- a problem *inside an assertion* (unknown type, empty value, invalid regex)
  is not a load error either: the assertion is kept as
  [`ParsedAssertion::Invalid`] with its reason and location, and the verdict
  of that scenario is MALFORMED (scenarios.md §3-4);
- it knows nothing of retrieval, decisions or reports.

Two layouts are read (scenarios.md §1-2): native YAML suite files (`*.yaml`,
`*.yml`, found by walking a folder recursively in sorted path order) and
Mneme benchmark folders (a folder holding `scenario.json`).
*/

use std::collections::HashMap;
use std::fmt;
use std::fs;
use std::path::{Component, Path, PathBuf};

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Serialize, Serializer};
use serde_saphyr::{Location, Spanned};

/// The category of a scenario that names none.
pub const DEFAULT_CATEGORY: &str = "uncategorised";

/// The keys a native scenario may have, in the order the docs list them.
pub const SCENARIO_KEYS: &[&str] =
    &["id", "category", "description", "task", "file", "expect", "acceptable", "responses", "assertions"];

/// The assertion type keys, as written in a suite.
pub const ASSERTION_TYPES: &[&str] =
    &["forbidden_dependency", "forbidden_path", "forbidden_path_pattern", "forbidden_text", "required_text"];

// ---------------------------------------------------------------------------
// The loaded suite
// ---------------------------------------------------------------------------

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
    /// forbidden text of a Mneme `.txt` side that has no `.json` sibling.
    pub expected_failure_terms: Vec<String>,
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
}

impl Scenario {
    /// A governed scenario expects at least one decision (metrics.md).
    pub fn is_governed(&self) -> bool {
        !self.expect.is_empty()
    }

    /// `path:line:column` of the scenario, for messages.
    pub fn location(&self) -> SourceLocation {
        SourceLocation { path: self.source.clone(), line: self.line, column: self.column }
    }
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
    /// Any other file: its text, checked by the text assertions.
    Text,
    /// A Mneme `without_mneme.txt` / `with_mneme.txt` with no `.json`
    /// sibling: checked only with `expected_failure_terms` as
    /// case-insensitive forbidden text, and the run warns.
    MnemeText,
}

/// A response named by a scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ResponseRef {
    /// A path inside the suite root. The file may not exist: that is found
    /// out when it is read, and makes the scenario MALFORMED.
    Resolved {
        /// The path as written in the suite (or the Mneme file name).
        declared: String,
        /// The path to open: the suite root joined with the normalised path.
        path: PathBuf,
        format: ResponseFormat,
    },
    /// A response that was named but cannot be used (an empty or null
    /// path); the scenario is MALFORMED with this reason.
    Unusable { declared: String, reason: String },
}

// ---------------------------------------------------------------------------
// Assertions
// ---------------------------------------------------------------------------

/// One entry of a scenario's `assertions` list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AssertionSpec {
    /// 1-based position in the scenario's list.
    pub index: usize,
    /// Where the entry starts in the suite file, when known (YAML).
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub parsed: ParsedAssertion,
}

impl AssertionSpec {
    /// The assertion, if it is valid.
    pub fn valid(&self) -> Option<&Assertion> {
        match &self.parsed {
            ParsedAssertion::Valid(a) => Some(a),
            ParsedAssertion::Invalid { .. } => None,
        }
    }

    /// `assertion 2 (line 14, column 9)`, for messages.
    pub fn position(&self) -> String {
        match (self.line, self.column) {
            (Some(l), Some(c)) => format!("assertion {} (line {l}, column {c})", self.index),
            _ => format!("assertion {}", self.index),
        }
    }
}

/// An assertion entry, validated.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ParsedAssertion {
    Valid(Assertion),
    /// Unknown type, empty value, invalid regex, wrong shape: the scenario
    /// is MALFORMED with this reason.
    Invalid {
        reason: String,
    },
}

/// A validated assertion.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Assertion {
    pub kind: AssertionKind,
    pub matcher: Matcher,
    pub severity: Severity,
}

impl Assertion {
    /// `forbidden_text "TODO" (soft)`, `required_text /Ledger\w+/`.
    pub fn describe(&self) -> String {
        let m = match &self.matcher {
            Matcher::Substring(s) => format!("{s:?}"),
            Matcher::Regex(p) => format!("/{}/", p.as_str()),
        };
        match self.severity {
            Severity::Hard => format!("{} {m}", self.kind.as_str()),
            Severity::Soft => format!("{} {m} (soft)", self.kind.as_str()),
        }
    }
}

/// What an assertion checks (scenarios.md §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AssertionKind {
    /// `dependencies_added`, case-insensitive substring, each matching entry
    /// is a trigger.
    ForbiddenDependency,
    /// `files_changed`, case-sensitive substring, no globbing (Mneme's
    /// `forbidden_path_pattern` is the same check).
    ForbiddenPath,
    /// The text, case-insensitive substring or regex.
    ForbiddenText,
    /// The text; violated when absent.
    RequiredText,
}

impl AssertionKind {
    /// The key as written in a native suite.
    pub fn as_str(self) -> &'static str {
        match self {
            AssertionKind::ForbiddenDependency => "forbidden_dependency",
            AssertionKind::ForbiddenPath => "forbidden_path",
            AssertionKind::ForbiddenText => "forbidden_text",
            AssertionKind::RequiredText => "required_text",
        }
    }

    /// Parses a type key; `forbidden_path_pattern` is `ForbiddenPath`.
    pub fn from_key(key: &str) -> Option<AssertionKind> {
        match key {
            "forbidden_dependency" => Some(AssertionKind::ForbiddenDependency),
            "forbidden_path" | "forbidden_path_pattern" => Some(AssertionKind::ForbiddenPath),
            "forbidden_text" => Some(AssertionKind::ForbiddenText),
            "required_text" => Some(AssertionKind::RequiredText),
            _ => None,
        }
    }

    /// Dependency and path assertions need a structured (`.json`) response.
    pub fn needs_structured(self) -> bool {
        matches!(self, AssertionKind::ForbiddenDependency | AssertionKind::ForbiddenPath)
    }
}

/// `hard` unless the suite says `severity: soft`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    #[default]
    Hard,
    Soft,
}

/// How an assertion's value is matched.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Matcher {
    /// A plain value (never empty).
    Substring(String),
    /// A compiled regex (only for `forbidden_text` and `required_text`).
    Regex(Pattern),
}

/// A compiled regex that compares and serialises as its source text.
#[derive(Debug, Clone)]
pub struct Pattern(regex::Regex);

impl Pattern {
    /// Compiles `source` with the `regex` crate; the error is one line.
    pub fn new(source: &str) -> Result<Pattern, String> {
        regex::Regex::new(source).map(Pattern).map_err(|e| one_line(&e.to_string()))
    }

    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    pub fn regex(&self) -> &regex::Regex {
        &self.0
    }
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Serialize for Pattern {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

/// A problem that makes a suite unusable. Every variant names the file and,
/// where there is one, the 1-based line and column, and its message says
/// what to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SuiteError {
    /// A suite path or file could not be read.
    Io { path: PathBuf, message: String },
    /// The file is not valid YAML / JSON.
    Syntax { path: PathBuf, line: usize, column: usize, message: String },
    /// A value has the wrong type.
    WrongType {
        path: PathBuf,
        line: usize,
        column: usize,
        /// The key (or `scenario`, `suite file`) whose value is wrong.
        field: String,
        /// What it must be, e.g. `a list of strings`.
        expected: String,
        /// What it is, e.g. `a string`.
        found: String,
    },
    /// A key that a scenario (or suite file) does not have: typos must not
    /// pass silently.
    UnknownKey {
        path: PathBuf,
        line: usize,
        column: usize,
        key: String,
        /// The keys allowed there.
        allowed: Vec<String>,
        /// The closest allowed key, if the unknown one looks like a typo.
        suggestion: Option<String>,
    },
    /// A required field (`id`, `task`, `scenarios`, `query.txt`) is missing
    /// or empty.
    MissingField {
        path: PathBuf,
        line: usize,
        column: usize,
        field: String,
        /// What to write, e.g. `task: <what the agent is asked to do>`.
        hint: String,
    },
    /// A response path is absolute or climbs out of the suite root.
    PathOutsideRoot { path: PathBuf, line: usize, column: usize, response: String, root: PathBuf },
    /// Two scenarios share an id; `path:line:column` is the second one.
    DuplicateId { id: String, first: SourceLocation, second: SourceLocation },
    /// The same scenario was loaded twice because two suite roots overlap.
    OverlappingRoots { id: String, location: SourceLocation, first_root: PathBuf, second_root: PathBuf },
    /// A suite root holds no scenario at all.
    NoScenarios { path: PathBuf },
}

impl SuiteError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            SuiteError::Io { path, .. }
            | SuiteError::Syntax { path, .. }
            | SuiteError::WrongType { path, .. }
            | SuiteError::UnknownKey { path, .. }
            | SuiteError::MissingField { path, .. }
            | SuiteError::PathOutsideRoot { path, .. }
            | SuiteError::NoScenarios { path } => path,
            SuiteError::DuplicateId { second, .. } => &second.path,
            SuiteError::OverlappingRoots { location, .. } => &location.path,
        }
    }

    /// 1-based line, when the error has a place in a file.
    pub fn line(&self) -> Option<usize> {
        self.line_column().map(|(l, _)| l)
    }

    /// 1-based column, when the error has a place in a file.
    pub fn column(&self) -> Option<usize> {
        self.line_column().map(|(_, c)| c)
    }

    fn line_column(&self) -> Option<(usize, usize)> {
        match self {
            SuiteError::Io { .. } | SuiteError::NoScenarios { .. } => None,
            SuiteError::Syntax { line, column, .. }
            | SuiteError::WrongType { line, column, .. }
            | SuiteError::UnknownKey { line, column, .. }
            | SuiteError::MissingField { line, column, .. }
            | SuiteError::PathOutsideRoot { line, column, .. } => Some((*line, *column)),
            SuiteError::DuplicateId { second, .. } => Some((second.line, second.column)),
            SuiteError::OverlappingRoots { location, .. } => Some((location.line, location.column)),
        }
    }

    /// `path:line:column` (or just the path).
    pub fn location(&self) -> String {
        match self.line_column() {
            Some((l, c)) => format!("{}:{l}:{c}", self.path().display()),
            None => self.path().display().to_string(),
        }
    }
}

impl fmt::Display for SuiteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.location())?;
        match self {
            SuiteError::Io { message, .. } => write!(f, "{message}"),
            SuiteError::Syntax { message, .. } => {
                write!(f, "syntax error: {message}; fix the file and load it again")
            }
            SuiteError::WrongType { field, expected, found, .. } => {
                write!(f, "`{field}` must be {expected}, found {found}")
            }
            SuiteError::UnknownKey { key, allowed, suggestion, .. } => {
                write!(f, "unknown key `{key}`")?;
                if let Some(s) = suggestion {
                    write!(f, " (did you mean `{s}`?)")?;
                }
                write!(f, "; allowed keys are {}", allowed.join(", "))
            }
            SuiteError::MissingField { field, hint, .. } => {
                write!(f, "`{field}` is missing or empty; add {hint}")
            }
            SuiteError::PathOutsideRoot { response, root, .. } => write!(
                f,
                "response path `{response}` is outside the suite root `{}`; put the response \
                 file inside that folder and name it by a path relative to this suite file",
                root.display()
            ),
            SuiteError::DuplicateId { id, first, .. } => write!(
                f,
                "duplicate scenario id `{id}`, first defined at {}:{}; ids must be unique \
                 across the whole suite, rename one of them",
                first.path.display(),
                first.line
            ),
            SuiteError::OverlappingRoots { id, first_root, second_root, .. } => write!(
                f,
                "scenario `{id}` is loaded twice because the suite roots `{}` and `{}` overlap; \
                 pass only one of them",
                first_root.display(),
                second_root.display()
            ),
            SuiteError::NoScenarios { .. } => write!(
                f,
                "no scenarios found; a suite root holds *.yaml / *.yml files with a \
                 `scenarios:` list, or Mneme benchmark folders (with scenario.json)"
            ),
        }
    }
}

impl std::error::Error for SuiteError {}

// ---------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------

impl Suite {
    /// Loads every suite root, in the order given. A root is a folder (walked
    /// recursively), a `*.yaml` / `*.yml` file, or a Mneme folder or its
    /// `scenario.json`. All errors found are returned together.
    pub fn load<P: AsRef<Path>>(roots: &[P]) -> Result<Suite, Vec<SuiteError>> {
        let mut suite = Suite { roots: Vec::new(), scenarios: Vec::new(), warnings: Vec::new() };
        let mut errors = Vec::new();
        let mut seen_roots: Vec<PathBuf> = Vec::new();
        for root in roots {
            let root = root.as_ref();
            let key = normalize_lexically(root);
            if seen_roots.contains(&key) {
                suite.warnings.push(format!("suite root {} was given twice; it is loaded once", root.display()));
                continue;
            }
            seen_roots.push(key);
            let (loaded, mut errs) = read_root(root);
            suite.roots.push(loaded.root);
            suite.scenarios.extend(loaded.scenarios);
            suite.warnings.extend(loaded.warnings);
            errors.append(&mut errs);
        }
        check_unique_ids(&suite.scenarios, &mut errors);
        if errors.is_empty() {
            Ok(suite)
        } else {
            Err(errors)
        }
    }

    /// The scenario with this id.
    pub fn get(&self, id: &str) -> Option<&Scenario> {
        self.scenarios.iter().find(|s| s.id == id)
    }
}

/// The scenarios of one suite root (ids not yet checked across roots).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoadedRoot {
    /// The suite root: the folder, or the folder holding the file given.
    pub root: PathBuf,
    pub scenarios: Vec<Scenario>,
    pub warnings: Vec<String>,
}

/// Loads one suite root. Ids are checked for uniqueness within the root.
pub fn load_root(root: &Path) -> Result<LoadedRoot, Vec<SuiteError>> {
    let (loaded, mut errors) = read_root(root);
    check_unique_ids(&loaded.scenarios, &mut errors);
    if errors.is_empty() {
        Ok(loaded)
    } else {
        Err(errors)
    }
}

/// Reads one suite root: the valid scenarios and every error (ids not
/// checked).
fn read_root(root: &Path) -> (LoadedRoot, Vec<SuiteError>) {
    let mut errors = Vec::new();
    let mut loaded = LoadedRoot { root: root.to_path_buf(), scenarios: Vec::new(), warnings: Vec::new() };
    let meta = match fs::metadata(root) {
        Ok(m) => m,
        Err(e) => {
            errors.push(SuiteError::Io {
                path: root.to_path_buf(),
                message: format!("cannot read the suite path: {e}; check the path given"),
            });
            return (loaded, errors);
        }
    };
    if meta.is_dir() {
        if root.join("scenario.json").is_file() {
            load_mneme_dir(root, root, &mut loaded, &mut errors);
        } else {
            let mut found = Vec::new();
            walk(root, Path::new(""), &mut found, &mut errors);
            found.sort_by(|a, b| a.sort_key().cmp(b.sort_key()));
            // Files are independent: parse them on the current rayon pool,
            // then gather in sorted path order (the order never depends on
            // the number of threads).
            use rayon::prelude::*;
            let parts: Vec<(LoadedRoot, Vec<SuiteError>)> = found
                .into_par_iter()
                .map(|item| {
                    let mut part = LoadedRoot { root: root.to_path_buf(), scenarios: Vec::new(), warnings: Vec::new() };
                    let mut errs = Vec::new();
                    match item {
                        Found::Native { path, rel_dir } => {
                            load_native_file(&path, root, &rel_dir, &mut part, &mut errs)
                        }
                        Found::Mneme { dir } => load_mneme_dir(&dir, root, &mut part, &mut errs),
                    }
                    (part, errs)
                })
                .collect();
            for (part, mut errs) in parts {
                loaded.scenarios.extend(part.scenarios);
                loaded.warnings.extend(part.warnings);
                errors.append(&mut errs);
            }
        }
    } else {
        let parent = match root.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = root.file_name().and_then(|n| n.to_str()).unwrap_or("");
        loaded.root = parent.clone();
        if is_yaml(root) {
            load_native_file(root, &parent, Path::new(""), &mut loaded, &mut errors);
        } else if name == "scenario.json" {
            load_mneme_dir(&parent, &parent, &mut loaded, &mut errors);
        } else {
            errors.push(SuiteError::Io {
                path: root.to_path_buf(),
                message: "not a suite: give a folder, a .yaml / .yml suite file, or a Mneme \
                          scenario.json"
                    .to_string(),
            });
            return (loaded, errors);
        }
    }
    if loaded.scenarios.is_empty() && errors.is_empty() {
        errors.push(SuiteError::NoScenarios { path: root.to_path_buf() });
    }
    (loaded, errors)
}

fn check_unique_ids(scenarios: &[Scenario], errors: &mut Vec<SuiteError>) {
    let mut first: HashMap<&str, &Scenario> = HashMap::new();
    for s in scenarios {
        match first.get(s.id.as_str()) {
            None => {
                first.insert(&s.id, s);
            }
            Some(f) => {
                let already = errors.iter().any(|e| match e {
                    SuiteError::DuplicateId { second, .. } => *second == s.location(),
                    SuiteError::OverlappingRoots { location, .. } => *location == s.location(),
                    _ => false,
                });
                if already {
                    continue;
                }
                if f.source == s.source && f.line == s.line {
                    errors.push(SuiteError::OverlappingRoots {
                        id: s.id.clone(),
                        location: s.location(),
                        first_root: f.suite_root.clone(),
                        second_root: s.suite_root.clone(),
                    });
                } else {
                    errors.push(SuiteError::DuplicateId {
                        id: s.id.clone(),
                        first: f.location(),
                        second: s.location(),
                    });
                }
            }
        }
    }
}

enum Found {
    Native { path: PathBuf, rel_dir: PathBuf },
    Mneme { dir: PathBuf },
}

impl Found {
    fn sort_key(&self) -> &Path {
        match self {
            Found::Native { path, .. } => path,
            Found::Mneme { dir } => dir,
        }
    }
}

fn is_yaml(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("yaml") | Some("yml"))
}

/// Collects suite files and Mneme folders below `dir`. Hidden entries (a
/// name starting with `.`) are skipped; a Mneme folder is a leaf; symlinked
/// folders are not followed (no cycles).
fn walk(dir: &Path, rel: &Path, found: &mut Vec<Found>, errors: &mut Vec<SuiteError>) {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            errors.push(SuiteError::Io { path: dir.to_path_buf(), message: format!("cannot list the folder: {e}") });
            return;
        }
    };
    let mut names: Vec<_> = entries.filter_map(|e| e.ok()).collect();
    names.sort_by_key(|e| e.file_name());
    for entry in names {
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        let Ok(ftype) = entry.file_type() else {
            continue;
        };
        if ftype.is_dir() {
            let sub_rel = rel.join(&name);
            if path.join("scenario.json").is_file() {
                found.push(Found::Mneme { dir: path });
            } else {
                walk(&path, &sub_rel, found, errors);
            }
        } else if is_yaml(&path) && path.is_file() {
            found.push(Found::Native { path, rel_dir: rel.to_path_buf() });
        }
    }
}

/// Resolves `.` and `..` without touching the file system.
fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out: Vec<Component> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir) | Some(Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            other => out.push(other),
        }
    }
    out.iter().collect()
}

/// The response path, relative to the suite root, if it stays inside it.
/// `rel_dir` is the suite file's folder relative to the root.
fn resolve_inside_root(rel_dir: &Path, declared: &str) -> Option<PathBuf> {
    let p = Path::new(declared);
    if p.has_root() || p.is_absolute() || declared.starts_with('\\') {
        return None;
    }
    let mut stack: Vec<std::ffi::OsString> = Vec::new();
    for c in rel_dir.join(p).components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                stack.pop()?;
            }
            Component::Normal(n) => stack.push(n.to_os_string()),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(stack.iter().collect())
}

fn response_format_for(path: &Path) -> ResponseFormat {
    match path.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("json") => ResponseFormat::Structured,
        _ => ResponseFormat::Text,
    }
}

// ---------------------------------------------------------------------------
// A YAML tree that remembers where every node is
// ---------------------------------------------------------------------------

/// A YAML value read through serde-saphyr, every child with its location,
/// so that validation can report every problem of a file with its place.
#[derive(Debug)]
enum Node {
    Null,
    Bool(bool),
    Number(String),
    Str(String),
    Seq(Vec<Spanned<Node>>),
    Map(Vec<(Spanned<String>, Spanned<Node>)>),
}

impl Node {
    fn kind(&self) -> String {
        match self {
            Node::Null => "nothing (null)".to_string(),
            Node::Bool(b) => format!("the boolean `{b}`"),
            Node::Number(n) => format!("the number `{n}`"),
            Node::Str(_) => "a string".to_string(),
            Node::Seq(_) => "a list".to_string(),
            Node::Map(_) => "a mapping".to_string(),
        }
    }

    /// A hint for a scalar that YAML did not read as a string.
    fn quote_hint(&self) -> &'static str {
        match self {
            Node::Bool(_) | Node::Number(_) => " (quote it to make it a string)",
            _ => "",
        }
    }

    fn from_json(v: &serde_json::Value) -> Spanned<Node> {
        let node = match v {
            serde_json::Value::Null => Node::Null,
            serde_json::Value::Bool(b) => Node::Bool(*b),
            serde_json::Value::Number(n) => Node::Number(n.to_string()),
            serde_json::Value::String(s) => Node::Str(s.clone()),
            serde_json::Value::Array(a) => Node::Seq(a.iter().map(Node::from_json).collect()),
            serde_json::Value::Object(o) => {
                Node::Map(o.iter().map(|(k, v)| (unspanned(k.clone()), Node::from_json(v))).collect())
            }
        };
        unspanned(node)
    }
}

fn unspanned<T>(value: T) -> Spanned<T> {
    Spanned { value, referenced: Location::UNKNOWN, defined: Location::UNKNOWN }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct NodeVisitor;
        impl<'de> Visitor<'de> for NodeVisitor {
            type Value = Node;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any YAML value")
            }
            fn visit_unit<E>(self) -> Result<Node, E> {
                Ok(Node::Null)
            }
            fn visit_none<E>(self) -> Result<Node, E> {
                Ok(Node::Null)
            }
            fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<Node, D2::Error> {
                Node::deserialize(d)
            }
            fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
                Ok(Node::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
                Ok(Node::Number(v.to_string()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
                Ok(Node::Number(v.to_string()))
            }
            fn visit_i128<E>(self, v: i128) -> Result<Node, E> {
                Ok(Node::Number(v.to_string()))
            }
            fn visit_u128<E>(self, v: u128) -> Result<Node, E> {
                Ok(Node::Number(v.to_string()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
                Ok(Node::Number(v.to_string()))
            }
            fn visit_char<E>(self, v: char) -> Result<Node, E> {
                Ok(Node::Str(v.to_string()))
            }
            fn visit_str<E>(self, v: &str) -> Result<Node, E> {
                Ok(Node::Str(v.to_owned()))
            }
            fn visit_string<E>(self, v: String) -> Result<Node, E> {
                Ok(Node::Str(v))
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Node, E> {
                match std::str::from_utf8(v) {
                    Ok(s) => Ok(Node::Str(s.to_owned())),
                    Err(_) => Err(E::custom("binary values are not supported")),
                }
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
                let mut out = Vec::new();
                while let Some(item) = seq.next_element()? {
                    out.push(item);
                }
                Ok(Node::Seq(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    out.push(entry);
                }
                Ok(Node::Map(out))
            }
        }
        d.deserialize_any(NodeVisitor)
    }
}

/// 1-based line and column of a node; `None` when unknown.
fn pos<T>(s: &Spanned<T>) -> Option<(usize, usize)> {
    let l = s.referenced.line() as usize;
    let c = s.referenced.column() as usize;
    (l > 0).then_some((l, c.max(1)))
}

fn pos_or_1<T>(s: &Spanned<T>) -> (usize, usize) {
    pos(s).unwrap_or((1, 1))
}

/// serde-saphyr's and serde_json's messages end with the location, which we
/// print in front instead.
fn strip_location_suffix(message: &str) -> String {
    let m = one_line(message);
    for marker in [" at line ", " at position "] {
        if let Some(i) = m.rfind(marker) {
            return m[..i].to_string();
        }
    }
    m
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The allowed key closest to `key`, if it is close enough to be a typo.
fn suggest(key: &str, allowed: &[&str]) -> Option<String> {
    allowed
        .iter()
        .map(|a| (edit_distance(key, a), *a))
        .filter(|(d, a)| *d <= 2.max(a.len() / 4) && *d < a.len())
        .min_by_key(|(d, _)| *d)
        .map(|(_, a)| a.to_string())
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

// ---------------------------------------------------------------------------
// Native YAML suite files
// ---------------------------------------------------------------------------

/// Context of one suite file while it is validated.
struct FileCx<'a> {
    path: &'a Path,
    root: &'a Path,
    rel_dir: &'a Path,
    errors: &'a mut Vec<SuiteError>,
}

impl FileCx<'_> {
    fn wrong_type(&mut self, at: (usize, usize), field: &str, expected: &str, node: &Node) {
        self.errors.push(SuiteError::WrongType {
            path: self.path.to_path_buf(),
            line: at.0,
            column: at.1,
            field: field.to_string(),
            expected: expected.to_string(),
            found: format!("{}{}", node.kind(), node.quote_hint()),
        });
    }

    fn unknown_key(&mut self, key: &Spanned<String>, allowed: &[&str]) {
        let (line, column) = pos_or_1(key);
        self.errors.push(SuiteError::UnknownKey {
            path: self.path.to_path_buf(),
            line,
            column,
            key: key.value.clone(),
            allowed: allowed.iter().map(|s| s.to_string()).collect(),
            suggestion: suggest(&key.value, allowed),
        });
    }

    fn missing(&mut self, at: (usize, usize), field: &str, hint: &str) {
        self.errors.push(SuiteError::MissingField {
            path: self.path.to_path_buf(),
            line: at.0,
            column: at.1,
            field: field.to_string(),
            hint: hint.to_string(),
        });
    }

    /// A string value, or `None` for null; a wrong type is reported.
    fn opt_string(&mut self, field: &str, node: &Spanned<Node>) -> Option<String> {
        match &node.value {
            Node::Str(s) => Some(s.clone()),
            Node::Null => None,
            other => {
                self.wrong_type(pos_or_1(node), field, "a string", other);
                None
            }
        }
    }

    /// A list of strings; null is the empty list; a wrong type is reported.
    fn string_list(&mut self, field: &str, node: &Spanned<Node>) -> Vec<String> {
        match &node.value {
            Node::Null => Vec::new(),
            Node::Seq(items) => {
                let mut out = Vec::new();
                for item in items {
                    match &item.value {
                        Node::Str(s) if s.trim().is_empty() => self.errors.push(SuiteError::WrongType {
                            path: self.path.to_path_buf(),
                            line: pos_or_1(item).0,
                            column: pos_or_1(item).1,
                            field: format!("{field}[]"),
                            expected: "a decision id".to_string(),
                            found: "an empty string".to_string(),
                        }),
                        Node::Str(s) => out.push(s.clone()),
                        other => self.wrong_type(pos_or_1(item), &format!("{field}[]"), "a string", other),
                    }
                }
                out
            }
            other => {
                let hint = if matches!(other, Node::Str(_)) {
                    format!("a list of strings (write `{field}: [{}]`)", scalar_text(other))
                } else {
                    "a list of strings".to_string()
                };
                self.wrong_type(pos_or_1(node), field, &hint, other);
                Vec::new()
            }
        }
    }

    fn response(&mut self, side: &str, node: &Spanned<Node>) -> Option<ResponseRef> {
        let at = pos_or_1(node);
        let declared = match &node.value {
            Node::Str(s) => s.clone(),
            Node::Null => {
                return Some(ResponseRef::Unusable {
                    declared: String::new(),
                    reason: format!(
                        "`responses.{side}` names no file; give a path relative to the suite \
                         file or remove the key"
                    ),
                })
            }
            other => {
                self.wrong_type(at, &format!("responses.{side}"), "a file path", other);
                return None;
            }
        };
        if declared.trim().is_empty() {
            return Some(ResponseRef::Unusable {
                declared,
                reason: format!("`responses.{side}` is an empty path; give a path relative to the suite file"),
            });
        }
        match resolve_inside_root(self.rel_dir, &declared) {
            Some(rel) => {
                let path = self.root.join(&rel);
                let format = response_format_for(&path);
                Some(ResponseRef::Resolved { declared, path, format })
            }
            None => {
                self.errors.push(SuiteError::PathOutsideRoot {
                    path: self.path.to_path_buf(),
                    line: at.0,
                    column: at.1,
                    response: declared,
                    root: self.root.to_path_buf(),
                });
                None
            }
        }
    }
}

fn scalar_text(node: &Node) -> String {
    match node {
        Node::Str(s) => s.clone(),
        Node::Number(n) => n.clone(),
        Node::Bool(b) => b.to_string(),
        _ => String::new(),
    }
}

/// Loads one native suite file: `root` is its suite root and `rel_dir` its
/// folder relative to the root. Scenarios go to `out`, problems to `errors`.
fn load_native_file(path: &Path, root: &Path, rel_dir: &Path, out: &mut LoadedRoot, errors: &mut Vec<SuiteError>) {
    let text = match fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(_) => {
                errors.push(SuiteError::Io {
                    path: path.to_path_buf(),
                    message: "the suite file is not valid UTF-8; save it as UTF-8".to_string(),
                });
                return;
            }
        },
        Err(e) => {
            errors
                .push(SuiteError::Io { path: path.to_path_buf(), message: format!("cannot read the suite file: {e}") });
            return;
        }
    };
    let (scenarios, mut errs) = parse_native(&text, path, root, rel_dir);
    if scenarios.is_empty() && errs.is_empty() {
        out.warnings.push(format!("{}: the suite file has no scenarios", path.display()));
    }
    out.scenarios.extend(scenarios);
    errors.append(&mut errs);
}

/// Parses the text of a native suite file. `path` is used in messages and as
/// the scenarios' `source`; response paths are resolved against `root`
/// joined with `rel_dir` (the file's folder relative to the root) and must
/// stay inside `root`. Returns the valid scenarios and every error found.
pub fn parse_native(text: &str, path: &Path, root: &Path, rel_dir: &Path) -> (Vec<Scenario>, Vec<SuiteError>) {
    let mut errors = Vec::new();
    let mut scenarios = Vec::new();
    let doc: Spanned<Node> = match serde_saphyr::from_str(text) {
        Ok(d) => d,
        Err(e) => {
            let (line, column) = e
                .location()
                .map(|l| (l.line() as usize, l.column() as usize))
                .filter(|(l, _)| *l > 0)
                .unwrap_or((1, 1));
            errors.push(SuiteError::Syntax {
                path: path.to_path_buf(),
                line,
                column: column.max(1),
                message: strip_location_suffix(&e.without_snippet().to_string()),
            });
            return (scenarios, errors);
        }
    };
    let mut cx = FileCx { path, root, rel_dir, errors: &mut errors };
    let entries = match &doc.value {
        Node::Null => return (scenarios, errors),
        Node::Map(entries) => entries,
        other => {
            cx.wrong_type(pos_or_1(&doc), "suite file", "a mapping with a `scenarios:` list", other);
            return (scenarios, errors);
        }
    };
    let mut list = None;
    for (key, value) in entries {
        if key.value == "scenarios" {
            list = Some(value);
        } else {
            cx.unknown_key(key, &["scenarios"]);
        }
    }
    let Some(list) = list else {
        cx.missing(pos_or_1(&doc), "scenarios", "a `scenarios:` list (each entry has at least `id` and `task`)");
        return (scenarios, errors);
    };
    match &list.value {
        Node::Null => {}
        Node::Seq(items) => {
            for item in items {
                if let Some(s) = parse_native_scenario(&mut cx, item) {
                    scenarios.push(s);
                }
            }
        }
        other => cx.wrong_type(pos_or_1(list), "scenarios", "a list of scenario mappings", other),
    }
    (scenarios, errors)
}

fn parse_native_scenario(cx: &mut FileCx<'_>, item: &Spanned<Node>) -> Option<Scenario> {
    let at = pos_or_1(item);
    let Node::Map(entries) = &item.value else {
        cx.wrong_type(at, "scenarios[]", "a mapping with at least `id` and `task`", &item.value);
        return None;
    };
    let errors_before = cx.errors.len();
    let mut id = None;
    let mut id_wrong_type = false;
    let mut task_wrong_type = false;
    let mut category = None;
    let mut description = None;
    let mut task = None;
    let mut file = None;
    let mut expect = Vec::new();
    let mut acceptable = Vec::new();
    let mut control = None;
    let mut governed = None;
    let mut assertions = Vec::new();
    for (key, value) in entries {
        match key.value.as_str() {
            "id" => {
                id = cx.opt_string("id", value);
                id_wrong_type = !matches!(value.value, Node::Str(_) | Node::Null);
            }
            "category" => category = cx.opt_string("category", value),
            "description" => description = cx.opt_string("description", value),
            "task" => {
                task = cx.opt_string("task", value);
                task_wrong_type = !matches!(value.value, Node::Str(_) | Node::Null);
            }
            "file" => file = cx.opt_string("file", value),
            "expect" => expect = cx.string_list("expect", value),
            "acceptable" => acceptable = cx.string_list("acceptable", value),
            "responses" => match &value.value {
                Node::Null => {}
                Node::Map(sides) => {
                    for (side, v) in sides {
                        match side.value.as_str() {
                            "control" => control = cx.response("control", v),
                            "governed" => governed = cx.response("governed", v),
                            _ => cx.unknown_key(side, &["control", "governed"]),
                        }
                    }
                }
                other => {
                    cx.wrong_type(pos_or_1(value), "responses", "a mapping with `control` and/or `governed`", other)
                }
            },
            "assertions" => match &value.value {
                Node::Null => {}
                Node::Seq(list) => {
                    assertions = list.iter().enumerate().map(|(i, a)| assertion_spec(i + 1, a)).collect();
                }
                other => cx.wrong_type(
                    pos_or_1(value),
                    "assertions",
                    "a list of assertions (`- forbidden_text: \"...\"`)",
                    other,
                ),
            },
            _ => cx.unknown_key(key, SCENARIO_KEYS),
        }
    }
    let id = id.filter(|s| !s.trim().is_empty());
    let task = task.map(|t| t.trim().to_string()).filter(|t| !t.is_empty());
    if id.is_none() && !id_wrong_type {
        cx.missing(at, "id", "`id: <a name unique across the suite>`");
    }
    if task.is_none() && !task_wrong_type {
        cx.missing(at, "task", "`task: <what the agent is asked to do>`");
    }
    if cx.errors.len() > errors_before {
        return None;
    }
    Some(Scenario {
        id: id?,
        category: category.filter(|c| !c.trim().is_empty()).unwrap_or_else(|| DEFAULT_CATEGORY.to_string()),
        description: description.unwrap_or_default(),
        task: task?,
        file: file.filter(|f| !f.trim().is_empty()),
        expect,
        acceptable,
        control,
        governed,
        assertions,
        expected_failure_terms: Vec::new(),
        source: cx.path.to_path_buf(),
        line: at.0,
        column: at.1,
        suite_root: cx.root.to_path_buf(),
        format: SuiteFormat::Native,
    })
}

fn assertion_spec(index: usize, node: &Spanned<Node>) -> AssertionSpec {
    let p = pos(node);
    AssertionSpec {
        index,
        line: p.map(|p| p.0),
        column: p.map(|p| p.1),
        parsed: match parse_assertion(node) {
            Ok(a) => ParsedAssertion::Valid(a),
            Err(reason) => ParsedAssertion::Invalid { reason },
        },
    }
}

fn type_list() -> String {
    "forbidden_dependency, forbidden_path, forbidden_text, required_text".to_string()
}

fn unknown_type(key: &str) -> String {
    let mut msg = format!("unknown assertion type `{key}`");
    if let Some(s) = suggest(key, ASSERTION_TYPES) {
        msg.push_str(&format!(" (did you mean `{s}`?)"));
    }
    msg.push_str(&format!("; use one of {}", type_list()));
    msg
}

fn parse_severity(node: &Spanned<Node>) -> Result<Severity, String> {
    match &node.value {
        Node::Str(s) if s == "hard" => Ok(Severity::Hard),
        Node::Str(s) if s == "soft" => Ok(Severity::Soft),
        Node::Str(s) => Err(format!("severity `{s}` is not `hard` or `soft`; write `severity: soft` or leave it out")),
        other => Err(format!("severity must be `hard` or `soft`, found {}", other.kind())),
    }
}

/// Validates one assertion entry. Accepted shapes:
/// `forbidden_text: "x"`, `forbidden_text: { value|regex: "x", severity: soft }`,
/// `{ forbidden_text: "x", severity: soft }` and Mneme's
/// `{ type: forbidden_dependency, value: "x" }`.
fn parse_assertion(node: &Spanned<Node>) -> Result<Assertion, String> {
    let Node::Map(entries) = &node.value else {
        return Err(format!(
            "an assertion is a mapping such as `- forbidden_text: \"TODO\"`, found {}",
            node.value.kind()
        ));
    };
    if entries.iter().any(|(k, _)| k.value == "type") {
        return parse_typed_assertion(entries);
    }
    let mut outer_severity = None;
    let mut typed = Vec::new();
    for (k, v) in entries {
        if k.value == "severity" {
            outer_severity = Some(v);
        } else {
            typed.push((k, v));
        }
    }
    let (key, value) = match typed.as_slice() {
        [] => return Err(format!("the assertion has no type key; start it with one of {}", type_list())),
        [one] => *one,
        many => {
            let keys: Vec<String> = many.iter().map(|(k, _)| format!("`{}`", k.value)).collect();
            return Err(format!(
                "the assertion has several keys ({}) but takes one type key and an optional \
                 `severity`; split it into separate list entries",
                keys.join(", ")
            ));
        }
    };
    let kind = AssertionKind::from_key(&key.value).ok_or_else(|| unknown_type(&key.value))?;
    let mut severity = match outer_severity {
        Some(s) => Some(parse_severity(s)?),
        None => None,
    };
    let (text, is_regex) = match &value.value {
        Node::Str(s) => (s.clone(), false),
        Node::Map(inner) => {
            let mut val = None;
            let mut re = None;
            for (k, v) in inner {
                match k.value.as_str() {
                    "value" => val = Some(v),
                    "regex" => re = Some(v),
                    "severity" => {
                        if severity.is_some() {
                            return Err(format!("`{}` gives `severity` twice; give it once", kind.as_str()));
                        }
                        severity = Some(parse_severity(v)?);
                    }
                    other => {
                        let mut msg = format!("unknown key `{other}` in `{}`", kind.as_str());
                        if let Some(s) = suggest(other, &["value", "regex", "severity"]) {
                            msg.push_str(&format!(" (did you mean `{s}`?)"));
                        }
                        msg.push_str("; allowed keys are value, regex, severity");
                        return Err(msg);
                    }
                }
            }
            match (val, re) {
                (Some(v), None) => (string_value(kind, "value", v)?, false),
                (None, Some(r)) => (string_value(kind, "regex", r)?, true),
                (Some(_), Some(_)) => {
                    return Err(format!("`{}` has both `value` and `regex`; give one of them", kind.as_str()))
                }
                (None, None) => return Err(format!("`{}` needs `value: \"...\"` or `regex: \"...\"`", kind.as_str())),
            }
        }
        other => {
            return Err(format!(
                "the value of `{}` must be a string or a mapping with `value` or `regex`, \
                 found {}{}",
                kind.as_str(),
                other.kind(),
                other.quote_hint()
            ))
        }
    };
    build_assertion(kind, text, is_regex, severity.unwrap_or_default())
}

fn string_value(kind: AssertionKind, key: &str, node: &Spanned<Node>) -> Result<String, String> {
    match &node.value {
        Node::Str(s) => Ok(s.clone()),
        other => {
            Err(format!("`{}.{key}` must be a string, found {}{}", kind.as_str(), other.kind(), other.quote_hint()))
        }
    }
}

/// Mneme's shape: `{"type": "...", "value": "..."}` (plus `regex` and
/// `severity`, which Mneme does not have but a native suite may use).
fn parse_typed_assertion(entries: &[(Spanned<String>, Spanned<Node>)]) -> Result<Assertion, String> {
    let mut kind = None;
    let mut val = None;
    let mut re = None;
    let mut severity = Severity::Hard;
    for (k, v) in entries {
        match k.value.as_str() {
            "type" => match &v.value {
                Node::Str(t) => kind = Some(AssertionKind::from_key(t).ok_or_else(|| unknown_type(t))?),
                other => return Err(format!("the assertion `type` must be a string, found {}", other.kind())),
            },
            "value" => val = Some(v),
            "regex" => re = Some(v),
            "severity" => severity = parse_severity(v)?,
            other => {
                let mut msg = format!("unknown key `{other}` in an assertion");
                if let Some(s) = suggest(other, &["type", "value", "regex", "severity"]) {
                    msg.push_str(&format!(" (did you mean `{s}`?)"));
                }
                msg.push_str("; allowed keys are type, value, regex, severity");
                return Err(msg);
            }
        }
    }
    let kind = kind.ok_or("the assertion has no `type`")?;
    let (text, is_regex) = match (val, re) {
        (Some(v), None) => (string_value(kind, "value", v)?, false),
        (None, Some(r)) => (string_value(kind, "regex", r)?, true),
        (Some(_), Some(_)) => {
            return Err(format!("`{}` has both `value` and `regex`; give one of them", kind.as_str()))
        }
        (None, None) => return Err(format!("`{}` has no `value`", kind.as_str())),
    };
    build_assertion(kind, text, is_regex, severity)
}

fn build_assertion(kind: AssertionKind, text: String, is_regex: bool, severity: Severity) -> Result<Assertion, String> {
    if text.trim().is_empty() {
        return Err(format!(
            "`{}` has an empty value, which would match everything; give the text to look for",
            kind.as_str()
        ));
    }
    let matcher = if is_regex {
        if kind.needs_structured() {
            return Err(format!(
                "`{}` takes a plain `value` (a substring), not a `regex`; regexes are for \
                 forbidden_text and required_text",
                kind.as_str()
            ));
        }
        let pattern = Pattern::new(&text).map_err(|e| format!("`{}` has an invalid regex: {e}", kind.as_str()))?;
        Matcher::Regex(pattern)
    } else {
        Matcher::Substring(text)
    };
    Ok(Assertion { kind, matcher, severity })
}

// ---------------------------------------------------------------------------
// Mneme benchmark folders
// ---------------------------------------------------------------------------

/// scenario.json keys that Mneme knows but mneme-gate does not use.
const MNEME_IGNORED_KEYS: &[&str] = &["scenario_type", "expected_exposed_decision_ids"];

const MNEME_KEYS: &[&str] = &[
    "name",
    "category",
    "description",
    "expected_protected_decision_ids",
    "acceptable_decision_ids",
    "expected_failure_terms",
    "assertions",
];

/// Loads the Mneme benchmark folder `dir` (which holds `scenario.json`).
fn load_mneme_dir(dir: &Path, root: &Path, out: &mut LoadedRoot, errors: &mut Vec<SuiteError>) {
    let json_path = dir.join("scenario.json");
    let text = match fs::read_to_string(&json_path) {
        Ok(t) => t,
        Err(e) => {
            errors.push(SuiteError::Io { path: json_path, message: format!("cannot read scenario.json: {e}") });
            return;
        }
    };
    let folder_name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .or_else(|| fs::canonicalize(dir).ok().and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned())))
        .unwrap_or_default();
    let query = match fs::read_to_string(dir.join("query.txt")) {
        Ok(q) => Some(q),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            errors.push(SuiteError::Io { path: dir.join("query.txt"), message: format!("cannot read query.txt: {e}") });
            return;
        }
    };
    let (scenario, mut errs, warnings) = parse_mneme(&text, &json_path, &folder_name, query, root);
    errors.append(&mut errs);
    out.warnings.extend(warnings);
    if let Some(s) = scenario {
        out.scenarios.push(s);
    }
}

/// Parses a Mneme `scenario.json` (its text and path), with the folder name
/// (the id when `name` is absent) and the content of `query.txt` (`None`
/// when the file is missing). Response files are looked up beside
/// `scenario.json`: `.json` preferred over `.txt`. Returns the scenario (if
/// valid), the errors and the warnings.
pub fn parse_mneme(
    text: &str,
    json_path: &Path,
    folder_name: &str,
    query: Option<String>,
    root: &Path,
) -> (Option<Scenario>, Vec<SuiteError>, Vec<String>) {
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    let value: serde_json::Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            errors.push(SuiteError::Syntax {
                path: json_path.to_path_buf(),
                line: e.line().max(1),
                column: e.column().max(1),
                message: strip_location_suffix(&e.to_string()),
            });
            return (None, errors, warnings);
        }
    };
    let Some(obj) = value.as_object() else {
        errors.push(SuiteError::WrongType {
            path: json_path.to_path_buf(),
            line: 1,
            column: 1,
            field: "scenario.json".to_string(),
            expected: "an object".to_string(),
            found: json_kind(&value),
        });
        return (None, errors, warnings);
    };
    let key_at = |key: &str| json_key_position(text, key).unwrap_or((1, 1));
    let mut wrong = |key: &str, expected: &str, v: &serde_json::Value| {
        let (line, column) = key_at(key);
        errors.push(SuiteError::WrongType {
            path: json_path.to_path_buf(),
            line,
            column,
            field: key.to_string(),
            expected: expected.to_string(),
            found: json_kind(v),
        });
    };
    let mut get_string = |key: &str| -> Option<String> {
        match obj.get(key) {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(other) => {
                wrong(key, "a string", other);
                None
            }
        }
    };
    let name = get_string("name");
    let category = get_string("category");
    let description = get_string("description");
    let mut get_list = |key: &str| -> Vec<String> {
        match obj.get(key) {
            None | Some(serde_json::Value::Null) => Vec::new(),
            Some(serde_json::Value::Array(items)) if items.iter().all(serde_json::Value::is_string) => {
                items.iter().filter_map(|i| i.as_str().map(str::to_string)).collect()
            }
            Some(other) => {
                wrong(key, "a list of strings", other);
                Vec::new()
            }
        }
    };
    let expect = get_list("expected_protected_decision_ids");
    let acceptable = get_list("acceptable_decision_ids");
    let failure_terms = get_list("expected_failure_terms");
    let assertions = match obj.get("assertions") {
        None | Some(serde_json::Value::Null) => Vec::new(),
        Some(serde_json::Value::Array(items)) => {
            items.iter().enumerate().map(|(i, a)| assertion_spec(i + 1, &Node::from_json(a))).collect()
        }
        Some(other) => vec![AssertionSpec {
            index: 1,
            line: None,
            column: None,
            parsed: ParsedAssertion::Invalid {
                reason: format!("scenario.json `assertions` must be a list, found {}", json_kind(other)),
            },
        }],
    };
    for key in obj.keys() {
        if MNEME_KEYS.contains(&key.as_str()) {
            continue;
        }
        let what = if MNEME_IGNORED_KEYS.contains(&key.as_str()) {
            "is not supported by mneme-gate and was ignored"
        } else {
            "is not a Mneme scenario key and was ignored"
        };
        let (line, column) = key_at(key);
        warnings.push(format!("{}:{line}:{column}: `{key}` {what}", json_path.display()));
    }
    let task = query.as_deref().map(str::trim).filter(|q| !q.is_empty()).map(str::to_string);
    let dir = json_path.parent().unwrap_or(Path::new(""));
    if task.is_none() {
        errors.push(SuiteError::MissingField {
            path: dir.join("query.txt"),
            line: 1,
            column: 1,
            field: "query.txt".to_string(),
            hint: "a query.txt beside scenario.json holding the task".to_string(),
        });
    }
    let id = name.filter(|n| !n.trim().is_empty()).unwrap_or_else(|| folder_name.to_string());
    if id.trim().is_empty() {
        errors.push(SuiteError::MissingField {
            path: json_path.to_path_buf(),
            line: 1,
            column: 1,
            field: "name".to_string(),
            hint: "`\"name\": \"<scenario id>\"`".to_string(),
        });
    }
    if !errors.is_empty() {
        return (None, errors, warnings);
    }
    let side = |stem: &str| -> Option<ResponseRef> {
        let json = dir.join(format!("{stem}.json"));
        let txt = dir.join(format!("{stem}.txt"));
        if json.exists() {
            Some(ResponseRef::Resolved {
                declared: format!("{stem}.json"),
                path: json,
                format: ResponseFormat::Structured,
            })
        } else if txt.exists() {
            Some(ResponseRef::Resolved {
                declared: format!("{stem}.txt"),
                path: txt,
                format: ResponseFormat::MnemeText,
            })
        } else {
            None
        }
    };
    let scenario = Scenario {
        id,
        category: category.filter(|c| !c.trim().is_empty()).unwrap_or_else(|| DEFAULT_CATEGORY.to_string()),
        description: description.unwrap_or_default(),
        task: task.unwrap_or_default(),
        file: None,
        expect,
        acceptable,
        control: side("without_mneme"),
        governed: side("with_mneme"),
        assertions,
        expected_failure_terms: failure_terms,
        source: json_path.to_path_buf(),
        line: 1,
        column: 1,
        suite_root: root.to_path_buf(),
        format: SuiteFormat::Mneme,
    };
    (Some(scenario), errors, warnings)
}

fn json_kind(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => "null".to_string(),
        serde_json::Value::Bool(b) => format!("the boolean `{b}`"),
        serde_json::Value::Number(n) => format!("the number `{n}`"),
        serde_json::Value::String(_) => "a string".to_string(),
        serde_json::Value::Array(_) => "a list".to_string(),
        serde_json::Value::Object(_) => "an object".to_string(),
    }
}

/// Where `"key":` first appears in the JSON text (1-based line, column of
/// the opening quote): good enough to point at a top-level key.
fn json_key_position(text: &str, key: &str) -> Option<(usize, usize)> {
    let needle = format!("\"{key}\"");
    let mut from = 0;
    while let Some(i) = text[from..].find(&needle) {
        let at = from + i;
        let after = text[at + needle.len()..].trim_start();
        if after.starts_with(':') {
            let before = &text[..at];
            let line = before.matches('\n').count() + 1;
            let line_start = before.rfind('\n').map_or(0, |p| p + 1);
            let column = text[line_start..at].chars().count() + 1;
            return Some((line, column));
        }
        from = at + needle.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixtures() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/suites")
    }

    fn parse(text: &str) -> (Vec<Scenario>, Vec<SuiteError>) {
        parse_native(text, Path::new("suite.yaml"), Path::new("root"), Path::new(""))
    }

    fn one(text: &str) -> Scenario {
        let (s, e) = parse(text);
        assert!(e.is_empty(), "unexpected errors: {e:?}");
        assert_eq!(s.len(), 1);
        s.into_iter().next().unwrap()
    }

    fn err_strings(text: &str) -> Vec<String> {
        parse(text).1.iter().map(|e| e.to_string()).collect()
    }

    #[test]
    fn full_native_scenario() {
        let s = one(r#"
scenarios:
  - id: refund-endpoint-ledger
    category: scope
    description: Refunds go through the ledger client
    task: "  Add a refund endpoint  "
    file: services/payments/refunds.py
    expect: [ADR-012]
    acceptable: [ADR-003]
    responses:
      control: responses/refund-control.json
      governed: responses/refund-governed.txt
    assertions:
      - forbidden_dependency: psycopg2
      - forbidden_path: migrations/
      - forbidden_text: "psycopg2.connect"
      - forbidden_text: { regex: "create_engine\\(" }
      - required_text: LedgerClient
      - forbidden_text: { value: "TODO", severity: soft }
      - { forbidden_text: "FIXME", severity: soft }
"#);
        assert_eq!(s.id, "refund-endpoint-ledger");
        assert_eq!(s.category, "scope");
        assert_eq!(s.task, "Add a refund endpoint");
        assert_eq!(s.file.as_deref(), Some("services/payments/refunds.py"));
        assert_eq!(s.expect, vec!["ADR-012"]);
        assert_eq!(s.acceptable, vec!["ADR-003"]);
        assert_eq!((s.line, s.column), (3, 5));
        assert_eq!(s.format, SuiteFormat::Native);
        assert_eq!(
            s.control,
            Some(ResponseRef::Resolved {
                declared: "responses/refund-control.json".into(),
                path: PathBuf::from("root/responses/refund-control.json"),
                format: ResponseFormat::Structured,
            })
        );
        match &s.governed {
            Some(ResponseRef::Resolved { format, .. }) => assert_eq!(*format, ResponseFormat::Text),
            other => panic!("{other:?}"),
        }
        let kinds: Vec<_> = s
            .assertions
            .iter()
            .map(|a| {
                let v = a.valid().expect("valid");
                (v.kind, v.severity, matches!(v.matcher, Matcher::Regex(_)))
            })
            .collect();
        use AssertionKind::*;
        use Severity::*;
        assert_eq!(
            kinds,
            vec![
                (ForbiddenDependency, Hard, false),
                (ForbiddenPath, Hard, false),
                (ForbiddenText, Hard, false),
                (ForbiddenText, Hard, true),
                (RequiredText, Hard, false),
                (ForbiddenText, Soft, false),
                (ForbiddenText, Soft, false),
            ]
        );
        assert_eq!(s.assertions[0].line, Some(14));
        assert_eq!(s.assertions[0].column, Some(9));
    }

    #[test]
    fn defaults() {
        let s = one("scenarios:\n  - id: a\n    task: t\n");
        assert_eq!(s.category, DEFAULT_CATEGORY);
        assert_eq!(s.description, "");
        assert!(s.expect.is_empty() && !s.is_governed());
        assert!(s.control.is_none() && s.governed.is_none());
        assert!(s.assertions.is_empty());
    }

    #[test]
    fn empty_file_has_no_scenarios_and_no_errors() {
        let (s, e) = parse("");
        assert!(s.is_empty() && e.is_empty());
        let (s, e) = parse("scenarios: []\n");
        assert!(s.is_empty() && e.is_empty());
    }

    #[test]
    fn syntax_error_points_at_line_and_column() {
        let (_, e) = parse("scenarios:\n  - id: a\n    task: \"open\n  - id: b\n");
        assert_eq!(e.len(), 1);
        assert!(matches!(e[0], SuiteError::Syntax { line: 4, column: 3, .. }), "{e:?}");
        assert!(e[0].to_string().starts_with("suite.yaml:4:3: syntax error:"));
        assert!(!e[0].to_string().contains('\n'));
    }

    #[test]
    fn duplicate_key_is_a_syntax_error() {
        let (_, e) = parse("scenarios:\n  - id: a\n    id: b\n    task: t\n");
        assert!(matches!(e[0], SuiteError::Syntax { line: 3, column: 5, .. }), "{e:?}");
    }

    #[test]
    fn unknown_keys_are_rejected_with_a_suggestion() {
        let e =
            parse("scenarios:\n  - id: a\n    task: t\n    expcet: [X]\n    responses:\n      baseline: x.json\n").1;
        assert_eq!(e.len(), 2, "{e:?}");
        match &e[0] {
            SuiteError::UnknownKey { line, column, key, suggestion, .. } => {
                assert_eq!((*line, *column, key.as_str()), (4, 5, "expcet"));
                assert_eq!(suggestion.as_deref(), Some("expect"));
            }
            other => panic!("{other:?}"),
        }
        assert!(e[0].to_string().contains("did you mean `expect`?"));
        assert!(matches!(&e[1], SuiteError::UnknownKey { line: 6, key, .. } if key == "baseline"));
        let top = parse("scenario:\n  - id: a\n").1;
        assert!(top
            .iter()
            .any(|e| matches!(e, SuiteError::UnknownKey { suggestion: Some(s), .. } if s == "scenarios")));
        assert!(top.iter().any(|e| matches!(e, SuiteError::MissingField { field, .. } if field == "scenarios")));
    }

    #[test]
    fn missing_id_and_task_are_errors_at_the_scenario() {
        let e = parse("scenarios:\n  - id: a\n  - task: t\n  - id: c\n    task: \"  \"\n").1;
        let got: Vec<_> = e
            .iter()
            .map(|e| match e {
                SuiteError::MissingField { field, line, .. } => (field.as_str(), *line),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(got, vec![("task", 2), ("id", 3), ("task", 4)]);
    }

    #[test]
    fn wrong_types_are_reported_all_at_once() {
        let e = err_strings(
            "scenarios:\n  - id: 12\n    task: [a]\n    expect: ADR-1\n    acceptable: [1, \"\"]\n    responses: [x]\n    assertions: {}\n",
        );
        assert_eq!(e.len(), 7, "{e:#?}");
        assert!(
            e[4].starts_with("suite.yaml:5:21: `acceptable[]` must be a decision id, found an empty string"),
            "{}",
            e[4]
        );
        assert_eq!(e[0], "suite.yaml:2:9: `id` must be a string, found the number `12` (quote it to make it a string)");
        assert!(e[2].contains("write `expect: [ADR-1]`"), "{}", e[2]);
        assert!(e[3].starts_with("suite.yaml:5:18: `acceptable[]`"), "{}", e[3]);
        let top = err_strings("- id: a\n");
        assert!(top[0].contains("`suite file` must be a mapping"), "{top:?}");
        let list = err_strings("scenarios:\n  - just a string\n");
        assert!(list[0].starts_with("suite.yaml:2:5: `scenarios[]` must be a mapping"), "{list:?}");
    }

    #[test]
    fn a_bad_scenario_does_not_hide_the_good_ones() {
        let (s, e) = parse("scenarios:\n  - id: a\n    task: t\n  - id: b\n  - id: c\n    task: t\n");
        assert_eq!(s.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), ["a", "c"]);
        assert_eq!(e.len(), 1);
    }

    #[test]
    fn response_paths_must_stay_inside_the_root() {
        let (_, e) = parse_native(
            "scenarios:\n  - id: a\n    task: t\n    responses:\n      control: ../../x.json\n      governed: /etc/passwd\n",
            Path::new("root/sub/s.yaml"),
            Path::new("root"),
            Path::new("sub"),
        );
        assert_eq!(e.len(), 2, "{e:?}");
        assert!(
            matches!(&e[0], SuiteError::PathOutsideRoot { line: 5, column: 16, response, .. } if response == "../../x.json")
        );
        assert!(matches!(&e[1], SuiteError::PathOutsideRoot { line: 6, .. }));
        // Climbing within the root is fine, and the file need not exist.
        let (s, e) = parse_native(
            "scenarios:\n  - id: a\n    task: t\n    responses:\n      control: ../common/./x.json\n      governed: ok/../y.md\n",
            Path::new("root/sub/s.yaml"),
            Path::new("root"),
            Path::new("sub"),
        );
        assert!(e.is_empty(), "{e:?}");
        match (&s[0].control, &s[0].governed) {
            (
                Some(ResponseRef::Resolved { path: c, format: cf, .. }),
                Some(ResponseRef::Resolved { path: g, format: gf, .. }),
            ) => {
                assert_eq!(c, &PathBuf::from("root/common/x.json"));
                assert_eq!(g, &PathBuf::from("root/sub/y.md"));
                assert_eq!((*cf, *gf), (ResponseFormat::Structured, ResponseFormat::Text));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn null_or_empty_response_paths_are_unusable_not_load_errors() {
        let s = one("scenarios:\n  - id: a\n    task: t\n    responses:\n      control:\n      governed: \"\"\n");
        assert!(matches!(s.control, Some(ResponseRef::Unusable { .. })));
        assert!(matches!(s.governed, Some(ResponseRef::Unusable { .. })));
    }

    fn invalid_reason(assertion_yaml: &str) -> String {
        let s = one(&format!("scenarios:\n  - id: a\n    task: t\n    assertions:\n      - {assertion_yaml}\n"));
        match &s.assertions[0].parsed {
            ParsedAssertion::Invalid { reason } => reason.clone(),
            other => panic!("expected invalid, got {other:?}"),
        }
    }

    #[test]
    fn invalid_assertions_are_kept_with_a_reason() {
        assert!(invalid_reason("forbiden_text: x").contains("did you mean `forbidden_text`?"));
        assert!(invalid_reason("forbidden_text: \"\"").contains("empty value"));
        assert!(invalid_reason("forbidden_text: { value: \"  \" }").contains("empty value"));
        assert!(invalid_reason("forbidden_text: { regex: \"(\" }").contains("invalid regex"));
        assert!(invalid_reason("forbidden_path: { regex: \"^a\" }").contains("plain `value`"));
        assert!(invalid_reason("forbidden_text: { value: a, severity: medium }").contains("`medium`"));
        assert!(invalid_reason("forbidden_text: { value: a, regex: b }").contains("both"));
        assert!(invalid_reason("forbidden_text: { valeu: a }").contains("did you mean `value`?"));
        assert!(invalid_reason("forbidden_text: 12").contains("quote it"));
        assert!(invalid_reason("{ forbidden_text: a, required_text: b }").contains("split it"));
        assert!(invalid_reason("{ severity: soft }").contains("no type key"));
        assert!(invalid_reason("just-a-string").contains("is a mapping"));
        assert!(invalid_reason("{ forbidden_text: { value: a, severity: soft }, severity: soft }").contains("twice"));
        assert!(invalid_reason("{ type: nope, value: a }").contains("unknown assertion type `nope`"));
    }

    #[test]
    fn mneme_style_assertions_in_yaml_and_path_pattern_alias() {
        let s = one("scenarios:\n  - id: a\n    task: t\n    assertions:\n      - { type: forbidden_path_pattern, value: agents/ }\n      - forbidden_path_pattern: chains/\n");
        for a in &s.assertions {
            assert_eq!(a.valid().unwrap().kind, AssertionKind::ForbiddenPath);
        }
    }

    #[test]
    fn anchors_aliases_and_merge_keys() {
        let (s, e) = parse(
            "x-common: &std\n  - forbidden_dependency: psycopg2\nscenarios:\n  - &base\n    id: a\n    task: t\n    assertions: *std\n  - <<: *base\n    id: b\n",
        );
        // The top-level `x-common` key is not allowed: anchors live inside `scenarios`.
        assert!(matches!(&e[..], [SuiteError::UnknownKey { key, .. }] if key == "x-common"), "{e:?}");
        assert_eq!(s.len(), 2);
        let (s, e) = parse(
            "scenarios:\n  - &base\n    id: a\n    task: t\n    assertions: &std\n      - forbidden_dependency: psycopg2\n  - <<: *base\n    id: b\n  - id: c\n    task: t\n    assertions: *std\n",
        );
        assert!(e.is_empty(), "{e:?}");
        let ids: Vec<_> = s.iter().map(|s| (s.id.as_str(), s.task.as_str(), s.assertions.len())).collect();
        assert_eq!(ids, [("a", "t", 1), ("b", "t", 1), ("c", "t", 1)]);
        assert_eq!(s[1].line, 7);
    }

    #[test]
    fn lexical_resolution() {
        assert_eq!(resolve_inside_root(Path::new(""), "a/b.json"), Some("a/b.json".into()));
        assert_eq!(resolve_inside_root(Path::new("x"), "../a.json"), Some("a.json".into()));
        assert_eq!(resolve_inside_root(Path::new("x"), "../../a.json"), None);
        assert_eq!(resolve_inside_root(Path::new(""), "./../a"), None);
        assert_eq!(resolve_inside_root(Path::new(""), "/a"), None);
        assert_eq!(normalize_lexically(Path::new("./a/../b/.")), PathBuf::from("b"));
    }

    proptest::proptest! {
        /// A resolved response path never climbs out of the root, and a
        /// path is rejected exactly when its `..`s outnumber what precedes them.
        #[test]
        fn resolution_stays_inside_the_root(
            dir in proptest::collection::vec(proptest::sample::select(vec!["a", "b"]), 0..3),
            segs in proptest::collection::vec(proptest::sample::select(vec!["a", "..", ".", "x.json"]), 1..6),
        ) {
            let rel_dir: PathBuf = dir.iter().collect();
            let declared = segs.join("/");
            let mut depth: i64 = 0;
            let mut escapes = false;
            for c in dir.iter().copied().chain(segs.iter().copied()) {
                match c {
                    "." => {}
                    ".." => { depth -= 1; if depth < 0 { escapes = true; } }
                    _ => depth += 1,
                }
            }
            let got = resolve_inside_root(&rel_dir, &declared);
            proptest::prop_assert_eq!(got.is_none(), escapes);
            if let Some(p) = got {
                proptest::prop_assert!(p.components().all(|c| matches!(c, Component::Normal(_))));
            }
        }
    }

    #[test]
    fn suggestions_only_for_near_misses() {
        assert_eq!(suggest("taks", SCENARIO_KEYS).as_deref(), Some("task"));
        assert_eq!(suggest("banana", SCENARIO_KEYS), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn mneme_json_parsing() {
        let text = "{\n  \"name\": \"x\",\n  \"expected_protected_decision_ids\": \"anti-1\",\n  \"scenario_type\": \"benign\"\n}";
        let (s, e, w) = parse_mneme(text, Path::new("b/x/scenario.json"), "x", Some("q".into()), Path::new("b"));
        assert!(s.is_none());
        assert_eq!(e.len(), 1);
        assert_eq!(
            e[0].to_string(),
            "b/x/scenario.json:3:3: `expected_protected_decision_ids` must be a list of strings, found a string"
        );
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("scenario_type"));
        let (_, e, _) = parse_mneme("{\"name\": }", Path::new("s.json"), "x", Some("q".into()), Path::new("."));
        assert!(matches!(e[0], SuiteError::Syntax { line: 1, column: 10, .. }), "{e:?}");
        let (_, e, _) = parse_mneme("{}", Path::new("d/scenario.json"), "d", None, Path::new("."));
        assert!(matches!(&e[0], SuiteError::MissingField { field, .. } if field == "query.txt"));
        let (s, _, _) =
            parse_mneme("{\"assertions\": {}}", Path::new("d/scenario.json"), "d", Some("q".into()), Path::new("."));
        let s = s.unwrap();
        assert_eq!(s.id, "d");
        assert!(
            matches!(&s.assertions[0].parsed, ParsedAssertion::Invalid { reason } if reason.contains("must be a list"))
        );
    }

    #[test]
    fn loads_the_mneme_sample() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/mneme");
        let suite = Suite::load(&[&root]).expect("loads");
        assert_eq!(suite.scenarios.len(), 7);
        let ids: Vec<_> = suite.scenarios.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "feature_boundary_violation",
                "framework_abstraction_violation",
                "infra_scope_creep_violation",
                "openai_provider_violation",
                "pydantic_dependency_creep",
                "retrieval_complexity_violation",
                "storage_backend_violation",
            ]
        );
        let s = suite.get("storage_backend_violation").unwrap();
        assert_eq!(s.format, SuiteFormat::Mneme);
        assert_eq!(s.category, "architecture");
        assert_eq!(s.task, "We need better scalability for project memory storage. Should we migrate to Postgres?");
        assert_eq!(s.expect, vec!["mneme_storage_json"]);
        assert_eq!((s.line, s.column), (1, 1));
        assert!(s.source.ends_with("storage_backend_violation/scenario.json"));
        assert_eq!(s.assertions.len(), 5);
        assert!(s.assertions.iter().all(|a| a.valid().is_some()));
        assert!(
            matches!(&s.control, Some(ResponseRef::Resolved { format: ResponseFormat::Structured, declared, .. }) if declared == "without_mneme.json")
        );
        assert_eq!(s.expected_failure_terms.len(), 4);
        assert!(suite.warnings.is_empty(), "{:?}", suite.warnings);
        // A single Mneme folder, or its scenario.json, is a root too.
        let single = Suite::load(&[root.join("benchmarks/openai_provider_violation")]).unwrap();
        assert_eq!(single.scenarios[0].id, "openai_provider_violation");
        let file = Suite::load(&[root.join("benchmarks/openai_provider_violation/scenario.json")]).unwrap();
        assert_eq!(file.scenarios[0].id, "openai_provider_violation");
    }

    #[test]
    fn loads_the_broken_suite_without_load_errors() {
        let suite = Suite::load(&[fixtures().join("broken")])
            .unwrap_or_else(|e| panic!("{}", e.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")));
        assert!(suite.scenarios.len() >= 20);
        // Mneme folders and YAML files are mixed, in sorted path order.
        assert!(suite.scenarios.iter().any(|s| s.format == SuiteFormat::Mneme));
        let first = &suite.scenarios[0];
        assert!(first.source.ends_with("broken/malformed.yaml"));
        assert_eq!((first.line, first.column), (4, 5));
    }

    fn load_errors(name: &str) -> Vec<SuiteError> {
        Suite::load(&[fixtures().join(name)]).expect_err("must not load")
    }

    #[test]
    fn load_error_fixtures() {
        let dup = load_errors("duplicate-id");
        assert_eq!(dup.len(), 1, "{dup:?}");
        let msg = dup[0].to_string();
        assert!(msg.contains("b.yaml:5:5: duplicate scenario id `refund-ledger`"), "{msg}");
        assert!(msg.contains("a.yaml:2"), "{msg}");

        let esc = load_errors("escape-root");
        assert_eq!(esc.len(), 2, "{esc:?}");
        assert!(esc.iter().all(|e| matches!(e, SuiteError::PathOutsideRoot { .. })));

        let syn = load_errors("syntax-error");
        assert!(matches!(syn[0], SuiteError::Syntax { .. }), "{syn:?}");
        assert!(syn[0].line().unwrap() > 1);

        let unk = load_errors("unknown-key");
        assert!(unk.iter().any(|e| matches!(e, SuiteError::UnknownKey { key, .. } if key == "expcet")), "{unk:?}");

        let task = load_errors("missing-task");
        assert!(
            task.iter().any(|e| matches!(e, SuiteError::MissingField { field, .. } if field == "task")),
            "{task:?}"
        );
        assert!(task.iter().any(|e| matches!(e, SuiteError::MissingField { field, .. } if field == "id")), "{task:?}");

        let wrong = load_errors("wrong-type");
        assert!(wrong.iter().all(|e| matches!(e, SuiteError::WrongType { .. })), "{wrong:?}");
    }

    #[test]
    fn ids_are_unique_across_roots() {
        let a = fixtures().join("duplicate-id/a.yaml");
        let b = fixtures().join("duplicate-id/b.yaml");
        let e = Suite::load(&[&a, &b]).unwrap_err();
        assert!(matches!(&e[0], SuiteError::DuplicateId { id, .. } if id == "refund-ledger"));
        // One file loaded through two overlapping roots says so.
        let e = Suite::load(&[fixtures().join("duplicate-id"), a.clone()]).unwrap_err();
        assert!(e.iter().any(|e| matches!(e, SuiteError::OverlappingRoots { .. })), "{e:?}");
        // The same root twice is loaded once.
        let ok = Suite::load(&[&a, &a]).unwrap();
        assert_eq!(ok.warnings.len(), 1);
    }

    #[test]
    fn missing_or_empty_roots_are_errors() {
        let e = Suite::load(&[fixtures().join("does-not-exist")]).unwrap_err();
        assert!(matches!(e[0], SuiteError::Io { .. }));
        let dir = tempfile::tempdir().unwrap();
        let e = Suite::load(&[dir.path()]).unwrap_err();
        assert!(matches!(e[0], SuiteError::NoScenarios { .. }));
    }

    #[test]
    fn walking_is_recursive_sorted_and_skips_hidden() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        fs::create_dir_all(p.join("b/c")).unwrap();
        fs::create_dir_all(p.join(".hidden")).unwrap();
        let suite = |id: &str| format!("scenarios:\n  - id: {id}\n    task: t\n");
        fs::write(p.join("z.yml"), suite("z")).unwrap();
        fs::write(p.join("b/c/deep.yaml"), suite("deep")).unwrap();
        fs::write(p.join("b.yaml"), suite("b-file")).unwrap();
        fs::write(p.join("a.yaml"), suite("a")).unwrap();
        fs::write(p.join(".hidden/h.yaml"), suite("h")).unwrap();
        fs::write(p.join("notes.txt"), "ignored").unwrap();
        let s = Suite::load(&[p]).unwrap();
        let ids: Vec<_> = s.scenarios.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["a", "deep", "b-file", "z"]);
        // A response path in a nested file resolves against its own folder.
        fs::write(
            p.join("b/c/deep.yaml"),
            "scenarios:\n  - id: deep\n    task: t\n    responses: { governed: ../../r.json }\n",
        )
        .unwrap();
        let s = Suite::load(&[p]).unwrap();
        let deep = s.get("deep").unwrap();
        assert!(matches!(&deep.governed, Some(ResponseRef::Resolved { path, .. }) if *path == p.join("r.json")));
        assert_eq!(deep.suite_root, p);
    }

    #[test]
    fn errors_serialise_and_display_on_one_line() {
        for name in ["duplicate-id", "escape-root", "syntax-error", "unknown-key", "missing-task", "wrong-type"] {
            for e in load_errors(name) {
                let text = e.to_string();
                assert!(!text.contains('\n'), "{text}");
                assert!(serde_json::to_string(&e).is_ok());
            }
        }
    }
}
