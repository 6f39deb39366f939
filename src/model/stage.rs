//! The stage itself: plan the requests of a suite, resolve them from
//! cassettes or the model, and hand the answers to the scenarios.
//!
//! [`plan`] retrieves each answered scenario's decisions (as the run does),
//! renders the context block and builds both arms' requests for every
//! sample; two arms that are the same request (nothing retrieved) share
//! it. [`resolve`] reads the cassettes and, when the mode allows, calls the
//! model for the rest: at most `concurrency` requests in flight, on the
//! calling thread and `concurrency - 1` scoped threads; each cassette is
//! written as soon as its reply arrives, so a run that fails half-way keeps
//! what it paid for. The first failure stops new requests, and the whole
//! stage fails: no report is built from part of the answers. [`answer`]
//! puts one sample's replies in the scenarios, as in-memory responses.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::retrieval::{Index, Query};
use crate::scenarios::{ResponseFormat, ResponseRef, Scenario};

use super::cassette::{Cassette, Folder, Use};
use super::client::{Client, Transport};
use super::error::Missing;
use super::prompt::{answer_format, answer_text, answered_by_model, messages};
use super::request::ChatRequest;
use super::retry::{Backoff, Sleep};
use super::{Arm, Mode, ModelError, Settings};

/// One arm's request, for one sample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArmRequest {
    pub arm: Arm,
    /// 0-based.
    pub sample: usize,
    pub key: String,
}

/// A scenario the model answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    /// Its position in the suite.
    pub index: usize,
    pub id: String,
    pub format: ResponseFormat,
    /// Governed then control, sample by sample.
    pub arms: Vec<ArmRequest>,
}

/// Every request of a suite.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub scenarios: Vec<Planned>,
    /// Each distinct request by key, with the arms that use it.
    pub requests: BTreeMap<String, (ChatRequest, Vec<Use>)>,
}

/// The requests of every scenario the model stage answers
/// ([`answered_by_model`]), `settings.repeat` samples of each arm.
pub fn plan(index: &Index, scenarios: &[Scenario], settings: &Settings) -> Plan {
    let mut planned = Vec::new();
    let mut requests: BTreeMap<String, (ChatRequest, Vec<Use>)> = BTreeMap::new();
    for (i, scenario) in scenarios.iter().enumerate().filter(|(_, s)| answered_by_model(s)) {
        let retrieval = index.retrieve(Query { task: &scenario.task, file: scenario.file.as_deref() });
        let block = crate::context::render(retrieval.hits.iter().map(|h| index.decision(h.pool)));
        let format = answer_format(scenario);
        let mut arms = Vec::new();
        for sample in 0..settings.repeat.max(1) {
            for arm in Arm::BOTH {
                let request = ChatRequest::new(
                    settings,
                    &settings.endpoint.path,
                    &messages(arm, &block, scenario, format),
                    format == ResponseFormat::Structured,
                    sample,
                );
                let key = request.key();
                let entry = requests.entry(key.clone()).or_insert_with(|| (request, Vec::new()));
                entry.1.push(Use::new(&scenario.id, arm));
                arms.push(ArmRequest { arm, sample, key });
            }
        }
        planned.push(Planned { index: i, id: scenario.id.clone(), format, arms });
    }
    for (_, uses) in requests.values_mut() {
        uses.sort();
        uses.dedup();
    }
    Plan { scenarios: planned, requests }
}

/// Told how the calls go, from any thread.
pub trait Progress: Sync {
    /// `requests` will be sent.
    fn start(&self, _requests: usize) {}
    /// One is sent (it is in flight until `done`).
    fn sent(&self) {}
    /// One is tried again.
    fn retried(&self) {}
    /// One is answered, with these tokens (in and out).
    fn done(&self, _tokens: u64) {}
}

/// No progress shown.
pub struct Silent;

impl Progress for Silent {}

/// What calling the model needs.
pub struct Network<'a> {
    pub transport: &'a dyn Transport,
    pub sleep: &'a dyn Sleep,
    pub backoff: Backoff,
    pub progress: &'a dyn Progress,
}

/// Every request of a plan with its cassette.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub cassettes: BTreeMap<String, Cassette>,
    /// How many came from the cassette folder.
    pub replayed: usize,
    /// How many were asked of the model (and, in `record`, written).
    pub called: usize,
}

/// Resolves every request of `plan` as `settings.mode` says: from the
/// cassette folder, the model, or both. `network` is used only for requests
/// that have to be sent (never in `replay`).
pub fn resolve(plan: &Plan, settings: &Settings, network: &Network<'_>) -> Result<Resolved, ModelError> {
    let folder = Folder::new(&settings.cassettes);
    let mut cassettes = BTreeMap::new();
    let mut todo: Vec<&String> = Vec::new();
    for key in plan.requests.keys() {
        let recorded = match settings.mode {
            Mode::Live => None,
            Mode::Replay | Mode::Record => folder.read(key)?,
        };
        match recorded {
            Some(c) => {
                cassettes.insert(key.clone(), c);
            }
            None => todo.push(key),
        }
    }
    let replayed = cassettes.len();
    if todo.is_empty() {
        return Ok(Resolved { cassettes, replayed, called: 0 });
    }
    if settings.mode == Mode::Replay {
        return Err(missing(plan, &todo, &folder)?);
    }
    let api_key = match &settings.api_key_env {
        None => None,
        Some(var) if settings.key_refused.is_some() => {
            return Err(ModelError::UntrustedEndpoint {
                endpoint: settings.endpoint.url.clone(),
                var: var.clone(),
                reason: settings.key_refused.clone().unwrap_or_default(),
            })
        }
        Some(var) => match std::env::var(var) {
            Ok(key) if !key.is_empty() => Some(key),
            _ => return Err(ModelError::MissingKey { endpoint: settings.endpoint.url.clone(), var: var.clone() }),
        },
    };
    let client = Client {
        transport: network.transport,
        endpoint: &settings.endpoint,
        api_key,
        key_var: settings.api_key_env.clone(),
        retries: settings.retries,
        backoff: network.backoff,
        sleep: network.sleep,
    };
    let jobs: Vec<(&String, &ChatRequest, &Vec<Use>)> = todo
        .iter()
        .map(|key| {
            let (request, uses) = &plan.requests[*key];
            (*key, request, uses)
        })
        .collect();
    let record = (settings.mode == Mode::Record).then_some(&folder);
    let called = jobs.len();
    for c in call_all(&client, &jobs, settings.concurrency, network.progress, record)? {
        cassettes.insert(c.key.clone(), c);
    }
    Ok(Resolved { cassettes, replayed, called })
}

/// Sends every job, at most `concurrency` at once, and stops sending at the
/// first failure; the failure reported is that of the first job (in key
/// order) that failed.
fn call_all(
    client: &Client<'_>,
    jobs: &[(&String, &ChatRequest, &Vec<Use>)],
    concurrency: usize,
    progress: &dyn Progress,
    record: Option<&Folder>,
) -> Result<Vec<Cassette>, ModelError> {
    progress.start(jobs.len());
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let results: Mutex<Vec<Option<Result<Cassette, ModelError>>>> = Mutex::new((0..jobs.len()).map(|_| None).collect());
    let work = || loop {
        if failed.load(Ordering::SeqCst) {
            break;
        }
        let i = next.fetch_add(1, Ordering::SeqCst);
        let Some(&(key, request, uses)) = jobs.get(i) else { break };
        progress.sent();
        let result = client.call(request, &|| progress.retried()).and_then(|exchange| {
            let cassette = Cassette { key: key.clone(), request: request.clone(), exchange, uses: uses.clone() };
            if let Some(folder) = record {
                folder.write(&cassette)?;
            }
            Ok(cassette)
        });
        match &result {
            Ok(c) => {
                let usage = c.exchange.usage;
                progress.done(usage.prompt_tokens.unwrap_or(0).saturating_add(usage.completion_tokens.unwrap_or(0)));
            }
            Err(_) => failed.store(true, Ordering::SeqCst),
        }
        results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(result);
    };
    std::thread::scope(|scope| {
        // The calling thread is one of the workers: if no thread can be
        // started, the calls still go, one at a time.
        for _ in 1..concurrency.max(1).min(jobs.len()) {
            if std::thread::Builder::new().name("mneme-gate-model".into()).spawn_scoped(scope, work).is_err() {
                break;
            }
        }
        work();
    });
    let mut out = Vec::with_capacity(jobs.len());
    for result in results.into_inner().unwrap_or_else(|e| e.into_inner()).into_iter().flatten() {
        out.push(result?);
    }
    Ok(out)
}

/// The error of `replay` for requests without cassettes: each scenario with
/// the arms it lacks, stale when a cassette was recorded for one of those
/// arms of that scenario, same sample, for another request.
fn missing(plan: &Plan, todo: &[&String], folder: &Folder) -> Result<ModelError, ModelError> {
    let recorded: BTreeSet<(Use, usize)> = folder
        .list()?
        .into_iter()
        .filter_map(|(_, c)| c.ok())
        .flat_map(|c| c.uses.into_iter().map(move |u| (u, c.request.sample)))
        .collect();
    let todo: BTreeSet<&str> = todo.iter().map(|k| k.as_str()).collect();
    let mut missing = Vec::new();
    for p in &plan.scenarios {
        let lacking: Vec<&ArmRequest> = p.arms.iter().filter(|a| todo.contains(a.key.as_str())).collect();
        if lacking.is_empty() {
            continue;
        }
        let stale = lacking.iter().any(|a| recorded.contains(&(Use::new(&p.id, a.arm), a.sample)));
        let mut arms: Vec<Arm> = lacking.iter().map(|a| a.arm).collect();
        arms.sort();
        arms.dedup();
        missing.push(Missing { scenario: p.id.clone(), arms, stale });
    }
    Ok(ModelError::MissingCassettes { folder: folder.dir.clone(), missing })
}

/// Puts sample `sample`'s replies in the scenarios the plan answers, as
/// in-memory responses in the scenario's answer format.
pub fn answer(scenarios: &mut [Scenario], plan: &Plan, resolved: &Resolved, sample: usize) {
    for p in &plan.scenarios {
        let Some(scenario) = scenarios.get_mut(p.index) else { continue };
        for a in p.arms.iter().filter(|a| a.sample == sample) {
            let Some(cassette) = resolved.cassettes.get(&a.key) else { continue };
            let response = ResponseRef::Answer {
                declared: format!("the model's {} reply", a.arm.as_str()),
                format: p.format,
                text: answer_text(&cassette.exchange.reply, p.format),
            };
            match a.arm {
                Arm::Governed => scenario.governed = Some(response),
                Arm::Control => scenario.control = Some(response),
            }
        }
    }
}

/// Tokens of the distinct requests of a plan (each counted once, however
/// many arms share it): in, out.
pub fn tokens(resolved: &Resolved) -> (u64, u64) {
    resolved.cassettes.values().fold((0, 0), |(i, o), c| {
        (
            i.saturating_add(c.exchange.usage.prompt_tokens.unwrap_or(0)),
            o.saturating_add(c.exchange.usage.completion_tokens.unwrap_or(0)),
        )
    })
}

/// The plan's scenarios by id.
pub fn by_id(plan: &Plan) -> HashMap<&str, &Planned> {
    plan.scenarios.iter().map(|p| (p.id.as_str(), p)).collect()
}
