//! `run --partition K/N` and `merge` on the real binary: for N from 1 to 5,
//! merging the partial reports gives every report file, the terminal report
//! and the exit code of the single run, byte for byte (the bundled suite
//! with its baseline, a failing suite, a filtered one, benign scenarios
//! whose explanations the report cuts); and `merge` refuses, with exit 2
//! and a message that says what to do, a missing partition, one given
//! twice, partitions of different inputs or settings, a whole report, a
//! file that is not JSON and one edited by hand. The same check on a
//! generated suite of 10,000 scenarios is in `crates/mneme-gate-dev`
//! (`tests/partitions.rs`), which has the generator.

mod common;

use common::{Run, Test};

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn mneme_gate(dir: &Path, args: &[&str]) -> Run {
    Test::new().dir(dir).args(args).run()
}

/// The report files both commands write, by flag.
const FORMATS: [(&str, &str); 5] = [
    ("--json", "report.json"),
    ("--junit", "junit.xml"),
    ("--markdown", "summary.md"),
    ("--trec-run", "trec.run"),
    ("--trec-qrels", "trec.qrels"),
];

/// Every report file written into `out`, with the flags that write them.
fn report_flags(out: &Path) -> Vec<String> {
    FORMATS.iter().flat_map(|(flag, name)| [flag.to_string(), out.join(name).display().to_string()]).collect()
}

/// What a run or a merge gave: exit code, terminal report, report files.
#[derive(Debug, PartialEq)]
struct Outcome {
    code: i32,
    terminal: String,
    files: Vec<(String, Vec<u8>)>,
}

fn outcome(out: Run, dir: &Path) -> Outcome {
    let files =
        FORMATS.iter().map(|(_, name)| (name.to_string(), std::fs::read(dir.join(name)).unwrap_or_default())).collect();
    Outcome { code: out.code, terminal: out.stdout, files }
}

/// Runs the suite once, then in N partitions merged, for every N in `ns`,
/// and asserts that the merges give the single run's outcome. `run` are the
/// flags of the suite (both commands), `merge` the flags `merge` repeats
/// (baseline flags).
fn same_as_a_single_run(dir: &Path, run: &[&str], merge: &[&str], ns: std::ops::RangeInclusive<usize>) -> Outcome {
    let tmp = tempfile::tempdir().unwrap();
    let single_dir = tmp.path().join("single");
    std::fs::create_dir(&single_dir).unwrap();
    let flags = report_flags(&single_dir);
    let args: Vec<&str> =
        ["run"].into_iter().chain(run.iter().copied()).chain(flags.iter().map(String::as_str)).collect();
    let single = outcome(mneme_gate(dir, &args), &single_dir);
    assert!(single.code == 0 || single.code == 1, "the single run failed: {}", single.terminal);
    assert!(!single.files[0].1.is_empty(), "no JSON report");
    for n in ns {
        let parts_dir = tmp.path().join(format!("parts-{n}"));
        std::fs::create_dir(&parts_dir).unwrap();
        let mut parts = Vec::new();
        for k in 1..=n {
            let part = parts_dir.join(format!("part-{k}.json")).display().to_string();
            let slice = format!("{k}/{n}");
            let args: Vec<&str> = ["run"]
                .into_iter()
                .chain(run.iter().copied())
                .chain(["--partition", &slice, "--json", &part])
                .collect();
            let out = mneme_gate(dir, &args).code(0);
            assert!(out.stdout.starts_with(&format!("partition {k}/{n}: ")), "{}", out.stdout);
            parts.push(part);
        }
        // Any order.
        parts.reverse();
        let merged_dir = tmp.path().join(format!("merged-{n}"));
        std::fs::create_dir(&merged_dir).unwrap();
        let flags = report_flags(&merged_dir);
        let args: Vec<&str> = ["merge"]
            .into_iter()
            .chain(parts.iter().map(String::as_str))
            .chain(merge.iter().copied())
            .chain(flags.iter().map(String::as_str))
            .collect();
        let merged = outcome(mneme_gate(dir, &args), &merged_dir);
        assert_eq!(merged.code, single.code, "N={n}: exit code\n{}", merged.terminal);
        assert_eq!(merged.terminal, single.terminal, "N={n}: terminal report");
        for ((name, want), (_, got)) in single.files.iter().zip(&merged.files) {
            assert!(want == got, "N={n}: {name} differs from the single run's");
        }
    }
    single
}

#[test]
fn the_bundled_suite_merged_from_1_to_5_partitions_is_the_single_run_with_its_baseline() {
    let single = same_as_a_single_run(&root(), &[], &[], 1..=5);
    assert_eq!(single.code, 0);
    assert!(single.terminal.contains("Compared with the baseline reports/baseline.json"), "{}", single.terminal);
}

#[test]
fn a_failing_suite_merges_to_the_same_failed_gate() {
    let run = [
        "--no-baseline",
        "--memory",
        "tests/fixtures/suites/broken/project_memory.json",
        "--scenarios",
        "tests/fixtures/suites/broken",
    ];
    let single = same_as_a_single_run(&root(), &run, &["--no-baseline"], 1..=5);
    assert_eq!(single.code, 1);
    assert!(single.terminal.contains("FAIL malformed"), "{}", single.terminal);
}

#[test]
fn a_filtered_suite_merges_to_the_filtered_run() {
    let single = same_as_a_single_run(&root(), &["--filter", "pay*", "--filter", "*cache*"], &[], 2..=3);
    let report: serde_json::Value = serde_json::from_slice(&single.files[0].1).unwrap();
    assert_eq!(report["comparison"]["filtered"], true);
}

/// A Mneme-layout suite of benign scenarios that block content through a
/// path longer than the report's trigger excerpt: the report cuts the
/// explanation, the gate quotes it whole.
fn benign_suite(dir: &Path) {
    std::fs::copy(root().join("tests/conformance/mneme/project_memory.json"), dir.join("project_memory.json")).unwrap();
    for name in ["b1", "b2", "b3", "b4"] {
        let d = dir.join("suite").join(name);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join("scenario.json"),
            format!(
                r#"{{"name": "{name}", "category": "scope", "scenario_type": "benign", "expected_exposed_decision_ids": ["anti-002"],
                "expected_protected_decision_ids": ["anti-002"], "assertions": [{{"type": "forbidden_path_pattern", "value": "agents/"}}]}}"#
            ),
        )
        .unwrap();
        std::fs::write(d.join("query.txt"), "Add a multi-agent loop with autogen\n").unwrap();
        let long = format!("agents/{}.py", "x".repeat(300));
        let answer =
            |path: &str| format!(r#"{{"refused": false, "files_changed": ["{path}"], "dependencies_added": []}}"#);
        std::fs::write(d.join("with_mneme.json"), answer(if name == "b4" { "docs/a.md" } else { &long })).unwrap();
        std::fs::write(d.join("without_mneme.json"), answer("agents/a.py")).unwrap();
    }
}

#[test]
fn benign_scenarios_whose_explanations_the_report_cuts_merge_to_the_same_gate() {
    let dir = tempfile::tempdir().unwrap();
    benign_suite(dir.path());
    let run = ["--no-baseline", "--profile", "mneme", "--memory", "project_memory.json", "--scenarios", "suite"];
    let single = same_as_a_single_run(dir.path(), &run, &["--no-baseline"], 1..=3);
    assert_eq!(single.code, 1);
    let long = format!("agents/{}.py", "x".repeat(300));
    assert!(single.terminal.contains(&long), "the gate quotes the whole trigger:\n{}", single.terminal);
}

/// Writes the partial reports of `n` partitions of the bundled suite into
/// `dir`, with extra run flags; returns their paths.
fn partials(dir: &Path, n: usize, extra: &[&str]) -> Vec<String> {
    (1..=n)
        .map(|k| {
            let part = dir.join(format!("part-{k}-of-{n}.json")).display().to_string();
            let slice = format!("{k}/{n}");
            let args: Vec<&str> =
                ["run", "--partition", &slice, "--json", &part].into_iter().chain(extra.iter().copied()).collect();
            mneme_gate(&root(), &args).code(0);
            part
        })
        .collect()
}

fn merge(parts: &[&str]) -> Run {
    let args: Vec<&str> = ["merge", "--no-baseline"].into_iter().chain(parts.iter().copied()).collect();
    mneme_gate(&root(), &args)
}

#[test]
fn merge_refuses_partitions_that_do_not_make_one_run() {
    let tmp = tempfile::tempdir().unwrap();
    let three = partials(tmp.path(), 3, &[]);
    let p: Vec<&str> = three.iter().map(String::as_str).collect();

    // A missing partition.
    let out = merge(&[p[0], p[2]]).code(2);
    assert!(out.stderr.contains("1 of the run's 3 partitions is missing (2/3)"), "{}", out.stderr);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    // One given twice.
    let out = merge(&[p[0], p[1], p[1], p[2]]).code(2);
    assert!(out.stderr.contains("are both partition 2/3: give each partition once"), "{}", out.stderr);
    // Partitions of another N.
    let two = partials(tmp.path(), 2, &[]);
    let out = merge(&[p[0], p[1], p[2], &two[0]]).code(2);
    assert!(
        out.stderr.contains("are not partitions of the same run: it is partition 1/2, the other 1/3"),
        "{}",
        out.stderr
    );
    // Another memory file.
    let memory = tmp.path().join("memory.json");
    let text = std::fs::read_to_string(root().join("fixtures/project_memory.json")).unwrap();
    std::fs::write(&memory, format!("{text}\n")).unwrap();
    let other_dir = tmp.path().join("other");
    std::fs::create_dir(&other_dir).unwrap();
    let other = partials(&other_dir, 3, &["--memory", memory.to_str().unwrap()]);
    let out = merge(&[p[0], &other[1], p[2]]).code(2);
    assert!(out.stderr.contains("are not partitions of the same run: the memory file differs"), "{}", out.stderr);
    // Another selection of scenarios.
    let filtered_dir = tmp.path().join("filtered");
    std::fs::create_dir(&filtered_dir).unwrap();
    let filtered = partials(&filtered_dir, 3, &["--filter", "pay*"]);
    let out = merge(&[p[0], p[1], &filtered[2]]).code(2);
    assert!(out.stderr.contains("the scenarios selected differ"), "{}", out.stderr);
    // Another profile.
    let k_dir = tmp.path().join("k");
    std::fs::create_dir(&k_dir).unwrap();
    let k5 = partials(&k_dir, 3, &["--k", "5"]);
    let out = merge(&[p[0], p[1], &k5[2]]).code(2);
    assert!(out.stderr.contains("the profile, k or metric definitions differ"), "{}", out.stderr);
}

#[test]
fn merge_refuses_what_is_not_a_partial_report_with_its_place() {
    let tmp = tempfile::tempdir().unwrap();
    let whole = tmp.path().join("whole.json");
    mneme_gate(&root(), &["run", "--no-baseline", "--json", whole.to_str().unwrap()]).code(0);
    let out = merge(&[whole.to_str().unwrap()]).code(2);
    assert!(
        out.stderr.contains("this is a whole report (`mneme-gate.report/v1`), not a partial one"),
        "{}",
        out.stderr
    );

    let one = partials(tmp.path(), 1, &[]).remove(0);
    let text = std::fs::read_to_string(&one).unwrap();
    // Cut short: the place of the end.
    let cut = tmp.path().join("cut.json");
    std::fs::write(&cut, &text[..text.len() / 2]).unwrap();
    let out = merge(&[cut.to_str().unwrap()]).code(2);
    assert!(out.stderr.contains("cut.json:"), "{}", out.stderr);
    assert!(out.stderr.contains(": not a partial report of mneme-gate: EOF while parsing"), "{}", out.stderr);
    // A field of the wrong type, with its line and column.
    let wrong = tmp.path().join("wrong.json");
    std::fs::write(&wrong, text.replacen("\"index\": 1,", "\"index\": \"1\",", 1)).unwrap();
    let out = merge(&[wrong.to_str().unwrap()]).code(2);
    let line = text.lines().position(|l| l.contains("\"index\": 1,")).unwrap() + 1;
    assert!(out.stderr.contains(&format!("wrong.json:{line}:")), "{}", out.stderr);
    // A scenario moved to another partition by hand.
    let two = partials(tmp.path(), 2, &[]);
    let mut first: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&two[0]).unwrap()).unwrap();
    first["partition"]["index"] = 2.into();
    let edited = tmp.path().join("edited.json");
    std::fs::write(&edited, serde_json::to_string_pretty(&first).unwrap()).unwrap();
    let out = merge(&[edited.to_str().unwrap(), &two[1]]).code(2);
    assert!(
        out.stderr.contains("edited.json: the partial report is not one mneme-gate wrote: scenario"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("belongs to partition 1/2, not 2/2"), "{}", out.stderr);
    // A scenario dropped by hand.
    let mut first: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&two[0]).unwrap()).unwrap();
    first["scenarios"].as_array_mut().unwrap().pop();
    first["report"]["scenarios"].as_array_mut().unwrap().pop();
    std::fs::write(&edited, serde_json::to_string_pretty(&first).unwrap()).unwrap();
    let out = merge(&[edited.to_str().unwrap(), &two[1]]).code(2);
    assert!(out.stderr.contains("the partitions do not hold the suite's scenarios"), "{}", out.stderr);
    // A verdict no run gives: refused with its place, not a panic.
    let mut first: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&two[0]).unwrap()).unwrap();
    first["report"]["scenarios"][0]["verdict"] = "PASSED".into();
    std::fs::write(&edited, serde_json::to_string_pretty(&first).unwrap()).unwrap();
    let out = merge(&[edited.to_str().unwrap(), &two[1]]).code(2);
    assert!(out.stderr.contains("edited.json:"), "{}", out.stderr);
    assert!(out.stderr.contains("unknown variant `PASSED`"), "{}", out.stderr);
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    // A benign scenario's verdict on a violation scenario.
    first["report"]["scenarios"][0]["verdict"] = "FALSE_POSITIVE".into();
    std::fs::write(&edited, serde_json::to_string_pretty(&first).unwrap()).unwrap();
    let out = merge(&[edited.to_str().unwrap(), &two[1]]).code(2);
    assert!(out.stderr.contains("is FALSE_POSITIVE, which only a benign scenario can be"), "{}", out.stderr);
    // Not a file.
    let out = merge(&[tmp.path().to_str().unwrap()]).code(2);
    assert!(out.stderr.contains("is a folder, not a regular file"), "{}", out.stderr);
    let out = merge(&[tmp.path().join("nope.json").to_str().unwrap()]).code(2);
    assert!(out.stderr.contains("cannot read"), "{}", out.stderr);
}

#[test]
fn partition_flags_are_checked_before_any_work() {
    let out = mneme_gate(&root(), &["run", "--partition", "1/3"]).code(2);
    assert!(
        out.stderr.contains("--partition writes the partition's partial report: pass --json FILE"),
        "{}",
        out.stderr
    );
    for bad in ["0/3", "4/3", "3", "a/b", "1/0"] {
        let out = mneme_gate(&root(), &["run", "--partition", bad, "--json", "-"]).code(2);
        assert!(out.stderr.contains("--partition"), "{bad}: {}", out.stderr);
    }
    let out = mneme_gate(&root(), &["run", "--partition", "1/3", "--json", "-", "--junit", "j.xml"]).code(2);
    assert!(
        out.stderr.contains("--junit is about the whole run, not one partition: give it to `mneme-gate merge`"),
        "{}",
        out.stderr
    );
    let out = mneme_gate(&root(), &["merge"]).code(2);
    assert!(out.stderr.contains("PART.json"), "{}", out.stderr);
}

#[test]
fn a_partition_to_standard_output_is_a_partial_report() {
    let out = mneme_gate(&root(), &["run", "--partition", "2/2", "--json", "-"]).code(0);
    let partial: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(partial["schema"], "mneme-gate.partial/v1");
    assert_eq!(partial["partition"], serde_json::json!({"index": 2, "count": 2}));
    assert_eq!(partial["suite"]["scenarios"], 51);
    let placed = partial["scenarios"].as_array().unwrap();
    assert_eq!(placed.len(), partial["report"]["scenarios"].as_array().unwrap().len());
    assert!(out.stderr.starts_with("partition 2/2: "), "{}", out.stderr);
}

#[test]
fn the_coverage_rules_are_refused_with_partitions_not_left_out_of_the_gate() {
    // The bundled configuration with one coverage rule on: a partition holds
    // part of the suite, so neither `run --partition` nor `merge` can judge it.
    let tmp = tempfile::tempdir().unwrap();
    let parts = partials(tmp.path(), 2, &[]);
    for rule in ["min_gated_share: 0.5", "min_margin: 1", "no_new_ungated: advisory"] {
        let config = tmp.path().join("coverage.yaml");
        let text = format!(
            "memory: {}\nscenarios: [{}]\nretrieval:\n  k: 3\ngate:\n  {rule}\n",
            root().join("fixtures/project_memory.json").display(),
            root().join("scenarios").display()
        );
        std::fs::write(&config, text).unwrap();
        let config = config.display().to_string();
        let name = rule.split(':').next().unwrap();
        let out = mneme_gate(&root(), &["--config", &config, "run", "--partition", "1/2", "--json", "-"]).code(2);
        assert!(
            out.stderr.contains(&format!("gate rule {name} is on, and --partition cannot judge it")),
            "{}",
            out.stderr
        );
        let args: Vec<&str> = ["--config", &config, "merge", "--no-baseline"]
            .into_iter()
            .chain(parts.iter().map(String::as_str))
            .collect();
        let out = mneme_gate(&root(), &args).code(2);
        assert!(out.stderr.contains(&format!("gate rule {name} is on")), "{}", out.stderr);
    }
}
