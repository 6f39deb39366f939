//! Inputs a pull request controls, made hostile: each must be refused or
//! reported in words, never hung on, read without bound, or silently
//! turned into a different run. Through the library and the real binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use mneme_gate::memory::{Memory, Severity};
use mneme_gate::profile::{Family, Profile};
use mneme_gate::retrieval::{Index, Query};

struct Output {
    code: i32,
    stdout: String,
    stderr: String,
}

/// The binary with `args`, from `dir` (the crate root when `None`).
fn run_in(dir: Option<&Path>, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mneme-gate"));
    command
        .args(args)
        .current_dir(dir.unwrap_or(Path::new(env!("CARGO_MANIFEST_DIR"))))
        .env_remove("GITHUB_ACTIONS")
        .env("MNEME_GATE_GIT", "off")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in env {
        command.env(key, value);
    }
    let out = command.output().expect("the binary runs");
    Output {
        code: out.status.code().expect("exited"),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn run(args: &[&str]) -> Output {
    run_in(None, args, &[])
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

// --- A scope glob that parses but cannot be compiled -------------------------

const DEEP_GLOB: &str = "tests/fixtures/memory/deep-glob.json";

/// The message of `DEEP_GLOB`'s bad glob, after `path:4:80: error: `.
fn deep_glob_message() -> String {
    format!(
        "invalid scope glob \"{}...\" (501 bytes): alternations `{{...}}` are nested 250 deep, more than the 32 \
         allowed: flatten them (`{{a,b,c}}` rather than `{{a,{{b,{{c}}}}}}`), or split the glob into several `scope` \
         entries (record \"EVIL-001\")",
        "{".repeat(60)
    )
}

#[test]
fn a_glob_nested_too_deep_is_an_error_at_its_place() {
    let text = std::fs::read_to_string(fixture("memory/deep-glob.json")).unwrap();
    let memory = Memory::parse(Path::new(DEEP_GLOB), text.clone(), Family::Default);
    let errors: Vec<String> = memory
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.render(Path::new(DEEP_GLOB)))
        .collect();
    assert_eq!(errors, [format!("{DEEP_GLOB}:4:80: error: {}", deep_glob_message())]);

    // The same record kept out of the pool: a warning, and the other
    // decisions keep their scope.
    let retired = text.replace(r#""title": "Anything","#, r#""title": "Anything", "status": "retired","#);
    let memory = Memory::parse(Path::new(DEEP_GLOB), retired, Family::Default);
    assert!(!memory.has_errors(), "{:?}", memory.diagnostics);
    let index = Index::build(memory, Profile::named(Family::Default));
    let hits = index.retrieve(Query { task: "payments ledger write", file: Some("services/payments/refunds.py") });
    let ids: Vec<&str> = hits.hits.iter().map(|h| index.decision(h.pool).id.as_str()).collect();
    assert_eq!(ids, ["PAY-001"]);
}

#[test]
fn validate_and_context_refuse_a_glob_nested_too_deep() {
    let out = run(&["validate", "--memory", DEEP_GLOB]);
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.starts_with(&format!("{DEEP_GLOB}:4:80: error: {}\n", deep_glob_message())), "{}", out.stdout);

    let out = run(&[
        "context",
        "--memory",
        DEEP_GLOB,
        "--task",
        "payments ledger write",
        "--file",
        "services/payments/refunds.py",
    ]);
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    assert!(out.stderr.contains(&format!("\n  {DEEP_GLOB}:4:80: error: {}\n", deep_glob_message())), "{}", out.stderr);
}

// --- Repeated member names in the memory file --------------------------------

const REPEATED: &str = "tests/fixtures/memory/repeated-keys.json";

fn repeated_warnings() -> [String; 2] {
    [
        format!(
            "{REPEATED}:7:7: warning: repeated member \"status\": only the last one (line 8, column 7) is read, this \
             one is ignored; keep only one (record \"PAY-001\")"
        ),
        format!(
            "{REPEATED}:8:7: warning: repeated member \"status\": this one is read, the one at line 7, column 7 is \
             ignored; keep only one (record \"PAY-001\")"
        ),
    ]
}

#[test]
fn validate_warns_at_both_places_of_a_repeated_member_and_strict_fails() {
    let out = run(&["validate", "--memory", REPEATED]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let [first, second] = repeated_warnings();
    assert!(out.stdout.starts_with(&format!("{first}\n{second}\n")), "{}", out.stdout);
    let out = run(&["validate", "--strict", "--memory", REPEATED]);
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
}

#[test]
fn context_prints_the_warnings_of_a_repeated_member() {
    let out = run(&["context", "--memory", REPEATED, "--task", "payments ledger refunds"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let [first, second] = repeated_warnings();
    assert!(
        out.stderr.contains(&format!("{first}\n")) && out.stderr.contains(&format!("{second}\n")),
        "{}",
        out.stderr
    );
    assert!(out.stdout.contains("[PAY-002]") && !out.stdout.contains("[PAY-001]"), "{}", out.stdout);
}
