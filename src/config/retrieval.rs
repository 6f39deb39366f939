//! `retrieval:` of `mneme-gate.yaml`: the profile it names, `k`, and the
//! BM25F constants and field weights over it, resolved into the effective
//! [`Profile`] with the command line's `--profile` and `--k`.

use std::path::Path;

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::errors::{keep, together};
use super::{Config, ConfigError};
use crate::profile::{Milli, Named, Profile};

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

impl Config {
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
    pub(super) fn file_profile(&self, errors: &mut Vec<ConfigError>) -> Profile {
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

pub(super) fn milli(path: &Path, key: &str, v: &Spanned<f64>) -> Result<Milli, ConfigError> {
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
