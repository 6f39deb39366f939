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

use crate::memory::{read_regular, size_in_words, DecisionSource, ReadError, SourceKind, Sources};

mod errors;
mod gate;
mod limits;
mod model;
mod retrieval;
mod sources;
pub use errors::ConfigError;
use errors::{together, value_error, yaml_message, MAX_CONFIG_ERRORS};
pub use gate::{GateConfig, Threshold, ThresholdWithMode, TolerancesConfig};
pub use limits::{LimitsConfig, YamlLimitsConfig};
pub use model::{ModelConfig, ModelFlags, PricesConfig};
pub use retrieval::{Bm25fConfig, RetrievalConfig, WeightsConfig};
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
                    "the configuration file is larger than {}, the most mneme-gate reads; a configuration is a few lines: check the path (see docs/reference.md: Configuration)",
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
                        format!("{message} (see docs/reference.md: Configuration)")
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
            let list = flags.iter().map(|f| DecisionSource::parse_spec(f)).collect();
            return Some(Sources { list, root: PathBuf::from(".") });
        }
        match self.file.memory.as_ref().map(|m| &m.value) {
            Some(MemoryConfig::One(p)) => Some(Sources {
                list: vec![DecisionSource::new(SourceKind::Json, self.resolve_path(p))],
                root: self.folder(),
            }),
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::{GateSettings, Rule, RuleMode};
    use crate::profile::{Milli, Named, Profile};
    use crate::scenarios::SuiteLimits;

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
        assert_eq!(g.tolerance(crate::gate::SuiteMean::Mrr), 0.05);
        assert_eq!(g.tolerance(crate::gate::SuiteMean::MeanNdcgAtK), 0.01);
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
                (Some(line), Some(column), &*format!("{message} (see docs/reference.md: Configuration)")),
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
            format!("{}: the configuration file is larger than 1 MiB, the most mneme-gate reads; a configuration is a few lines: check the path (see docs/reference.md: Configuration)", large.display())
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
