//! Figures as reports write them: no negative zero anywhere (a baseline
//! edited by hand can hold `-0.0`, and echoing it reads as a movement), and
//! no rounded figure that looks like a threshold it misses (the formatting
//! itself is property-tested in `report::figures`).

mod common;

use common::Test;

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = Test::new().dir(dir).args(args).run();
    (Some(out.code), out.all())
}

/// Every place `text` writes a zero with a minus sign (`-0`, `-0.0`,
/// `-0.000`), with some context.
fn negative_zeros(text: &str) -> Vec<String> {
    // Not inside an id (`PAY-0`): the minus starts a number.
    let re = regex::Regex::new(r"(^|[^0-9A-Za-z_-])-0(\.0+)?([^0-9.]|$)").unwrap();
    re.find_iter(text)
        .map(|m| {
            let from = text[..m.start()].char_indices().rev().nth(40).map_or(0, |(i, _)| i);
            text[from..m.end()].to_string()
        })
        .collect()
}

#[test]
fn the_detector_finds_negative_zeros_and_nothing_else() {
    assert_eq!(negative_zeros("a -0.000 b").len(), 1);
    assert_eq!(negative_zeros("[-0.0,").len(), 1);
    assert_eq!(negative_zeros("x: -0\n").len(), 1);
    assert!(negative_zeros("-0.05 -0.500 +0.000 0.0 10.0 -1.0 PAY-005 a-0b").is_empty());
}

#[test]
fn a_baseline_with_negative_zeros_is_never_echoed_with_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pinned = std::fs::read_to_string(root().join("reports/baseline.json")).unwrap();
    let edited = pinned.replace(": 0.0,", ": -0.0,").replace(": 0.0\n", ": -0.0\n");
    assert!(edited.matches("-0.0").count() >= 5, "the bundled baseline has zeros to edit");
    std::fs::write(d.join("baseline.json"), &edited).unwrap();
    let baseline = d.join("baseline.json");
    let (json, junit, markdown) = (d.join("r.json"), d.join("r.xml"), d.join("r.md"));
    let path = |p: &Path| p.to_str().unwrap().to_string();
    let (code, terminal) = run(
        &root(),
        &[
            "run",
            "--baseline",
            &path(&baseline),
            "--json",
            &path(&json),
            "--junit",
            &path(&junit),
            "--markdown",
            &path(&markdown),
        ],
    );
    assert_eq!(code, Some(0), "{terminal}");
    // -0 equals 0: no figure moved, which one line says (no table of zeros).
    assert!(terminal.contains("every suite figure (16) is the same as in the baseline\n"), "{terminal}");
    let (_, diff) = run(&root(), &["diff", &path(&baseline), &path(&json)]);
    let (_, diff_json) = run(&root(), &["diff", &path(&baseline), &path(&json), "--json", "-"]);
    let written = |p: &Path| std::fs::read_to_string(p).unwrap();
    for (what, text) in [
        ("terminal", terminal),
        ("JSON", written(&json)),
        ("JUnit", written(&junit)),
        ("Markdown", written(&markdown)),
        ("diff", diff),
        ("diff --json", diff_json),
    ] {
        assert_eq!(negative_zeros(&text), Vec::<String>::new(), "{what}");
    }
}
