//! What the model stage adds to a report: per scenario the arms it asked
//! (model, latency, tokens, cassette key, the raw reply) and every trial's
//! verdict; for the suite the settings, the totals (tokens, and an
//! estimated cost when prices are configured) and pass^N.
//!
//! Every figure comes from the cassettes (latency included, measured when
//! the cassette was recorded), so `record` and the `replay` after it write
//! the same bytes. Neither the mode nor the endpoint's host is written.
//! Both fields are optional: a run without a model writes the report it
//! always wrote.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::describe::printable;
use crate::model::stage::{Plan, Resolved};
use crate::model::Settings;
use crate::verdict::Verdict;

use super::Report;

/// The model stage of a run (`model` in the report).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ModelRun {
    /// The model asked for.
    pub model: String,
    pub temperature: f64,
    pub seed: Option<i64>,
    pub max_tokens: u64,
    /// Whether the structured schema (`response_format`) was asked for.
    pub structured: bool,
    /// Trials of each arm (`--repeat`).
    pub repeat: usize,
    /// Scenarios the model answered.
    pub scenarios: usize,
    /// Distinct requests (one cassette each).
    pub requests: usize,
    /// Tokens of the distinct requests, as the server counted them.
    pub tokens: TokenTotals,
    /// pass^N: the share of the scenarios answered whose every trial
    /// passed (N = `repeat`); `null` when no scenario was answered.
    pub pass_hat_n: Option<f64>,
    /// The estimated cost, when prices are configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_cost: Option<Cost>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TokenTotals {
    pub input: u64,
    pub output: u64,
}

/// Tokens × prices per million.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Cost {
    pub input_per_million: f64,
    pub output_per_million: f64,
    pub total: f64,
}

/// What the model stage did for one scenario (`scenarios[].model`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ScenarioModel {
    /// Each arm of each trial: governed then control, trial by trial.
    pub arms: Vec<ArmRecord>,
    /// Every trial's verdict, in trial order (the scenario's verdict is the
    /// worst of them).
    pub trials: Vec<Verdict>,
    /// How many trials gave each verdict.
    pub distribution: BTreeMap<String, usize>,
    /// Whether every trial passed.
    pub passed_every_trial: bool,
}

/// One arm of one trial.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ArmRecord {
    /// `governed` or `control`.
    pub arm: String,
    /// 1-based.
    pub trial: usize,
    /// The model that answered, as the server named it.
    pub model: Option<String>,
    /// The server's `system_fingerprint`, when it gave one.
    pub system_fingerprint: Option<String>,
    /// The answering attempt, as recorded in the cassette.
    pub latency_ms: u64,
    pub tokens_in: Option<u64>,
    pub tokens_out: Option<u64>,
    /// The cassette key: the SHA-256 of the canonical request.
    pub cassette: String,
    pub finish_reason: Option<String>,
    /// The reply as the model gave it (its refusal when it refused).
    pub reply: String,
}

/// Adds the model stage to a built report. `verdicts` are every trial's
/// verdicts of each scenario, in suite order (as the run returns them).
pub fn attach(report: &mut Report, plan: &Plan, resolved: &Resolved, settings: &Settings, verdicts: &[Vec<Verdict>]) {
    let mut passed = 0;
    for p in &plan.scenarios {
        let trials = verdicts.get(p.index).cloned().unwrap_or_default();
        let arms = p
            .arms
            .iter()
            .filter_map(|a| {
                let c = resolved.cassettes.get(&a.key)?;
                let reply = &c.exchange.reply;
                Some(ArmRecord {
                    arm: a.arm.as_str().to_string(),
                    trial: a.sample + 1,
                    model: reply.model.clone(),
                    system_fingerprint: reply.system_fingerprint.clone(),
                    latency_ms: c.exchange.latency_ms,
                    tokens_in: c.exchange.usage.prompt_tokens,
                    tokens_out: c.exchange.usage.completion_tokens,
                    cassette: a.key.clone(),
                    finish_reason: reply.finish_reason.clone(),
                    reply: reply.content.clone().or_else(|| reply.refusal.clone()).unwrap_or_default(),
                })
            })
            .collect();
        let mut distribution = BTreeMap::new();
        for v in &trials {
            *distribution.entry(v.as_str().to_string()).or_insert(0) += 1;
        }
        let passed_every_trial = !trials.is_empty() && trials.iter().all(|v| *v == Verdict::Pass);
        passed += usize::from(passed_every_trial);
        if let Ok(i) = report.scenarios.binary_search_by(|s| s.id.as_str().cmp(&p.id)) {
            report.scenarios[i].model = Some(ScenarioModel { arms, trials, distribution, passed_every_trial });
        }
    }
    let (input, output) = crate::model::stage::tokens(resolved);
    let answered = plan.scenarios.len();
    report.model = Some(ModelRun {
        model: settings.model.clone(),
        temperature: settings.temperature,
        seed: settings.seed,
        max_tokens: settings.max_tokens,
        structured: settings.structured,
        repeat: settings.repeat.max(1),
        scenarios: answered,
        requests: plan.requests.len(),
        tokens: TokenTotals { input, output },
        pass_hat_n: (answered > 0).then(|| passed as f64 / answered as f64),
        estimated_cost: settings.prices.map(|p| Cost {
            input_per_million: p.input_per_million,
            output_per_million: p.output_per_million,
            total: input as f64 * p.input_per_million / 1e6 + output as f64 * p.output_per_million / 1e6,
        }),
    });
}

/// The model stage in the terminal report: the totals, pass^N, and each
/// scenario whose trials disagree. Empty without a model stage.
pub fn terminal(report: &Report) -> String {
    let Some(m) = &report.model else { return String::new() };
    let mut out = String::new();
    let _ = write!(
        out,
        "\nModel {}: {} scenario(s) answered, {} request(s), {} tokens in, {} out",
        printable(&m.model),
        m.scenarios,
        m.requests,
        m.tokens.input,
        m.tokens.output
    );
    if let Some(cost) = &m.estimated_cost {
        let _ = write!(out, ", estimated cost {:.4}", cost.total);
    }
    out.push('\n');
    if let Some(p) = m.pass_hat_n {
        let every = report.scenarios.iter().filter(|s| s.model.as_ref().is_some_and(|m| m.passed_every_trial)).count();
        let _ = writeln!(out, "pass^{}: {p:.3} ({every} of {} scenario(s) passed every trial)", m.repeat, m.scenarios);
    }
    for s in &report.scenarios {
        let Some(sm) = &s.model else { continue };
        if sm.distribution.len() > 1 {
            let counts: Vec<String> = Verdict::ALL
                .iter()
                .filter_map(|v| sm.distribution.get(v.as_str()).map(|n| format!("{} {n}", v.as_str())))
                .collect();
            let _ = writeln!(out, "  flaky: {}: {}", printable(&s.id), counts.join(", "));
        }
    }
    out
}
