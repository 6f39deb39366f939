//! `mneme-gate tune` on real repositories: it runs, its output is the same
//! bytes every time, every candidate's whole-suite figures are what `run`
//! reports once its `retrieval:` block is pasted, and it refuses what it
//! cannot tune.

mod common;

use std::path::{Path, PathBuf};

use common::{expect, run, OFF};

fn repo(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/realrepos").join(name)
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn tune_on_dotcom_rendering_is_deterministic_and_snapshotted() {
    let root = repo("dotcom-rendering");
    let text = expect(run(&root, &["tune"], OFF), 0, "tune");
    let again = expect(run(&root, &["tune"], OFF), 0, "tune again");
    assert_eq!(text.stdout, again.stdout, "two runs, the same bytes");
    assert!(text.stdout.lines().all(|l| l.chars().count() <= 80), "{}", text.stdout);
    insta::assert_snapshot!("tune_dotcom_rendering_text", text.stdout);
    let json = expect(run(&root, &["tune", "--json"], OFF), 0, "tune --json");
    let again = expect(run(&root, &["tune", "--json", "--jobs", "1"], OFF), 0, "tune --json, one thread");
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
    let json = expect(run(&root, &["tune", "--json"], OFF), 0, "tune --json");
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
    let out = expect(run(&root, &["tune", "--json", "--folds", "4", "--seed", "11"], OFF), 0, "tune");
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
