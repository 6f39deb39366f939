//! `mneme-gate coverage` and the gate's coverage rules, through the real
//! binary, on the corpus built for them (tests/fixtures/coverage: a decision
//! built to be shadowed, a scope that matches no file, a fragile scenario):
//! the terminal summary, `--json` and `--markdown` pinned as snapshots, the
//! scope check in a throw-away git repository, the run report's margin
//! figures, `--hub-share`, `min_gated_share`, `min_margin`, `no_new_ungated`
//! against a baseline, and old baselines without the new figures.

use std::path::Path;

mod common;
use common::{expect, git, run, OFF};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

const CONFIG: &str = "tests/fixtures/coverage/mneme-gate.yaml";

/// The corpus in a temporary folder, with `gate` as the configuration's
/// `gate:` section and a baseline path.
fn corpus(gate: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let from = root().join("tests/fixtures/coverage");
    std::fs::copy(from.join("project_memory.json"), tmp.path().join("project_memory.json")).unwrap();
    std::fs::create_dir(tmp.path().join("scenarios")).unwrap();
    std::fs::copy(from.join("scenarios/coverage.yaml"), tmp.path().join("scenarios/coverage.yaml")).unwrap();
    std::fs::write(
        tmp.path().join("mneme-gate.yaml"),
        format!(
            "memory: project_memory.json\nscenarios: scenarios/\nbaseline: reports/baseline.json\nretrieval:\n  profile: classic\n{gate}"
        ),
    )
    .unwrap();
    tmp
}

/// A decision no scenario expects, added to the corpus's memory.
fn add_ungated_decision(dir: &Path) {
    let path = dir.join("project_memory.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let added = r#"  "items": [
    {"id": "CACHE-010", "type": "rule", "title": "Cache keys include the locale", "content": "Never serve one locale's page in another."},"#;
    std::fs::write(&path, text.replacen(r#"  "items": ["#, added, 1)).unwrap();
}

#[test]
fn coverage_terminal_json_and_markdown() {
    let out = expect(run(root(), &["--config", CONFIG, "coverage"], OFF), 0, "coverage");
    insta::assert_snapshot!("coverage_terminal", out.stdout);
    assert_eq!(out.stderr, "");

    let out = expect(run(root(), &["--config", CONFIG, "coverage", "--json", "-"], OFF), 0, "coverage --json");
    insta::assert_snapshot!("coverage_json", out.stdout);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["schema"], "mneme-gate.coverage/v1");
    assert!(out.stderr.starts_with("Coverage of "), "the summary goes to standard error: {}", out.stderr);

    let out = expect(run(root(), &["--config", CONFIG, "coverage", "--markdown", "-"], OFF), 0, "coverage --markdown");
    insta::assert_snapshot!("coverage_markdown", out.stdout);
    let mut options = comrak::Options::default();
    options.extension.table = true;
    let html = comrak::markdown_to_html(&out.stdout, &options);
    assert!(html.contains("<table>") && html.contains("<code>CACHE-009</code>"), "{html}");
}

#[test]
fn coverage_writes_files_and_is_the_same_for_every_jobs() {
    let tmp = tempfile::tempdir().unwrap();
    let config = root().join(CONFIG);
    let mut seen = Vec::new();
    for jobs in ["1", "3"] {
        let json = tmp.path().join(format!("c{jobs}.json"));
        let md = tmp.path().join(format!("c{jobs}.md"));
        let args = [
            "--config",
            config.to_str().unwrap(),
            "coverage",
            "--jobs",
            jobs,
            "--json",
            json.to_str().unwrap(),
            "--markdown",
            md.to_str().unwrap(),
        ];
        expect(run(root(), &args, OFF), 0, "coverage to files");
        seen.push((std::fs::read_to_string(json).unwrap(), std::fs::read_to_string(md).unwrap()));
    }
    assert_eq!(seen[0], seen[1]);
    let out = run(root(), &["--config", CONFIG, "coverage", "--json", "-", "--markdown", "-"], OFF);
    let out = expect(out, 2, "two reports on standard output");
    assert!(out.stderr.contains("only one report"), "{}", out.stderr);
    let out = expect(run(root(), &["--config", CONFIG, "coverage", "--min-margin=-1"], OFF), 2, "negative");
    assert!(out.stderr.contains("--min-margin -1"), "{}", out.stderr);
}

#[test]
fn min_margin_sets_the_fragility_threshold() {
    let out = expect(run(root(), &["--config", CONFIG, "coverage", "--min-margin", "1.5", "--json", "-"], OFF), 0, "");
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["fragile"]["threshold_from"], "--min-margin");
    let ids: Vec<&str> =
        v["fragile"]["scenarios"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["keep-keys-in-the-hsm"], "2.0 is not below 1.5");
    // The gate's threshold, when the rule is on.
    let tmp = corpus("gate:\n  min_margin: {min: 2.5, mode: advisory}\n");
    let out = expect(run(tmp.path(), &["coverage", "--json", "-"], OFF), 0, "");
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        (v["fragile"]["threshold_from"].as_str(), v["fragile"]["margin_below"].as_f64()),
        (Some("gate.min_margin"), Some(2.5))
    );
}

#[test]
fn hub_share_sets_how_wide_a_hub_is() {
    let hubs = |share: &str| -> Vec<String> {
        let out =
            expect(run(root(), &["--config", CONFIG, "coverage", "--hub-share", share, "--json", "-"], OFF), 0, "");
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(v["hubs"]["min_share"].as_f64(), Some(share.parse::<f64>().unwrap() / 100.0));
        v["hubs"]["decisions"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap().to_string()).collect()
    };
    // CACHE-003, KEY-001 and KEY-002 are in 2 of the 5 scenarios, and expected in none.
    assert_eq!(hubs("25"), ["CACHE-003", "KEY-001", "KEY-002"]);
    assert!(hubs("40").is_empty(), "2 of 5 is not more than 40%");
    for bad in ["101", "-1", "NaN"] {
        let out = expect(run(root(), &["--config", CONFIG, "coverage", &format!("--hub-share={bad}")], OFF), 2, bad);
        assert!(out.stderr.contains("--hub-share"), "{}", out.stderr);
    }
}

#[test]
fn scope_globs_are_checked_against_the_files_git_tracks() {
    let tmp = corpus("");
    git(tmp.path(), &["init", "-q"]);
    std::fs::create_dir_all(tmp.path().join("web/src/components")).unwrap();
    std::fs::write(tmp.path().join("web/src/components/ProductCard.tsx"), "export {}\n").unwrap();
    // Untracked: not a file of the repository.
    std::fs::create_dir_all(tmp.path().join("legacy/cobol")).unwrap();
    std::fs::write(tmp.path().join("legacy/cobol/NIGHTLY.cbl"), "x\n").unwrap();
    git(tmp.path(), &["add", "project_memory.json", "scenarios", "web", "mneme-gate.yaml"]);
    let out = expect(run(tmp.path(), &["coverage", "--json", "-"], &[]), 0, "coverage in git");
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let check = &v["unreachable"]["scope_check"];
    assert_eq!(check["checked"], true);
    assert_eq!(check["files"], 4, "{check}");
    let found: Vec<(String, bool)> = check["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["globs"].to_string(), d["every_glob"].as_bool().unwrap()))
        .collect();
    assert_eq!(
        found,
        [(r#"["legacy/cobol/**"]"#.to_string(), true), (r#"["web/legacy/**/*.jsx"]"#.to_string(), false)]
    );
    assert!(
        out.stderr.contains(
            "Scope: 2 decision(s) have a scope glob that matches no file git tracks; for 1 of them no glob does"
        ),
        "{}",
        out.stderr
    );
    // Staged, the file counts.
    git(tmp.path(), &["add", "legacy"]);
    let out = expect(run(tmp.path(), &["coverage", "--json", "-"], &[]), 0, "coverage in git");
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["unreachable"]["scope_check"]["decisions"].as_array().unwrap().len(), 1);

    // Outside a repository: not checked, and said so.
    let plain = corpus("");
    let out = expect(run(plain.path(), &["coverage"], &[]), 0, "coverage outside git");
    assert!(
        out.stdout.contains("Scope: not checked against the repository's files: not in a git repository"),
        "{}",
        out.stdout
    );
}

#[test]
fn the_run_report_has_every_scenarios_margin_and_confidence() {
    let out = expect(run(root(), &["--config", CONFIG, "run", "--json", "-"], OFF), 0, "run");
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let figures: Vec<(String, serde_json::Value, serde_json::Value, serde_json::Value)> = v["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let m = &s["metrics"];
            (
                s["id"].as_str().unwrap().to_string(),
                m["margin"].clone(),
                m["confidence"].clone(),
                m["runner_up"].clone(),
            )
        })
        .collect();
    insta::assert_json_snapshot!("run_margins", figures);
    assert_eq!(v["summary"]["smallest_margin"], 1.0);
}

#[test]
fn the_coverage_rules_are_off_until_configured_and_then_gate() {
    // Off: not listed.
    let tmp = corpus("");
    let out = expect(run(tmp.path(), &["run", "--quiet", "--no-baseline"], OFF), 0, "off");
    assert!(!out.stdout.contains("min_gated_share") && !out.stdout.contains("min_margin"), "{}", out.stdout);

    let tmp = corpus("gate:\n  min_gated_share: 0.5\n  min_margin: 1.5\n");
    let out = expect(run(tmp.path(), &["run", "--quiet", "--no-baseline"], OFF), 1, "on");
    assert!(
        out.stdout.contains(
            "FAIL min_gated_share: the suite expects 4 of 12 pool decisions, a share below min_gated_share 0.5: 8 ungated: CACHE-003, CACHE-009, KEY-001, KEY-002, KEY-004 and 3 more"
        ),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("FAIL min_margin: 1 governed scenario wins by a margin below 1.5 (one edit of another decision could push out its expected decision): keep-keys-in-the-hsm\n       keep-keys-in-the-hsm: margin 1.0: KEY-003 (rank 3, 11.0) over KEY-004 (10.0)"),
        "{}",
        out.stdout
    );
    // `baseline` refuses to pin a run that fails them; `--filter` leaves min_gated_share out.
    let out = expect(run(tmp.path(), &["baseline"], OFF), 1, "refused");
    assert!(out.stdout.contains("not pinned"), "{}", out.stdout);
    let out = run(tmp.path(), &["run", "--quiet", "--no-baseline", "--filter", "purge-*"], OFF);
    let out = expect(out, 0, "filtered");
    assert!(!out.stdout.contains("min_gated_share") && out.stdout.contains("ok   min_margin"), "{}", out.stdout);

    let tmp = corpus("gate:\n  min_gated_share: {min: 0.9, mode: advisory}\n  min_margin: 0.5\n");
    let out = expect(run(tmp.path(), &["run", "--quiet", "--no-baseline", "--json", "r.json"], OFF), 0, "advisory");
    assert!(out.stdout.contains("warn min_gated_share") && out.stdout.contains("ok   min_margin"), "{}", out.stdout);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(tmp.path().join("r.json")).unwrap()).unwrap();
    let rules: Vec<&str> =
        report["gate"]["rules"].as_array().unwrap().iter().map(|r| r["rule"].as_str().unwrap()).collect();
    assert_eq!(rules, ["recall", "weak_retrieval", "malformed", "pass_rate", "min_gated_share", "min_margin"]);
}

#[test]
fn no_new_ungated_against_the_baseline() {
    let tmp = corpus("gate:\n  no_new_ungated: fail\n");
    let dir = tmp.path();
    expect(run(dir, &["baseline"], OFF), 0, "pin");
    // Nothing to compare with: not listed.
    let out = expect(run(dir, &["run", "--quiet", "--no-baseline"], OFF), 0, "no baseline");
    assert!(!out.stdout.contains("no_new_ungated"), "{}", out.stdout);
    // The memory the baseline was pinned with: nothing is new.
    let out = expect(run(dir, &["run", "--quiet"], OFF), 0, "unchanged");
    assert!(
        out.stdout.contains("ok   no_new_ungated: every decision added since the memory the baseline was pinned with is expected by some scenario"),
        "{}",
        out.stdout
    );

    // In git: the memory the baseline was pinned with is found in the history.
    git(dir, &["init", "-q"]);
    git(dir, &["add", "."]);
    git(dir, &["commit", "-qm", "pin"]);
    git(dir, &["checkout", "-qb", "change"]);
    add_ungated_decision(dir);
    git(dir, &["commit", "-qam", "add CACHE-010"]);
    let message = "FAIL no_new_ungated: 1 decision added since";
    let out = expect(run(dir, &["run", "--quiet"], &[]), 1, "found in history");
    let line = out.stdout.lines().find(|l| l.starts_with(message)).unwrap_or_else(|| panic!("{}", out.stdout));
    assert!(line
        .starts_with("FAIL no_new_ungated: 1 decision added since the memory the baseline was pinned with (commit "));
    assert!(line.ends_with("is expected by no scenario: CACHE-010 (add a scenario that expects it)"), "{line}");
    assert!(
        out.stdout.contains("CACHE-010: added since the memory the baseline was pinned with (commit "),
        "{}",
        out.stdout
    );
    // Against the base revision, and against --memory-ref.
    for args in [&["run", "--quiet", "--baseline-ref", "main"][..], &["run", "--quiet", "--memory-ref", "main"]] {
        let out = expect(run(dir, args, &[]), 1, "against main");
        assert!(
            out.stdout
                .contains("FAIL no_new_ungated: 1 decision added since main is expected by no scenario: CACHE-010"),
            "{}",
            out.stdout
        );
    }
    // A scenario that expects it satisfies the rule.
    let suite = dir.join("scenarios/coverage.yaml");
    let mut text = std::fs::read_to_string(&suite).unwrap();
    text.push_str(
        "\n  - id: locale-in-cache-key\n    task: Make the cache key depend on the locale\n    expect: [CACHE-010]\n",
    );
    std::fs::write(&suite, text).unwrap();
    let out = run(dir, &["run", "--quiet", "--baseline-ref", "main"], &[]);
    assert!(out.stdout.contains("ok   no_new_ungated: every decision added since main"), "{}", out.stdout);

    // Without git, a changed memory cannot be told apart: exit 2, with what to do.
    let out = expect(run(dir, &["run", "--quiet"], OFF), 2, "git off");
    assert!(
        out.stderr
            .contains("gate rule no_new_ungated: the baseline was pinned with another version of project_memory.json"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("pass --memory-ref REV"), "{}", out.stderr);
    // --filter leaves it out.
    let out = run(dir, &["run", "--quiet", "--filter", "purge-*"], OFF);
    assert!(!out.stdout.contains("no_new_ungated"), "{}", out.stdout);
}

/// A baseline written before the margin figures existed loads and compares
/// with no spurious change.
#[test]
fn an_old_baseline_without_the_new_figures_compares_cleanly() {
    let tmp = corpus("");
    let dir = tmp.path();
    expect(run(dir, &["baseline"], OFF), 0, "pin");
    let path = dir.join("reports/baseline.json");
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for s in v["scenarios"].as_array_mut().unwrap() {
        let m = s["metrics"].as_object_mut().unwrap();
        for key in ["margin", "confidence", "runner_up"] {
            assert!(m.remove(key).is_some(), "{key}");
        }
    }
    let summary = v["summary"].as_object_mut().unwrap();
    summary.remove("smallest_margin").unwrap();
    summary.remove("mean_confidence").unwrap();
    std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let out = expect(run(dir, &["run", "--quiet"], OFF), 0, "old baseline");
    assert!(out.stdout.contains("no scenario changed its verdict, ranking or context block"), "{}", out.stdout);
    let out = expect(run(dir, &["run", "--json", "-"], OFF), 0, "old baseline, JSON");
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["comparison"]["scenarios"], serde_json::json!([]));
    let moved: Vec<&serde_json::Value> =
        report["comparison"]["metrics"].as_array().unwrap().iter().filter(|m| m["movement"] != "unchanged").collect();
    assert!(moved.is_empty(), "{moved:?}");
    let diff = run(dir, &["diff", "reports/baseline.json", "reports/baseline.json"], OFF);
    expect(diff, 0, "diff of an old report");
}

#[test]
fn the_bundled_example_has_every_decision_gated_and_none_shadowed() {
    let out = expect(run(root(), &["coverage"], OFF), 0, "coverage of the bundled example");
    assert!(
        out.stdout.contains("Gated: 42 of 42 pool decision(s) are expected by some scenario (1.000); 0 are not."),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("Shadowed: none (every decision comes back in the top 3 for its own title)"),
        "{}",
        out.stdout
    );
    // Under profile mneme one decision is ungated, and it is listed.
    let out = expect(run(root(), &["coverage", "--profile", "mneme"], OFF), 0, "profile mneme");
    assert!(
        out.stdout.contains("1 is not.\n") && out.stdout.contains("  ADR-007  The web storefront keeps"),
        "{}",
        out.stdout
    );
}

#[test]
fn coverage_fits_80_columns() {
    let fits = |what: &str, text: &str| {
        let wide: Vec<&str> = text.lines().filter(|l| l.chars().count() > 80).collect();
        assert!(wide.is_empty(), "{what}: lines wider than 80:\n{}", wide.join("\n"));
    };
    let columns = [("COLUMNS", "80"), ("MNEME_GATE_GIT", "off")];
    for args in [&["--config", CONFIG, "coverage"][..], &["coverage"], &["coverage", "--help"], &["coverage", "-h"]] {
        let out = expect(run(root(), args, &columns), 0, "at 80 columns");
        fits(&format!("{args:?}"), &out.stdout);
    }
}
