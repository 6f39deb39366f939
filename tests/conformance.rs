//! Mneme conformance: under profile `mneme`, `retrieve` reproduces the
//! retrieved ids that Mneme 0.10.0 itself produced for its seven benchmark
//! queries. The benchmark is vendored under `tests/conformance/mneme/`
//! (Mneme's MIT licence beside it), so this always runs.

mod common;

use common::Test;

use std::path::PathBuf;

fn conformance_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/mneme")
}

#[test]
fn retrieve_reproduces_mneme_0_10_0() {
    let dir = conformance_dir();
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected-mneme-0.10.0-benchmark.json")).unwrap())
            .unwrap();
    let mut queries = String::new();
    let mut want = Vec::new();
    for result in expected["results"].as_array().unwrap() {
        let name = result["name"].as_str().unwrap();
        let task = std::fs::read_to_string(dir.join("benchmarks").join(name).join("query.txt")).unwrap();
        queries.push_str(&serde_json::json!({"id": name, "task": task.trim()}).to_string());
        queries.push('\n');
        let ids: Vec<String> = result["layer1"]["retrieved_ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        want.push((name.to_string(), ids));
    }
    assert_eq!(want.len(), 7);
    let tmp = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(tmp.path(), queries).unwrap();
    let out = Test::new()
        .args(["retrieve", "--profile", "mneme", "--k", "3", "--memory"])
        .arg(dir.join("project_memory.json"))
        .arg("--queries")
        .arg(tmp.path())
        .run();
    assert!(out.status.success(), "{}", out.stderr);
    let got: Vec<(String, Vec<String>)> = out
        .stdout
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let ids =
                v["retrieved"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_string()).collect();
            (v["id"].as_str().unwrap().to_string(), ids)
        })
        .collect();
    assert_eq!(got, want);
}

/// `mneme-gate run` on Mneme's own benchmark folders reproduces, scenario by
/// scenario, Mneme 0.10.0's verdict, retrieved ids, violation counts and
/// triggers per side, and the summary figures it printed.
#[test]
fn run_reproduces_mneme_0_10_0_benchmark() {
    let dir = conformance_dir();
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected-mneme-0.10.0-benchmark.json")).unwrap())
            .unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    let json = out_dir.path().join("report.json");
    let out = Test::new()
        .args(["run", "--quiet", "--no-baseline", "--profile", "mneme", "--memory"])
        .arg(dir.join("project_memory.json"))
        .arg("--scenarios")
        .arg(dir.join("benchmarks"))
        .arg("--json")
        .arg(&json)
        .run();
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let scenarios = report["scenarios"].as_array().unwrap();
    let results = expected["results"].as_array().unwrap();
    assert_eq!(scenarios.len(), results.len());
    for want in results {
        let name = want["name"].as_str().unwrap();
        let got = scenarios.iter().find(|s| s["id"] == name).unwrap_or_else(|| panic!("{name} missing"));
        assert_eq!(got["verdict"], want["verdict"], "{name}: verdict");
        let ids: Vec<&serde_json::Value> = got["retrieved"].as_array().unwrap().iter().map(|r| &r["id"]).collect();
        let want_ids: Vec<&serde_json::Value> = want["layer1"]["retrieved_ids"].as_array().unwrap().iter().collect();
        assert_eq!(ids, want_ids, "{name}: retrieved ids");
        assert_eq!(got["violations"]["control"], want["baseline_violation_count"], "{name}: control violations");
        assert_eq!(got["violations"]["governed"], want["enhanced_violation_count"], "{name}: governed violations");
        assert_eq!(got["triggers"]["control"], want["baseline_triggers"], "{name}: control triggers");
        assert_eq!(got["triggers"]["governed"], want["enhanced_triggers"], "{name}: governed triggers");
        // Mneme prints figures for ungoverned scenarios too; metrics.md says
        // they are not defined there (null), so only governed ones compare.
        if !want["layer1"]["expected_ids"].as_array().unwrap().is_empty() {
            let (m, w) = (&got["metrics"], &want["layer1"]);
            assert_eq!(m["recall_at_k"], w["recall_at_k"], "{name}: recall");
            assert_eq!(m["precision_at_k"], w["precision_at_k"], "{name}: precision");
            assert_eq!(m["irrelevant_injection"], w["irrelevant_injection"], "{name}: irrelevant");
        } else {
            assert!(got["metrics"]["recall_at_k"].is_null(), "{name}: ungoverned recall is not defined");
        }
    }
    let (summary, want) = (&report["summary"], &expected["summary"]);
    assert_eq!(summary["total"], want["total"]);
    assert_eq!(summary["pass"], want["passed"]);
    assert_eq!(summary["fail"], want["failed"]);
    assert_eq!(summary["weak"], want["weak"]);
    assert_eq!(summary["weak_retrieval"], want["weak_retrieval"]);
    assert_eq!(summary["pass_rate"], want["pass_rate"]);
    assert_eq!(summary["governed"], want["layer1"]["scored_count"]);
    assert_eq!(summary["mean_recall_at_k"], want["layer1"]["mean_recall_at_k"]);
    assert_eq!(summary["irrelevant_injection_rate"], want["layer1"]["irrelevant_injection_rate"]);
    // Mneme prints the mean precision rounded to three decimals; we keep full precision.
    let precision = summary["mean_precision_at_k"].as_f64().unwrap();
    assert_eq!((precision * 1000.0).round() / 1000.0, want["layer1"]["mean_precision_at_k"].as_f64().unwrap());
    for (category, counts) in want["by_category"].as_object().unwrap() {
        let got = &summary["by_category"][category];
        assert_eq!(got["pass"], counts["pass"], "{category}");
        assert_eq!(got["fail"], counts["fail"], "{category}");
        assert_eq!(got["total"], counts["total"], "{category}");
    }
}

/// Mneme's own test fixture (`tests/fixtures/benchmark_scenario`: a storage
/// question, a control answer naming Postgres and SQLAlchemy, two text-only
/// sides) over every distinct memory file of Mneme's repository that Mneme
/// 0.10.0 loads: the verdict, retrieved ids, violation counts and triggers
/// that Mneme gave (`fixture-scenario/expected-mneme-0.10.0.json`). The text
/// sides are judged by Mneme's prompt enforcer, over decision records,
/// migrated items, typed rules and repeated ids.
#[test]
fn mnemes_own_fixture_scenario_over_its_memory_files() {
    let dir = conformance_dir().join("fixture-scenario");
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected-mneme-0.10.0.json")).unwrap()).unwrap();
    let expected = expected.as_object().unwrap();
    assert_eq!(expected.len(), 11);
    let out_dir = tempfile::tempdir().unwrap();
    for (memory, want) in expected {
        let json = out_dir.path().join(format!("{memory}.report.json"));
        let out = Test::new()
            .args(["run", "--quiet", "--no-baseline", "--profile", "mneme", "--memory"])
            .arg(dir.join("memories").join(memory))
            .arg("--scenarios")
            .arg(dir.join("benchmark_scenario"))
            .arg("--json")
            .arg(&json)
            .run();
        assert!(matches!(out.status.code(), Some(0 | 1)), "{memory}: {}", out.stderr);
        let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let got = &report["scenarios"][0];
        assert_eq!(got["id"], want["name"], "{memory}");
        assert_eq!(got["verdict"], want["verdict"], "{memory}: verdict");
        let ids: Vec<&serde_json::Value> = got["retrieved"].as_array().unwrap().iter().map(|r| &r["id"]).collect();
        assert_eq!(ids, want["retrieved_ids"].as_array().unwrap().iter().collect::<Vec<_>>(), "{memory}: ids");
        assert_eq!(got["violations"]["control"], want["baseline_violation_count"], "{memory}: control violations");
        assert_eq!(got["violations"]["governed"], want["enhanced_violation_count"], "{memory}: governed violations");
        assert_eq!(got["triggers"]["control"], want["baseline_triggers"], "{memory}: control triggers");
        assert_eq!(got["triggers"]["governed"], want["enhanced_triggers"], "{memory}: governed triggers");
    }
}
