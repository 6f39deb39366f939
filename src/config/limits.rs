//! `limits:` of `mneme-gate.yaml`: how much of its input a suite may make the
//! tool read, resolved into the [`SuiteLimits`] the suite reader uses.

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::errors::{keep, together};
use super::{Config, ConfigError};
use crate::scenarios::{SuiteLimits, YamlLimits};

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

impl Config {
    /// The suite's reading limits: the defaults, with the file's `limits:`.
    pub fn suite_limits(&self) -> Result<SuiteLimits, ConfigError> {
        let mut errors = Vec::new();
        let limits = self.limits_into(&mut errors);
        together(errors).map_or(Ok(limits), Err)
    }

    /// [`Config::suite_limits`], each value that cannot be used added to
    /// `errors`.
    pub(super) fn limits_into(&self, errors: &mut Vec<ConfigError>) -> SuiteLimits {
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
