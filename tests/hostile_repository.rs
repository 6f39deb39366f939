//! A hostile repository: every file of it, its symbolic links included,
//! comes from a pull request. The real binary runs in a repository next to
//! a folder outside it holding canary files, and nothing outside may be read
//! into an output, written, or deleted; no secret may go where the
//! repository's files alone say; no special file may hang a command; no
//! input may take quadratic time.

#![cfg(unix)]

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

mod common;

use common::{Run, Test};

/// A repository (`repo/`, with `.git` so that it is the repository root)
/// and a folder beside it (`outside/`) holding canaries.
struct World {
    _tmp: tempfile::TempDir,
    repo: PathBuf,
    outside: PathBuf,
}

const MEMORY: &str = r#"{"decisions": [
  {"id": "PAY-001", "decision": "Refunds post a reversal to the ledger", "scope": ["payments"],
   "constraints": ["Post refunds through LedgerClient"], "status": "accepted"}
]}"#;

const SUITE: &str = "scenarios:\n  - id: refund\n    task: Add a refund endpoint that posts the reversal to the ledger\n    expect: [PAY-001]\n";

fn world() -> World {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap();
    let repo = root.join("repo");
    let outside = root.join("outside");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(repo.join("project_memory.json"), MEMORY).unwrap();
    World { _tmp: tmp, repo, outside }
}

impl World {
    fn write(&self, rel: &str, text: &str) {
        let path = self.repo.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    fn canary(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.outside.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }
    fn link(&self, rel: &str, target: impl AsRef<Path>) {
        let path = self.repo.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        symlink(target, path).unwrap();
    }
    /// The suite, and a configuration naming it (with `extra` appended).
    fn suite_with(&self, extra: &str) {
        self.write("scenarios/suite.yaml", SUITE);
        self.write("mneme-gate.yaml", &format!("memory: project_memory.json\nscenarios: [scenarios/]\n{extra}"));
    }
    fn suite(&self) {
        self.suite_with("");
    }
    fn run(&self, args: &[&str]) -> Run {
        run_in(&self.repo, args, &[])
    }
    /// Every file under `outside/`, with its bytes.
    fn outside_files(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut out = Vec::new();
        walk(&self.outside, &mut out);
        out.sort();
        out
    }
}

fn walk(dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let m = std::fs::symlink_metadata(&p).unwrap();
        if m.is_dir() {
            out.push((p.clone(), Vec::new()));
            walk(&p, out);
        } else {
            out.push((p.clone(), std::fs::read(&p).unwrap_or_default()));
        }
    }
}

/// Runs the binary in `dir`, with `HOME` there and nothing of the
/// machine's CI or model settings; a run that does not end (a named pipe
/// waited on, a quadratic input) is killed after [`common::TIMEOUT`] and
/// fails.
fn run_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    hermetic(dir).args(args).envs(env.iter().copied()).run()
}

/// The binary in `dir` with this file's environment.
fn hermetic(dir: &Path) -> Test {
    Test::new()
        .dir(dir)
        .env("HOME", dir)
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("MNEME_GATE_MODEL_ENDPOINTS")
        .env_remove("MNEME_GATE_CACHE_DIR")
        .lossy()
}

fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

const TASK: &str = "--task=Rotate the canarybird ledger secret";

// --- 1. Reads through a source folder, a memory file, a baseline -------------

/// `copilot: .` in a repository whose `.github` is a link to a folder
/// outside it holding Copilot instructions with a canary.
fn github_linked_out() -> World {
    let w = world();
    w.canary(
        "gh/copilot-instructions.md",
        "# Copilot\n\n- Always rotate the canarybird ledger secret CANARY-COPILOT\n",
    );
    w.link(".github", w.outside.join("gh"));
    w.write("mneme-gate.yaml", "memory:\n  - project_memory.json\n  - copilot: .\n");
    w
}

#[test]
fn copilot_dot_does_not_follow_a_github_link_out_of_the_repository() {
    let w = github_linked_out();
    let out = w.run(&["context", TASK]);
    assert!(!out.all().contains("CANARY-COPILOT"), "read outside the repository:\n{}", out.all());
    assert!(out.stderr.contains("leads out of the source folder"), "{}", out.stderr);
    let out = w.run(&["import", "--out", "imported.json"]);
    assert!(!out.all().contains("CANARY-COPILOT"));
    let imported = std::fs::read_to_string(w.repo.join("imported.json")).unwrap_or_default();
    assert!(!imported.contains("CANARY-COPILOT"), "{imported}");
}

#[test]
fn the_hook_and_the_mcp_server_do_not_follow_a_github_link_out_of_the_repository() {
    let w = github_linked_out();
    let prompt = format!(
        "{{\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"Rotate the canarybird ledger secret\",\"cwd\":{:?},\"session_id\":\"s\"}}",
        w.repo.display().to_string()
    );
    let no_cache = [("MNEME_GATE_CACHE", "off")];
    let Run { code, stdout, stderr, .. } =
        hermetic(&w.repo).args(["hook", "claude"]).envs(no_cache).stdin(&prompt).run();
    assert_eq!(code, 0, "the hook fails open: {stderr}");
    assert!(!stdout.contains("CANARY") && !stderr.contains("CANARY"), "read outside:\n{stdout}\n{stderr}");
    assert!(stderr.contains("leads out of the source folder"), "{stderr}");

    let task = "Rotate the canarybird ledger secret";
    let lines = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
        format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"memory_context","arguments":{{"task":"{task}"}}}}}}"#),
        format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"memory_search","arguments":{{"task":"{task}","k":5}}}}}}"#),
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"memory_health","arguments":{}}}"#.to_string(),
    ];
    let input = lines.join("\n") + "\n";
    let Run { code, stdout, stderr, .. } = hermetic(&w.repo).args(["mcp"]).envs(no_cache).stdin(&input).run();
    assert_eq!(code, 0, "{stderr}");
    assert!(!stdout.contains("CANARY") && !stderr.contains("CANARY"), "read outside:\n{stdout}\n{stderr}");
    for id in 2..=4 {
        assert!(stdout.lines().any(|l| l.contains(&format!("\"id\":{id}"))), "no answer to {id}: {stdout}");
    }
    assert!(stdout.contains("leads out of the source folder"), "the refusal is said: {stdout}");
}

#[test]
fn a_json_memory_file_or_a_baseline_linked_out_of_the_repository_is_refused() {
    let w = world();
    let memory = MEMORY.replace("Refunds post a reversal", "Rotate the canarybird ledger secret CANARY-JSON");
    w.canary("memory.json", &memory);
    w.link("linked.json", w.outside.join("memory.json"));
    w.write("mneme-gate.yaml", "memory:\n  - linked.json\n");
    let out = w.run(&["context", TASK]).code(2);
    assert!(!out.all().contains("CANARY-JSON"), "{}", out.all());
    assert!(out.stderr.contains("linked.json is a symbolic link to"), "{}", out.stderr);
    assert!(out.stderr.contains("leads outside the repository"), "{}", out.stderr);

    let w = world();
    w.suite();
    w.canary("baseline.json", "{\"CANARY-BASELINE\": true}");
    w.link("reports/baseline.json", w.outside.join("baseline.json"));
    let out = w.run(&["run", "--quiet", "--baseline", "reports/baseline.json"]);
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(out.stderr.contains("leads outside the repository"), "{}", out.stderr);
    assert!(!out.all().contains("CANARY-BASELINE"));
}

#[test]
fn configuration_paths_that_lead_outside_the_repository_are_refused() {
    let w = world();
    let memory = MEMORY.replace("Refunds post a reversal", "Rotate the canarybird ledger secret CANARY-CONF");
    let file = w.canary("memory.json", &memory);
    w.canary(
        "adr/0001-rotate.md",
        "# 1. Rotate the canarybird ledger secret CANARY-ADR\n\n## Status\n\nAccepted\n\n## Decision\n\nRotate the canarybird ledger secret CANARY-ADR.\n",
    );
    let outside = w.outside.display().to_string();
    let cases = [
        ("memory: ../outside/memory.json\n".to_string(), "1:9"),
        (format!("memory: {}\n", file.display()), "1:9"),
        ("memory:\n  - project_memory.json\n  - adr: ../outside/adr/\n".to_string(), "3:10"),
        (format!("memory:\n  - adr: {outside}/adr/\n"), "2:10"),
        ("memory:\n  - ../outside/memory.json\n".to_string(), "2:3"),
    ];
    for (config, place) in &cases {
        w.write("mneme-gate.yaml", config);
        for args in [&["context", TASK][..], &["validate"], &["import"]] {
            let out = w.run(args).code(2);
            assert!(!out.all().contains("CANARY"), "{config:?} {args:?}: read outside:\n{}", out.all());
            assert!(
                out.stderr.contains(&format!("mneme-gate.yaml:{place}: `memory` names")),
                "{config:?} {args:?}: {}",
                out.stderr
            );
            assert!(out.stderr.contains("outside the repository"), "{}", out.stderr);
        }
    }
    // A suite outside is refused the same way.
    w.canary("suite/suite.yaml", SUITE);
    w.write("mneme-gate.yaml", "memory: project_memory.json\nscenarios: [../outside/suite/]\n");
    let out = w.run(&["run", "--quiet"]).code(2);
    assert!(out.stderr.contains("mneme-gate.yaml:2:12: `scenarios` names"), "{}", out.stderr);

    // `..` that stays inside the repository is fine (a configuration in a
    // subfolder), and so is a path the command line names.
    w.write("conf/mneme-gate.yaml", "memory: ../project_memory.json\n");
    w.run(&["context", TASK, "--config", "conf/mneme-gate.yaml"]).code(0);
    w.write("mneme-gate.yaml", "memory: project_memory.json\n");
    let out = w.run(&["context", TASK, "--memory", file.to_str().unwrap()]).code(0);
    assert!(out.stdout.contains("CANARY-CONF"), "an explicit path is read as given: {}", out.all());
}

#[test]
fn a_configured_baseline_outside_the_repository_is_never_written() {
    let w = world();
    let victim = w.canary("victim.json", "CANARY-VICTIM");
    for path in ["../outside/victim.json".to_string(), victim.display().to_string()] {
        w.suite_with(&format!("baseline: {path}\n"));
        for args in [&["baseline"][..], &["run", "--quiet"]] {
            let out = w.run(args).code(2);
            assert!(out.stderr.contains("mneme-gate.yaml:3:11: `baseline` names"), "{args:?}: {}", out.stderr);
            assert!(!out.all().contains("CANARY"), "{}", out.all());
            assert_eq!(std::fs::read_to_string(&victim).unwrap(), "CANARY-VICTIM", "{path} {args:?}");
        }
    }
    // Named on the command line, a path outside is the user's choice.
    w.suite();
    let chosen = w.outside.join("chosen.json");
    w.run(&["baseline", "--out", chosen.to_str().unwrap()]).code(0);
    assert!(chosen.is_file());
}

// --- 2. init writes -------------------------------------------------------------

#[test]
fn init_writes_nothing_through_a_linked_folder() {
    for folder in ["scenarios", ".github", ".github/workflows", "reports", ".claude"] {
        let w = world();
        std::fs::create_dir_all(w.outside.join("target")).unwrap();
        let settings = w.canary("target/settings.json", "{\"canary\": true}\n");
        w.link(folder, w.outside.join("target"));
        let before = w.outside_files();
        let out = w.run(&["init", "--hook", "claude"]);
        assert_eq!(out.code, 2, "{folder}: {}", out.all());
        assert!(out.stderr.contains("symbolic link"), "{folder}: {}", out.stderr);
        assert_eq!(w.outside_files(), before, "{folder}: init wrote outside the repository");
        assert_eq!(std::fs::read_to_string(&settings).unwrap(), "{\"canary\": true}\n");
    }
}

#[test]
fn init_reads_adr_dir_only_as_a_small_regular_file() {
    let w = world();
    w.link(".adr-dir", "/dev/zero");
    w.run(&["init"]).code(0);
    let w = world();
    mkfifo(&w.repo.join(".adr-dir"));
    w.run(&["init"]).code(0);
}

#[test]
fn a_dangling_configuration_link_is_named() {
    let w = world();
    w.link("mneme-gate.yaml", "nowhere.yaml");
    let out = w.run(&["validate"]).code(2);
    assert!(out.stderr.contains("dangling link"), "{}", out.stderr);
}

// --- 3. Outputs -----------------------------------------------------------------

#[test]
fn an_output_path_that_is_a_link_in_the_repository_is_refused() {
    let w = world();
    w.suite();
    let victim = w.canary("victim.txt", "CANARY-VICTIM");
    w.link("reports/junit.xml", &victim);
    for flag in ["--junit", "--json", "--markdown"] {
        let out = w.run(&["run", "--quiet", flag, "reports/junit.xml"]).code(2);
        assert!(out.stderr.contains("reports/junit.xml is a symbolic link"), "{flag}: {}", out.stderr);
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "CANARY-VICTIM", "{flag}");
    }
    // A dangling link makes no folder outside; a linked folder is refused too.
    w.link("reports/new.json", w.outside.join("made/deep/new.json"));
    w.run(&["run", "--quiet", "--json", "reports/new.json"]).code(2);
    w.link("out", &w.outside);
    w.run(&["run", "--quiet", "--json", "out/x.json"]).code(2);
    w.run(&["baseline", "--out", "reports/junit.xml"]).code(2);
    w.run(&["baseline", "--out", "out/baseline.json"]).code(2);
    assert!(!w.outside.join("made").exists() && !w.outside.join("x.json").exists());
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "CANARY-VICTIM");
    // `merge` writes its reports the same way.
    w.run(&["run", "--quiet", "--partition", "1/1", "--json", "part.json"]).code(0);
    let out = w.run(&["merge", "part.json", "--quiet", "--json", "reports/junit.xml"]).code(2);
    assert!(out.stderr.contains("reports/junit.xml is a symbolic link"), "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "CANARY-VICTIM");
    // A path outside the repository, given explicitly, is written as given.
    let summary = w.outside.join("summary.md");
    w.run(&["run", "--quiet", "--markdown", summary.to_str().unwrap()]).code(0);
    assert!(std::fs::read_to_string(&summary).unwrap().contains("gate passed"));
}

// --- 4. cassettes prune --delete ------------------------------------------------

const MODEL: &str = "model:\n  base_url: http://127.0.0.1:9/v1\n  model: m\n";

#[test]
fn cassettes_prune_deletes_nothing_outside_the_repository() {
    let w = world();
    w.suite_with(&format!("{MODEL}  cassettes: cassettes/\n"));
    w.canary("tapes/aaaa.json", "[]");
    w.canary("tapes/bbbb.json", "{}");
    w.link("cassettes", w.outside.join("tapes"));
    let before = w.outside_files();
    let out = w.run(&["cassettes", "prune", "--delete"]).code(2);
    assert!(out.stderr.contains("does not resolve inside"), "{}", out.stderr);
    assert_eq!(w.outside_files(), before);
    // Nor is the linked folder read: neither listed by `prune` nor replayed
    // by `run` (its files would be named, or replayed as answers).
    w.canary("tapes/cccc.json", "CANARY-TAPE");
    w.write("scenarios/suite.yaml", &format!("{SUITE}    assertions:\n      - forbidden_text: x\n"));
    for args in [&["cassettes", "prune"][..], &["run", "--quiet"]] {
        let out = w.run(args).code(2);
        assert!(out.stderr.contains("the cassette folder"), "{args:?}: {}", out.all());
        assert!(out.stderr.contains("leads outside the repository"), "{args:?}: {}", out.all());
        assert!(!out.all().contains("aaaa") && !out.all().contains("CANARY"), "{args:?} read outside: {}", out.all());
    }

    let w = world();
    w.suite_with(&format!("{MODEL}  cassettes: ../outside/c\n"));
    w.canary("c/aaaa.json", "[]");
    let before = w.outside_files();
    let out = w.run(&["cassettes", "prune", "--delete"]).code(2);
    assert!(out.stderr.contains("`model.cassettes` must be a folder inside the repository"), "{}", out.stderr);
    assert_eq!(w.outside_files(), before, "{}", out.all());
    // Named on the command line, a folder outside is still never pruned.
    let tapes = w.outside.join("c");
    w.suite_with(MODEL);
    let out = w.run(&["cassettes", "prune", "--delete", "--cassettes", tapes.to_str().unwrap()]).code(2);
    assert!(out.stderr.contains("does not resolve inside"), "{}", out.stderr);
    assert_eq!(w.outside_files(), before, "{}", out.all());
}

#[test]
fn a_folder_named_like_a_cassette_does_not_stop_the_others_from_being_pruned() {
    let w = world();
    w.suite_with(&format!("{MODEL}  cassettes: cassettes/\n"));
    std::fs::create_dir_all(w.repo.join("cassettes/aaaa.json")).unwrap();
    w.write("cassettes/zzzz.json", "[]");
    let out = w.run(&["cassettes", "prune", "--delete"]).code(2);
    assert!(out.stderr.contains("cassettes/aaaa.json: not removed"), "{}", out.stderr);
    assert!(w.repo.join("cassettes/aaaa.json").is_dir());
    assert!(!w.repo.join("cassettes/zzzz.json").exists(), "the rest is pruned");
}

// --- 5. Secrets -----------------------------------------------------------------

/// A listener that counts the connections it accepted.
fn listener() -> (std::net::TcpListener, String) {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.set_nonblocking(true).unwrap();
    let url = format!("http://{}/v1", l.local_addr().unwrap());
    (l, url)
}

#[test]
fn the_configuration_alone_never_sends_a_secret_to_its_own_endpoint() {
    let w = world();
    let (l, url) = listener();
    w.suite_with(&format!(
        "model:\n  base_url: {url}\n  model: m\n  api_key_env: CI_SECRET\n  retries: 0\n  timeout_s: 2\n"
    ));
    w.write("scenarios/suite.yaml", &format!("{SUITE}    assertions:\n      - forbidden_text: x\n"));
    let out = run_in(&w.repo, &["run", "--quiet", "--responses", "live"], &[("CI_SECRET", "CANARY-SECRET")]);
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(out.stderr.contains("is not sent there"), "{}", out.stderr);
    assert!(l.accept().is_err(), "a connection reached the repository's endpoint");
    assert!(!out.all().contains("CANARY-SECRET"));
    // Plain http to another machine never carries a key, whoever names it.
    let out = run_in(
        &w.repo,
        &["run", "--quiet", "--responses", "live", "--model-base-url", "http://192.0.2.1/v1"],
        &[("CI_SECRET", "CANARY-SECRET")],
    );
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(out.stderr.contains("plain http to another machine"), "{}", out.stderr);
}

// --- 6. Inputs that explode -----------------------------------------------------

#[test]
fn repeated_section_headings_take_linear_time() {
    let w = world();
    let mut claude = String::from("# Rules\n\n");
    for i in 0..40_000 {
        claude.push_str(&format!("## Rule\n\n- keep w{i}\n\n"));
    }
    w.write("CLAUDE.md", &claude);
    w.write("mneme-gate.yaml", "memory:\n  - claude: .\n");
    let out = w.run(&["validate"]);
    assert!(out.code == 0 || out.code == 1 || out.code == 2, "{}", out.all());
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
}

#[test]
fn duplicate_ids_in_a_memory_file_take_linear_time() {
    // One line (a minified file): every duplicate is located by its column.
    let w = world();
    let records: Vec<String> = (0..80_000)
        .map(|i| format!("{{\"id\":\"D\",\"decision\":\"Decision {i} on the ledger\",\"status\":\"accepted\"}}"))
        .collect();
    w.write("project_memory.json", &format!("{{\"decisions\":[{}]}}", records.join(",")));
    let out = w.run(&["validate"]);
    assert!(out.all().contains("duplicate id"), "{}", out.all());
}

#[test]
fn sources_of_one_word_bullets_stay_within_a_memory_limit() {
    // 60 ADRs of 1 MiB of one-word bullets, under 1 GiB of address space:
    // read whole, they grow some 20 times in memory and the process aborts.
    let w = world();
    let bullets: String = (0..180_000).map(|i| format!("- w{}\n", i % 1000)).collect();
    for n in 1..=60 {
        let mut text = format!("# {n}. Decision {n}\n\n## Decision\n\n{bullets}");
        text.truncate(1_048_000);
        w.write(&format!("docs/adr/{n:04}-d.md"), &text);
    }
    w.write("mneme-gate.yaml", "memory:\n  - adr: docs/adr/\n");
    // Test::run fails when a signal ended the run (the address space ran out).
    let stderr = limited(&w.repo).arg("validate").run().all();
    assert!(!stderr.contains("memory allocation") && !stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains("records and bullets"), "the run-wide budget is said: {stderr}");
}

/// The binary in `dir` under 1 GiB of address space (`ulimit -v`), its
/// arguments to be added.
fn limited(dir: &Path) -> Test {
    let bin = env!("CARGO_BIN_EXE_mneme-gate");
    Test::program("sh").args(["-c", &format!("ulimit -v 1048576 && exec '{bin}' \"$@\""), "sh"]).dir(dir).lossy()
}

/// Runs the binary in `dir` under [`limited`]: its exit code (a run ended
/// by a signal fails the test) and its output.
fn run_limited(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = limited(dir).args(args).env("MNEME_GATE_CACHE", "off").run();
    (Some(out.code), out.all())
}

#[test]
fn adr_prose_of_distinct_words_stays_within_a_memory_limit() {
    // 60 ADRs of about 1 MiB of words that never repeat: indexed whole, they
    // grow some 25 times in memory and the process aborts.
    let w = world();
    let mut n = 0u64;
    for f in 1..=60 {
        let mut text = format!("# {f}. Decision {f}\n\n## Status\n\nAccepted\n\n## Decision\n\n");
        while text.len() < 1_000_000 {
            text.push_str(&format!("w{n:x} "));
            n += 1;
        }
        w.write(&format!("docs/adr/{f:04}-d.md"), &text);
    }
    w.write("mneme-gate.yaml", "memory:\n  - adr: docs/adr/\n");
    for args in [&["context", TASK][..], &["validate"]] {
        let (code, out) = run_limited(&w.repo, args);
        assert_eq!(code, Some(2), "{args:?}: {}", &out[..out.len().min(2000)]);
        assert!(!out.contains("memory allocation") && !out.contains("panicked"), "{args:?}");
        assert!(out.contains("the Markdown sources hold more than 16 MiB"), "{args:?}: the limit is said");
    }
}

#[test]
fn a_json_memory_of_one_character_constraints_stays_within_a_memory_limit() {
    // 80 MB of `"a",`: twenty million strings, some sixteen times the file
    // in memory once read.
    let w = world();
    let mut text = String::from("{\"decisions\":[");
    for i in 0..60 {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&format!("{{\"id\":\"D{i}\",\"decision\":\"Decision {i} on the ledger\",\"constraints\":["));
        text.push_str(&"\"a\",".repeat(333_333));
        text.push_str("\"a\"]}");
    }
    text.push_str("]}");
    assert!(text.len() > 79_000_000);
    w.write("project_memory.json", &text);
    drop(text);
    for args in [&["validate"][..], &["context", TASK]] {
        let (code, out) = run_limited(&w.repo, args);
        assert_eq!(code, Some(2), "{args:?}: {}", &out[..out.len().min(2000)]);
        assert!(!out.contains("memory allocation") && !out.contains("panicked"), "{args:?}: {out}");
        assert!(out.contains("more than 8000000, the most mneme-gate reads in one run"), "{args:?}: {out}");
    }
    // Over two files of a list of sources, the entries count together.
    let half = format!(
        "{{\"decisions\":[{{\"id\":\"D\",\"decision\":\"Decision\",\"constraints\":[{}\"a\"]}}]}}",
        "\"a\",".repeat(4_500_000)
    );
    w.write("a.json", &half);
    w.write("b.json", &half.replace("\"D\"", "\"E\""));
    w.write("mneme-gate.yaml", "memory:\n  - a.json\n  - b.json\n");
    let (code, out) = run_limited(&w.repo, &["validate"]);
    assert_eq!(code, Some(2), "{}", &out[..out.len().min(2000)]);
    assert!(out.contains("b.json:1:1: error: the memory holds 9000004 records and list entries"), "{out}");
}

// --- 7. Special files -----------------------------------------------------------

#[test]
fn retrieve_refuses_a_query_file_that_is_not_a_regular_file() {
    let w = world();
    mkfifo(&w.repo.join("queries.jsonl"));
    for path in ["queries.jsonl", "/dev/zero", "/dev/null"] {
        let out = w.run(&["retrieve", "--queries", path]);
        assert_eq!(out.code, 2, "{path}: {}", out.all());
        assert!(out.stderr.contains("not a regular file"), "{path}: {}", out.stderr);
    }
}

#[test]
fn a_fifo_at_the_git_index_does_not_hang_coverage_or_run() {
    let w = world();
    w.suite();
    std::fs::remove_dir_all(w.repo.join(".git")).unwrap();
    let git = |args: &[&str]| common::git(&w.repo, args);
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-qm", "x"]);
    std::fs::remove_file(w.repo.join(".git/index")).unwrap();
    mkfifo(&w.repo.join(".git/index"));
    let on = [("MNEME_GATE_GIT", "on")];
    let out = run_in(&w.repo, &["run", "--quiet"], &on);
    assert!(out.code == 0 || out.code == 1, "{}", out.all());
    let out = run_in(&w.repo, &["coverage"], &on);
    assert!(!out.stderr.contains("panicked"), "{}", out.all());
}

#[test]
fn a_memory_file_that_is_a_named_pipe_is_named_as_one() {
    let w = world();
    std::fs::remove_file(w.repo.join("project_memory.json")).unwrap();
    mkfifo(&w.repo.join("project_memory.json"));
    let out = w.run(&["context", TASK]).code(2);
    assert!(out.stderr.contains("named pipe"), "{}", out.stderr);
    // The hook says so too (and still exits 0, adding nothing).
    let input = format!(
        "{{\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"refund ledger\",\"cwd\":{:?},\"session_id\":\"s\"}}",
        w.repo.display().to_string()
    );
    let out = hermetic(&w.repo).args(["hook", "claude"]).envs([("MNEME_GATE_CACHE", "off")]).stdin(&input).run();
    assert_eq!(out.code, 0);
    assert!(out.stderr.contains("is a named pipe (FIFO)"), "{}", out.stderr);
}

// --- 8. Smaller ----------------------------------------------------------------

#[test]
fn the_mcp_server_answers_a_line_that_is_not_json_with_a_parse_error() {
    let w = world();
    // Before any handshake, and while the session stays open: the client
    // must not have to wait for its own time-out (the answer comes within
    // a minute, each line of the session is bounded so).
    let mut session = hermetic(&w.repo)
        .arg("mcp")
        .env("MNEME_GATE_CACHE", "off")
        .stderr_to(Stdio::null())
        .timeout(Duration::from_secs(60))
        .session();
    session.send("this is not json");
    let reply = session.line();
    session.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
    session.end();
    let reply = reply.expect("an answer to a line that is not JSON");
    let v: serde_json::Value = serde_json::from_str(&reply).unwrap();
    assert_eq!(v["error"]["code"], -32700, "{reply}");
    assert_eq!(v["id"], serde_json::Value::Null, "{reply}");
}
