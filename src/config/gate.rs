//! `gate:` of `mneme-gate.yaml`: each rule's mode and the tolerances of the
//! suite means, resolved into the gate's [`GateSettings`].

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::errors::{keep, together};
use super::retrieval::milli;
use super::{Config, ConfigError};
use crate::gate::{GateSettings, Rule, RuleMode, SuiteMean};

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
    pub(super) fn gate_into(&self, errors: &mut Vec<ConfigError>) -> GateSettings {
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
            for figure in SuiteMean::ALL {
                settings.set_tolerance(figure, t);
            }
        }
        if let Some(t) = &g.tolerances {
            let each = [
                (SuiteMean::MeanRecallAt1, &t.mean_recall_at_1),
                (SuiteMean::MeanPrecisionAtK, &t.mean_precision_at_k),
                (SuiteMean::Mrr, &t.mrr),
                (SuiteMean::MeanNdcgAtK, &t.mean_ndcg_at_k),
                (SuiteMean::IrrelevantInjectionRate, &t.irrelevant_injection_rate),
                (SuiteMean::UngovernedInjectionRate, &t.ungoverned_injection_rate),
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
