//! The causes `explain --why-not` gives for every miss of the real-repository
//! suites (the `why_not` of each run report) are the ones a reader judged in
//! tests/realrepos/why-not.tsv, and the reader agreed with most of them.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{expect, run, OFF};

#[test]
fn every_miss_has_the_causes_a_reader_judged() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/realrepos");
    let table = std::fs::read_to_string(root.join("why-not.tsv")).unwrap();
    let mut judged: BTreeMap<(String, String, String), (String, String)> = BTreeMap::new();
    for line in table.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(cols.len(), 6, "{line}");
        assert!(["agree", "partly", "disagree"].contains(&cols[4]), "{line}");
        judged.insert((cols[0].into(), cols[1].into(), cols[2].into()), (cols[3].into(), cols[4].into()));
    }
    let mut seen = 0;
    for repo in ["carbon-aware-sdk", "manage-get-gov", "dotcom-rendering", "govuk-aws", "kuma"] {
        let out = expect(run(&root.join(repo), &["run", "--json", "-", "--quiet"], OFF), 1, repo);
        let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        for s in report["scenarios"].as_array().unwrap() {
            let missing: Vec<&str> = s["missing"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
            let why = s.get("why_not").and_then(|w| w.as_array()).cloned().unwrap_or_default();
            assert_eq!(why.len(), missing.len(), "every missing decision is explained: {s}");
            for m in why {
                let key =
                    (repo.to_string(), s["id"].as_str().unwrap().to_string(), m["id"].as_str().unwrap().to_string());
                let causes: Vec<&str> = m["causes"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
                let (want, _) = judged.get(&key).unwrap_or_else(|| panic!("{key:?} is not judged"));
                assert_eq!(&causes.join(" "), want, "{key:?}");
                seen += 1;
            }
        }
    }
    assert_eq!(seen, judged.len(), "every judged miss is still a miss");
    let agree = judged.values().filter(|(_, j)| j == "agree").count();
    let disagree = judged.values().filter(|(_, j)| j == "disagree").count();
    assert!(agree * 3 >= judged.len() * 2 && disagree == 0, "{agree} of {} agreed", judged.len());
}
