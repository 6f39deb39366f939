//! Inputs a pull request controls, made hostile: each must be refused or
//! reported in words, never hung on, read without bound, or silently
//! turned into a different run. Through the library and the real binary.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

use common::{copy_tree, git, Test};

use mneme_gate::memory::{Memory, Severity};
use mneme_gate::profile::{Family, Profile};
use mneme_gate::retrieval::{Index, Query};

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
    let out = Test::new().args(["validate", "--memory", DEEP_GLOB]).lossy().run();
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.starts_with(&format!("{DEEP_GLOB}:4:80: error: {}\n", deep_glob_message())), "{}", out.stdout);

    let out = Test::new()
        .args([
            "context",
            "--memory",
            DEEP_GLOB,
            "--task",
            "payments ledger write",
            "--file",
            "services/payments/refunds.py",
        ])
        .lossy()
        .run();
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
    let out = Test::new().args(["validate", "--memory", REPEATED]).lossy().run();
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let [first, second] = repeated_warnings();
    assert!(out.stdout.starts_with(&format!("{first}\n{second}\n")), "{}", out.stdout);
    let out = Test::new().args(["validate", "--strict", "--memory", REPEATED]).lossy().run();
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
}

#[test]
fn context_prints_the_warnings_of_a_repeated_member() {
    let out = Test::new().args(["context", "--memory", REPEATED, "--task", "payments ledger refunds"]).lossy().run();
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let [first, second] = repeated_warnings();
    assert!(
        out.stderr.contains(&format!("{first}\n")) && out.stderr.contains(&format!("{second}\n")),
        "{}",
        out.stderr
    );
    assert!(out.stdout.contains("[PAY-002]") && !out.stdout.contains("[PAY-001]"), "{}", out.stdout);
}

// --- Files that are not files, and files too large ------------------------------

/// A run drains the child's pipes while it waits: a child that writes more
/// than a pipe holds (64 KiB on Linux) ends, rather than blocking until the
/// deadline kills it; and so does one that writes that much before it reads
/// as much from its standard input.
#[test]
fn a_run_drains_a_child_that_writes_more_than_a_pipe_holds() {
    let script = "head -c 1000000 /dev/zero; head -c 300000 /dev/zero >&2";
    let out = Test::program("sh").args(["-c", script]).code(0);
    assert_eq!((out.stdout.len(), out.stderr.len()), (1_000_000, 300_000));
    let script = "head -c 1000000 /dev/zero; wc -c";
    let out = Test::program("sh").args(["-c", script]).stdin(vec![b'x'; 1_000_000]).code(0);
    assert_eq!(out.stdout.len(), 1_000_000 + "1000000\n".len());
    assert!(out.stdout.ends_with("1000000\n"), "{}", &out.stdout[1_000_000..]);
}

/// A run that does not end within its timeout is killed, and the test fails
/// with what it printed so far.
#[test]
#[should_panic(expected = "did not end within 1s")]
fn a_run_past_its_timeout_is_killed_and_fails() {
    // `exec`: the shell becomes the sleep, so nothing else holds the pipes.
    Test::program("sh").args(["-c", "echo started; exec sleep 600"]).timeout(std::time::Duration::from_secs(1)).run();
}

/// A named pipe at `path`, or `false` where `mkfifo` is not available.
fn mkfifo(path: &Path) -> bool {
    Command::new("mkfifo").arg(path).status().is_ok_and(|s| s.success())
}

/// A sparse file of `len` bytes: large, but costs no disk.
fn sparse(path: &Path, len: u64) {
    std::fs::File::create(path).unwrap().set_len(len).unwrap();
}

const BASELINE: &str = "reports/baseline.json";

#[test]
fn a_baseline_that_is_not_a_regular_file_is_refused_not_waited_on() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("baseline.json");
    if !mkfifo(&fifo) {
        return;
    }
    let shown = fifo.display().to_string();
    let e = mneme_gate::baseline::load(&fifo).unwrap_err();
    let expected = format!(
        "the baseline {shown} is a named pipe (FIFO), not a regular file: give the path of a report that \
         `mneme-gate baseline` or `run --json` wrote"
    );
    assert_eq!(e.to_string(), expected);
    // `diff` names each file by its role and says what it takes.
    let by_role = |role: &str| {
        format!(
            "{role} {shown} is a named pipe (FIFO), not a regular file: give a report that `mneme-gate run --json FILE` \
             or `mneme-gate baseline` wrote"
        )
    };
    for (args, expected) in [
        (vec!["diff", &shown, BASELINE], by_role("the old report")),
        (vec!["diff", BASELINE, &shown], by_role("the new report")),
        (vec!["run", "--quiet", "--baseline", &shown], expected),
    ] {
        let out = Test::new().args(&args).lossy().run();
        assert_eq!(out.code, 2, "{args:?}: {}{}", out.stdout, out.stderr);
        assert_eq!(out.stderr, format!("mneme-gate: error: {expected}\n"), "{args:?}");
    }
    let out = Test::new().args(["diff", "/dev/zero", BASELINE]).lossy().run();
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains("the old report /dev/zero is a character device, not a regular file"),
        "{}",
        out.stderr
    );
    let out = Test::new().args(["diff", tmp.path().to_str().unwrap(), BASELINE]).lossy().run();
    assert!(out.stderr.contains(" is a folder, not a regular file"), "{}", out.stderr);
}

#[test]
fn a_baseline_too_large_is_refused_and_one_with_a_byte_order_mark_loads() {
    let tmp = tempfile::tempdir().unwrap();
    let huge = tmp.path().join("huge.json");
    sparse(&huge, mneme_gate::baseline::MAX_BASELINE_BYTES + 1);
    let e = mneme_gate::baseline::load(&huge).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "the baseline {} is larger than 256 MiB, the most mneme-gate reads: it is not a report mneme-gate wrote; \
             check the path, or re-pin it with `mneme-gate baseline`",
            huge.display()
        )
    );
    let out = Test::new().args(["diff", huge.to_str().unwrap(), BASELINE]).lossy().run();
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);

    let text = std::fs::read_to_string(fixture("../../reports/baseline.json")).unwrap();
    let bom = tmp.path().join("bom.json");
    std::fs::write(&bom, format!("\u{feff}{text}")).unwrap();
    let report = mneme_gate::baseline::load(&bom).unwrap();
    assert_eq!(
        report.summary.total,
        mneme_gate::baseline::load(&fixture("../../reports/baseline.json")).unwrap().summary.total
    );
    let out = Test::new().args(["diff", bom.to_str().unwrap(), BASELINE]).lossy().run();
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);

    let latin1 = tmp.path().join("latin1.json");
    std::fs::write(&latin1, b"{\n  \"schema\": \"caf\xe9\"\n}\n").unwrap();
    let e = mneme_gate::baseline::load(&latin1).unwrap_err();
    assert!(
        e.to_string().starts_with(&format!(
            "{}:2:17: the baseline is not a mneme-gate report: the file is not valid UTF-8;",
            latin1.display()
        )),
        "{e}"
    );
}

#[test]
fn a_memory_file_that_is_not_a_regular_file_or_too_large_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("project_memory.json");
    let task = ["--task", "payments ledger"];
    if mkfifo(&fifo) {
        let shown = fifo.display().to_string();
        let expected = format!(
            "mneme-gate: error: the memory file {shown} is a named pipe (FIFO), not a regular file: give the path of \
             the JSON file itself (--memory or `memory:` in mneme-gate.yaml)\n"
        );
        for command in ["validate", "context"] {
            let mut args = vec![command, "--memory", &shown];
            if command == "context" {
                args.extend(task);
            }
            let out = Test::new().args(&args).lossy().run();
            assert_eq!((out.code, out.stderr.as_str()), (2, expected.as_str()), "{command}: {}", out.stdout);
        }
    }
    let out = Test::new().args(["validate", "--memory", "/dev/zero"]).lossy().run();
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains("the memory file /dev/zero is a character device, not a regular file"),
        "{}",
        out.stderr
    );

    let huge = tmp.path().join("huge.json");
    sparse(&huge, mneme_gate::memory::MAX_MEMORY_BYTES + 1);
    let out =
        Test::new().args(["context", "--memory", huge.to_str().unwrap(), "--task", "payments ledger"]).lossy().run();
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert_eq!(
        out.stderr,
        format!(
            "mneme-gate: error: the memory file {} is larger than 512 MiB, the most mneme-gate reads: check that the \
             path names the memory file, or split the memory\n",
            huge.display()
        )
    );
}

// --- The configuration file ----------------------------------------------------

#[test]
fn a_configuration_that_is_a_pipe_or_repeats_a_key_is_refused_in_words() {
    let tmp = tempfile::tempdir().unwrap();
    let small = fixture("memory/small.json");
    let small = small.to_str().unwrap();
    if mkfifo(&tmp.path().join("mneme-gate.yaml")) {
        // Found in the working folder, as CI does.
        let out = Test::new().dir(tmp.path()).args(["validate", "--memory", small]).lossy().run();
        assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
        assert_eq!(
            out.stderr,
            "mneme-gate: error: mneme-gate.yaml: the configuration file is a named pipe (FIFO), not a regular file: \
             make it the YAML file itself, or name one with --config\n"
        );
    }
    let config = tmp.path().join("twice.yaml");
    std::fs::write(&config, "memory: a.json\nmemory: b.json\n").unwrap();
    let out = Test::new().args(["validate", "--config", config.to_str().unwrap(), "--memory", small]).lossy().run();
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert_eq!(
        out.stderr,
        format!(
            "mneme-gate: error: {}:2:1: `memory` is set a second time here, in the same mapping; YAML does not allow \
             it: keep only one (see docs/reference.md: Configuration)\n",
            config.display()
        )
    );
}

// --- libgit2's words ---------------------------------------------------------------

/// A clone of the gate example, committed, in a temporary folder.
fn example_repository() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/examples/gate");
    copy_tree(&example, tmp.path());
    git(tmp.path(), &["init", "-q", "."]);
    git(tmp.path(), &["add", "-A"]);
    git(tmp.path(), &["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "one"]);
    tmp
}

/// libgit2 keeps the last message of a thread, set even on the way of calls
/// that succeed (a missing `~/.gitconfig`, a global `ignore` file): a failure
/// with no message of its own used to show it, as an infrastructure error.
#[test]
fn stale_libgit2_messages_never_reach_users() {
    if Command::new("git").arg("--version").output().is_err() {
        return;
    }
    let repo = example_repository();
    let nowhere = repo.path().join("no-home");
    let env =
        [("MNEME_GATE_GIT", "on"), ("HOME", nowhere.to_str().unwrap()), ("XDG_CONFIG_HOME", nowhere.to_str().unwrap())];
    for revision in ["@{-1}", ":/no commit says this"] {
        let out = Test::new()
            .dir(repo.path())
            .args(["run", "--config", "mneme-gate.yaml", "--quiet", "--baseline-ref", revision])
            .envs(env)
            .lossy()
            .run();
        assert_eq!(out.code, 2, "{revision}: {}{}", out.stdout, out.stderr);
        assert_eq!(
            out.stderr,
            format!(
                "mneme-gate: error: revision `{revision}` is not in this repository (git finds nothing it names); \
                 fetch it (`git fetch origin`) or check the name\n"
            )
        );
    }
}

/// The one pipe a report may come from: the command's own standard input.
#[test]
fn diff_still_reads_a_report_piped_to_its_standard_input() {
    let report = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(BASELINE)).unwrap();
    Test::new().args(["diff", BASELINE, "/dev/stdin"]).stdin(report).lossy().code(0);
}
