//! A Mneme benchmark folder (scenarios.md §2): the input is split by
//! `arbitrary` into `scenario.json`, `query.txt` and the four response files
//! (see `MnemeFolder`), written into a scratch folder, loaded for each
//! profile (`Suite::load_for`) and judged (`verdict::judge_with`).
//!
//! Invariants checked beyond "never panics":
//!
//! - every error has a 1-based place and its message starts with it;
//! - a loaded folder is one scenario with an id, its responses are files of
//!   the folder, `.json` preferred over `.txt`;
//! - a verdict's explanation is one line, and the ids said to be missed are
//!   the ones given;
//! - under profile `default` no scenario is benign and none is
//!   FALSE_POSITIVE; under `mneme` only a benign one can be, and a benign
//!   scenario's control answer is never judged.

#![no_main]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use mneme_gate::profile::Family;
use mneme_gate::scenarios::{ResponseRef, ScenarioType, Suite, SuiteLimits};
use mneme_gate::verdict;
use mneme_gate_fuzz::MnemeFolder;

/// One scratch folder per process (`<tmp>/bench`); each input rewrites
/// every file of it, or removes the ones it does not have, so runs are
/// reproducible.
fn folder() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = mneme_gate_fuzz::scratch().keep().join("bench");
        fs::create_dir(&dir).expect("the benchmark folder");
        dir
    })
}

fuzz_target!(|input: MnemeFolder<'_>| {
    let dir = folder();
    input.write(dir).expect("write the input");
    for (name, bytes) in input.files() {
        if bytes.is_none() {
            let _ = fs::remove_file(dir.join(name));
        }
    }
    for family in [Family::Default, Family::Mneme] {
        check(dir, &input, family);
    }
});

fn check(dir: &Path, input: &MnemeFolder<'_>, family: Family) {
    match Suite::load_for(&[dir], &SuiteLimits::default(), family) {
        Err(errors) => {
            assert!(!errors.is_empty());
            for e in &errors {
                if let (Some(line), Some(column)) = (e.line(), e.column()) {
                    assert!(line >= 1 && column >= 1, "error at {line}:{column}: {e}");
                }
                assert!(e.to_string().starts_with(&e.location()), "message without its place: {e}");
            }
        }
        Ok(suite) => {
            assert_eq!(suite.scenarios.len(), 1, "a Mneme folder is one scenario");
            let s = &suite.scenarios[0];
            assert!(!s.id.trim().is_empty(), "scenario without an id");
            for (side, json, response) in
                [("without_mneme", input.without_json, &s.control), ("with_mneme", input.with_json, &s.governed)]
            {
                if let Some(ResponseRef::Resolved { path, .. }) = response {
                    assert_eq!(path.parent(), Some(dir), "response {} outside the folder", path.display());
                    let ext = if json.is_some() { "json" } else { "txt" };
                    assert_eq!(path.file_name().and_then(|n| n.to_str()), Some(&*format!("{side}.{ext}")));
                }
            }
            let missed: Vec<String> = s
                .expect
                .iter()
                .enumerate()
                .filter(|(i, _)| *i < 8 && input.missed >> i & 1 == 1)
                .map(|(_, id)| id.clone())
                .collect();
            let retrieved: Vec<&str> = s.expect.iter().filter(|id| !missed.contains(id)).map(String::as_str).collect();
            let v = verdict::judge_with(s, &missed, &verdict::Judging { family, retrieved: &retrieved, scope: &[] });
            assert!(!v.explanation.contains(['\n', '\r']), "explanation on several lines: {:?}", v.explanation);
            assert_eq!(v.missing, missed);
            let benign = s.scenario_type == ScenarioType::Benign;
            assert!(!benign || family == Family::Mneme, "a benign scenario under profile default");
            assert!(v.verdict != verdict::Verdict::FalsePositive || benign, "FALSE_POSITIVE for a violation scenario");
            if benign {
                assert!(v.control_triggers.is_empty() && v.control_violations == 0, "a benign control answer judged");
            }
        }
    }
}
