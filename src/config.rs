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

use crate::gate::{GateSettings, RuleMode, SUITE_MEANS};
use crate::profile::{Family, Milli, Profile};
use crate::scenarios::{SuiteLimits, YamlLimits};

/// The default configuration file name, looked up in the working folder.
pub const CONFIG_FILE: &str = "mneme-gate.yaml";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    pub memory: Option<String>,
    pub scenarios: Option<OneOrMany>,
    pub baseline: Option<String>,
    pub retrieval: Option<RetrievalConfig>,
    pub gate: Option<GateConfig>,
    pub limits: Option<LimitsConfig>,
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
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeightsConfig {
    pub title: Option<Spanned<f64>>,
    pub tags: Option<Spanned<f64>>,
    pub constraint: Option<Spanned<f64>>,
    pub anti_patterns: Option<Spanned<f64>>,
    pub content: Option<Spanned<f64>>,
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
    pub verdict_regression: Option<Spanned<String>>,
    pub missing_scenarios: Option<Spanned<String>>,
    pub suite_means: Option<Spanned<String>>,
    pub baseline_change: Option<Spanned<String>>,
    /// How far every suite mean may drop (or rate rise) before
    /// `suite_means` counts it.
    pub tolerance: Option<Spanned<f64>>,
    /// Per-figure tolerances, overriding `tolerance`.
    pub tolerances: Option<TolerancesConfig>,
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
        let loc = spanned.referenced;
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
                let p = PathBuf::from(CONFIG_FILE);
                if !p.is_file() {
                    return Ok(Config::default());
                }
                p
            }
        };
        let text = std::fs::read_to_string(&path).map_err(|e| ConfigError {
            path: Some(path.clone()),
            line: None,
            column: None,
            message: format!("cannot read the configuration file: {e}"),
        })?;
        Config::parse(&path, &text)
    }

    pub fn parse(path: &Path, text: &str) -> Result<Config, ConfigError> {
        let file: ConfigFile = if text.trim().is_empty() {
            ConfigFile::default()
        } else {
            serde_saphyr::from_str(text).map_err(|e| {
                let loc = e.location();
                let message = e.without_snippet().to_string();
                let message = message.lines().next().unwrap_or("invalid YAML").to_string();
                ConfigError {
                    path: Some(path.to_path_buf()),
                    line: loc.map(|l| l.line()).filter(|&l| l > 0),
                    column: loc.map(|l| l.column()).filter(|&c| c > 0),
                    message: format!("{message} (see README: Configuration)"),
                }
            })?
        };
        Ok(Config { path: Some(path.to_path_buf()), file })
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
    pub fn profile(&self, cli_profile: Option<Family>, cli_k: Option<usize>) -> Result<Profile, ConfigError> {
        let path = self.where_();
        let retrieval = self.file.retrieval.as_ref();
        let mut profile = match cli_profile {
            Some(family) => Profile::named(family),
            None => {
                let named = retrieval.and_then(|r| r.profile.as_ref());
                let family = match named {
                    None => Family::Default,
                    Some(s) => Family::parse(&s.value).ok_or_else(|| {
                        ConfigError::at(&path, s, format!("unknown profile `{}`: use `default` or `mneme`", s.value))
                    })?,
                };
                let mut p = Profile::named(family);
                if let Some(r) = retrieval {
                    apply_overrides(&path, r, &mut p)?;
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
}

impl Config {
    /// The gate as configured: the defaults of metrics.md with the file's
    /// modes and tolerances.
    pub fn gate_settings(&self) -> Result<GateSettings, ConfigError> {
        let mut settings = GateSettings::default();
        let Some(g) = &self.file.gate else { return Ok(settings) };
        let path = self.where_();
        let modes = [
            ("recall", &g.recall),
            ("weak_retrieval", &g.weak_retrieval),
            ("malformed", &g.malformed),
            ("pass_rate", &g.pass_rate),
            ("verdict_regression", &g.verdict_regression),
            ("missing_scenarios", &g.missing_scenarios),
            ("suite_means", &g.suite_means),
            ("baseline_change", &g.baseline_change),
        ];
        for (rule, value) in modes {
            let Some(v) = value else { continue };
            let mode = match v.value.as_str() {
                "fail" => RuleMode::Fail,
                "advisory" => RuleMode::Advisory,
                "off" => RuleMode::Off,
                other => {
                    return Err(ConfigError::at(
                        &path,
                        v,
                        format!("`gate.{rule}` is `{other}`; use `fail`, `advisory` or `off`"),
                    ))
                }
            };
            settings.set_mode(rule, mode);
        }
        let check = |key: &str, v: &Spanned<f64>| -> Result<f64, ConfigError> {
            if v.value.is_finite() && (0.0..=1.0).contains(&v.value) {
                Ok(v.value)
            } else {
                Err(ConfigError::at(&path, v, format!("`{key}` must be between 0 and 1, found {}", v.value)))
            }
        };
        if let Some(v) = &g.tolerance {
            let t = check("gate.tolerance", v)?;
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
                if let Some(v) = value {
                    settings.set_tolerance(metric, check(&format!("gate.tolerances.{metric}"), v)?);
                }
            }
        }
        Ok(settings)
    }
}

fn milli(path: &Path, key: &str, v: &Spanned<f64>) -> Result<Milli, ConfigError> {
    Milli::from_f64(v.value)
        .map_err(|e| ConfigError::at(path, v, format!("`{key}`: {e}; use at most three decimal places")))
}

fn apply_overrides(path: &Path, r: &RetrievalConfig, p: &mut Profile) -> Result<(), ConfigError> {
    if let Some(k) = &r.k {
        if k.value < 1 || k.value > 1_000_000 {
            return Err(ConfigError::at(
                path,
                k,
                format!("`retrieval.k` must be between 1 and 1000000, found {}", k.value),
            ));
        }
        p.k = k.value as usize;
    }
    if let Some(v) = &r.min_score {
        p.min_score = milli(path, "retrieval.min_score", v)?;
    }
    if let Some(v) = &r.tag_boost {
        p.tag_boost = milli(path, "retrieval.tag_boost", v)?;
    }
    if let Some(v) = &r.min_token_len {
        if v.value < 1 || v.value > 64 {
            return Err(ConfigError::at(
                path,
                v,
                format!("`retrieval.min_token_len` must be between 1 and 64, found {}", v.value),
            ));
        }
        p.min_token_len = v.value as usize;
    }
    if let Some(stem) = r.stem {
        p.stem = stem;
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
            if let Some(v) = given {
                *slot = milli(path, &format!("retrieval.weights.{name}"), v)?;
            }
        }
    }
    Ok(())
}

impl Config {
    /// The suite's reading limits: the defaults, with the file's `limits:`.
    pub fn suite_limits(&self) -> Result<SuiteLimits, ConfigError> {
        /// Reading is recursive, so nesting beyond this could exhaust a
        /// worker thread's stack.
        const DEEPEST: u64 = 128;
        let mut limits = SuiteLimits::default();
        let Some(l) = &self.file.limits else { return Ok(limits) };
        let path = self.where_();
        let at_least_one = |key: &str, v: &Spanned<u64>| -> Result<u64, ConfigError> {
            if v.value == 0 {
                return Err(ConfigError::at(&path, v, format!("`limits.{key}` must be at least 1")));
            }
            Ok(v.value)
        };
        let size = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        if let Some(v) = &l.max_response_bytes {
            limits.max_response_bytes = at_least_one("max_response_bytes", v)?;
        }
        if let Some(v) = &l.max_suite_file_bytes {
            limits.max_suite_file_bytes = at_least_one("max_suite_file_bytes", v)?;
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
                let depth = at_least_one("yaml.max_depth", v)?;
                if depth > DEEPEST {
                    return Err(ConfigError::at(
                        &path,
                        v,
                        format!("`limits.yaml.max_depth` is {depth}; at most {DEEPEST} (deeper nesting could exhaust a worker thread's stack)"),
                    ));
                }
                *max_depth = size(depth);
            }
        }
        Ok(limits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(Path::new("mneme-gate.yaml"), text)
    }

    #[test]
    fn reads_paths_and_overrides() {
        let c = parse("memory: fixtures/m.json\nscenarios: scenarios/\nbaseline: reports/b.json\nretrieval:\n  profile: default\n  k: 5\n  min_score: 0.5\n  weights:\n    title: 4\n    content: 0.25\n  tag_boost: 0\n  min_token_len: 2\n  stem: true\ngate: {}\n").unwrap();
        assert_eq!(c.file.memory.as_deref(), Some("fixtures/m.json"));
        assert!(matches!(c.file.scenarios, Some(OneOrMany::One(_))));
        let p = c.profile(None, None).unwrap();
        assert_eq!(
            (p.k, p.min_score, p.weights.title, p.weights.content, p.tag_boost, p.min_token_len, p.stem),
            (5, Milli(500), Milli(4000), Milli(250), Milli(0), 2, true)
        );
        assert_eq!(p.weights.tags, Milli(2500));
        assert_eq!(c.profile(None, Some(7)).unwrap().k, 7);
        // A profile named on the command line is taken as published.
        let m = c.profile(Some(Family::Mneme), None).unwrap();
        assert_eq!(m, Profile::named(Family::Mneme));
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
        let e = parse("retrieval:\n  weights:\n    title: 1.0005\n").unwrap().profile(None, None).unwrap_err();
        assert_eq!((e.line, e.column), (Some(3), Some(12)), "{e}");
        assert!(e.message.contains("three decimal places"));
        let e = parse("retrieval:\n  profile: bm25\n").unwrap().profile(None, None).unwrap_err();
        assert_eq!(e.line, Some(2));
        let e = parse("retrieval:\n  k: 0\n").unwrap().profile(None, None).unwrap_err();
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
        assert_eq!(g.mode("suite_means"), RuleMode::Fail);
        assert_eq!(g.mode("recall"), RuleMode::Advisory);
        assert_eq!(g.mode("malformed"), RuleMode::Fail);
        assert_eq!(g.tolerance("mrr"), 0.05);
        assert_eq!(g.tolerance("mean_ndcg_at_k"), 0.01);
        assert_eq!(parse("").unwrap().gate_settings().unwrap(), GateSettings::default());
        assert_eq!(GateSettings::default().mode("suite_means"), RuleMode::Advisory);

        let e = parse("gate:\n  recall: warn\n").unwrap().gate_settings().unwrap_err();
        assert_eq!(e.line, Some(2), "{e}");
        assert!(e.message.contains("use `fail`, `advisory` or `off`"), "{e}");
        let e = parse("gate:\n  tolerance: 2\n").unwrap().gate_settings().unwrap_err();
        assert!(e.message.contains("between 0 and 1"), "{e}");
        let e = parse("gate:\n  recal: fail\n").unwrap_err();
        assert_eq!(e.line, Some(2), "{e}");
        let e = parse("gate:\n  tolerances:\n    mean_recall_at_k: 0.1\n").unwrap_err();
        assert_eq!(e.line, Some(3), "{e}");
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
        let e = parse("limits:\n  yaml:\n    max_depth: 100000\n").unwrap().suite_limits().unwrap_err();
        assert!(
            e.to_string().starts_with("mneme-gate.yaml:3:16: `limits.yaml.max_depth` is 100000; at most 128"),
            "{e}"
        );
        let e = parse("limits:\n  max_response_bytes: 0\n").unwrap().suite_limits().unwrap_err();
        assert!(e.to_string().contains("`limits.max_response_bytes` must be at least 1"), "{e}");
        assert!(parse("limits:\n  max_respons_bytes: 1\n").is_err(), "unknown keys are refused");
    }
}
