//! `model:` of `mneme-gate.yaml`: the model the suite's unanswered
//! scenarios are asked, resolved with the flags that override each key
//! into [`crate::model::Settings`] (docs/models.md). Without the section
//! and without `--model-base-url`, there is no model stage.

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::{Config, ConfigError};
use crate::model::request::Endpoint;
use crate::model::{Mode, Prices, Settings};

/// `model:` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    pub base_url: Option<Spanned<String>>,
    pub model: Option<Spanned<String>>,
    pub api_key_env: Option<Spanned<String>>,
    pub temperature: Option<Spanned<f64>>,
    pub seed: Option<Spanned<i64>>,
    pub max_tokens: Option<Spanned<u64>>,
    pub timeout_s: Option<Spanned<f64>>,
    pub concurrency: Option<Spanned<u64>>,
    pub retries: Option<Spanned<u64>>,
    pub structured: Option<bool>,
    pub cassettes: Option<Spanned<String>>,
    pub prices: Option<PricesConfig>,
}

/// Prices per million tokens, for the estimated cost.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PricesConfig {
    pub input_per_million: Spanned<f64>,
    pub output_per_million: Spanned<f64>,
}

/// The flags that override `model:` (each `None` when not given).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ModelFlags {
    pub responses: Option<Mode>,
    pub repeat: Option<usize>,
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub api_key_env: Option<String>,
    pub temperature: Option<f64>,
    pub seed: Option<i64>,
    pub max_tokens: Option<u64>,
    pub timeout_s: Option<f64>,
    pub concurrency: Option<usize>,
    pub retries: Option<u32>,
    pub structured: Option<bool>,
    pub cassettes: Option<PathBuf>,
    pub price_input: Option<f64>,
    pub price_output: Option<f64>,
}

/// The environment variable listing the endpoints (base URLs, separated by
/// spaces, commas or line breaks) that `model.base_url` in the repository's
/// configuration may name and still receive the API key.
pub const ENDPOINTS_ALLOWED_ENV: &str = "MNEME_GATE_MODEL_ENDPOINTS";

/// Why the API key may not be sent to `endpoint`, or `None`. The
/// configuration arrives in pull requests: a file of the repository alone
/// never decides both which secret is read and where it goes, so an endpoint
/// it names (`from_file`) must be listed in [`ENDPOINTS_ALLOWED_ENV`]; and a
/// key never crosses the network over plain http.
fn key_refusal(endpoint: &Endpoint, from_file: bool, config: &std::path::Path) -> Option<String> {
    if endpoint.is_plain_http_off_machine() {
        return Some(
            "plain http to another machine would carry the key in clear; use https (plain http only to localhost)"
                .into(),
        );
    }
    if !from_file {
        return None;
    }
    let allowed = std::env::var(ENDPOINTS_ALLOWED_ENV).unwrap_or_default();
    let listed = allowed
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|u| !u.is_empty())
        .filter_map(|u| Endpoint::parse(u).ok())
        .any(|e| e.url == endpoint.url);
    (!listed).then(|| {
        format!(
            "`model.base_url` comes from {}, which a pull request can change, and a file of the repository may not \
             decide where a secret goes: pass the endpoint with --model-base-url, or list it in {ENDPOINTS_ALLOWED_ENV} \
             (docs/models.md, Security)",
            config.display()
        )
    })
}

/// A value from a flag or the file, and how to blame it.
enum From<'a, T> {
    Flag(T, &'static str),
    File(&'a Spanned<T>, &'static str),
}

impl Config {
    /// The model stage's settings, or `None` when no model is configured
    /// (then `--responses record|live` and `--repeat` are refused).
    pub fn model_settings(&self, flags: &ModelFlags) -> Result<Option<Settings>, ConfigError> {
        let section = self.file.model.as_ref();
        let path = self.where_();
        let Some(base_url) = flags
            .base_url
            .clone()
            .map(|v| (v, None))
            .or_else(|| section.and_then(|m| m.base_url.as_ref()).map(|s| (s.value.clone(), Some(s))))
        else {
            if section.is_some() {
                return Err(ConfigError::usage(format!(
                    "{}: `model:` has no `base_url`; add the OpenAI-compatible /v1 URL (for example http://localhost:11434/v1), or pass --model-base-url",
                    path.display()
                )));
            }
            if matches!(flags.responses, Some(Mode::Record | Mode::Live)) || flags.repeat.is_some_and(|n| n > 1) {
                return Err(ConfigError::usage(
                    "--responses record|live and --repeat need a model: add a `model:` section to mneme-gate.yaml, or pass --model-base-url and --model (docs/models.md)",
                ));
            }
            return Ok(None);
        };
        let endpoint = Endpoint::parse(&base_url.0).map_err(|why| match base_url.1 {
            Some(s) => ConfigError::at(&path, s, format!("`model.base_url` is not usable: {why}")),
            None => ConfigError::usage(format!("--model-base-url is not usable: {why}")),
        })?;
        let model = match (&flags.model, section.and_then(|m| m.model.as_ref())) {
            (Some(m), _) => m.clone(),
            (None, Some(s)) => s.value.clone(),
            (None, None) => {
                return Err(ConfigError::usage(
                    "no model name: set `model.model` in mneme-gate.yaml (for example gpt-4.1-mini, or the name your server serves), or pass --model",
                ))
            }
        };
        if model.trim().is_empty() {
            return Err(ConfigError::usage("the model name is empty: set `model.model` or --model"));
        }
        let check = |value: From<'_, f64>, ok: &dyn Fn(f64) -> bool, rule: &str| -> Result<f64, ConfigError> {
            let (v, err) = match value {
                From::Flag(v, name) => (v, ConfigError::usage(format!("{name} must be {rule}, found {v}"))),
                From::File(s, key) => {
                    (s.value, ConfigError::at(&path, s, format!("`model.{key}` must be {rule}, found {}", s.value)))
                }
            };
            if v.is_finite() && ok(v) {
                Ok(v)
            } else {
                Err(err)
            }
        };
        let whole = |value: From<'_, u64>, range: std::ops::RangeInclusive<u64>| -> Result<u64, ConfigError> {
            let rule = format!("between {} and {}", range.start(), range.end());
            match value {
                From::Flag(v, _) if range.contains(&v) => Ok(v),
                From::File(s, _) if range.contains(&s.value) => Ok(s.value),
                From::Flag(v, name) => Err(ConfigError::usage(format!("{name} must be {rule}, found {v}"))),
                From::File(s, key) => {
                    Err(ConfigError::at(&path, s, format!("`model.{key}` must be {rule}, found {}", s.value)))
                }
            }
        };
        let m = section;
        let temperature =
            match pick(flags.temperature, "--model-temperature", m.and_then(|m| m.temperature.as_ref()), "temperature")
            {
                Some(v) => check(v, &|t| (0.0..=2.0).contains(&t), "between 0 and 2")?,
                None => 0.0,
            };
        let timeout_s =
            match pick(flags.timeout_s, "--model-timeout", m.and_then(|m| m.timeout_s.as_ref()), "timeout_s") {
                Some(v) => check(v, &|t| t > 0.0 && t <= 3600.0, "above 0 and at most 3600 (seconds)")?,
                None => Settings::TIMEOUT_S as f64,
            };
        let max_tokens =
            match pick(flags.max_tokens, "--model-max-tokens", m.and_then(|m| m.max_tokens.as_ref()), "max_tokens") {
                Some(v) => whole(v, 1..=1_000_000)?,
                None => Settings::MAX_TOKENS,
            };
        let concurrency = match pick(
            flags.concurrency.map(|n| n as u64),
            "--model-concurrency",
            m.and_then(|m| m.concurrency.as_ref()),
            "concurrency",
        ) {
            Some(v) => whole(v, 1..=Settings::MAX_CONCURRENCY as u64)? as usize,
            None => Settings::CONCURRENCY,
        };
        let retries = match pick(
            flags.retries.map(u64::from),
            "--model-retries",
            m.and_then(|m| m.retries.as_ref()),
            "retries",
        ) {
            Some(v) => whole(v, 0..=u64::from(Settings::MAX_RETRIES))? as u32,
            None => Settings::RETRIES,
        };
        let repeat = match flags.repeat {
            Some(n) if (1..=Settings::MAX_REPEAT).contains(&n) => n,
            Some(n) => {
                return Err(ConfigError::usage(format!(
                    "--repeat must be between 1 and {}, found {n}",
                    Settings::MAX_REPEAT
                )))
            }
            None => 1,
        };
        let api_key_env = match (&flags.api_key_env, m.and_then(|m| m.api_key_env.as_ref())) {
            (Some(v), _) if is_variable_name(v) => Some(v.clone()),
            (Some(v), _) => {
                return Err(ConfigError::usage(format!(
                    "--model-api-key-env must name an environment variable (letters, digits, `_`), found `{}`; give the variable's name, never the key",
                    crate::describe::printable(v)
                )))
            }
            (None, Some(s)) if is_variable_name(&s.value) => Some(s.value.clone()),
            (None, Some(s)) => {
                return Err(ConfigError::at(
                    &path,
                    s,
                    "`model.api_key_env` must name an environment variable (letters, digits, `_`); give the variable's name, never the key".into(),
                ))
            }
            (None, None) => None,
        };
        let cassettes = match (&flags.cassettes, m.and_then(|m| m.cassettes.as_ref())) {
            (Some(p), _) => p.clone(),
            (None, Some(s)) => {
                // The configuration is the repository's: its cassettes stay inside it.
                let written = std::path::Path::new(&s.value);
                if written.is_absolute()
                    || written
                        .components()
                        .any(|c| matches!(c, std::path::Component::ParentDir | std::path::Component::Prefix(_)))
                {
                    return Err(ConfigError::at(
                        &path,
                        s,
                        "`model.cassettes` must be a folder inside the repository (relative, without `..`); pass --cassettes DIR for another one".into(),
                    ));
                }
                self.resolve_path(&s.value)
            }
            (None, None) => self.resolve_path(Settings::CASSETTES),
        };
        let price = |flag: Option<f64>, name, file: Option<&Spanned<f64>>, key| -> Result<Option<f64>, ConfigError> {
            match pick(flag, name, file, key) {
                Some(v) => {
                    check(v, &|p| (0.0..=1_000_000.0).contains(&p), "between 0 and 1000000 (per million tokens)")
                        .map(Some)
                }
                None => Ok(None),
            }
        };
        let prices_file = m.and_then(|m| m.prices.as_ref());
        let input = price(
            flags.price_input,
            "--model-price-input",
            prices_file.map(|p| &p.input_per_million),
            "prices.input_per_million",
        )?;
        let output = price(
            flags.price_output,
            "--model-price-output",
            prices_file.map(|p| &p.output_per_million),
            "prices.output_per_million",
        )?;
        let prices = match (input, output) {
            (Some(i), Some(o)) => Some(Prices { input_per_million: i, output_per_million: o }),
            (None, None) => None,
            _ => {
                return Err(ConfigError::usage(
                    "a price is given for one kind of token only: give both --model-price-input and --model-price-output (or `model.prices`)",
                ))
            }
        };
        let key_refused = key_refusal(&endpoint, base_url.1.is_some(), &path);
        Ok(Some(Settings {
            key_refused,
            endpoint,
            model,
            api_key_env,
            temperature,
            seed: flags.seed.or_else(|| m.and_then(|m| m.seed.as_ref()).map(|s| s.value)),
            max_tokens,
            timeout: Duration::from_secs_f64(timeout_s),
            concurrency,
            retries,
            structured: flags.structured.or_else(|| m.and_then(|m| m.structured)).unwrap_or(true),
            cassettes,
            prices,
            mode: flags.responses.unwrap_or_default(),
            repeat,
        }))
    }
}

/// The flag's value if given, else the file's.
fn pick<'a, T>(
    flag: Option<T>,
    name: &'static str,
    file: Option<&'a Spanned<T>>,
    key: &'static str,
) -> Option<From<'a, T>> {
    match flag {
        Some(v) => Some(From::Flag(v, name)),
        None => file.map(|s| From::File(s, key)),
    }
}

/// `[A-Za-z_][A-Za-z0-9_]*`: what a shell exports.
fn is_variable_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn settings(text: &str, flags: &ModelFlags) -> Result<Option<Settings>, ConfigError> {
        Config::parse(Path::new("conf/mneme-gate.yaml"), text).unwrap().model_settings(flags)
    }

    const SECTION: &str = "model:\n  base_url: http://localhost:11434/v1\n  model: llama3.2\n  api_key_env: OPENAI_API_KEY\n  temperature: 0\n  seed: 7\n  max_tokens: 512\n  timeout_s: 30\n  concurrency: 2\n  retries: 1\n  structured: false\n  cassettes: tapes/\n  prices: {input_per_million: 0.4, output_per_million: 1.6}\n";

    #[test]
    fn the_section_is_read_with_its_defaults_and_every_flag_overrides_it() {
        let s = settings(SECTION, &ModelFlags::default()).unwrap().unwrap();
        assert_eq!(s.endpoint.url, "http://localhost:11434/v1/chat/completions");
        assert_eq!(
            (s.model.as_str(), s.api_key_env.as_deref(), s.seed, s.max_tokens),
            ("llama3.2", Some("OPENAI_API_KEY"), Some(7), 512)
        );
        assert_eq!((s.timeout, s.concurrency, s.retries, s.structured), (Duration::from_secs(30), 2, 1, false));
        assert_eq!(s.cassettes, Path::new("conf/tapes/"), "relative to the configuration file");
        assert_eq!(s.prices, Some(Prices { input_per_million: 0.4, output_per_million: 1.6 }));
        assert_eq!((s.mode, s.repeat), (Mode::Replay, 1));

        let minimal =
            settings("model:\n  base_url: https://api.openai.com/v1\n  model: gpt-4.1-mini\n", &ModelFlags::default())
                .unwrap()
                .unwrap();
        assert_eq!(
            (minimal.temperature, minimal.seed, minimal.max_tokens, minimal.timeout),
            (0.0, None, 1024, Duration::from_secs(60))
        );
        assert_eq!((minimal.concurrency, minimal.retries, minimal.structured, minimal.prices), (4, 4, true, None));
        assert_eq!(minimal.cassettes, Path::new("conf/cassettes"));

        let flags = ModelFlags {
            responses: Some(Mode::Record),
            repeat: Some(3),
            base_url: Some("http://127.0.0.1:8080/v1".into()),
            model: Some("other".into()),
            api_key_env: Some("KEY".into()),
            temperature: Some(0.5),
            seed: Some(1),
            max_tokens: Some(9),
            timeout_s: Some(0.5),
            concurrency: Some(8),
            retries: Some(0),
            structured: Some(true),
            cassettes: Some("here".into()),
            price_input: Some(1.0),
            price_output: Some(2.0),
        };
        let s = settings(SECTION, &flags).unwrap().unwrap();
        assert_eq!(s.endpoint.path, "/v1/chat/completions");
        assert_eq!(
            (s.model.as_str(), s.api_key_env.as_deref(), s.temperature, s.seed, s.max_tokens),
            ("other", Some("KEY"), 0.5, Some(1), 9)
        );
        assert_eq!((s.timeout, s.concurrency, s.retries, s.structured), (Duration::from_millis(500), 8, 0, true));
        assert_eq!((s.cassettes, s.mode, s.repeat), (PathBuf::from("here"), Mode::Record, 3));
        assert_eq!(s.prices, Some(Prices { input_per_million: 1.0, output_per_million: 2.0 }));
        // Flags alone configure a model.
        let s = settings(
            "",
            &ModelFlags { base_url: Some("http://h/v1".into()), model: Some("m".into()), ..ModelFlags::default() },
        );
        assert_eq!(s.unwrap().unwrap().cassettes, Path::new("conf/cassettes"));
    }

    #[test]
    fn without_a_model_there_is_no_stage_and_asking_for_one_is_refused() {
        assert_eq!(settings("memory: m.json\n", &ModelFlags::default()).unwrap(), None);
        assert_eq!(settings("", &ModelFlags { responses: Some(Mode::Replay), ..ModelFlags::default() }).unwrap(), None);
        for flags in [
            ModelFlags { responses: Some(Mode::Record), ..ModelFlags::default() },
            ModelFlags { responses: Some(Mode::Live), ..ModelFlags::default() },
            ModelFlags { repeat: Some(3), ..ModelFlags::default() },
        ] {
            let e = settings("", &flags).unwrap_err();
            assert!(e.message.starts_with("--responses record|live and --repeat need a model"), "{e}");
        }
    }

    #[test]
    fn bad_values_point_at_their_line_or_name_their_flag() {
        let e = settings("model:\n  base_url: localhost:11434\n  model: m\n", &ModelFlags::default()).unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(13)), "{e}");
        assert!(e.message.contains("must start with http://"), "{e}");
        let e = settings("model:\n  base_url: http://h/v1\n  model: m\n  temperature: 3\n", &ModelFlags::default())
            .unwrap_err();
        assert_eq!((e.line, e.message.as_str()), (Some(4), "`model.temperature` must be between 0 and 2, found 3"));
        let e = settings("model:\n  base_url: http://h/v1\n  model: m\n  concurrency: 0\n", &ModelFlags::default())
            .unwrap_err();
        assert_eq!((e.line, e.message.as_str()), (Some(4), "`model.concurrency` must be between 1 and 256, found 0"));
        let e =
            settings("model:\n  base_url: http://h/v1\n  model: m\n  api_key_env: sk-abc123\n", &ModelFlags::default())
                .unwrap_err();
        assert_eq!(e.line, Some(4));
        assert!(!e.to_string().contains("sk-abc123"), "the key is never repeated: {e}");
        // A price so large that a cost would overflow to a 300-digit number.
        let e = settings(
            "model:\n  base_url: http://h/v1\n  model: m\n  prices: {input_per_million: 1e300, output_per_million: 1}\n",
            &ModelFlags::default(),
        )
        .unwrap_err();
        assert_eq!(e.line, Some(4), "{e}");
        assert!(e.message.starts_with("`model.prices.input_per_million` must be between 0 and 1000000"), "{e}");
        let e = Config::parse(Path::new("m.yaml"), "model:\n  base_url: http://h/v1\n  model: m\n  timeout: 3\n")
            .unwrap_err();
        assert_eq!(e.line, Some(4), "unknown keys are refused at their line: {e}");
        let e = settings("model:\n  model: m\n", &ModelFlags::default()).unwrap_err();
        assert!(e.message.contains("has no `base_url`"), "{e}");
        let e = settings("model:\n  base_url: http://h/v1\n", &ModelFlags::default()).unwrap_err();
        assert!(e.message.starts_with("no model name"), "{e}");
        let flags = |f: ModelFlags| settings("model:\n  base_url: http://h/v1\n  model: m\n", &f).unwrap_err().message;
        assert_eq!(
            flags(ModelFlags { repeat: Some(0), ..ModelFlags::default() }),
            "--repeat must be between 1 and 100, found 0"
        );
        assert_eq!(
            flags(ModelFlags { timeout_s: Some(0.0), ..ModelFlags::default() }),
            "--model-timeout must be above 0 and at most 3600 (seconds), found 0"
        );
        assert_eq!(
            flags(ModelFlags { retries: Some(21), ..ModelFlags::default() }),
            "--model-retries must be between 0 and 20, found 21"
        );
        assert!(
            flags(ModelFlags { price_input: Some(1.0), ..ModelFlags::default() }).contains("one kind of token only")
        );
        assert!(flags(ModelFlags { api_key_env: Some("$KEY".into()), ..ModelFlags::default() })
            .contains("name an environment variable"));
        assert!(flags(ModelFlags { base_url: Some("ftp://h".into()), ..ModelFlags::default() })
            .starts_with("--model-base-url is not usable"));
    }
}
