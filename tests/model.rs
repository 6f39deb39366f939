//! The model stage on the real binary, against a loopback stub of an
//! OpenAI-compatible server (127.0.0.1, a port the system picks): what each
//! arm sends, record then replay byte for byte, stale cassettes after a
//! decision edit, retries on 429 / 500 / slow replies, the concurrency
//! bound, exit 3 when the server is down or refuses, malformed replies,
//! `--repeat`, `cassettes prune`, and the API key in no output.

mod common;

use common::{Run, Test};

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

const KEY: &str = "sk-test-9f8e7d6c5b4a";

/// What the stub does with one request.
#[derive(Clone)]
enum Step {
    /// The default answer (see [`answer`]).
    Answer,
    /// This status, `Retry-After`, and body.
    Status(u16, Option<&'static str>, &'static str),
    /// No answer until the client gives up (its time-out) and closes the
    /// connection: a reply slower than any time-out, without a clock.
    UntilClosed,
    /// A 200 whose body is this text.
    Body(&'static str),
    /// A completion whose content is this text.
    Content(&'static str),
}

/// One request the stub received.
#[derive(Debug, Clone)]
struct Received {
    path: String,
    headers: Vec<(String, String)>,
    body: Value,
}

#[derive(Default)]
struct State {
    script: Mutex<VecDeque<Step>>,
    received: Mutex<Vec<Received>>,
    in_flight: AtomicUsize,
    most_in_flight: AtomicUsize,
    /// A reply waits until this many requests have been in flight at once
    /// (a rendezvous, not a measured pause); 0: none.
    meet: AtomicUsize,
    /// The n-th governed answer (1-based, per scenario task) is a bad one.
    bad_governed: Mutex<Option<usize>>,
    governed_seen: Mutex<std::collections::HashMap<String, usize>>,
    stop: AtomicBool,
}

/// The stub server: a thread per connection, `Connection: close`.
struct Stub {
    addr: SocketAddr,
    state: Arc<State>,
}

impl Stub {
    fn start() -> Stub {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(State::default());
        let shared = Arc::clone(&state);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if shared.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let state = Arc::clone(&shared);
                std::thread::spawn(move || serve(stream, &state));
            }
        });
        Stub { addr, state }
    }

    fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    fn script(&self, steps: &[Step]) {
        self.state.script.lock().unwrap().extend(steps.iter().cloned());
    }

    fn received(&self) -> Vec<Received> {
        self.state.received.lock().unwrap().clone()
    }

    fn stop(&self) {
        self.state.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
    }
}

impl Drop for Stub {
    fn drop(&mut self) {
        self.stop();
    }
}

fn serve(stream: TcpStream, state: &State) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() || line.is_empty() {
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() || h == "\r\n" || h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.trim_end().split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let length: usize =
        headers.iter().find(|(k, _)| k == "content-length").and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let now = state.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    state.most_in_flight.fetch_max(now, Ordering::SeqCst);
    state.received.lock().unwrap().push(Received { path, headers, body: body.clone() });
    let step = state.script.lock().unwrap().pop_front().unwrap_or(Step::Answer);
    // A deadline of minutes only keeps a serial client from hanging the
    // test (its assertion on `most_in_flight` then fails).
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while state.most_in_flight.load(Ordering::SeqCst) < state.meet.load(Ordering::SeqCst)
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(1));
    }
    let (status, retry_after, text) = match step {
        Step::Answer => (200, None, answer(&body, state, None)),
        Step::Content(c) => (200, None, answer(&body, state, Some(c))),
        Step::UntilClosed => {
            // The request is read whole: the next read ends when the client
            // closes the connection (or after minutes, as a safety net).
            let mut probe = stream.try_clone().unwrap();
            probe.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
            let _ = probe.read(&mut [0u8; 1]);
            (200, None, answer(&body, state, None))
        }
        Step::Status(s, r, b) => (s, r, b.to_string()),
        Step::Body(b) => (200, None, b.to_string()),
    };
    state.in_flight.fetch_sub(1, Ordering::SeqCst);
    let mut out = stream;
    let retry = retry_after.map_or(String::new(), |r| format!("Retry-After: {r}\r\n"));
    let _ = write!(
        out,
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{retry}Connection: close\r\n\r\n{text}",
        text.len()
    );
}

/// A completion: a compliant answer for the governed arm (a system message
/// first), a violating one for the control arm; structured when the request
/// asks for the schema.
fn answer(body: &Value, state: &State, content: Option<&str>) -> String {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let mut governed = messages.first().is_some_and(|m| m["role"] == "system");
    if governed {
        let task = messages.last().map(|m| m["content"].to_string()).unwrap_or_default();
        let mut seen = state.governed_seen.lock().unwrap();
        let n = seen.entry(task).or_insert(0);
        *n += 1;
        if *state.bad_governed.lock().unwrap() == Some(*n) {
            governed = false;
        }
    }
    let structured = body.get("response_format").is_some();
    let content = content.map(str::to_string).unwrap_or_else(|| match (structured, governed) {
        (true, true) => json!({"refused": false, "files_changed": ["services/payments/refunds.py"], "dependencies_added": [], "text": "LedgerClient.post(reversal)"}).to_string(),
        (true, false) => json!({"refused": false, "files_changed": ["services/payments/db.py"], "dependencies_added": ["psycopg2"], "text": "psycopg2.connect()"}).to_string(),
        (false, true) => "Render the price in a server component.".to_string(),
        (false, false) => "Fetch the price with useEffect in a client component; keep state in a local backend.".to_string(),
    });
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "stub-model-2025",
        "system_fingerprint": "fp_stub",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
    })
    .to_string()
}

const MEMORY: &str = r#"{"decisions": [
  {"id": "PAY-001", "decision": "Payments never open a database connection; use LedgerClient",
   "scope": ["payments", "ledger"], "constraints": ["All writes go through LedgerClient"], "anti_patterns": ["psycopg2"]},
  {"id": "WEB-001", "decision": "Checkout pages render prices in server components", "scope": ["checkout", "price"]},
  {"id": "OPS-001", "decision": "Terraform state lives in the remote backend", "scope": ["terraform", "state"]}
]}
"#;

const SUITE: &str = r#"scenarios:
  - id: refund
    task: Add a refund endpoint to the payments service that writes to the ledger
    expect: [PAY-001]
    assertions:
      - forbidden_dependency: psycopg2
      - required_text: LedgerClient
  - id: checkout
    task: Show the checkout price on the page
    expect: [WEB-001]
    assertions:
      - forbidden_text: useEffect
  - id: terraform
    task: Move the terraform state
    expect: [OPS-001]
    assertions:
      - forbidden_text: local backend
  - id: retrieval-only
    task: Add a payments report
    expect: [PAY-001]
"#;

/// A project: memory, suite, and a configuration naming the stub.
fn project(stub: &Stub, extra: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("project_memory.json"), MEMORY).unwrap();
    std::fs::create_dir(dir.path().join("scenarios")).unwrap();
    std::fs::write(dir.path().join("scenarios/suite.yaml"), SUITE).unwrap();
    std::fs::write(
        dir.path().join("mneme-gate.yaml"),
        format!(
            "memory: project_memory.json\nscenarios: [scenarios/]\nmodel:\n  base_url: {}\n  model: stub-model\n  api_key_env: MNEME_TEST_KEY\n  seed: 7\n  retries: 2\n  timeout_s: 5\n{extra}",
            stub.base_url()
        ),
    )
    .unwrap();
    dir
}

fn run(dir: &Path, args: &[&str]) -> Run {
    // The workflow allows the stub's endpoint that the configuration names:
    // the key goes only to an endpoint the environment or a flag gives.
    let allowed = std::fs::read_to_string(dir.join("mneme-gate.yaml"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.trim().strip_prefix("base_url:").map(|u| u.trim().to_string()))
        .unwrap_or_default();
    let out = Test::new()
        .args(args)
        .dir(dir)
        .env("MNEME_GATE_MODEL_ENDPOINTS", allowed)
        .env("MNEME_TEST_KEY", KEY)
        .env_remove("HTTP_PROXY")
        .env_remove("http_proxy")
        .env_remove("ALL_PROXY")
        .run();
    assert!(!out.stdout.contains(KEY) && !out.stderr.contains(KEY), "the key leaked:\n{}\n{}", out.stdout, out.stderr);
    out
}

fn cassettes(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir.join("cassettes")) {
        Ok(entries) => entries.map(|e| e.unwrap().path()).collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    files
}

/// The key is in no file of the project (cassettes, reports).
fn no_key_in_files(dir: &Path) {
    fn walk(p: &Path) {
        for e in std::fs::read_dir(p).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                walk(&path);
            } else {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                assert!(!text.contains(KEY), "the key is in {}", path.display());
            }
        }
    }
    walk(dir);
}

#[test]
fn record_fills_the_cassettes_and_replay_reproduces_the_report_byte_for_byte_with_the_server_stopped() {
    let stub = Stub::start();
    let dir = project(&stub, "");
    let d = dir.path();
    let recorded = run(d, &["run", "--responses", "record", "--json", "record.json"]).code(0);
    assert!(
        recorded.stderr.contains("model: 0 request(s) replayed from cassettes, 6 sent to http://127.0.0.1:"),
        "{}",
        recorded.stderr
    );
    assert!(
        recorded.stdout.contains("Model stub-model: 3 scenario(s) answered, 6 request(s), 600 tokens in, 120 out"),
        "{}",
        recorded.stdout
    );
    assert!(recorded.stdout.contains("pass^1: 1.000 (3 of 3 scenario(s) passed every trial)"), "{}", recorded.stdout);
    assert_eq!(cassettes(d).len(), 6);

    // What each arm sent: the block first in the governed arm, none in the control arm.
    let received = stub.received();
    assert_eq!(received.len(), 6);
    for r in &received {
        assert_eq!(r.path, "/v1/chat/completions");
        let auth = r.headers.iter().find(|(k, _)| k == "authorization").map(|(_, v)| v.as_str());
        assert_eq!(auth, Some(format!("Bearer {KEY}").as_str()), "the key goes in the Authorization header");
        assert_eq!(r.body["model"], "stub-model");
        assert_eq!(
            (r.body["temperature"].as_f64(), r.body["seed"].as_i64(), r.body["max_tokens"].as_u64()),
            (Some(0.0), Some(7), Some(1024))
        );
        let messages = r.body["messages"].as_array().unwrap();
        let user = messages.last().unwrap();
        assert_eq!(user["role"], "user");
        if messages.len() == 2 {
            assert_eq!(messages[0]["role"], "system");
            assert!(messages[0]["content"].as_str().unwrap().starts_with("## Project decisions\n"), "{}", messages[0]);
        } else {
            assert_eq!(messages.len(), 1, "the control arm sends the task alone");
            assert!(!r.body.to_string().contains("Project decisions"));
        }
    }
    let refund: Vec<&Received> = received.iter().filter(|r| r.body.to_string().contains("refund endpoint")).collect();
    assert_eq!(refund.len(), 2);
    assert!(
        refund.iter().all(|r| r.body["response_format"]["json_schema"]["name"] == "mneme_gate_answer"),
        "structured assertions ask for the schema"
    );
    assert!(received
        .iter()
        .filter(|r| r.body.to_string().contains("checkout price"))
        .all(|r| r.body.get("response_format").is_none()));
    let governed = refund.iter().find(|r| r.body["messages"].as_array().unwrap().len() == 2).unwrap();
    assert!(governed.body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .contains("[PAY-001] Payments never open a database connection"));

    let report: Value = serde_json::from_str(&std::fs::read_to_string(d.join("record.json")).unwrap()).unwrap();
    let scenario = |id: &str| report["scenarios"].as_array().unwrap().iter().find(|s| s["id"] == id).unwrap().clone();
    let r = scenario("refund");
    assert_eq!(r["verdict"], "PASS");
    let arms = r["model"]["arms"].as_array().unwrap();
    assert_eq!(arms.len(), 2);
    assert_eq!((arms[0]["arm"].as_str(), arms[1]["arm"].as_str()), (Some("governed"), Some("control")));
    assert_eq!(
        (arms[0]["model"].as_str(), arms[0]["system_fingerprint"].as_str()),
        (Some("stub-model-2025"), Some("fp_stub"))
    );
    assert_eq!((arms[0]["tokens_in"].as_u64(), arms[0]["tokens_out"].as_u64()), (Some(100), Some(20)));
    assert_eq!(arms[0]["cassette"].as_str().unwrap().len(), 64);
    assert!(d.join("cassettes").join(format!("{}.json", arms[0]["cassette"].as_str().unwrap())).is_file());
    assert!(arms[0]["latency_ms"].is_u64());
    assert_eq!(report["model"]["tokens"], json!({"input": 600, "output": 120}));
    assert_eq!(report["model"]["pass_hat_n"], 1.0);
    assert!(scenario("retrieval-only").get("model").is_none(), "no model for a scenario without assertions");
    assert!(report["model"].get("estimated_cost").is_none(), "no prices, no cost");

    // The server stops; replay needs none of it.
    stub.stop();
    drop(stub);
    let replayed = run(d, &["run", "--json", "replay.json"]).code(0);
    assert!(!replayed.stderr.contains("sent to"), "{}", replayed.stderr);
    let (a, b) = (std::fs::read(d.join("record.json")).unwrap(), std::fs::read(d.join("replay.json")).unwrap());
    assert!(a == b, "record and replay differ");
    assert_eq!(replayed.stdout, recorded.stdout);
    no_key_in_files(d);
}

#[test]
fn an_edited_decision_makes_replay_name_exactly_its_scenarios_and_record_refresh_only_them() {
    let stub = Stub::start();
    let dir = project(&stub, "");
    let d = dir.path();
    run(d, &["run", "--responses", "record"]).code(0);
    let before = cassettes(d);
    let memory = d.join("project_memory.json");
    let edited = MEMORY.replace("render prices in server components", "render prices on the server");
    std::fs::write(&memory, edited).unwrap();

    let out = run(d, &["run"]).code(2);
    assert_eq!(
        out.stderr,
        "mneme-gate: error: 1 scenario(s) have no cassette for their request in cassettes; run with --responses record to record them:\n  \
         checkout (governed): stale: its cassette was recorded for another request (a decision, the task or the model settings changed)\n"
    );
    assert_eq!(out.stdout, "", "no report when the answers are incomplete");

    let sent = stub.received().len();
    let out = run(d, &["run", "--responses", "record"]).code(0);
    assert!(out.stderr.contains("model: 5 request(s) replayed from cassettes, 1 sent to"), "{}", out.stderr);
    let again = &stub.received()[sent..];
    assert_eq!(again.len(), 1);
    assert!(again[0].body["messages"][0]["content"].as_str().unwrap().contains("render prices on the server"));
    run(d, &["run"]).code(0);

    // The old cassette is listed by prune, and removed with --delete.
    assert_eq!(cassettes(d).len(), 7);
    let out = run(d, &["cassettes", "prune"]).code(0);
    let old: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(old.len(), 1, "{}", out.stdout);
    assert!(before.iter().any(|p| p.ends_with(Path::new(old[0]).file_name().unwrap())));
    assert!(
        out.stderr
            .contains("1 of 7 cassette file(s) in cassettes are not used by the suite; pass --delete to remove them"),
        "{}",
        out.stderr
    );
    run(d, &["cassettes", "prune", "--delete"]).code(0);
    assert_eq!(cassettes(d).len(), 6);
    run(d, &["run"]).code(0);
}

#[test]
fn retries_honour_retry_after_and_survive_500s_and_slow_replies() {
    let stub = Stub::start();
    let dir = project(&stub, "  concurrency: 1\n");
    stub.script(&[
        Step::Status(429, Some("1"), r#"{"error":{"message":"rate limited"}}"#),
        Step::Status(500, None, "oops"),
        Step::Answer,
        Step::UntilClosed,
        Step::Answer,
    ]);
    let out = run(dir.path(), &["run", "--responses", "live", "--model-timeout", "1", "--json", "r.json"]).code(0);
    assert!(out.stderr.contains("6 sent to"), "{}", out.stderr);
    // 6 requests, 3 of them tried again (429, 500, timeout): 9 received.
    assert_eq!(stub.received().len(), 9);
    assert!(cassettes(dir.path()).is_empty(), "live writes nothing");
}

#[test]
fn at_most_concurrency_requests_are_in_flight() {
    let stub = Stub::start();
    stub.state.meet.store(2, Ordering::SeqCst);
    let dir = project(&stub, "  concurrency: 2\n");
    run(dir.path(), &["run", "--responses", "live", "--repeat", "2"]).code(0);
    assert_eq!(stub.received().len(), 12);
    assert_eq!(stub.state.most_in_flight.load(Ordering::SeqCst), 2, "the bound is reached and never passed");
}

#[test]
fn a_server_that_is_down_or_refuses_is_exit_3_with_one_line_and_no_report() {
    // A port nobody listens on.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let stub = Stub::start();
    let dir = project(&stub, "");
    let d = dir.path();
    let down = format!("http://127.0.0.1:{port}/v1");
    let out = run(
        d,
        &["run", "--responses", "record", "--model-base-url", &down, "--model-retries", "1", "--json", "r.json"],
    )
    .code(3);
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{}", out.stderr);
    assert!(
        lines[0].starts_with(&format!(
            "mneme-gate: error: http://127.0.0.1:{port}/v1/chat/completions: unreachable after 2 attempt(s) ("
        )),
        "{}",
        out.stderr
    );
    assert!(
        lines[0].ends_with(
            "check that the server is running and that `model.base_url` is right, or raise `model.timeout_s`"
        ),
        "{}",
        out.stderr
    );
    assert!(!d.join("r.json").exists(), "never a partial report");
    assert_eq!(out.stdout, "");

    stub.script(&[Step::Status(
        401,
        None,
        r#"{"error":{"message":"Incorrect API key provided: sk-test-9f8e7d6c5b4a"}}"#,
    )]);
    let out = run(d, &["run", "--responses", "record", "--model-concurrency", "1", "--json", "r.json"]).code(3);
    assert!(out.stderr.contains("HTTP 401 (the server says: \"Incorrect API key provided: [redacted]\"): the server refused the API key: check that MNEME_TEST_KEY holds a valid key"), "{}", out.stderr);
    assert!(!d.join("r.json").exists());

    stub.script(&[Step::Status(404, None, "{}")]);
    let out = run(d, &["run", "--responses", "record", "--model-concurrency", "1"]).code(3);
    assert!(out.stderr.contains("HTTP 404: no such endpoint or model: check that `model.base_url` ends in /v1 and that the server serves `stub-model`"), "{}", out.stderr);

    stub.script(&[Step::Body("{\"choices\": oops")]);
    let out = run(d, &["run", "--responses", "record", "--model-concurrency", "1"]).code(3);
    assert!(
        out.stderr.contains("the reply is not an OpenAI chat completion (invalid JSON at line 1, column 13"),
        "{}",
        out.stderr
    );

    // The endpoint the configuration names, with no allowlist: the key is
    // not even read (exit 2, before any request).
    let out = Test::new()
        .args(["run", "--responses", "live"])
        .dir(d)
        .env_remove("MNEME_GATE_MODEL_ENDPOINTS")
        .env("MNEME_TEST_KEY", KEY)
        .run();
    assert_eq!(out.status.code(), Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("the API key of MNEME_TEST_KEY is not sent there"));
    // No key in the environment; the endpoint from the command line.
    let out = Test::new()
        .args(["run", "--responses", "live", "--model-base-url", &stub.base_url()])
        .dir(d)
        .env_remove("MNEME_TEST_KEY")
        .run();
    assert_eq!(out.status.code(), Some(3));
    assert!(out.stderr.contains("the API key variable MNEME_TEST_KEY is not set"));
    // The requests before each failure were recorded; nothing holds the key.
    no_key_in_files(d);
}

#[test]
fn a_reply_that_does_not_parse_against_the_schema_is_malformed_with_the_raw_reply_in_the_report() {
    let stub = Stub::start();
    let dir = project(&stub, "  concurrency: 1\n");
    let d = dir.path();
    // Both arms of the refund (structured) get a reply that is JSON, but not the answer's shape.
    stub.script(&[
        Step::Content("{\"refused\": false, \"files\": 1}"),
        Step::Content("{\"refused\": false, \"files\": 1}"),
    ]);
    let out = run(d, &["run", "--responses", "record", "--json", "r.json", "--filter", "refund"]).code(1);
    assert!(out.stdout.contains("MALFORMED"), "{}", out.stdout);
    let report: Value = serde_json::from_str(&std::fs::read_to_string(d.join("r.json")).unwrap()).unwrap();
    let refund = &report["scenarios"][0];
    assert_eq!(refund["verdict"], "MALFORMED");
    assert!(
        refund["explanation"]
            .as_str()
            .unwrap()
            .contains("response: `the model's control reply`: unknown field `files`"),
        "{}",
        refund["explanation"]
    );
    assert_eq!(refund["model"]["arms"][0]["reply"], "{\"refused\": false, \"files\": 1}");
}

#[test]
fn repeat_reports_pass_hat_n_and_the_verdicts_of_each_scenario_and_replays_them() {
    let stub = Stub::start();
    let dir = project(&stub, "");
    let d = dir.path();
    // Every scenario's second governed answer breaks its decision.
    *stub.state.bad_governed.lock().unwrap() = Some(2);
    let out = run(d, &["run", "--responses", "record", "--repeat", "3", "--json", "record.json"]).code(1);
    assert_eq!(stub.received().len(), 18);
    assert!(out.stdout.contains("pass^3: 0.000 (0 of 3 scenario(s) passed every trial)"), "{}", out.stdout);
    assert!(out.stdout.contains("  flaky: checkout: PASS 2, FAIL 1\n"), "{}", out.stdout);
    let report: Value = serde_json::from_str(&std::fs::read_to_string(d.join("record.json")).unwrap()).unwrap();
    let checkout = report["scenarios"].as_array().unwrap().iter().find(|s| s["id"] == "checkout").unwrap();
    assert_eq!(checkout["verdict"], "FAIL", "the worst trial");
    assert_eq!(checkout["model"]["distribution"], json!({"FAIL": 1, "PASS": 2}));
    assert_eq!(checkout["model"]["arms"].as_array().unwrap().len(), 6);
    assert_eq!(checkout["model"]["passed_every_trial"], false);
    assert_eq!(report["model"]["repeat"], 3);
    assert_eq!(report["model"]["pass_hat_n"], 0.0);
    assert_eq!(cassettes(d).len(), 18);
    drop(stub);
    run(d, &["run", "--repeat", "3", "--json", "replay.json"]).code(1);
    assert!(std::fs::read(d.join("record.json")).unwrap() == std::fs::read(d.join("replay.json")).unwrap());
    // Without --repeat, the first samples replay alone: the first trial's verdicts.
    let first_all_pass =
        report["scenarios"].as_array().unwrap().iter().filter_map(|s| s.get("model")).all(|m| m["trials"][0] == "PASS");
    run(d, &["run"]).code(if first_all_pass { 0 } else { 1 });
}

#[test]
fn prices_give_an_estimated_cost() {
    let stub = Stub::start();
    let dir = project(&stub, "  prices: {input_per_million: 2.0, output_per_million: 8.0}\n");
    let out = run(dir.path(), &["run", "--responses", "live", "--json", "-"]).code(0);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let total = 600.0 * 2.0 / 1e6 + 120.0 * 8.0 / 1e6;
    assert_eq!(
        report["model"]["estimated_cost"],
        json!({"input_per_million": 2.0, "output_per_million": 8.0, "total": total})
    );
    assert!(out.stderr.contains("estimated cost 0.0022"), "{}", out.stderr);
}

#[test]
fn without_a_model_nothing_changes_and_record_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("project_memory.json"), MEMORY).unwrap();
    std::fs::create_dir(d.join("scenarios")).unwrap();
    std::fs::write(d.join("scenarios/suite.yaml"), SUITE).unwrap();
    std::fs::write(d.join("mneme-gate.yaml"), "memory: project_memory.json\nscenarios: [scenarios/]\n").unwrap();
    let out = run(d, &["run", "--json", "r.json"]).code(0);
    assert!(!out.stdout.contains("Model "), "{}", out.stdout);
    let text = std::fs::read_to_string(d.join("r.json")).unwrap();
    assert!(!text.contains("\"model\""), "no model field without a model");
    let out = run(d, &["run", "--responses", "record"]).code(2);
    assert!(out.stderr.contains("--responses record|live and --repeat need a model"), "{}", out.stderr);
    let out = run(d, &["cassettes", "prune"]).code(2);
    assert!(out.stderr.contains("no model is configured"), "{}", out.stderr);
}

/// The docs example (docs/examples/models), replayed from its committed
/// cassettes: the model fields of the JSON report and the terminal lines.
#[test]
fn the_model_fields_of_the_reports() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = run(root, &["--config", "docs/examples/models/mneme-gate.yaml", "run", "--json", "-"]).code(0);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let refund = report["scenarios"].as_array().unwrap().iter().find(|s| s["id"] == "refund").unwrap();
    insta::assert_json_snapshot!("model_report_fields", json!({"model": report["model"], "refund": refund["model"]}));
    let tail = &out.stderr[out.stderr.find("\nModel ").unwrap()..];
    insta::assert_snapshot!("model_terminal_lines", tail);
}

/// A cassette is input: one that leads outside its folder, or was edited,
/// is refused (exit 2) with its path.
#[test]
fn a_hostile_cassette_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/examples/models");
    copy_tree(&example, d);
    let cassette = cassettes(d).into_iter().next().unwrap();
    let text = std::fs::read_to_string(&cassette).unwrap();

    std::fs::write(&cassette, text.replace("\"max_tokens\": 512", "\"max_tokens\": 513")).unwrap();
    let out = run(d, &["run"]).code(2);
    assert!(
        out.stderr.contains(
            "its request does not hash to its key (it was edited); delete it and run with --responses record"
        ),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains(cassette.file_name().unwrap().to_str().unwrap()), "{}", out.stderr);

    #[cfg(unix)]
    {
        let outside = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(outside.path(), &text).unwrap();
        std::fs::remove_file(&cassette).unwrap();
        std::os::unix::fs::symlink(outside.path(), &cassette).unwrap();
        let out = run(d, &["run"]).code(2);
        assert!(out.stderr.contains("leads outside the cassette folder"), "{}", out.stderr);
    }
}

fn copy_tree(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

#[test]
fn partitions_of_a_run_with_a_model_merge_to_the_single_run() {
    let stub = Stub::start();
    let dir = project(&stub, "  prices: {input_per_million: 2.0, output_per_million: 8.0}\n");
    let d = dir.path();
    *stub.state.bad_governed.lock().unwrap() = Some(2);
    let reports = |prefix: &str| {
        ["--json", "--junit", "--markdown"]
            .iter()
            .zip(["json", "xml", "md"])
            .flat_map(|(flag, ext)| [flag.to_string(), format!("{prefix}.{ext}")])
            .collect::<Vec<String>>()
    };
    let mut args = vec!["run".to_string(), "--responses".into(), "record".into(), "--repeat".into(), "2".into()];
    args.extend(reports("single"));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let single = run(d, &args);
    drop(stub);
    for n in 1..=4 {
        let mut parts = Vec::new();
        for k in 1..=n {
            let (slice, part) = (format!("{k}/{n}"), format!("part-{k}-of-{n}.json"));
            run(d, &["run", "--repeat", "2", "--partition", &slice, "--json", &part]).code(0);
            parts.push(part);
        }
        let mut args: Vec<String> = ["merge".to_string()].into_iter().chain(parts).collect();
        args.extend(reports(&format!("merged-{n}")));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let merged = run(d, &args);
        assert_eq!(merged.code, single.code, "N={n}: {}", merged.stderr);
        assert_eq!(merged.stdout, single.stdout, "N={n}");
        for ext in ["json", "xml", "md"] {
            let want = std::fs::read(d.join(format!("single.{ext}"))).unwrap();
            let got = std::fs::read(d.join(format!("merged-{n}.{ext}"))).unwrap();
            assert!(want == got, "N={n}: the {ext} report differs from the single run's");
        }
    }
    let report: Value = serde_json::from_str(&std::fs::read_to_string(d.join("single.json")).unwrap()).unwrap();
    assert_eq!(report["model"]["requests"], 12);
    assert!(report["model"]["estimated_cost"]["total"].as_f64().unwrap() > 0.0);
}

#[test]
fn token_counts_from_cassettes_saturate_instead_of_wrapping() {
    let stub = Stub::start();
    let dir = project(&stub, "");
    let d = dir.path();
    run(d, &["run", "--responses", "record"]).code(0);
    stub.stop();
    // A cassette is a file of the repository: its counts can say anything.
    for path in cassettes(d) {
        let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        v["usage"]["prompt_tokens"] = json!(u64::MAX);
        std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    }
    let out = run(d, &["run"]).code(0);
    assert!(out.stdout.contains(&format!("{} tokens in", u64::MAX)), "{}", out.stdout);
}
