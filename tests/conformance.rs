//! Mneme conformance: under profile `mneme`, `retrieve` reproduces the
//! retrieved ids that Mneme 0.10.0 itself produced for its seven benchmark
//! queries. Runs whenever `../shared/conformance/mneme` exists.

use std::path::PathBuf;
use std::process::Command;

fn conformance_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/mneme");
    dir.is_dir().then_some(dir)
}

#[test]
fn retrieve_reproduces_mneme_0_10_0() {
    let Some(dir) = conformance_dir() else {
        eprintln!("conformance: skipped (no ../shared/conformance/mneme)");
        return;
    };
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
    let out = Command::new(env!("CARGO_BIN_EXE_mneme-gate"))
        .args(["retrieve", "--profile", "mneme", "--k", "3", "--memory"])
        .arg(dir.join("project_memory.json"))
        .arg("--queries")
        .arg(tmp.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let got: Vec<(String, Vec<String>)> = String::from_utf8(out.stdout)
        .unwrap()
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
