//! `mneme-gate tune` on real repositories: it runs, its output is the same
//! bytes every time, every candidate's whole-suite figures are what `run`
//! reports once its `retrieval:` block is pasted, and it refuses what it
//! cannot tune.

mod common;

use std::path::{Path, PathBuf};

use common::{copy_tree, expect, run, OFF};

fn repo(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/realrepos").join(name)
}

#[test]
fn tune_on_dotcom_rendering_is_deterministic_and_snapshotted() {
    let root = repo("dotcom-rendering");
    let text = expect(run(&root, &["tune"], OFF), 0, "tune");
    let again = expect(run(&root, &["tune"], OFF), 0, "tune again");
    assert_eq!(text.stdout, again.stdout, "two runs, the same bytes");
    assert!(text.stdout.lines().all(|l| l.chars().count() <= 80), "{}", text.stdout);
    insta::assert_snapshot!("tune_dotcom_rendering_text", text.stdout);
    let json = expect(run(&root, &["tune", "--format", "json"], OFF), 0, "tune --format json");
    let again =
        expect(run(&root, &["tune", "--format", "json", "--jobs", "1"], OFF), 0, "tune --format json, one thread");
    assert_eq!(json.stdout, again.stdout, "the same bytes on one thread");
    insta::assert_snapshot!("tune_dotcom_rendering_json", json.stdout);

    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(doc["schema"], "mneme-gate.tune/v1");
    let candidates = doc["candidates"].as_array().unwrap();
    assert_eq!(candidates.len(), 30);
    assert!(candidates[0]["change"].is_null());
    assert_eq!(doc["per_fold"].as_array().unwrap().len(), 5);
    let sizes: usize =
        doc["per_fold"].as_array().unwrap().iter().map(|f| f["scenarios"].as_u64().unwrap() as usize).sum();
    assert_eq!(sizes, doc["scenarios"].as_u64().unwrap() as usize, "every scenario is held out once");
    let held = &doc["held_out"];
    let (low, high) = (held["interval"][0].as_f64().unwrap(), held["interval"][1].as_f64().unwrap());
    let gain = held["gain"].as_f64().unwrap();
    assert!(low <= gain && gain <= high, "{held}");
    assert_eq!(doc["recommendation"].is_null(), low <= 0.0 || doc["best"].is_null(), "{doc}");
}

#[test]
fn every_candidate_scores_what_run_reports_with_its_block_pasted() {
    let root = repo("dotcom-rendering");
    let json = expect(run(&root, &["tune", "--format", "json"], OFF), 0, "tune --format json");
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let config = std::fs::read_to_string(root.join("mneme-gate.yaml")).unwrap();
    assert!(config.trim_end().ends_with("k: 3"), "retrieval: is the file's last block");
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(&root, tmp.path());
    for candidate in doc["candidates"].as_array().unwrap() {
        let mut edited = config.clone();
        if !candidate["change"].is_null() {
            let key = candidate["change"]["key"].as_str().unwrap();
            let to = candidate["change"]["to"].as_f64().unwrap();
            // The block tune prints for a recommendation, under the file's own `retrieval:`.
            let block = match key.split_once('.') {
                Some((group, name)) => format!("  {group}:\n    {name}: {to}\n"),
                None => format!("  {key}: {to}\n"),
            };
            edited = format!("{}\n{block}", config.trim_end());
        }
        std::fs::write(tmp.path().join("mneme-gate.yaml"), &edited).unwrap();
        let out = run(tmp.path(), &["run", "--json", "-", "--quiet"], OFF);
        assert!(matches!(out.code, Some(0 | 1)), "{edited}\n{}", out.stderr);
        let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        let summary = &report["summary"];
        for (mine, theirs) in [("recall_at_k", "mean_recall_at_k"), ("recall_at_1", "mean_recall_at_1"), ("mrr", "mrr")]
        {
            let (a, b) = (candidate[mine].as_f64().unwrap(), summary[theirs].as_f64().unwrap());
            assert!((a - b).abs() < 1e-9, "{key}: {mine} {a} but run says {b}", key = candidate["change"]);
        }
        let injections =
            summary["ungoverned_injection_rate"].as_f64().unwrap() * summary["ungoverned"].as_f64().unwrap();
        assert_eq!(candidate["control_injections"].as_f64().unwrap(), injections.round(), "{}", candidate["change"]);
    }
}

#[test]
fn tune_on_kuma_runs_and_recommends_only_above_the_noise() {
    let root = repo("kuma");
    let text = expect(run(&root, &["tune"], OFF), 0, "tune");
    insta::assert_snapshot!("tune_kuma_text", text.stdout);
    let out = expect(run(&root, &["tune", "--format", "json", "--folds", "4", "--seed", "11"], OFF), 0, "tune");
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!((doc["folds"].as_u64(), doc["seed"].as_u64()), (Some(4), Some(11)));
    let low = doc["held_out"]["interval"][0].as_f64().unwrap();
    assert_eq!(doc["recommendation"].is_null(), low <= 0.0 || doc["best"].is_null(), "{doc}");
}

#[test]
fn tune_refuses_profile_mneme_and_impossible_folds() {
    let root = repo("kuma");
    let out = expect(run(&root, &["tune", "--folds", "1"], OFF), 2, "one fold");
    assert!(out.stderr.contains("--folds must be at least 2"), "{}", out.stderr);
    let out = expect(run(&root, &["tune", "--folds", "1000"], OFF), 2, "more folds than scenarios");
    assert!(out.stderr.contains("--folds must be between 2 and the number of scenarios (37)"), "{}", out.stderr);
    let out = expect(run(&root, &["tune", "--profile", "mneme"], OFF), 2, "profile mneme");
    assert!(out.stderr.contains("pinned to Mneme 0.10.0"), "{}", out.stderr);
}

/// Forty decisions, each holding the next scenario's second word in its
/// content, constraint, anti-patterns and tags, which outweighs the title
/// word of its own scenario until the title weighs 10.
fn title_suite(dir: &Path) {
    let word = |prefix: &str, i: usize| {
        format!("{prefix}{}{}", char::from(b'a' + (i / 26) as u8), char::from(b'a' + (i % 26) as u8))
    };
    let mut memory = Vec::new();
    let mut suite = "scenarios:\n".to_string();
    for i in 0..40 {
        let (title, next) = (word("tit", i), word("con", (i + 1) % 40));
        memory.push(serde_json::json!({
            "id": format!("d{i}"), "type": "rule", "title": format!("{title} rule"),
            "content": format!("{next} notes"), "constraint": [format!("{next} always")],
            "anti_patterns": [format!("{next} never")], "tags": [next],
        }));
        suite.push_str(&format!("  - id: s{i}\n    task: {title} {}\n    expect: [d{i}]\n", word("con", i)));
    }
    std::fs::write(dir.join("project_memory.json"), serde_json::to_string_pretty(&memory).unwrap()).unwrap();
    std::fs::write(dir.join("suite.yaml"), suite).unwrap();
    std::fs::write(
        dir.join("mneme-gate.yaml"),
        "memory: project_memory.json\nscenarios:\n  - suite.yaml\nretrieval:\n  profile: default\n  k: 1\n",
    )
    .unwrap();
}

#[test]
fn a_recommended_block_pasted_gives_the_figures_tune_promised() {
    let tmp = tempfile::tempdir().unwrap();
    title_suite(tmp.path());
    let text = expect(run(tmp.path(), &["tune"], OFF), 0, "tune");
    insta::assert_snapshot!("tune_recommendation_text", text.stdout);
    let json = expect(run(tmp.path(), &["tune", "--format", "json"], OFF), 0, "tune --format json");
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let recommendation = &doc["recommendation"];
    assert_eq!(recommendation["change"]["key"], "weights.title", "{doc}");
    let block = recommendation["yaml"].as_str().unwrap();
    assert_eq!(block, "retrieval:\n  weights:\n    title: 10.0\n");
    assert!(text.stdout.contains("    retrieval:\n      weights:\n        title: 10.0\n"), "{}", text.stdout);
    // Under the file's own `retrieval:`, its last block.
    let config = std::fs::read_to_string(tmp.path().join("mneme-gate.yaml")).unwrap();
    let body = block.strip_prefix("retrieval:\n").unwrap();
    std::fs::write(tmp.path().join("mneme-gate.yaml"), format!("{config}{body}")).unwrap();
    let out = expect(run(tmp.path(), &["run", "--json", "-", "--quiet"], OFF), 0, "run with the block");
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["summary"]["mean_recall_at_k"], recommendation["whole_suite"]["recall_at_k"]);
    assert_eq!(report["summary"]["mean_recall_at_k"], 1.0);
    // Tuned again, the pasted setting is the current one and nothing more is recommended.
    let again = expect(run(tmp.path(), &["tune", "--format", "json"], OFF), 0, "tune after");
    let doc: serde_json::Value = serde_json::from_str(&again.stdout).unwrap();
    assert!(doc["recommendation"].is_null(), "{doc}");
}
