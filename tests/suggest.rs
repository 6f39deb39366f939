//! `mneme-gate suggest` on real repositories: every verified edit, written
//! into the decision's own file as printed, fixes its scenario and keeps
//! every other scenario's retrieved expected decisions.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use common::{copy_tree, expect, run, OFF};

/// Per scenario id: its expected ids and the ids it retrieves.
fn retrievals(dir: &Path) -> BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)> {
    let out = expect(run(dir, &["run", "--json", "-", "--quiet"], OFF), 1, "the suite has misses");
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let ids = |v: &serde_json::Value| -> BTreeSet<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap_or_else(|| x["id"].as_str().unwrap()).to_string())
            .collect()
    };
    report["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["id"].as_str().unwrap().to_string(), (ids(&s["expected"]), ids(&s["retrieved"]))))
        .collect()
}

/// Writes a suggested edit into the Markdown decision file as `write` says.
fn apply(file: &Path, edit: &serde_json::Value) {
    let text = std::fs::read_to_string(file).unwrap();
    let word = edit["word"].as_str().unwrap();
    let write = edit["write"].as_str().unwrap();
    let edited = match edit["kind"].as_str().unwrap() {
        "tag" => {
            let list = &write[..write.find(']').unwrap() + 1];
            assert!(list.starts_with("tags: ["), "{write}");
            match text.strip_prefix("---\n") {
                Some(rest) => format!("---\n{list}\n{rest}"),
                None => format!("---\n{list}\n---\n{text}"),
            }
        }
        "title_word" => {
            let heading = text.lines().find(|l| l.starts_with("# ")).expect("a title heading");
            text.replacen(heading, &format!("{heading} {word}"), 1)
        }
        other => panic!("kind {other}"),
    };
    std::fs::write(file, edited).unwrap();
}

#[test]
fn every_verified_edit_on_kuma_fixes_its_scenario_and_breaks_none() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/realrepos/kuma");
    let out = expect(run(&root, &["suggest", "--format", "json"], OFF), 0, "suggest");
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["schema"], "mneme-gate.suggest/v1");
    let suggestions = doc["suggestions"].as_array().unwrap();
    let verified: Vec<&serde_json::Value> = suggestions.iter().filter(|s| !s["edit"].is_null()).collect();
    assert!(suggestions.len() >= 5, "kuma's suite has misses: {}", out.stdout);
    assert!(verified.len() * 2 >= suggestions.len(), "a verified edit for at least half: {}", out.stdout);
    for s in verified {
        let tmp = tempfile::tempdir().unwrap();
        copy_tree(&root, tmp.path());
        let before = retrievals(tmp.path());
        let edit = &s["edit"];
        apply(&tmp.path().join(edit["file"].as_str().unwrap()), edit);
        let after = retrievals(tmp.path());
        let (scenario, decision) = (s["scenario"].as_str().unwrap(), s["decision"].as_str().unwrap());
        assert!(after[scenario].1.contains(decision), "{scenario} retrieves {decision} once {edit} is written");
        for (id, (expected, retrieved)) in &before {
            for e in expected.intersection(retrieved) {
                assert!(after[id].1.contains(e), "{id} keeps {e} once {edit} is written");
            }
            if expected.is_empty() {
                assert!(
                    !after[id].1.contains(decision) || retrieved.contains(decision),
                    "control {id} gets {decision}"
                );
            }
        }
    }
}

#[test]
fn suggest_prints_the_edit_and_says_it_was_verified() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/realrepos/kuma");
    let out = expect(run(&root, &["suggest"], OFF), 0, "suggest");
    assert!(out.stdout.contains("ADR-047, missed by kuma-20e4728d34"), "{}", out.stdout);
    assert!(out.stdout.contains("Verified: it then ranks"), "{}", out.stdout);
    assert!(out.stdout.lines().all(|l| l.chars().count() <= 80), "{}", out.stdout);
    assert!(out.stdout.trim_end().ends_with("a verified edit for 6."), "{}", out.stdout);
    insta::assert_snapshot!("suggest_kuma_text", out.stdout);
    let out = expect(run(&root, &["suggest", "--format", "json"], OFF), 0, "suggest --format json");
    insta::assert_snapshot!("suggest_kuma_json", out.stdout);
    let out = expect(run(&root, &["suggest", "--max", "2"], OFF), 0, "suggest --max 2");
    let last: String = out.stdout.split("\n\n").last().unwrap().split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(last, "7 missing expected decision(s); the first 2 examined (--max 2); a verified edit for 2.");
}
