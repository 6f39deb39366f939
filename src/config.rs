/*!
`mneme-gate.yaml`: where the memory file, the suites and the baseline are,
and the retrieval profile, read with serde-saphyr.

Unknown keys are refused with the line they are on, so a typo (`weigths:`)
can never silently leave a default in force. Paths are relative to the
folder of the configuration file. Command-line flags override the file; see
[`Config::profile`] and the commands in [`crate::cli`].
*/

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::gate::{GateSettings, Rule, RuleMode, SUITE_MEANS};
use crate::memory::{read_regular, size_in_words, ReadError, Source, SourceKind, Sources};
use crate::profile::{Milli, Named, Profile};
use crate::scenarios::{SuiteLimits, YamlLimits};

mod model;
mod sources;
pub use model::{ModelConfig, ModelFlags, PricesConfig};
pub use sources::{MemoryConfig, SourceEntry};

/// The memory files looked for when nothing names one, in order.
pub const DEFAULT_MEMORY_FILES: [&str; 2] = ["project_memory.json", ".mneme/project_memory.json"];

/// The default configuration file name, looked up in the working folder.
pub const CONFIG_FILE: &str = "mneme-gate.yaml";

/// The largest configuration file read, in bytes (1 MiB): a configuration
/// is a few dozen lines, and the cap bounds what a hostile file costs
/// (serde-saphyr's own budget, the default one, bounds the rest).
pub const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    pub memory: Option<Spanned<MemoryConfig>>,
    pub scenarios: Option<Spanned<OneOrMany>>,
    pub baseline: Option<Spanned<String>>,
    pub retrieval: Option<RetrievalConfig>,
    pub gate: Option<GateConfig>,
    pub limits: Option<LimitsConfig>,
    pub model: Option<ModelConfig>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetrievalConfig {
    pub profile: Option<Spanned<String>>,
    pub k: Option<Spanned<i64>>,
    pub min_score: Option<Spanned<f64>>,
    pub weights: Option<WeightsConfig>,
    pub tag_boost: Option<Spanned<f64>>,
    pub min_token_len: Option<Spanned<i64>>,
    pub stem: Option<bool>,
    /// Profile `default`'s BM25F constants.
    pub bm25f: Option<Bm25fConfig>,
    /// Profile `default`: a chore retrieves nothing.
    pub skip_chores: Option<Spanned<bool>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bm25fConfig {
    pub k1: Option<Spanned<f64>>,
    pub b: Option<Spanned<f64>>,
    pub path_weight: Option<Spanned<f64>>,
    pub path_max_df: Option<Spanned<f64>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeightsConfig {
    pub title: Option<Spanned<f64>>,
    pub tags: Option<Spanned<f64>>,
    pub constraint: Option<Spanned<f64>>,
    pub anti_patterns: Option<Spanned<f64>>,
    pub content: Option<Spanned<f64>>,
    pub summary: Option<Spanned<f64>>,
    pub decision: Option<Spanned<f64>>,
    pub context: Option<Spanned<f64>>,
    pub options: Option<Spanned<f64>>,
    pub consequences: Option<Spanned<f64>>,
}

/// The gate's rules (`fail`, `advisory` or `off` each) and the tolerances of
/// the suite means. Strict: an unknown rule is an error, not a no-op.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateConfig {
    pub recall: Option<Spanned<String>>,
    pub weak_retrieval: Option<Spanned<String>>,
    pub malformed: Option<Spanned<String>>,
    pub pass_rate: Option<Spanned<String>>,
    pub false_positive: Option<Spanned<String>>,
    pub verdict_regression: Option<Spanned<String>>,
    pub missing_scenarios: Option<Spanned<String>>,
    pub suite_means: Option<Spanned<String>>,
    pub baseline_change: Option<Spanned<String>>,
    /// The coverage rules (off unless set): a share between 0 and 1, or
    /// `{min: SHARE, mode: MODE}`.
    pub min_gated_share: Option<Spanned<Threshold>>,
    /// A score, or `{min: SCORE, mode: MODE}`.
    pub min_margin: Option<Spanned<Threshold>>,
    /// `fail`, `advisory` or `off` (the default).
    pub no_new_ungated: Option<Spanned<String>>,
    /// How far every suite mean may drop (or rate rise) before
    /// `suite_means` counts it.
    pub tolerance: Option<Spanned<f64>>,
    /// Per-figure tolerances, overriding `tolerance`.
    pub tolerances: Option<TolerancesConfig>,
}

/// The threshold of a coverage rule: a number (the rule in `fail` mode), or
/// `{min: NUMBER, mode: MODE}`.
#[derive(Debug)]
pub enum Threshold {
    Min(f64),
    WithMode(ThresholdWithMode),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThresholdWithMode {
    pub min: f64,
    pub mode: Option<String>,
}

impl<'de> Deserialize<'de> for Threshold {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Threshold;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a number, or `{min: NUMBER, mode: fail|advisory|off}`")
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Threshold, E> {
                Ok(Threshold::Min(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Threshold, E> {
                Ok(Threshold::Min(v as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Threshold, E> {
                Ok(Threshold::Min(v as f64))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Threshold, A::Error> {
                ThresholdWithMode::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(Threshold::WithMode)
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TolerancesConfig {
    pub mean_recall_at_1: Option<Spanned<f64>>,
    pub mean_precision_at_k: Option<Spanned<f64>>,
    pub mrr: Option<Spanned<f64>>,
    pub mean_ndcg_at_k: Option<Spanned<f64>>,
    pub irrelevant_injection_rate: Option<Spanned<f64>>,
    pub ungoverned_injection_rate: Option<Spanned<f64>>,
}

/// How much of its input a suite may make the tool read (the defaults suit
/// any honest suite; see docs/scenarios.md, Limits).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsConfig {
    pub max_response_bytes: Option<Spanned<u64>>,
    pub max_suite_file_bytes: Option<Spanned<u64>>,
    pub yaml: Option<YamlLimitsConfig>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct YamlLimitsConfig {
    pub alias_factor: Option<Spanned<u64>>,
    pub min_alias_nodes: Option<Spanned<u64>>,
    pub min_alias_bytes: Option<Spanned<u64>>,
    pub max_depth: Option<Spanned<u64>>,
}

/// A problem with the configuration or the flags, with a place if known.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{}", self.place(), self.message)]
pub struct ConfigError {
    pub path: Option<PathBuf>,
    pub line: Option<u64>,
    pub column: Option<u64>,
    pub message: String,
}

impl ConfigError {
    /// `path:line:column: `, `path: ` or nothing.
    fn place(&self) -> String {
        match (&self.path, self.line, self.column) {
            (Some(p), Some(l), Some(c)) => format!("{}:{l}:{c}: ", p.display()),
            (Some(p), _, _) => format!("{}: ", p.display()),
            _ => String::new(),
        }
    }

    pub fn usage(message: impl Into<String>) -> Self {
        ConfigError { path: None, line: None, column: None, message: message.into() }
    }

    fn at<T>(path: &Path, spanned: &Spanned<T>, message: String) -> Self {
        ConfigError::at_location(path, spanned.referenced, message)
    }

    fn at_location(path: &Path, loc: serde_saphyr::Location, message: String) -> Self {
        let (line, column) = if loc.line() > 0 { (Some(loc.line()), Some(loc.column())) } else { (None, None) };
        ConfigError { path: Some(path.to_path_buf()), line, column, message }
    }
}

/// A configuration file as read, with the folder its paths are relative to.
#[derive(Debug, Default)]
pub struct Config {
    pub path: Option<PathBuf>,
    pub file: ConfigFile,
}

impl Config {
    /// Reads `explicit` if given (it must exist), else `mneme-gate.yaml` in
    /// the working folder if there is one, else an empty configuration.
    pub fn discover(explicit: Option<&Path>) -> Result<Config, ConfigError> {
        let path = match explicit {
            Some(p) => p.to_path_buf(),
            None => {
                // Only a missing file means no configuration: a folder, a
                // named pipe or a broken link of that name is refused below.
                let p = PathBuf::from(CONFIG_FILE);
                match std::fs::symlink_metadata(&p) {
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
                    _ => p,
                }
            }
        };
        let at = |line: Option<u64>, column: Option<u64>, message: String| ConfigError {
            path: Some(path.clone()),
            line,
            column,
            message,
        };
        let bytes = read_regular(&path, MAX_CONFIG_BYTES).map_err(|e| match e {
            ReadError::Io(e) => at(None, None, format!("cannot read the configuration file: {e}")),
            ReadError::NotAFile(kind) => at(
                None,
                None,
                format!(
                    "the configuration file is {kind}, not a regular file: make it the YAML file itself, or name one with --config"
                ),
            ),
            ReadError::TooLarge { limit } => at(
                None,
                None,
                format!(
                    "the configuration file is larger than {}, the most mneme-gate reads; a configuration is a few lines: check the path (see README: Configuration)",
                    size_in_words(limit)
                ),
            ),
        })?;
        let text = crate::confine::utf8_text(bytes).map_err(|crate::confine::NotUtf8 { line, column, .. }| {
            at(
                Some(line as u64),
                Some(column as u64),
                "the file is not valid UTF-8 (the first invalid byte is here): save it as UTF-8".into(),
            )
        })?;
        let config = Config::parse(&path, &text)?;
        config.check_paths_inside()?;
        Ok(config)
    }

    /// Refuses a path of the file that leads outside the repository root,
    /// through `..`, an absolute path or a symbolic link, each component
    /// resolved in turn: the repository's configuration comes with the
    /// repository (a pull request can change it), so it names nothing
    /// outside it. `..` is fine while the result stays inside (a
    /// configuration in a subfolder). A configuration outside the
    /// repository, named with `--config`, is the user's own and taken as
    /// written; so is a path given on the command line.
    fn check_paths_inside(&self) -> Result<(), ConfigError> {
        use crate::confine::{self, Refusal};
        let Some(config) = &self.path else { return Ok(()) };
        let Ok(root) = confine::repository_root() else { return Ok(()) };
        if !confine::absolute(config).is_ok_and(|c| c.starts_with(&root)) {
            return Ok(());
        }
        let mut paths: Vec<(&str, serde_saphyr::Location, &str)> = Vec::new();
        if let Some(m) = &self.file.memory {
            match &m.value {
                MemoryConfig::One(p) => paths.push(("memory", m.referenced, p)),
                MemoryConfig::Many(entries) => {
                    paths.extend(entries.iter().map(|e| ("memory", e.at.unwrap_or(m.referenced), e.path.as_str())))
                }
            }
        }
        if let Some(s) = &self.file.scenarios {
            match &s.value {
                OneOrMany::One(p) => paths.push(("scenarios", s.referenced, p)),
                OneOrMany::Many(ps) => paths.extend(ps.iter().map(|p| ("scenarios", s.referenced, p.as_str()))),
            }
        }
        if let Some(b) = &self.file.baseline {
            paths.push(("baseline", b.referenced, &b.value));
        }
        for (key, at, written) in paths {
            let path = self.resolve_path(written);
            // A path that cannot be resolved (a loop of links) is refused
            // where it is read or written.
            let Ok(leads) = confine::resolve_leading(&path) else { continue };
            if leads.starts_with(&root) {
                continue;
            }
            let message = match confine::escaping_link(&root, &path) {
                Some(l) => format!(
                    "`{key}` names `{}`: {}",
                    crate::describe::printable(written),
                    Refusal::Outside { link: l.link, target: l.target, root: root.clone() }
                ),
                None => format!(
                    "`{key}` names `{}`, which leads to {}, outside the repository {}; a path in the repository's configuration stays inside the repository (a pull request can change this file): move it inside, or name it on the command line ({})",
                    crate::describe::printable(written),
                    leads.display(),
                    root.display(),
                    match key {
                        "memory" => "--memory PATH",
                        "scenarios" => "--scenarios PATH",
                        _ => "--baseline PATH, or `baseline --out PATH`",
                    }
                ),
            };
            return Err(ConfigError::at_location(config, at, message));
        }
        Ok(())
    }

    /// Reads a configuration's text. A file with several mistakes reports
    /// them all, in line order: each unknown key or wrong type is set aside
    /// (its line and the lines indented under it) and the rest read again,
    /// until the text reads or a syntax error stops it; then every value
    /// that reads but cannot be used (a `k` of 0, a rule mode that is no
    /// mode) is added ([`Config::value_errors`]).
    pub fn parse(path: &Path, text: &str) -> Result<Config, ConfigError> {
        let (first, mut recoverable) = match Config::parse_once(path, text) {
            Ok(config) => {
                return match together(config.value_errors()) {
                    Some(e) => Err(e),
                    None => Ok(config),
                }
            }
            Err(e) => e,
        };
        let mut rest: Vec<String> = text.split('\n').map(str::to_string).collect();
        let mut errors = vec![first.clone()];
        let mut last = first;
        for _ in 0..MAX_CONFIG_ERRORS {
            let Some(line) = last.line.map(|l| l as usize).filter(|&l| recoverable && l <= rest.len()) else {
                break;
            };
            let indent = |l: &str| l.len() - l.trim_start().len();
            let own = indent(&rest[line - 1]);
            rest[line - 1].clear();
            for l in rest.iter_mut().skip(line) {
                if !l.trim().is_empty() && indent(l) <= own {
                    break;
                }
                l.clear();
            }
            match Config::parse_once(path, &rest.join("\n")) {
                // The rest reads: its values are checked too.
                Ok(config) => {
                    errors.extend(config.value_errors());
                    break;
                }
                // A new place: an error set aside does not come back.
                Err((e, r)) if errors.iter().all(|m| m.line != e.line) => {
                    errors.push(e.clone());
                    (last, recoverable) = (e, r);
                }
                Err(_) => break,
            }
        }
        Err(together(errors).expect("the first error is there"))
    }

    /// Every value of the file that reads but cannot be used, of the
    /// retrieval profile, the gate and the limits: all of them, not only
    /// the first.
    fn value_errors(&self) -> Vec<ConfigError> {
        let mut errors = Vec::new();
        self.file_profile(&mut errors);
        self.gate_into(&mut errors);
        self.limits_into(&mut errors);
        errors
    }

    /// [`Config::parse`] up to the first error, and whether the rest of the
    /// file can still be read past it (not after a syntax error).
    fn parse_once(path: &Path, text: &str) -> Result<Config, (ConfigError, bool)> {
        let file: ConfigFile = if text.trim().is_empty() {
            ConfigFile::default()
        } else {
            serde_saphyr::from_str(text).map_err(|e| {
                let loc = e.location();
                let line = loc.map(|l| l.line()).filter(|&l| l > 0);
                let column = loc.map(|l| l.column()).filter(|&c| c > 0);
                let mut message = yaml_message(&e);
                let (line, column) = match (line, column) {
                    (Some(l), Some(c)) => {
                        // Where the mistake is, not where the reader noticed it.
                        let ((l, c), m) = crate::scenarios::syntax_place(text, (l as usize, c as usize), &message);
                        message = m;
                        (Some(l as u64), Some(c as u64))
                    }
                    other => other,
                };
                let error = ConfigError {
                    path: Some(path.to_path_buf()),
                    line,
                    column,
                    // A message that names its own documentation keeps it.
                    message: if message.contains("(docs/") {
                        message
                    } else {
                        format!("{message} (see README: Configuration)")
                    },
                };
                (error, value_error(&e))
            })?
        };
        Ok(Config { path: Some(path.to_path_buf()), file })
    }

    /// The memory file: `flag`, else `memory:` of the file (when it names
    /// one file), else ./project_memory.json or ./.mneme/project_memory.json
    /// when one exists; `None` when there is none.
    pub fn memory_path(&self, flag: Option<&Path>) -> Option<PathBuf> {
        if let Some(p) = flag {
            return Some(p.to_path_buf());
        }
        if let Some(MemoryConfig::One(p)) = self.file.memory.as_ref().map(|m| &m.value) {
            return Some(self.resolve_path(p));
        }
        // Anything but a folder: a named pipe or a dangling link there is named by
        // the read, not mistaken for no memory file.
        DEFAULT_MEMORY_FILES
            .into_iter()
            .map(PathBuf::from)
            .find(|candidate| std::fs::symlink_metadata(candidate).is_ok_and(|m| !m.is_dir()))
    }

    /// The decision sources: the `--memory` flags (each `KIND:PATH` or a
    /// JSON file), else `memory:` of the file (a path or a list of
    /// sources), else the default memory file when one exists; `None` when
    /// there is none.
    pub fn memory_sources(&self, flags: &[PathBuf]) -> Option<Sources> {
        if !flags.is_empty() {
            let list = flags.iter().map(|f| Source::parse_spec(f)).collect();
            return Some(Sources { list, root: PathBuf::from(".") });
        }
        match self.file.memory.as_ref().map(|m| &m.value) {
            Some(MemoryConfig::One(p)) => {
                Some(Sources { list: vec![Source::new(SourceKind::Json, self.resolve_path(p))], root: self.folder() })
            }
            Some(MemoryConfig::Many(entries)) => {
                let list = entries.iter().map(|e| e.source(|p| self.resolve_path(p))).collect();
                Some(Sources { list, root: self.folder() })
            }
            None => self.memory_path(None).map(Sources::json),
        }
    }

    /// The folder the file's paths are relative to (`.` without a file).
    fn folder(&self) -> PathBuf {
        match self.path.as_ref().and_then(|c| c.parent()) {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }

    /// The suite roots of `scenarios:`, resolved against the file's folder.
    pub fn suites(&self) -> Vec<PathBuf> {
        match self.file.scenarios.as_ref().map(|s| &s.value) {
            None => Vec::new(),
            Some(OneOrMany::One(p)) => vec![self.resolve_path(p)],
            Some(OneOrMany::Many(ps)) => ps.iter().map(|p| self.resolve_path(p)).collect(),
        }
    }

    /// A path from the file, made relative to the file's folder.
    pub fn resolve_path(&self, p: &str) -> PathBuf {
        let rel = Path::new(p);
        match self.path.as_ref().and_then(|c| c.parent()) {
            Some(dir) if rel.is_relative() && !dir.as_os_str().is_empty() => dir.join(rel),
            _ => rel.to_path_buf(),
        }
    }

    fn where_(&self) -> PathBuf {
        self.path.clone().unwrap_or_else(|| PathBuf::from(CONFIG_FILE))
    }

    /// The effective profile: the named profile of `cli_profile`, or else of
    /// the file's `retrieval.profile` with the file's overrides, then `--k`.
    ///
    /// A profile named on the command line is taken as published: the
    /// file's overrides belong to the profile the file names, so
    /// `--profile mneme` reproduces Mneme whatever the file tunes.
    pub fn profile(&self, cli_profile: Option<Named>, cli_k: Option<usize>) -> Result<Profile, ConfigError> {
        let mut profile = match cli_profile {
            Some(named) => Profile::of(named),
            None => {
                let mut errors = Vec::new();
                let p = self.file_profile(&mut errors);
                if let Some(e) = together(errors) {
                    return Err(e);
                }
                p
            }
        };
        if let Some(k) = cli_k {
            if k == 0 {
                return Err(ConfigError::usage("--k must be at least 1"));
            }
            profile.k = k;
        }
        Ok(profile)
    }

    /// The profile the file names, with the file's overrides; each value
    /// that cannot be used is added to `errors` (an unknown profile name
    /// to them, and the overrides checked against profile `default`).
    fn file_profile(&self, errors: &mut Vec<ConfigError>) -> Profile {
        let path = self.where_();
        let retrieval = self.file.retrieval.as_ref();
        let named = match retrieval.and_then(|r| r.profile.as_ref()) {
            None => Named::Default,
            Some(s) => Named::parse(&s.value).unwrap_or_else(|| {
                errors.push(ConfigError::at(
                    &path,
                    s,
                    format!("unknown profile `{}`: use `default`, `classic` or `mneme`", s.value),
                ));
                Named::Default
            }),
        };
        let mut p = Profile::of(named);
        if let Some(r) = retrieval {
            apply_overrides(&path, r, &mut p, errors);
        }
        p
    }
}

impl Config {
    /// The gate as configured: the defaults of metrics.md with the file's
    /// modes and tolerances.
    pub fn gate_settings(&self) -> Result<GateSettings, ConfigError> {
        let mut errors = Vec::new();
        let settings = self.gate_into(&mut errors);
        together(errors).map_or(Ok(settings), Err)
    }

    /// [`Config::gate_settings`], each value that cannot be used added to
    /// `errors`.
    fn gate_into(&self, errors: &mut Vec<ConfigError>) -> GateSettings {
        let mut settings = GateSettings::default();
        let Some(g) = &self.file.gate else { return settings };
        let path = self.where_();
        let modes = [
            (Rule::Recall, &g.recall),
            (Rule::WeakRetrieval, &g.weak_retrieval),
            (Rule::Malformed, &g.malformed),
            (Rule::PassRate, &g.pass_rate),
            (Rule::FalsePositive, &g.false_positive),
            (Rule::VerdictRegression, &g.verdict_regression),
            (Rule::MissingScenarios, &g.missing_scenarios),
            (Rule::SuiteMeans, &g.suite_means),
            (Rule::BaselineChange, &g.baseline_change),
            (Rule::NoNewUngated, &g.no_new_ungated),
        ];
        let mode_of = |key: &str, v: &Spanned<String>, value: &str| match value {
            "fail" => Ok(RuleMode::Fail),
            "advisory" => Ok(RuleMode::Advisory),
            "off" => Ok(RuleMode::Off),
            other => {
                let mean = crate::describe::suggest(other, &["fail", "advisory", "off"])
                    .map(|s| format!(" (did you mean `{s}`?)"))
                    .unwrap_or_default();
                Err(ConfigError::at(&path, v, format!("`{key}` is `{other}`; use `fail`, `advisory` or `off`{mean}")))
            }
        };
        for (rule, value) in modes {
            let Some(v) = value else { continue };
            if let Some(mode) = keep(errors, mode_of(&format!("gate.{rule}"), v, &v.value)) {
                settings.set_mode(rule, mode);
            }
        }
        // A threshold turns its rule on, in `fail` mode unless it says.
        let threshold = |rule: Rule, v: &Spanned<Threshold>| -> Result<(f64, RuleMode), ConfigError> {
            let (min, mode) = match &v.value {
                Threshold::Min(min) => (*min, RuleMode::Fail),
                Threshold::WithMode(t) => {
                    let mode = match &t.mode {
                        None => RuleMode::Fail,
                        Some(m) => {
                            let spanned = Spanned { value: m.clone(), referenced: v.referenced, defined: v.defined };
                            mode_of(&format!("gate.{rule}.mode"), &spanned, m)?
                        }
                    };
                    (t.min, mode)
                }
            };
            if !min.is_finite() || min < 0.0 {
                return Err(ConfigError::at(
                    &path,
                    v,
                    format!("`gate.{rule}` must be a number of at least 0, found {min}"),
                ));
            }
            Ok((min, mode))
        };
        if let Some(v) = &g.min_gated_share {
            if let Some((min, mode)) = keep(errors, threshold(Rule::MinGatedShare, v)) {
                if min > 1.0 {
                    errors.push(ConfigError::at(
                        &path,
                        v,
                        format!("`gate.min_gated_share` is a share of the pool: between 0 and 1, found {min}"),
                    ));
                } else {
                    settings.set_min_gated_share(min);
                    settings.set_mode(Rule::MinGatedShare, mode);
                }
            }
        }
        if let Some(v) = &g.min_margin {
            let margin = threshold(Rule::MinMargin, v).and_then(|(min, mode)| {
                let min = Spanned { value: min, referenced: v.referenced, defined: v.defined };
                Ok((milli(&path, "gate.min_margin", &min)?, mode))
            });
            if let Some((margin, mode)) = keep(errors, margin) {
                settings.set_min_margin(margin);
                settings.set_mode(Rule::MinMargin, mode);
            }
        }
        let check = |key: &str, v: &Spanned<f64>| -> Result<f64, ConfigError> {
            if v.value.is_finite() && (0.0..=1.0).contains(&v.value) {
                Ok(v.value)
            } else {
                Err(ConfigError::at(&path, v, format!("`{key}` must be between 0 and 1, found {}", v.value)))
            }
        };
        if let Some(t) = g.tolerance.as_ref().and_then(|v| keep(errors, check("gate.tolerance", v))) {
            for (metric, _) in SUITE_MEANS {
                settings.set_tolerance(metric, t);
            }
        }
        if let Some(t) = &g.tolerances {
            let each = [
                ("mean_recall_at_1", &t.mean_recall_at_1),
                ("mean_precision_at_k", &t.mean_precision_at_k),
                ("mrr", &t.mrr),
                ("mean_ndcg_at_k", &t.mean_ndcg_at_k),
                ("irrelevant_injection_rate", &t.irrelevant_injection_rate),
                ("ungoverned_injection_rate", &t.ungoverned_injection_rate),
            ];
            for (metric, value) in each {
                if let Some(t) =
                    value.as_ref().and_then(|v| keep(errors, check(&format!("gate.tolerances.{metric}"), v)))
                {
                    settings.set_tolerance(metric, t);
                }
            }
        }
        settings
    }
}

/// The most errors a configuration file reports.
const MAX_CONFIG_ERRORS: usize = 20;

/// The errors of one configuration as one, in line order: the first with
/// its place, each other on a line of its own under it; `None` when there
/// are none.
fn together(mut errors: Vec<ConfigError>) -> Option<ConfigError> {
    errors.sort_by_key(|e| (e.line.is_none(), e.line, e.column));
    let mut errors = errors.into_iter();
    let mut first = errors.next()?;
    for e in errors {
        first.message.push_str(&format!("\n  {e}"));
    }
    Some(first)
}

/// The value of `result`, or `None` with its error added to `errors`.
fn keep<T>(errors: &mut Vec<ConfigError>, result: Result<T, ConfigError>) -> Option<T> {
    result.map_err(|e| errors.push(e)).ok()
}

/// Whether a serde-saphyr error is about one key or value (an unknown key,
/// a wrong type or value, a key set twice), after which the rest of the
/// file can still be read; not a syntax error.
fn value_error(e: &serde_saphyr::Error) -> bool {
    use serde_saphyr::Error as E;
    let mut e = e;
    while let E::WithSnippet { error, .. } = e {
        e = error;
    }
    matches!(
        e,
        E::SerdeInvalidType { .. }
            | E::SerdeInvalidValue { .. }
            | E::SerdeInvalidLength { .. }
            | E::SerdeUnknownVariant { .. }
            | E::SerdeUnknownField { .. }
            | E::SerdeMissingField { .. }
            | E::InvalidScalar { .. }
            | E::InvalidBooleanStrict { .. }
            | E::NullIntoString { .. }
            | E::NonFiniteFloat { .. }
            | E::Unexpected { .. }
            | E::DuplicateMappingKey { .. }
    )
}

/// What a serde-saphyr error means for a configuration file, in words a
/// user can act on. The library's own wording is for developers (`use
/// from_str_multiple`, `set DuplicateKeyPolicy in Options`, `budget breached:
/// Depth { .. }`, `invalid i64`); the place is given apart, as `path:line:column`.
fn yaml_message(e: &serde_saphyr::Error) -> String {
    use serde_saphyr::budget::BudgetBreach;
    use serde_saphyr::Error as E;
    let mut e = e;
    while let E::WithSnippet { error, .. } | E::AliasError { error, .. } = e {
        e = error;
    }
    match e {
        E::MultipleDocuments { .. } => {
            "a second YAML document starts here (after a `---` line); the configuration is one \
             document: remove the `---` and merge what follows into the first"
                .into()
        }
        E::DuplicateMappingKey { key, .. } => format!(
            "{} is set a second time here, in the same mapping; YAML does not allow it: keep only one",
            key.as_deref().map_or("a key".to_string(), |k| format!("`{k}`"))
        ),
        E::Budget { breach, .. } => {
            let what = match breach {
                BudgetBreach::Depth { .. } => "nested too deep",
                BudgetBreach::Events { .. } | BudgetBreach::Nodes { .. } => "made of too many values",
                BudgetBreach::Aliases { .. }
                | BudgetBreach::Anchors { .. }
                | BudgetBreach::AliasAnchorRatio { .. }
                | BudgetBreach::RecordedAnchorEvents { .. }
                | BudgetBreach::RecordedAnchorBytes { .. } => "expanding too many aliases (`*name`)",
                BudgetBreach::Documents { .. } => "made of too many documents",
                BudgetBreach::ScalarBytes { .. } | BudgetBreach::InputBytes { .. } => "holding too much text",
                BudgetBreach::MergeKeys { .. } => "using too many merge keys (`<<`)",
                _ => "too large or too complex",
            };
            format!("the YAML is {what} for a configuration, which is a few plain lines: this is not a mneme-gate configuration; check the file")
        }
        E::AliasReplayCounterOverflow { .. }
        | E::AliasReplayLimitExceeded { .. }
        | E::AliasExpansionLimitExceeded { .. }
        | E::AliasReplayStackDepthExceeded { .. } => {
            "the aliases (`*name`) expand too much for a configuration: write the values out instead".into()
        }
        E::UnknownAnchor { .. } => "this alias (`*name`) names no anchor (`&name`) defined before it".into(),
        E::InvalidUtf8Input => "the file is not valid UTF-8: save it as UTF-8".into(),
        // A misspelt key (a gate rule, a weight) names the one it most
        // likely meant.
        E::SerdeUnknownField { field, expected, .. } => format!(
            "unknown field `{field}`, expected one of {}{}",
            expected.join(", "),
            crate::describe::suggest(field, expected).map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default()
        ),
        E::InvalidScalar { ty, .. } => format!("expected {}", scalar_words(ty)),
        E::Unexpected { expected, .. } => format!("expected {}", expected.replace("string scalar", "a string")),
        E::Eof { .. } => "the file ends in the middle of a value".into(),
        E::Message { msg, .. } if msg.contains("untagged enum OneOrMany") => {
            "expected a path or a list of paths".into()
        }
        _ => {
            // The library's sentence, first line only, without its own
            // "at line L, column C" (the place is given apart).
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("invalid YAML");
            let first = match first.rfind(" at line ") {
                Some(i) if first[i..].contains(", column ") => &first[..i],
                _ => first,
            };
            first.to_string()
        }
    }
}

/// A Rust scalar type in a message, in words.
fn scalar_words(ty: &str) -> String {
    match ty {
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128" | "usize" => {
            "a whole number".into()
        }
        "f32" | "f64" => "a number".into(),
        "bool" | "boolean" => "`true` or `false`".into(),
        "char" => "a single character".into(),
        "string" | "String" | "str" => "a string".into(),
        other => format!("a value of type {other}"),
    }
}

fn milli(path: &Path, key: &str, v: &Spanned<f64>) -> Result<Milli, ConfigError> {
    Milli::from_f64(v.value)
        .map_err(|e| ConfigError::at(path, v, format!("`{key}`: {e}; use at most three decimal places")))
}

/// The file's `retrieval:` over the profile `p`; each value that cannot be
/// used is added to `errors` and leaves the profile's own.
fn apply_overrides(path: &Path, r: &RetrievalConfig, p: &mut Profile, errors: &mut Vec<ConfigError>) {
    if let Some(k) = &r.k {
        if k.value < 1 || k.value > 1_000_000 {
            errors.push(ConfigError::at(
                path,
                k,
                format!("`retrieval.k` must be between 1 and 1000000, found {}", k.value),
            ));
        } else {
            p.k = k.value as usize;
        }
    }
    if let Some(v) = r.min_score.as_ref().and_then(|v| keep(errors, milli(path, "retrieval.min_score", v))) {
        p.min_score = v;
    }
    if let Some(v) = r.tag_boost.as_ref().and_then(|v| keep(errors, milli(path, "retrieval.tag_boost", v))) {
        p.tag_boost = v;
    }
    if let Some(v) = &r.min_token_len {
        if v.value < 1 || v.value > 64 {
            errors.push(ConfigError::at(
                path,
                v,
                format!("`retrieval.min_token_len` must be between 1 and 64, found {}", v.value),
            ));
        } else {
            p.min_token_len = v.value as usize;
        }
    }
    if let Some(stem) = r.stem {
        p.stem = stem;
    }
    if let Some(c) = &r.bm25f {
        let name = p.name;
        if let Some(b) = p.bm25f.as_mut() {
            let slots = [
                (&c.k1, &mut b.k1, "k1", 0, 1_000_000),
                (&c.b, &mut b.b, "b", 0, 1000),
                (&c.path_weight, &mut b.path_weight, "path_weight", 0, 1_000_000),
                (&c.path_max_df, &mut b.path_max_df, "path_max_df", 0, 1000),
            ];
            for (given, slot, key, lo, hi) in slots {
                let Some(v) = given else { continue };
                let key = format!("retrieval.bm25f.{key}");
                let Some(value) = keep(errors, milli(path, &key, v)) else { continue };
                if value.0 < lo || value.0 > hi {
                    errors.push(ConfigError::at(
                        path,
                        v,
                        format!("`{key}` must be between {} and {}, found {}", Milli(lo), Milli(hi), value),
                    ));
                    continue;
                }
                *slot = value;
            }
        } else {
            let at = [&c.k1, &c.b, &c.path_weight, &c.path_max_df].into_iter().flatten().next();
            let message = format!("`retrieval.bm25f`: profile `{name}` is not BM25F; only profile `default` is");
            errors.push(match at {
                Some(v) => ConfigError::at(path, v, message),
                None => ConfigError::usage(message),
            });
        }
    }
    if let Some(v) = &r.skip_chores {
        let name = p.name;
        match p.bm25f.as_mut() {
            Some(b) => b.skip_chores = v.value,
            None => errors.push(ConfigError::at(
                path,
                v,
                format!("`retrieval.skip_chores`: profile `{name}` has no chore rule; only profile `default` does"),
            )),
        }
    }
    if let Some(w) = &r.weights {
        let slots = [
            (&w.title, &mut p.weights.title, "title"),
            (&w.tags, &mut p.weights.tags, "tags"),
            (&w.constraint, &mut p.weights.constraint, "constraint"),
            (&w.anti_patterns, &mut p.weights.anti_patterns, "anti_patterns"),
            (&w.content, &mut p.weights.content, "content"),
        ];
        for (given, slot, name) in slots {
            if let Some(v) =
                given.as_ref().and_then(|v| keep(errors, milli(path, &format!("retrieval.weights.{name}"), v)))
            {
                *slot = v;
            }
        }
        let sections = [
            (&w.summary, "summary"),
            (&w.decision, "decision"),
            (&w.context, "context"),
            (&w.options, "options"),
            (&w.consequences, "consequences"),
        ];
        for (given, name) in sections {
            let Some(v) = given else { continue };
            let key = format!("retrieval.weights.{name}");
            let Some(value) = keep(errors, milli(path, &key, v)) else { continue };
            let Some(b) = p.bm25f.as_mut() else {
                errors.push(ConfigError::at(
                    path,
                    v,
                    format!("`{key}`: profile `{}` does not score ADR sections; only profile `default` does", p.name),
                ));
                continue;
            };
            let slot = match name {
                "summary" => &mut b.sections.summary,
                "decision" => &mut b.sections.decision,
                "context" => &mut b.sections.context,
                "options" => &mut b.sections.options,
                _ => &mut b.sections.consequences,
            };
            *slot = value;
        }
    }
}

impl Config {
    /// The suite's reading limits: the defaults, with the file's `limits:`.
    pub fn suite_limits(&self) -> Result<SuiteLimits, ConfigError> {
        let mut errors = Vec::new();
        let limits = self.limits_into(&mut errors);
        together(errors).map_or(Ok(limits), Err)
    }

    /// [`Config::suite_limits`], each value that cannot be used added to
    /// `errors`.
    fn limits_into(&self, errors: &mut Vec<ConfigError>) -> SuiteLimits {
        /// Reading is recursive, so nesting beyond this could exhaust a
        /// worker thread's stack.
        const DEEPEST: u64 = 128;
        let mut limits = SuiteLimits::default();
        let Some(l) = &self.file.limits else { return limits };
        let path = self.where_();
        let at_least_one = |key: &str, v: &Spanned<u64>| -> Result<u64, ConfigError> {
            if v.value == 0 {
                return Err(ConfigError::at(&path, v, format!("`limits.{key}` must be at least 1")));
            }
            Ok(v.value)
        };
        let size = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        if let Some(v) = l.max_response_bytes.as_ref().and_then(|v| keep(errors, at_least_one("max_response_bytes", v)))
        {
            limits.max_response_bytes = v;
        }
        if let Some(v) =
            l.max_suite_file_bytes.as_ref().and_then(|v| keep(errors, at_least_one("max_suite_file_bytes", v)))
        {
            limits.max_suite_file_bytes = v;
        }
        if let Some(y) = &l.yaml {
            let YamlLimits { alias_factor, min_alias_nodes, min_alias_bytes, max_depth } = &mut limits.yaml;
            // Zero is meaningful for the alias allowances: no aliases at all.
            if let Some(v) = &y.alias_factor {
                *alias_factor = size(v.value);
            }
            if let Some(v) = &y.min_alias_nodes {
                *min_alias_nodes = size(v.value);
            }
            if let Some(v) = &y.min_alias_bytes {
                *min_alias_bytes = size(v.value);
            }
            if let Some(v) = &y.max_depth {
                match keep(errors, at_least_one("yaml.max_depth", v)) {
                    Some(depth) if depth > DEEPEST => errors.push(ConfigError::at(
                        &path,
                        v,
                        format!("`limits.yaml.max_depth` is {depth}; at most {DEEPEST} (deeper nesting could exhaust a worker thread's stack)"),
                    )),
                    Some(depth) => *max_depth = size(depth),
                    None => {}
                }
            }
        }
        limits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(Path::new("mneme-gate.yaml"), text)
    }

    /// A syntax error is placed where the mistake is: at the tab, and at
    /// the `[` that is never closed (the YAML reader notices them a line
    /// early and a line late).
    #[test]
    fn syntax_errors_point_at_the_tab_and_at_the_unclosed_bracket() {
        let place = |text: &str| {
            let e = parse(text).unwrap_err();
            (e.line, e.column, e.to_string())
        };
        let (line, column, text) =
            place("memory: m.json\nscenarios: [s]\nretrieval:\n  profile: default\n  k: 3\ngate:\n  recall: fail\n  malformed: fail\n  tolerance: 0.1\n\tpass_rate: fail\n");
        assert_eq!((line, column), (Some(10), Some(1)), "{text}");
        assert!(text.contains("a tab in the indentation"), "{text}");
        let (line, column, text) =
            place("# ours\nmemory: m.json\nretrieval: {k: 3}\nscenarios: [a/, b/\nbaseline: reports/b.json\n");
        assert_eq!((line, column), (Some(4), Some(12)), "{text}");
        assert!(text.contains("this `[` is never closed"), "{text}");
    }

    /// A bad configuration reports every key and value it cannot read, in
    /// line order, not only the first.
    #[test]
    fn every_error_of_a_configuration_is_reported() {
        let e = parse("memory: m.json\nscenarios: [s]\nretrieval:\n  k: three\n  colour: red\n  weights:\n    title: x\ngate: {}\nbogus: 1\n").unwrap_err();
        assert_eq!((e.line, e.column), (Some(4), Some(6)), "{e}");
        let text = e.to_string();
        let places: Vec<&str> = text.lines().map(|l| l.trim_start().split(' ').next().unwrap()).collect();
        assert_eq!(
            places,
            ["mneme-gate.yaml:4:6:", "mneme-gate.yaml:5:3:", "mneme-gate.yaml:7:12:", "mneme-gate.yaml:9:1:"],
            "{text}"
        );
        assert!(text.contains("\n  mneme-gate.yaml:5:3: unknown field `colour`"), "{text}");
        // Values that read but cannot be used, of every section, come with
        // the keys set aside, in line order.
        let e = parse("retrieval:\n  profile: bm25\n  k: 0\n  weights:\n    title: 1.0005\nbogus: 1\ngate:\n  recall: maybe\n  tolerance: 2\nlimits:\n  max_response_bytes: 0\n").unwrap_err();
        let text = e.to_string();
        let places: Vec<&str> = text.lines().map(|l| l.trim_start().split(' ').next().unwrap()).collect();
        assert_eq!(
            places,
            [
                "mneme-gate.yaml:2:12:",
                "mneme-gate.yaml:3:6:",
                "mneme-gate.yaml:5:12:",
                "mneme-gate.yaml:6:1:",
                "mneme-gate.yaml:8:11:",
                "mneme-gate.yaml:9:14:",
                "mneme-gate.yaml:11:23:"
            ],
            "{text}"
        );
        // A syntax error stops the reading: nothing after it is guessed.
        let e = parse("memory: m.json\nbogus: 1\nscenarios: [s\nbaseline: b.json\n").unwrap_err();
        assert_eq!(e.line, Some(2), "{e}");
    }

    #[test]
    fn reads_paths_and_overrides() {
        let c = parse("memory: fixtures/m.json\nscenarios: scenarios/\nbaseline: reports/b.json\nretrieval:\n  profile: default\n  k: 5\n  min_score: 0.5\n  weights:\n    title: 4\n    content: 0.25\n  tag_boost: 0\n  min_token_len: 2\n  stem: true\ngate: {}\n").unwrap();
        assert!(
            matches!(c.file.memory.as_ref().map(|m| &m.value), Some(MemoryConfig::One(m)) if m == "fixtures/m.json")
        );
        assert!(matches!(c.file.scenarios.as_ref().map(|s| &s.value), Some(OneOrMany::One(_))));
        let b = c.file.baseline.as_ref().unwrap();
        assert_eq!((b.referenced.line(), b.referenced.column()), (3, 11), "the place of a path is kept");
        let p = c.profile(None, None).unwrap();
        assert_eq!(
            (p.k, p.min_score, p.weights.title, p.weights.content, p.tag_boost, p.min_token_len, p.stem),
            (5, Milli(500), Milli(4000), Milli(250), Milli(0), 2, true)
        );
        assert_eq!(p.weights.tags, Milli(2500));
        assert_eq!(c.profile(None, Some(7)).unwrap().k, 7);
        // A profile named on the command line is taken as published.
        let m = c.profile(Some(Named::Mneme), None).unwrap();
        assert_eq!(m, Profile::of(Named::Mneme));
    }

    #[test]
    fn unknown_keys_point_at_their_line() {
        let e = parse("memory: m.json\nretrieval:\n  weigths:\n    title: 2\n").unwrap_err();
        assert_eq!(e.line, Some(3), "{e}");
        assert!(e.message.contains("weigths"), "{e}");
        let e = parse("memory: m.json\nsuites: x\n").unwrap_err();
        assert_eq!(e.line, Some(2), "{e}");
    }

    #[test]
    fn bad_values_point_at_their_line() {
        let e = parse("retrieval:\n  weights:\n    title: 1.0005\n").unwrap_err();
        assert_eq!((e.line, e.column), (Some(3), Some(12)), "{e}");
        assert!(e.message.contains("three decimal places"));
        let e = parse("retrieval:\n  profile: bm25\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        let e = parse("retrieval:\n  k: 0\n").unwrap_err();
        assert!(e.message.contains("between 1"), "{e}");
        let e = parse("retrieval: [1, 2\n").unwrap_err();
        assert!(e.line.is_some(), "{e}");
        assert!(parse("").unwrap().profile(None, Some(0)).is_err());
    }

    #[test]
    fn gate_modes_and_tolerances() {
        let c =
            parse("gate:\n  suite_means: fail\n  recall: advisory\n  tolerance: 0.01\n  tolerances:\n    mrr: 0.05\n")
                .unwrap();
        let g = c.gate_settings().unwrap();
        assert_eq!(g.mode(Rule::SuiteMeans), RuleMode::Fail);
        assert_eq!(g.mode(Rule::Recall), RuleMode::Advisory);
        assert_eq!(g.mode(Rule::Malformed), RuleMode::Fail);
        assert_eq!(g.tolerance("mrr"), 0.05);
        assert_eq!(g.tolerance("mean_ndcg_at_k"), 0.01);
        assert_eq!(parse("").unwrap().gate_settings().unwrap(), GateSettings::default());
        assert_eq!(GateSettings::default().mode(Rule::SuiteMeans), RuleMode::Advisory);

        let e = parse("gate:\n  recall: warn\n").unwrap_err();
        assert_eq!(e.line, Some(2), "{e}");
        assert!(e.message.contains("use `fail`, `advisory` or `off`"), "{e}");
        let e = parse("gate:\n  tolerance: 2\n").unwrap_err();
        assert!(e.message.contains("between 0 and 1"), "{e}");
        let e = parse("gate:\n  fals_positive: fail\n").unwrap_err();
        // The place, every valid name, and the one it most likely meant.
        assert_eq!((e.line, e.column), (Some(2), Some(3)), "{e}");
        let names = Rule::ALL.map(Rule::name).join(", ");
        assert!(e.message.contains(&format!("unknown field `fals_positive`, expected one of {names}")), "{e}");
        assert!(e.message.contains("(did you mean `false_positive`?)"), "{e}");
        assert!(e.to_string().starts_with("mneme-gate.yaml:2:3: unknown field"), "{e}");
        let e = parse("gate:\n  recall: advisry\n").unwrap_err();
        assert!(e.message.ends_with("use `fail`, `advisory` or `off` (did you mean `advisory`?)"), "{e}");
        // Far from every name: no guess.
        let e = parse("gate:\n  colour: fail\n").unwrap_err();
        assert!(!e.message.contains("did you mean"), "{e}");
        let e = parse("gate:\n  tolerances:\n    mean_recall_at_k: 0.1\n").unwrap_err();
        assert_eq!(e.line, Some(3), "{e}");
    }

    #[test]
    fn every_rule_is_a_key_of_the_gate_section() {
        for rule in Rule::ALL {
            let value = if matches!(rule, Rule::MinGatedShare | Rule::MinMargin) {
                "{min: 0.5, mode: advisory}"
            } else {
                "advisory"
            };
            let g = parse(&format!("gate:\n  {rule}: {value}\n")).unwrap().gate_settings().unwrap();
            assert_eq!(g.mode(rule), RuleMode::Advisory, "{rule}");
            assert!(Rule::ALL.iter().filter(|r| **r != rule).all(|r| g.mode(*r) == r.default_mode()), "{rule}");
        }
    }

    #[test]
    fn coverage_rules_are_off_until_configured() {
        let g = parse("").unwrap().gate_settings().unwrap();
        for rule in crate::gate::COVERAGE_RULES {
            assert_eq!(g.mode(rule), RuleMode::Off, "{rule}");
        }
        let g = parse("gate:\n  min_gated_share: 0.8\n  min_margin: 1.5\n  no_new_ungated: advisory\n")
            .unwrap()
            .gate_settings()
            .unwrap();
        assert_eq!((g.mode(Rule::MinGatedShare), g.min_gated_share()), (RuleMode::Fail, 0.8));
        assert_eq!((g.mode(Rule::MinMargin), g.min_margin()), (RuleMode::Fail, Milli(1500)));
        assert_eq!(g.mode(Rule::NoNewUngated), RuleMode::Advisory);
        let g = parse("gate:\n  min_margin: {min: 2, mode: advisory}\n  min_gated_share:\n    min: 0.5\n")
            .unwrap()
            .gate_settings()
            .unwrap();
        assert_eq!((g.mode(Rule::MinMargin), g.min_margin()), (RuleMode::Advisory, Milli(2000)));
        assert_eq!((g.mode(Rule::MinGatedShare), g.min_gated_share()), (RuleMode::Fail, 0.5));

        let e = parse("gate:\n  min_gated_share: 1.5\n").unwrap_err();
        assert_eq!(e.line, Some(2), "{e}");
        assert!(e.message.contains("between 0 and 1"), "{e}");
        let e = parse("gate:\n  min_margin: -1\n").unwrap_err();
        assert!(e.message.contains("at least 0"), "{e}");
        let e = parse("gate:\n  min_margin: 0.0005\n").unwrap_err();
        assert!(e.message.contains("three decimal places"), "{e}");
        let e = parse("gate:\n  min_margin: {min: 1, mode: warn}\n").unwrap_err();
        assert_eq!(e.line, Some(2), "{e}");
        assert!(e.message.contains("`gate.min_margin.mode` is `warn`"), "{e}");
        let e = parse("gate:\n  no_new_ungated: yes\n").unwrap_err();
        assert!(e.message.contains("use `fail`, `advisory` or `off`"), "{e}");
        assert!(parse("gate:\n  min_margin: {min: 1, mod: fail}\n").is_err());
        assert!(parse("gate:\n  min_margin: lots\n").is_err());
    }

    /// serde-saphyr's wording for developers never reaches users: each
    /// error says what happened and what to do, at its place.
    #[test]
    fn yaml_errors_are_said_in_words_with_their_place() {
        let deep = format!("scenarios: {}x{}\n", "[".repeat(100), "]".repeat(100));
        let many = format!("scenarios: [{}]\n", vec!["x"; 300_000].join(","));
        let cases: [(&str, (u64, u64), &str); 8] = [
            (
                "memory: a.json\n---\nmemory: b.json\n",
                (3, 1),
                "a second YAML document starts here (after a `---` line); the configuration is one document: remove the `---` and merge what follows into the first",
            ),
            (
                "memory: a.json\nmemory: b.json\n",
                (2, 1),
                "`memory` is set a second time here, in the same mapping; YAML does not allow it: keep only one",
            ),
            (
                "retrieval:\n  k: 3\n  k: 4\n",
                (3, 3),
                "`k` is set a second time here, in the same mapping; YAML does not allow it: keep only one",
            ),
            (
                &deep,
                (1, 75),
                "the YAML is nested too deep for a configuration, which is a few plain lines: this is not a mneme-gate configuration; check the file",
            ),
            (
                &many,
                (1, 500_007),
                "the YAML is made of too many values for a configuration, which is a few plain lines: this is not a mneme-gate configuration; check the file",
            ),
            ("retrieval:\n  k: x\n", (2, 6), "expected a whole number"),
            ("scenarios: {a: 1}\n", (1, 12), "expected a path or a list of paths"),
            (
                "memory: [1]\n",
                (1, 10),
                "invalid type: integer `1`, expected a memory file, or `adr`, `cursor`, `copilot`, `claude`, `agents` or `json` with a path",
            ),
        ];
        for (text, (line, column), message) in cases {
            let e = parse(text).unwrap_err();
            let shown = e.to_string();
            for internal in ["from_str", "Options", "budget breached", "i64", "untagged", "scalar", "at line"] {
                assert!(!shown.contains(internal), "{shown}");
            }
            assert_eq!(
                (e.line, e.column, e.message.as_str()),
                (Some(line), Some(column), &*format!("{message} (see README: Configuration)")),
                "{text:.80}"
            );
        }
    }

    #[test]
    fn only_a_small_regular_file_in_utf8_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let latin1 = dir.path().join("latin1.yaml");
        std::fs::write(&latin1, b"memory: m.json\nbaseline: caf\xe9.json\n").unwrap();
        let e = Config::discover(Some(&latin1)).unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(14)), "{e}");
        assert_eq!(e.message, "the file is not valid UTF-8 (the first invalid byte is here): save it as UTF-8");

        let large = dir.path().join("large.yaml");
        std::fs::File::create(&large).unwrap().set_len(MAX_CONFIG_BYTES + 1).unwrap();
        let e = Config::discover(Some(&large)).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("{}: the configuration file is larger than 1 MiB, the most mneme-gate reads; a configuration is a few lines: check the path (see README: Configuration)", large.display())
        );
        let e = Config::discover(Some(dir.path())).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("{}: the configuration file is a folder, not a regular file: make it the YAML file itself, or name one with --config", dir.path().display())
        );
        #[cfg(unix)]
        if Path::new("/dev/zero").exists() {
            let e = Config::discover(Some(Path::new("/dev/zero"))).unwrap_err();
            assert!(e.message.starts_with("the configuration file is a character device, not a regular file"), "{e}");
        }
    }

    #[test]
    fn paths_are_relative_to_the_file() {
        let c = Config::parse(Path::new("conf/mneme-gate.yaml"), "memory: m.json\n").unwrap();
        assert_eq!(c.resolve_path("m.json"), Path::new("conf/m.json"));
        assert_eq!(c.resolve_path("/abs/m.json"), Path::new("/abs/m.json"));
        let here = Config::parse(Path::new("mneme-gate.yaml"), "").unwrap();
        assert_eq!(here.resolve_path("m.json"), Path::new("m.json"));
    }

    #[test]
    fn limits_default_and_override() {
        assert_eq!(parse("").unwrap().suite_limits().unwrap(), SuiteLimits::default());
        let l = parse("limits:\n  max_response_bytes: 10\n  yaml:\n    alias_factor: 0\n    max_depth: 12\n")
            .unwrap()
            .suite_limits()
            .unwrap();
        assert_eq!((l.max_response_bytes, l.yaml.alias_factor, l.yaml.max_depth), (10, 0, 12));
        assert_eq!(l.max_suite_file_bytes, SuiteLimits::MAX_SUITE_FILE_BYTES);
        let e = parse("limits:\n  yaml:\n    max_depth: 100000\n").unwrap_err();
        assert!(
            e.to_string().starts_with("mneme-gate.yaml:3:16: `limits.yaml.max_depth` is 100000; at most 128"),
            "{e}"
        );
        let e = parse("limits:\n  max_response_bytes: 0\n").unwrap_err();
        assert!(e.to_string().contains("`limits.max_response_bytes` must be at least 1"), "{e}");
        assert!(parse("limits:\n  max_respons_bytes: 1\n").is_err(), "unknown keys are refused");
    }
}
