//! CLI tests: the real binary on fixture folders, exit codes and snapshots.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::{copy_tree, Test};

const SMALL: &str = "tests/fixtures/memory/small.json";
const REFUND: [&str; 4] =
    ["--task", "Add a refund endpoint that reverses the payment", "--file", "services/payments/refunds.py"];

fn with<'a>(base: &[&'a str], more: &[&'a str]) -> Vec<&'a str> {
    base.iter().chain(more.iter()).copied().collect()
}

#[test]
fn context_prints_the_block() {
    let out = Test::new().args(with(&["context", "--memory", SMALL], &REFUND)).code(0);
    insta::assert_snapshot!("context_block", out.stdout);
    assert_eq!(out.stderr, "");
}

#[test]
fn context_json_has_ids_scores_ranks_profile_and_block() {
    let out = Test::new().args(with(&["context", "--memory", SMALL, "--format", "json"], &REFUND)).code(0);
    insta::assert_snapshot!("context_json", out.stdout);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["retrieved"][0]["id"], "ADR-002");
    assert_eq!(v["retrieved"][0]["score"], 34.463);
    assert_eq!(v["profile"]["k"], 3);
}

#[test]
fn context_with_an_empty_query_prints_nothing_and_says_why() {
    let out = Test::new().args(["context", "--memory", SMALL, "--task", "do it to me"]).code(0);
    assert_eq!(out.stdout, "");
    assert!(out.stderr.contains("no tokens"), "{}", out.stderr);
}

#[test]
fn explain_table_and_json() {
    let out = Test::new().args(with(&["explain", "--memory", SMALL], &REFUND)).code(0);
    insta::assert_snapshot!("explain_table", out.stdout);
    let out = Test::new().args(with(&["explain", "--memory", SMALL, "--format", "json"], &REFUND)).code(0);
    insta::assert_snapshot!("explain_json", out.stdout);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["records"].as_array().unwrap().len(), 8, "every pool record and every record kept out");
}

#[test]
fn explain_why_not_in_sentences_and_json() {
    let out = Test::new().args(with(&["explain", "--memory", SMALL, "--why-not", "SEC-001"], &REFUND)).code(0);
    insta::assert_snapshot!("explain_why_not_text", out.stdout);
    assert!(out.stdout.lines().all(|l| l.chars().count() <= 80), "{}", out.stdout);
    let out = Test::new()
        .args(with(&["explain", "--memory", SMALL, "--why-not", "WEB-001", "--format", "json"], &REFUND))
        .code(0);
    insta::assert_snapshot!("explain_why_not_json", out.stdout);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["schema"], "mneme-gate.why-not/v1");
    assert_eq!(v["causes"][0], "out_of_scope");
    let out = Test::new().args(with(&["explain", "--memory", SMALL, "--why-not", "ADR-000"], &REFUND)).code(0);
    assert!(out.stdout.contains("ADR-000 is not a candidate (inactive_status)"), "{}", out.stdout);
    let out = Test::new().args(with(&["explain", "--memory", SMALL, "--why-not", "NOPE-\u{1b}[31m"], &REFUND)).code(2);
    assert!(out.stderr.contains("--why-not NOPE-") && !out.stderr.contains('\u{1b}'), "{}", out.stderr);
}

/// On a real corpus (kuma's ADRs and a change from its history), the
/// answer names the decisions retrieved ahead and the words they won on.
#[test]
fn explain_why_not_on_a_real_miss() {
    let out = Test::new()
        .args([
            "explain",
            "--task",
            "feat(hostnamegenerator): validate rendered template at creation (#16679)",
            "--file",
            "pkg/core/resources/apis/hostnamegenerator/api/v1alpha1/validate.go",
            "--why-not",
            "ADR-047",
            "--format",
            "json",
        ])
        .dir("tests/realrepos/kuma")
        .code(0);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!((v["outcome"].as_str(), v["retrieved"].as_bool()), (Some("beyond_k"), Some(false)), "{v}");
    let ahead: Vec<&str> = v["ahead"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(ahead.len(), 3, "{v}");
    let fate = |word: &str| {
        let w = v["words"].as_array().unwrap().iter().find(|w| w["word"] == word).unwrap();
        w["fate"].as_str().unwrap().to_string()
    };
    assert_eq!(fate("hostnamegenerator"), "scored");
    // The path's `resources`, folded to `resource`.
    assert_eq!(fate("resource"), "path_too_common");
    assert_eq!((fate("at").as_str(), fate("go").as_str()), ("stopword", "too_short"));
}

#[test]
fn explain_prints_the_effective_profile_from_the_config() {
    let out = Test::new().args(with(&["--config", "tests/fixtures/config/tuned.yaml", "explain"], &REFUND)).code(0);
    assert!(out.stdout.contains("profile: default (k=1, weights.content=10.0)"), "{}", out.stdout);
    assert!(out.stdout.contains("retrieved: ADR-002\n") && out.stdout.contains("42.412"), "{}", out.stdout);
}

#[test]
fn retrieve_answers_in_input_order() {
    let out =
        Test::new().args(["retrieve", "--memory", SMALL, "--queries", "tests/fixtures/queries/small.jsonl"]).code(0);
    insta::assert_snapshot!("retrieve_small", out.stdout);
    let ids: Vec<String> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, ["refund", "checkout", "terraform", "secrets", "nothing"]);
}

#[test]
fn retrieve_reads_standard_input_and_honours_k() {
    let out = Test::new()
        .args(["retrieve", "--memory", SMALL, "--queries", "-", "--k", "1"])
        .stdin("{\"id\": \"q\", \"task\": \"payments ledger refunds\"}\n")
        .code(0);
    assert_eq!(out.stdout, "{\"id\":\"q\",\"retrieved\":[{\"id\":\"ADR-002\",\"score\":46.643}]}\n");
}

#[test]
fn retrieve_names_every_bad_line_and_exits_2() {
    let out =
        Test::new().args(["retrieve", "--memory", SMALL, "--queries", "tests/fixtures/queries/bad.jsonl"]).code(2);
    assert_eq!(out.stdout, "", "no partial output");
    insta::assert_snapshot!("retrieve_bad_lines", out.stderr);
}

#[test]
fn validate_reports_all_four_problems_and_exits_2() {
    let out = Test::new().args(["validate", "--memory", "tests/fixtures/memory/broken.json"]).code(2);
    insta::assert_snapshot!("validate_broken", out.stdout);
    for needle in [
        "3:90: error: trailing comma",
        "4:5: error: missing required field `id`",
        "5:69: error: invalid scope glob",
        "7:5: warning: duplicate id \"A-3\"",
    ] {
        assert!(out.stdout.contains(needle), "{needle}\n{}", out.stdout);
    }
    let json =
        Test::new().args(["validate", "--memory", "tests/fixtures/memory/broken.json", "--format", "json"]).code(2);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!((v["errors"].as_u64(), v["warnings"].as_u64()), (Some(3), Some(1)));
}

#[test]
fn validate_warnings_fail_only_when_strict() {
    let out = Test::new().args(["validate", "--memory", "tests/fixtures/memory/warnings.json"]).code(0);
    assert!(out.stdout.contains("2 warning(s)"));
    // A strict failure goes through the one error path: the findings on
    // stdout, then the `error:` line on stderr, and exit 2.
    let out = Test::new().args(["validate", "--memory", "tests/fixtures/memory/warnings.json", "--strict"]).code(2);
    assert!(out.stdout.contains("2 warning(s)"), "{}", out.stdout);
    assert_eq!(
        out.stderr,
        "mneme-gate: error: tests/fixtures/memory/warnings.json is not valid: 0 errors and 2 warnings (--strict counts warnings)\n"
    );
    let out = Test::new().args(["validate", "--memory", SMALL, "--strict"]).code(0);
    insta::assert_snapshot!("validate_small", out.stdout);
}

#[test]
fn retrieving_commands_refuse_a_broken_memory() {
    let out = Test::new().args(["context", "--memory", "tests/fixtures/memory/broken.json", "--task", "cache"]).code(2);
    assert!(out.stderr.contains("has 3 error(s)"), "{}", out.stderr);
    assert!(out.stderr.contains("broken.json:4:5: error: missing required field `id`"), "{}", out.stderr);
    assert!(out.stderr.contains("mneme-gate validate --memory"), "{}", out.stderr);
}

#[test]
fn bad_input_gets_a_clear_message_and_exit_2() {
    let out = Test::new().args(["context", "--memory", "no/such.json", "--task", "x"]).code(2);
    assert!(out.stderr.contains("cannot read the memory file no/such.json"), "{}", out.stderr);
    let out = Test::new().args(["context", "--memory", SMALL, "--task", "x", "--profile", "bm25"]).code(2);
    assert!(out.stderr.contains("invalid value 'bm25' for '--profile <NAME>'"), "{}", out.stderr);
    assert!(out.stderr.contains("[possible values: default, classic, mneme]"), "{}", out.stderr);
    let out = Test::new().args(["context", "--memory", SMALL, "--task", "x", "--k", "0"]).code(2);
    assert!(out.stderr.contains("--k must be at least 1"), "{}", out.stderr);
    let out = Test::new().args(["--config", "tests/fixtures/config/typo.yaml", "context", "--task", "x"]).code(2);
    assert!(out.stderr.contains("typo.yaml:5:"), "{}", out.stderr);
    assert!(out.stderr.contains("weigths"), "{}", out.stderr);
    let out = Test::new().args(["--config", "tests/fixtures/config/missing.yaml", "context", "--task", "x"]).code(2);
    assert!(out.stderr.contains("missing.yaml: cannot read"), "{}", out.stderr);
    Test::new().args(["frobnicate"]).code(2);
    Test::new().args(["context"]).code(2);
    let help = Test::new().args(["--help"]).code(0);
    assert!(help.stdout.contains("Exit codes"));
}

/// Every value of the configuration that cannot be used (`k: 0` on line 4,
/// `recall: maybe` on line 7) is reported at once, in line order, by every
/// command that reads the configuration: `validate` as well as `run`.
#[test]
fn every_bad_value_of_the_configuration_is_reported_in_line_order() {
    for command in [&["run"][..], &["validate"], &["context", "--task", "x"]] {
        let out = Test::new().args(with(&["--config", "tests/fixtures/config/two_values.yaml"], command)).code(2);
        let places: Vec<&str> = out
            .stderr
            .lines()
            .filter_map(|l| l.split_once("two_values.yaml:"))
            .map(|(_, rest)| rest.split(' ').next().unwrap())
            .collect();
        assert_eq!(places, ["4:6:", "7:11:"], "{command:?}: {}", out.stderr);
        assert!(out.stderr.contains("`retrieval.k` must be between 1 and 1000000, found 0"), "{}", out.stderr);
        assert!(out.stderr.contains("`gate.recall` is `maybe`; use `fail`, `advisory` or `off`"), "{}", out.stderr);
    }
}

/// `run --help` says what the default profile does; it does not stem
/// (`explain` prints `stem false`).
#[test]
fn run_help_does_not_say_the_default_profile_stems() {
    let help = Test::new().args(["run", "--help"]).code(0);
    let default = help.stdout.lines().find(|l| l.trim_start().starts_with("- default:")).expect("the default profile");
    assert!(default.contains("BM25F"), "{}", help.stdout);
    assert!(!help.stdout.to_lowercase().contains("stem"), "{}", help.stdout);
}

/// The shipped binary (`cargo install`, the releases, the image) carries no
/// debug information and no symbols; the `profiling` build keeps them for
/// profilers.
#[test]
fn the_release_build_is_stripped_and_the_profiling_build_keeps_symbols() {
    let manifest = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let section = |name: &str| -> Vec<String> {
        let start = manifest.find(&format!("\n[{name}]\n")).unwrap_or_else(|| panic!("[{name}] in Cargo.toml"));
        let body = &manifest[start + name.len() + 4..];
        body[..body.find("\n[").unwrap_or(body.len())].lines().map(|l| l.replace(' ', "")).collect()
    };
    let release = section("profile.release");
    for line in ["strip=true", "debug=false"] {
        assert!(release.iter().any(|l| l == line), "[profile.release] lacks {line}: {release:?}");
    }
    let profiling = section("profile.profiling");
    for line in ["inherits=\"release\"", "strip=false"] {
        assert!(profiling.iter().any(|l| l == line), "[profile.profiling] lacks {line}: {profiling:?}");
    }
    assert!(
        profiling.iter().any(|l| l.starts_with("debug=") && l != "debug=false" && l != "debug=0"),
        "[profile.profiling] keeps no debug information: {profiling:?}"
    );
}

#[test]
fn memory_defaults_to_the_config_then_the_usual_names() {
    let dir = tempfile::tempdir().unwrap();
    let out = Test::new().args(["context", "--task", "refund"]).dir(dir.path()).code(2);
    assert!(out.stderr.contains("no memory file"), "{}", out.stderr);
    std::fs::create_dir(dir.path().join(".mneme")).unwrap();
    std::fs::copy(SMALL, dir.path().join(".mneme/project_memory.json")).unwrap();
    let out = Test::new().args(["context", "--task", "refund payments"]).dir(dir.path()).code(0);
    assert!(out.stdout.contains("[ADR-002]"));
    std::fs::write(dir.path().join("mneme-gate.yaml"), "memory: elsewhere.json\n").unwrap();
    let out = Test::new().args(["context", "--task", "refund"]).dir(dir.path()).code(2);
    assert!(out.stderr.contains("elsewhere.json"), "{}", out.stderr);
}

#[test]
fn output_is_byte_identical_across_runs() {
    let a =
        Test::new().args(["retrieve", "--memory", SMALL, "--queries", "tests/fixtures/queries/small.jsonl"]).code(0);
    let b =
        Test::new().args(["retrieve", "--memory", SMALL, "--queries", "tests/fixtures/queries/small.jsonl"]).code(0);
    assert_eq!(a.stdout, b.stdout);
    let a = Test::new().args(with(&["explain", "--memory", SMALL, "--format", "json"], &REFUND)).code(0);
    let b = Test::new().args(with(&["explain", "--memory", SMALL, "--format", "json"], &REFUND)).code(0);
    assert_eq!(a.stdout, b.stdout);
}

// ---------------------------------------------------------------------------
// run
// ---------------------------------------------------------------------------

const BROKEN: [&str; 6] = [
    "run",
    "--no-baseline",
    "--memory",
    "tests/fixtures/suites/broken/project_memory.json",
    "--scenarios",
    "tests/fixtures/suites/broken",
];

/// Copies the bundled example (configuration, memory, suite) into a
/// temporary folder, so that a test can break it.
fn bundled_example_copy() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    copy_tree(&root.join("scenarios"), &tmp.path().join("scenarios"));
    std::fs::create_dir_all(tmp.path().join("fixtures")).unwrap();
    std::fs::copy(root.join("fixtures/project_memory.json"), tmp.path().join("fixtures/project_memory.json")).unwrap();
    std::fs::copy(root.join("mneme-gate.yaml"), tmp.path().join("mneme-gate.yaml")).unwrap();
    std::fs::create_dir_all(tmp.path().join("reports")).unwrap();
    std::fs::copy(root.join("reports/baseline.json"), tmp.path().join("reports/baseline.json")).unwrap();
    tmp
}

#[test]
fn run_with_no_arguments_runs_the_bundled_example_and_passes() {
    let out = Test::new().args(["run"]).code(0);
    assert!(out.stdout.contains("51 scenario(s): 43 governed, 8 ungoverned"), "{}", out.stdout);
    assert!(out.stdout.ends_with("gate passed\n"), "{}", out.stdout);
    let out = Test::new().args(["run", "--quiet"]).code(0);
    assert!(!out.stdout.contains("| scenario "), "--quiet leaves out the scenario table:\n{}", out.stdout);
}

#[test]
fn breaking_one_governed_scenario_fails_the_gate_and_names_it() {
    let tmp = bundled_example_copy();
    let suite = tmp.path().join("scenarios/payments.yaml");
    let text = std::fs::read_to_string(&suite).unwrap();
    // refund-posts-ledger-reversal expects PAY-005 and PAY-003; make it
    // expect a mobile decision that a payments task never retrieves.
    let anchor = "id: refund-posts-ledger-reversal";
    let start = text.find(anchor).expect("the scenario is in payments.yaml");
    let old = "expect: [PAY-005, PAY-003]";
    let expect_at = start + text[start..].find(old).expect("it expects PAY-005 and PAY-003");
    let broken = format!("{}expect: [PAY-005, MOB-005]{}", &text[..expect_at], &text[expect_at + old.len()..]);
    std::fs::write(&suite, broken).unwrap();

    let out = Test::new().args(["run"]).dir(tmp.path()).code(1);
    assert!(out.stdout.contains("FAIL recall:"), "{}", out.stdout);
    assert!(out.stdout.contains("refund-posts-ledger-reversal: recall@3 1/2 (missing MOB-005)"), "{}", out.stdout);
    assert!(out.stdout.contains("gate FAILED"), "{}", out.stdout);
}

#[test]
fn run_gives_every_verdict_its_expected_value_on_the_broken_suite() {
    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("report.json");
    let out = Test::new().args(with(&BROKEN, &["--json", json.to_str().unwrap()])).code(1);
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("tests/fixtures/suites/broken/expected-verdicts.json").unwrap())
            .unwrap();
    let expected = expected.as_object().unwrap();
    let scenarios = report["scenarios"].as_array().unwrap();
    assert_eq!(scenarios.len(), expected.len(), "every scenario of the suite is in expected-verdicts.json");
    for s in scenarios {
        let id = s["id"].as_str().unwrap();
        let want = &expected[id];
        assert_eq!(s["verdict"], want["verdict"], "{id}");
        assert_eq!(s["missing"], want["missed"], "{id}");
        if let Some(part) = want.get("explanation_contains") {
            let explanation = s["explanation"].as_str().unwrap();
            assert!(explanation.contains(part.as_str().unwrap()), "{id}: {explanation}");
        }
    }
    // Every non-passing scenario is listed with its place and explanation.
    assert!(out.stdout.contains("MALFORMED malformed-missing-file (tests/fixtures/suites/broken/"), "{}", out.stdout);
}

#[test]
fn run_reports_on_the_broken_suite() {
    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("report.json");
    let out = Test::new().args(with(&BROKEN, &["--json", json.to_str().unwrap()])).code(1);
    insta::assert_snapshot!("run_broken_terminal", out.stdout);
    insta::assert_snapshot!("run_broken_json", std::fs::read_to_string(&json).unwrap());
}

#[test]
fn run_json_to_standard_output_moves_the_table_to_standard_error() {
    let out = Test::new().args(["run", "--json", "-", "--filter", "refund-*"]).code(0);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).expect("stdout is the JSON report");
    let ids: Vec<&str> = report["scenarios"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["refund-handler-structured-logs", "refund-posts-ledger-reversal"]);
    assert!(out.stderr.contains("gate passed"), "{}", out.stderr);
}

#[test]
fn run_filter_that_matches_nothing_is_an_input_error() {
    let out = Test::new().args(["run", "--filter", "no-such-*"]).code(2);
    assert!(out.stderr.contains("no scenario id matches --filter no-such-*"), "{}", out.stderr);
    let out = Test::new().args(["run", "--filter", "a[b"]).code(2);
    assert!(out.stderr.contains("--filter `a[b` is not a valid glob"), "{}", out.stderr);
}

#[test]
fn run_refuses_a_suite_that_does_not_load_and_says_where() {
    for (suite, needle) in [
        ("duplicate-id", "duplicate-id/b.yaml:5:5: duplicate scenario id `refund-ledger`"),
        ("escape-root", "escape-root/suite.yaml:"),
        ("syntax-error", "syntax-error/suite.yaml:"),
        ("unknown-key", "unknown-key/suite.yaml:"),
        ("missing-task", "missing-task/suite.yaml:"),
        ("wrong-type", "wrong-type/suite.yaml:"),
    ] {
        let dir = format!("tests/fixtures/suites/{suite}");
        let out = Test::new().args(["run", "--no-baseline", "--memory", SMALL, "--scenarios", &dir]).code(2);
        assert!(out.stderr.contains("the suite has"), "{suite}: {}", out.stderr);
        assert!(out.stderr.contains(needle), "{suite}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "{suite}: nothing is reported when the suite does not load");
    }
}

#[test]
fn run_without_a_suite_or_memory_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let out = Test::new()
        .args(["run", "--memory", &format!("{}/{SMALL}", env!("CARGO_MANIFEST_DIR"))])
        .dir(tmp.path())
        .code(2);
    assert!(out.stderr.contains("no suite: pass --scenarios PATH"), "{}", out.stderr);
    let out = Test::new().args(["run", "--scenarios", "."]).dir(tmp.path()).code(2);
    assert!(out.stderr.contains("no memory file"), "{}", out.stderr);
    let out = Test::new()
        .args(["run", "--memory", &format!("{}/{SMALL}", env!("CARGO_MANIFEST_DIR")), "--scenarios", "."])
        .dir(tmp.path())
        .code(2);
    assert!(out.stderr.contains(".: no scenarios found"), "{}", out.stderr);
}

#[test]
fn github_annotations_and_step_outputs() {
    let tmp = tempfile::tempdir().unwrap();
    let outputs = tmp.path().join("github_output");
    std::fs::write(&outputs, "earlier=kept\n").unwrap();
    let json = tmp.path().join("r.json");
    let out = Test::new()
        .args(with(
            &BROKEN,
            &[
                "--quiet",
                "--annotations",
                "github",
                "--github-output",
                outputs.to_str().unwrap(),
                "--json",
                json.to_str().unwrap(),
            ],
        ))
        .code(1);
    let annotations: Vec<&str> = out.stdout.lines().take_while(|l| l.starts_with("::")).collect();
    // 18 MALFORMED, 3 FAIL, 2 WEAK_RETRIEVAL, 4 WEAK, and the pass_rate rule.
    assert_eq!(annotations.len(), 28, "{}", out.stdout);
    assert!(annotations[0].starts_with(
        "::error file=tests/fixtures/suites/broken/malformed.yaml,line=166,col=5,title=malformed-assertion-shape%3A MALFORMED::"
    ));
    assert!(annotations.iter().filter(|l| l.starts_with("::warning ")).count() == 4, "{annotations:?}");
    assert!(annotations.iter().any(|l| l.starts_with("::error title=mneme-gate%3A pass_rate::")), "{annotations:?}");
    let written = std::fs::read_to_string(&outputs).unwrap();
    assert_eq!(
        written,
        format!(
            "earlier=kept\nresult=failed\npass-rate=0.6666666666666666\nmean-recall-at-k=0.921875\nweak-retrieval=2\njson-report={}\njunit-report=\n",
            json.display()
        )
    );
    // Off by default outside GitHub Actions, and a bad kind is a usage error.
    let out = Test::new().args(with(&BROKEN, &["--quiet"])).code(1);
    assert!(!out.stdout.contains("::error"), "{}", out.stdout);
    let out = Test::new().args(with(&BROKEN, &["--annotations", "gitlab"])).code(2);
    assert!(out.stderr.contains("invalid value 'gitlab' for '--annotations <KIND>'"), "{}", out.stderr);
    assert!(out.stderr.contains("[possible values: github, off]"), "{}", out.stderr);
}

#[test]
fn a_strict_validation_failure_is_an_annotation_in_github_actions() {
    let out = Command::new(env!("CARGO_BIN_EXE_mneme-gate"))
        .args(["validate", "--memory", "tests/fixtures/memory/warnings.json", "--strict"])
        .env("GITHUB_ACTIONS", "true")
        .env("MNEME_GATE_GIT", "off")
        .env("NO_COLOR", "1")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("error: tests/fixtures/memory/warnings.json is not valid: 0 errors and 2 warnings"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "::error title=mneme-gate::tests/fixtures/memory/warnings.json is not valid: 0 errors and 2 warnings"
        ),
        "{stderr}"
    );
}

#[test]
fn annotations_are_on_by_default_in_github_actions() {
    let out = Test::new().args(BROKEN).arg("--quiet").env("GITHUB_ACTIONS", "true").code(1);
    assert!(out.stdout.starts_with("::error file="), "{}", out.stdout);
}

#[test]
fn run_writes_junit_markdown_and_trec_for_the_broken_suite() {
    let tmp = tempfile::tempdir().unwrap();
    let path = |name: &str| tmp.path().join(name).to_str().unwrap().to_string();
    let (junit, markdown, run, qrels) = (path("j.xml"), path("s.md"), path("r.trec"), path("q.trec"));
    Test::new()
        .args(with(
            &BROKEN,
            &["--quiet", "--junit", &junit, "--markdown", &markdown, "--trec-run", &run, "--trec-qrels", &qrels],
        ))
        .code(1);
    insta::assert_snapshot!("run_broken_junit", std::fs::read_to_string(&junit).unwrap());
    insta::assert_snapshot!("run_broken_markdown", std::fs::read_to_string(&markdown).unwrap());
    insta::assert_snapshot!("run_broken_trec_run", std::fs::read_to_string(&run).unwrap());
    insta::assert_snapshot!("run_broken_trec_qrels", std::fs::read_to_string(&qrels).unwrap());
}

/// The development commands live in `mneme-gate-dev` (crates/mneme-gate-dev),
/// which also holds the tests that need generated suites.
#[test]
fn development_commands_are_not_in_the_product() {
    for args in [&["synth", "--help"][..], &["floor", "--help"], &["schema"], &["render-md", "--help"]] {
        let out = Test::new().args(args).code(2);
        assert!(out.stderr.contains("unrecognized subcommand"), "{}", out.stderr);
    }
}

/// A report path that is a pipe (`--json >(jq .)`) or a device is written
/// in place: renaming a temporary file over it would replace the pipe (or,
/// as root, `/dev/full` itself) with a regular file.
#[test]
fn a_report_into_a_pipe_is_written_through_it_not_renamed_over_it() {
    use std::os::unix::fs::FileTypeExt;
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("report.json");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let fifo_arg = fifo.to_str().unwrap().to_string();
    let mut args: Vec<&str> = BROKEN.to_vec();
    args.extend(["--quiet", "--json", &fifo_arg]);
    Test::new().args(args).code(1);
    // Checked before waiting for the reader, which waits forever if the
    // pipe was replaced.
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "the pipe is still a pipe");
    let json = reader.join().unwrap();
    assert!(json.contains("\"schema\": \"mneme-gate.report/v1\""), "{json}");
}

/// Asked-for output that cannot be written is exit 3, for `--help` too;
/// a closed standard error changes nothing and never panics.
#[test]
fn unwritable_output_is_exit_3_and_unwritable_stderr_is_ignored() {
    let full = Path::new("/dev/full");
    if !full.exists() {
        return;
    }
    let status = |args: &[&str], stdout: bool| {
        let file = || std::fs::OpenOptions::new().write(true).open(full).unwrap();
        let run = Test::new().args(args);
        let run = if stdout { run.stdout_to(file()).stderr_to(Stdio::null()) } else { run.stderr_to(file()) };
        run.run().status.code()
    };
    assert_eq!(status(&["--help"], true), Some(3));
    assert_eq!(status(&["context", "--memory", SMALL, "--task", "storage", "--format", "json"], true), Some(3));
    // Errors and notes go to a full standard error: the exit code is unchanged.
    assert_eq!(status(&["context", "--memory", "no/such.json", "--task", "x"], false), Some(2));
    assert_eq!(status(&["run", "--bogus"], false), Some(2));
    assert_eq!(status(&["context", "--memory", SMALL, "--task", "storage"], false), Some(0));
}

/// Profile mneme on Mneme-layout folders with a benign scenario: Mneme's
/// verdicts (a FALSE_POSITIVE fails the gate like a FAIL), the benign
/// figures apart, and FALSE_POSITIVE as a JUnit failure and an annotation.
#[test]
fn run_profile_mneme_reports_benign_scenarios() {
    let tmp = tempfile::tempdir().unwrap();
    let junit = tmp.path().join("junit.xml");
    let out = Test::new()
        .args([
            "run",
            "--profile",
            "mneme",
            "--memory",
            "docs/examples/mneme/project_memory.json",
            "--scenarios",
            "docs/examples/mneme/scenarios",
            "--no-baseline",
            "--annotations",
            "github",
            "--junit",
            junit.to_str().unwrap(),
        ])
        .code(1);
    insta::assert_snapshot!("run_mneme_benign_terminal", out.stdout);
    let junit = std::fs::read_to_string(&junit).unwrap();
    assert!(junit.contains(r#"type="FALSE_POSITIVE">FALSE_POSITIVE at"#), "{junit}");
    assert!(out.stdout.contains("::error") || out.stderr.contains("::error"), "{}{}", out.stdout, out.stderr);
    // The same folders under profile default: today's rules, with warnings.
    let out = Test::new()
        .args([
            "run",
            "--memory",
            "docs/examples/mneme/project_memory.json",
            "--scenarios",
            "docs/examples/mneme/scenarios",
            "--no-baseline",
        ])
        .run();
    assert!(!out.stdout.contains("FALSE_POSITIVE") && !out.stdout.contains("benign scenario"), "{}", out.stdout);
    assert!(out.stderr.contains("`scenario_type` is not supported by mneme-gate"), "{}", out.stderr);
}

#[test]
fn a_chore_gets_nothing_unless_the_configuration_turns_the_rule_off() {
    let chore = ["--task", "Fix a typo in the refund endpoint that reverses the payment"];
    let out = Test::new().args(with(&["context", "--memory", SMALL], &chore)).code(0);
    assert_eq!(out.stdout, "");
    assert!(out.stderr.contains("the task is a typo fix"), "{}", out.stderr);
    let out = Test::new().args(with(&["explain", "--memory", SMALL, "--format", "json"], &chore)).code(0);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["retrieved"], serde_json::json!([]));
    assert_eq!(v["profile"]["bm25f"]["skip_chores"], true);
    let chored: Vec<&str> = v["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["reason"] == "chore")
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert!(chored.contains(&"ADR-002"), "{}", out.stdout);
    // `skip_chores: false` ranks it as any task.
    let out =
        Test::new().args(with(&["--config", "tests/fixtures/config/chores_ranked.yaml", "context"], &chore)).code(0);
    assert!(out.stdout.contains("[ADR-002]"), "{}", out.stdout);
    // Only profile default has the rule: set under classic, it is an error at its line.
    let out =
        Test::new().args(with(&["--config", "tests/fixtures/config/chores_classic.yaml", "context"], &chore)).code(2);
    assert!(
        out.stderr.contains("chores_classic.yaml:4:16") && out.stderr.contains("`retrieval.skip_chores`"),
        "{}",
        out.stderr
    );
}
