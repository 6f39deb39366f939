//! Output people read fits their terminal: with `COLUMNS=80`, every line of
//! the bundled run's terminal report (passing, and with a decision removed),
//! of `explain` for every bundled scenario, of `diff`, and of every
//! subcommand's `--help` is at most 80 columns wide. Without a width (a
//! file or a pipe) the report keeps its long lines.

mod common;

use std::path::{Path, PathBuf};

use common::{copy_tree, Test};

const WIDTH: usize = 80;

struct Out {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The binary in `dir`, colour and git off; `columns` sets `COLUMNS` (and
/// `None` removes it).
fn run(dir: &Path, args: &[&str], columns: Option<usize>) -> Out {
    let mut cmd = Test::new().dir(dir).args(args);
    if let Some(c) = columns {
        cmd = cmd.env("COLUMNS", c.to_string());
    }
    let out = cmd.run();
    Out { code: Some(out.code), stdout: out.stdout, stderr: out.stderr }
}

/// Columns a line takes, approximately, as a terminal shows it: one per
/// character (not per byte), two for East Asian wide characters, none for
/// combining marks. Written apart from the product's own measure.
fn columns(line: &str) -> usize {
    line.chars()
        .map(|c| match c as u32 {
            0x0300..=0x036F | 0x200B..=0x200F => 0,
            0x1100..=0x115F | 0x2E80..=0xA4CF | 0xAC00..=0xD7A3 | 0xF900..=0xFAFF | 0xFF00..=0xFF60 => 2,
            0x1F300..=0x1F64F | 0x1F900..=0x1F9FF | 0x20000..=0x3FFFD => 2,
            _ => 1,
        })
        .sum()
}

/// Every line of `text` fits in [`WIDTH`] columns; the failure lists those
/// that do not.
fn assert_fits(what: &str, text: &str) {
    assert!(!text.trim().is_empty(), "{what}: no output");
    let wide: Vec<String> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| columns(l) > WIDTH)
        .map(|(n, l)| format!("line {} ({} columns): {l}", n + 1, columns(l)))
        .collect();
    assert!(wide.is_empty(), "{what}: {} line(s) wider than {WIDTH}:\n{}", wide.len(), wide.join("\n"));
}

#[test]
fn the_bundled_run_fits_80_columns() {
    let out = run(&root(), &["run"], Some(WIDTH));
    assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
    assert_fits("run", &out.stdout);
    // Every scenario is still listed, and the gate still says it passed.
    assert!(out.stdout.contains("(architecture)") && out.stdout.ends_with("gate passed\n"), "{}", out.stdout);
    // The short headers and the terms are explained where they appear.
    let legend = out.stdout.find("R@3: recall@3, the share of the expected decisions in the top 3;").unwrap();
    assert!(legend > out.stdout.find("| R@3 ").unwrap(), "{}", out.stdout);
    assert!(out.stdout.contains("governed: a scenario that expects decisions; injection: a"), "{}", out.stdout);
    // The files the suite read, counted apart (on a line that wraps).
    assert!(out.stdout.replace("\n  ", " ").contains("10 suite files, 38 answer files"), "{}", out.stdout);
    // Nothing changed against the pinned baseline: one line, no table of zeros.
    assert!(out.stdout.contains("every suite figure (16) is the same as in the baseline\n"), "{}", out.stdout);
    assert!(!out.stdout.contains("| figure") && !out.stdout.contains("+0.000"), "{}", out.stdout);
    let quiet = run(&root(), &["run", "--quiet"], Some(WIDTH));
    assert_fits("run --quiet", &quiet.stdout);
}

#[test]
fn without_a_width_lines_are_as_long_as_they_need() {
    // A file or a pipe, no COLUMNS: the wide layout, the same bytes as with a
    // width wider than any line.
    let piped = run(&root(), &["run"], None);
    assert!(piped.stdout.lines().any(|l| columns(l) > WIDTH), "{}", piped.stdout);
    let wide = run(&root(), &["run"], Some(1000));
    assert_eq!(piped.stdout, wide.stdout);
    let narrow = run(&root(), &["run"], Some(WIDTH));
    assert_ne!(piped.stdout, narrow.stdout);
}

#[test]
fn explain_fits_80_columns_for_every_bundled_scenario() {
    let report = run(&root(), &["run", "--json", "-"], None);
    let report: serde_json::Value = serde_json::from_str(&report.stdout).unwrap();
    let scenarios = report["scenarios"].as_array().unwrap();
    assert!(scenarios.len() > 40);
    let mut compact = 0;
    for s in scenarios {
        let mut args = vec!["explain", "--task", s["task"].as_str().unwrap()];
        if let Some(file) = s["edited_file"].as_str() {
            args.extend(["--file", file]);
        }
        let out = run(&root(), &args, Some(WIDTH));
        assert_eq!(out.code, Some(0), "{}", out.stderr);
        assert_fits(&format!("explain for {}", s["id"]), &out.stdout);
        compact += usize::from(out.stdout.contains("pool, scope, matches, outcome"));
        // The same explanation, laid out for a file, is the full table.
        let wide = run(&root(), &args, None);
        assert!(wide.stdout.contains("| rank | id "), "{}", wide.stdout);
    }
    assert_eq!(compact, scenarios.len(), "the bundled memory's table is wider than 80 for every scenario");
}

#[test]
fn every_help_fits_80_columns() {
    let commands = ["", "context", "explain", "retrieve", "validate", "run", "baseline", "diff", "init", "hook", "mcp"];
    for command in commands {
        for flag in ["--help", "-h"] {
            let args: Vec<&str> = [command, flag].into_iter().filter(|a| !a.is_empty()).collect();
            let out = run(&root(), &args, Some(WIDTH));
            assert_eq!(out.code, Some(0), "{args:?}: {}", out.stderr);
            assert_fits(&format!("{args:?}"), &out.stdout);
        }
    }
    // Piped without COLUMNS: a fixed width, so the text is the same
    // everywhere, and wider than 80.
    let piped = run(&root(), &["run", "--help"], None);
    let widest = piped.stdout.lines().map(columns).max().unwrap();
    assert!(widest > WIDTH && widest <= 100, "{widest}\n{}", piped.stdout);
}

/// The bundled example in a temporary folder, with the decision `id`
/// removed from its memory file.
fn example_without(id: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    copy_tree(&root().join("scenarios"), &d.join("scenarios"));
    copy_tree(&root().join("reports"), &d.join("reports"));
    std::fs::copy(root().join("mneme-gate.yaml"), d.join("mneme-gate.yaml")).unwrap();
    std::fs::create_dir_all(d.join("fixtures")).unwrap();
    let text = std::fs::read_to_string(root().join("fixtures/project_memory.json")).unwrap();
    let mut memory: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut removed = 0;
    for list in ["decisions", "items"] {
        if let Some(records) = memory[list].as_array_mut() {
            let before = records.len();
            records.retain(|r| r["id"] != id);
            removed += before - records.len();
        }
    }
    assert_eq!(removed, 1, "{id} is in the bundled memory once");
    std::fs::write(d.join("fixtures/project_memory.json"), serde_json::to_string_pretty(&memory).unwrap()).unwrap();
    tmp
}

#[test]
fn a_regression_fits_80_columns() {
    let dir = example_without("PAY-005");
    let out = run(dir.path(), &["run"], Some(WIDTH));
    assert_eq!(out.code, Some(1), "{}{}", out.stdout, out.stderr);
    assert_fits("run with PAY-005 removed", &out.stdout);
    // The comparison, its context diffs and the failing rules, laid out to
    // 80 columns.
    let from = out.stdout.find("Compared with the baseline").expect("a comparison");
    insta::assert_snapshot!("regression_at_80_columns", &out.stdout[from..]);
    let quiet = run(dir.path(), &["run", "--quiet"], Some(WIDTH));
    assert_fits("run --quiet with PAY-005 removed", &quiet.stdout);

    let json = dir.path().join("now.json");
    run(dir.path(), &["run", "--json", json.to_str().unwrap()], None);
    let diff = run(dir.path(), &["diff", "reports/baseline.json", "now.json"], Some(WIDTH));
    assert_eq!(diff.code, Some(1), "{}", diff.stderr);
    assert_fits("diff", &diff.stdout);
}
