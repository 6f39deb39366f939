//! The stage on a small suite, with a fake transport (no sockets): which
//! scenarios are asked, what each arm sends, record then replay, stale and
//! missing cassettes, the concurrency bound, and the first failure stopping
//! the run.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::Value;

use super::client::{HttpReply, Transport, TransportError};
use super::request::{tests::settings, Endpoint};
use super::retry::{Backoff, Sleep};
use super::stage::{answer, plan, resolve, Network, Progress, Silent};
use super::*;
use crate::memory::Memory;
use crate::profile::{Family, Profile};
use crate::retrieval::Index;
use crate::scenarios::{ResponseFormat, ResponseRef, Scenario, Suite, SuiteLimits};

const MEMORY: &str = r#"{"decisions": [
  {"id": "PAY-001", "decision": "Payments never open a database connection; use LedgerClient",
   "scope": ["payments"], "constraints": ["All writes go through LedgerClient"], "anti_patterns": ["psycopg2"]},
  {"id": "WEB-001", "decision": "Pages are server components", "scope": ["web"]}
]}"#;

const SUITE: &str = r#"scenarios:
  - id: refund
    task: Add a refund endpoint to payments that writes to the ledger
    expect: [PAY-001]
    assertions:
      - forbidden_dependency: psycopg2
      - required_text: LedgerClient
  - id: typo
    task: Fix a typo in the README
    assertions:
      - forbidden_text: TODO
  - id: retrieval-only
    task: Add a payments report
    expect: [PAY-001]
  - id: recorded
    task: Add a payments export
    responses:
      governed: g.txt
    assertions:
      - forbidden_text: psycopg2
"#;

struct Suite2 {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    index: Index,
    scenarios: Vec<Scenario>,
}

fn suite(memory: &str) -> Suite2 {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("scenarios");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("suite.yaml"), SUITE).unwrap();
    std::fs::write(root.join("g.txt"), "LedgerClient").unwrap();
    let profile = Profile::named(Family::Default);
    let index = Index::build(Memory::parse(Path::new("m.json"), memory.to_string(), profile.family), profile);
    let scenarios = Suite::load_with(&[&root], &SuiteLimits::default()).unwrap().scenarios;
    Suite2 { root: dir.path().to_path_buf(), _dir: dir, index, scenarios }
}

/// Answers every request with a completion whose content says which arm
/// it saw (a system message or not) and the sample; counts what is in
/// flight.
#[derive(Default)]
struct Scripted {
    bodies: Mutex<Vec<Value>>,
    in_flight: AtomicUsize,
    most_in_flight: AtomicUsize,
    fail_after: Option<usize>,
    /// Until this many requests have been in flight at once, a request
    /// waits for the others (a rendezvous, not a measured pause); 0: none.
    meet: usize,
}

impl Transport for Scripted {
    fn post(&self, _url: &str, _key: Option<&str>, body: &[u8]) -> Result<HttpReply, TransportError> {
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.most_in_flight.fetch_max(now, Ordering::SeqCst);
        // Wait for the other workers to start theirs while this one is in
        // flight; the deadline only keeps a serial stage from hanging the
        // test (its assertion on `most_in_flight` then fails).
        let deadline = std::time::Instant::now() + Duration::from_secs(120);
        while self.most_in_flight.load(Ordering::SeqCst) < self.meet && std::time::Instant::now() < deadline {
            std::thread::yield_now();
        }
        let body: Value = serde_json::from_slice(body).unwrap();
        let seen = {
            let mut bodies = self.bodies.lock().unwrap();
            bodies.push(body.clone());
            bodies.len()
        };
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        if self.fail_after.is_some_and(|n| seen > n) {
            return Ok(HttpReply { status: 401, retry_after: None, body: b"{}".to_vec() });
        }
        let governed = body["messages"][0]["role"] == "system";
        let content = if body.get("response_format").is_some() {
            if governed {
                r#"{"refused": false, "files_changed": ["services/payments/refunds.py"], "dependencies_added": [], "text": "LedgerClient.post(refund)"}"#
            } else {
                r#"{"refused": false, "files_changed": [], "dependencies_added": ["psycopg2"], "text": "psycopg2.connect()"}"#
            }
        } else if governed {
            "fixed"
        } else {
            "fixed TODO"
        };
        let reply = serde_json::json!({
            "model": "m-2025", "system_fingerprint": "fp_9",
            "choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5}
        });
        Ok(HttpReply { status: 200, retry_after: None, body: reply.to_string().into_bytes() })
    }
}

fn answer_of(r: &ResponseRef) -> String {
    match r {
        ResponseRef::Answer { text, .. } => text.clone(),
        other => panic!("{other:?}"),
    }
}

struct NoSleep;

impl Sleep for NoSleep {
    fn sleep(&self, _: Duration) {}
}

/// A transport that must not be used.
struct Offline;

impl Transport for Offline {
    fn post(&self, _: &str, _: Option<&str>, _: &[u8]) -> Result<HttpReply, TransportError> {
        panic!("replay opened the network");
    }
}

fn network<'a>(transport: &'a dyn Transport, progress: &'a dyn Progress) -> Network<'a> {
    Network { transport, sleep: &NoSleep, backoff: Backoff::default(), progress }
}

fn with(root: &Path, mode: Mode) -> Settings {
    Settings {
        mode,
        cassettes: root.join("cassettes"),
        endpoint: Endpoint::parse("http://127.0.0.1:9/v1").unwrap(),
        ..settings()
    }
}

#[test]
fn only_scenarios_with_assertions_and_no_recorded_answer_are_asked_and_the_block_comes_first() {
    let s = suite(MEMORY);
    let settings = with(&s.root, Mode::Record);
    let plan = plan(&s.index, &s.scenarios, &settings);
    let ids: Vec<&str> = plan.scenarios.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, ["refund", "typo"]);
    assert_eq!(plan.scenarios[0].format, ResponseFormat::Structured);
    assert_eq!(plan.scenarios[1].format, ResponseFormat::Text);
    let refund = &plan.scenarios[0];
    let governed = &plan.requests[&refund.arms[0].key].0.body;
    let control = &plan.requests[&refund.arms[1].key].0.body;
    let block = governed["messages"][0]["content"].as_str().unwrap();
    assert_eq!(governed["messages"][0]["role"], "system");
    assert!(block.starts_with("## Project decisions") && block.contains("[PAY-001]"), "{block}");
    assert_eq!(governed["messages"][1]["role"], "user");
    assert_eq!(governed["messages"][1], control["messages"][0], "the same task in both arms");
    assert_eq!(control["messages"].as_array().unwrap().len(), 1, "the control arm has no system message");
    assert!(!control.to_string().contains("Project decisions"));
    assert!(governed.get("response_format").is_some() && control.get("response_format").is_some());
    // Nothing is retrieved for the typo: both arms are one request.
    let typo = &plan.scenarios[1];
    assert_eq!(typo.arms[0].key, typo.arms[1].key);
    assert_eq!(plan.requests.len(), 3);
}

#[test]
fn record_then_replay_gives_the_same_answers_without_the_network() {
    let s = suite(MEMORY);
    let record = with(&s.root, Mode::Record);
    let plan = plan(&s.index, &s.scenarios, &record);
    let scripted = Scripted::default();
    let recorded = resolve(&plan, &record, &network(&scripted, &Silent)).unwrap();
    assert_eq!((recorded.replayed, recorded.called), (0, 3));
    assert_eq!(std::fs::read_dir(s.root.join("cassettes")).unwrap().count(), 3);
    let replay = with(&s.root, Mode::Replay);
    let replayed = resolve(&plan, &replay, &network(&Offline, &Silent)).unwrap();
    assert_eq!((replayed.replayed, replayed.called), (3, 0));
    assert_eq!(replayed.cassettes, recorded.cassettes);

    let mut scenarios = s.scenarios.clone();
    answer(&mut scenarios, &plan, &replayed, 0);
    let refund = &scenarios[0];
    assert!(
        matches!(&refund.governed, Some(ResponseRef::Answer { format: ResponseFormat::Structured, text, .. }) if text.contains("LedgerClient"))
    );
    // The typo retrieves nothing: both arms are one request, one answer.
    let typo = &scenarios[1];
    assert!(
        matches!(&typo.control, Some(ResponseRef::Answer { format: ResponseFormat::Text, text, .. }) if text == "fixed TODO")
    );
    assert_eq!(typo.control.as_ref().map(answer_of), typo.governed.as_ref().map(answer_of));
    assert!(scenarios[2].governed.is_none(), "retrieval-only scenarios stay so");
    assert!(matches!(&scenarios[3].governed, Some(ResponseRef::Resolved { .. })), "recorded answers stay so");

    // Live asks again and writes nothing.
    let live = with(&s.root, Mode::Live);
    let again = Scripted::default();
    let lived = resolve(&plan, &live, &network(&again, &Silent)).unwrap();
    assert_eq!((lived.replayed, lived.called), (0, 3));
    assert_eq!(std::fs::read_dir(s.root.join("cassettes")).unwrap().count(), 3);
}

#[test]
fn replay_names_stale_and_unrecorded_scenarios_and_record_asks_only_for_those() {
    let s = suite(MEMORY);
    let record = with(&s.root, Mode::Record);
    let first = plan(&s.index, &s.scenarios, &record);
    resolve(&first, &record, &network(&Scripted::default(), &Silent)).unwrap();

    // An edited decision changes the refund's context block only.
    let edited = suite(&MEMORY.replace("All writes go through LedgerClient", "Every write goes through LedgerClient"));
    let second = plan(&edited.index, &edited.scenarios, &record);
    let replay = with(&s.root, Mode::Replay);
    let e = resolve(&second, &replay, &network(&Offline, &Silent)).unwrap_err();
    assert!(e.is_input());
    let ModelError::MissingCassettes { missing, .. } = &e else { panic!("{e}") };
    assert_eq!(missing, &[error::Missing { scenario: "refund".into(), arms: vec![Arm::Governed], stale: true }]);

    let scripted = Scripted::default();
    let refreshed = resolve(&second, &record, &network(&scripted, &Silent)).unwrap();
    assert_eq!((refreshed.replayed, refreshed.called), (2, 1));
    assert_eq!(scripted.bodies.lock().unwrap().len(), 1);
    resolve(&second, &replay, &network(&Offline, &Silent)).unwrap();

    // A scenario never recorded.
    let settings = Settings { repeat: 2, ..replay };
    let third = plan(&edited.index, &edited.scenarios, &settings);
    let e = resolve(&third, &settings, &network(&Offline, &Silent)).unwrap_err();
    let ModelError::MissingCassettes { missing, .. } = &e else { panic!("{e}") };
    let never: Vec<(&str, bool)> = missing.iter().map(|m| (m.scenario.as_str(), m.stale)).collect();
    assert_eq!(never, [("refund", false), ("typo", false)], "the second samples were never recorded: {e}");
}

#[test]
fn at_most_concurrency_requests_are_in_flight_and_the_first_failure_stops_the_stage() {
    let s = suite(MEMORY);
    let settings = Settings { repeat: 4, concurrency: 2, ..with(&s.root, Mode::Live) };
    let plan = plan(&s.index, &s.scenarios, &settings);
    assert_eq!(plan.requests.len(), 12);
    let scripted = Scripted { meet: 2, ..Scripted::default() };
    struct Counting(AtomicUsize, AtomicUsize);
    impl Progress for Counting {
        fn sent(&self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
        fn done(&self, tokens: u64) {
            self.1.fetch_add(tokens as usize, Ordering::SeqCst);
        }
    }
    let progress = Counting(AtomicUsize::new(0), AtomicUsize::new(0));
    resolve(&plan, &settings, &network(&scripted, &progress)).unwrap();
    assert_eq!(scripted.most_in_flight.load(Ordering::SeqCst), 2, "the bound is reached and held");
    assert_eq!((progress.0.into_inner(), progress.1.into_inner()), (12, 12 * 15));

    let failing = Scripted { fail_after: Some(3), ..Scripted::default() };
    let settings = Settings { concurrency: 1, ..settings };
    let e = resolve(&plan, &settings, &network(&failing, &Silent)).unwrap_err();
    assert!(e.to_string().contains("HTTP 401"), "{e}");
    assert_eq!(failing.bodies.lock().unwrap().len(), 4, "no request is sent after the failure");
}

#[test]
fn a_missing_key_is_said_before_any_request() {
    let s = suite(MEMORY);
    let settings = Settings { api_key_env: Some("MNEME_GATE_TEST_UNSET_KEY".into()), ..with(&s.root, Mode::Record) };
    let plan = plan(&s.index, &s.scenarios, &settings);
    let e = resolve(&plan, &settings, &network(&Offline, &Silent)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "http://127.0.0.1:9/v1/chat/completions: the API key variable MNEME_GATE_TEST_UNSET_KEY is not set (or is empty): export it, or remove `model.api_key_env` for a server that needs no key"
    );
}
