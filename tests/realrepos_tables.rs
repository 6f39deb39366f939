//! The real-repository tables of README.md, docs/results.md and
//! tests/realrepos/README.md ("Profile `default` now") say what
//! `mneme-gate run` gives today on tests/realrepos/, profile `classic` on
//! the left of each arrow and `default` on the right: a change that moves a
//! ranking cannot leave a published figure behind.

mod common;

use std::path::{Path, PathBuf};

use common::{run, OFF};

/// One repository's figures under one profile, as `bench/realrepos.sh`
/// prints them.
#[derive(Debug, Clone, Copy)]
struct Figures {
    governed: u64,
    r3: f64,
    r1: f64,
    mrr: f64,
    ndcg: f64,
    injected: u64,
    controls: u64,
}

impl Figures {
    fn cells(&self) -> [String; 6] {
        [
            self.governed.to_string(),
            format!("{:.3}", self.r3),
            format!("{:.3}", self.r1),
            format!("{:.3}", self.mrr),
            format!("{:.3}", self.ndcg),
            format!("{}/{}", self.injected, self.controls),
        ]
    }

    /// The unweighted mean over repositories (sums for the counts).
    fn mean(all: &[Figures]) -> Figures {
        let n = all.len() as f64;
        let avg = |f: fn(&Figures) -> f64| all.iter().map(f).sum::<f64>() / n;
        Figures {
            governed: all.iter().map(|f| f.governed).sum(),
            r3: avg(|f| f.r3),
            r1: avg(|f| f.r1),
            mrr: avg(|f| f.mrr),
            ndcg: avg(|f| f.ndcg),
            injected: all.iter().map(|f| f.injected).sum(),
            controls: all.iter().map(|f| f.controls).sum(),
        }
    }
}

fn realrepos() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/realrepos")
}

fn figures(repo: &str, profile: &str) -> Figures {
    let out = run(&realrepos().join(repo), &["run", "--json", "-", "--quiet", "--profile", profile], OFF);
    assert!(matches!(out.code, Some(0 | 1)), "{repo} --profile {profile}: {}{}", out.stdout, out.stderr);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let summary = &report["summary"];
    let number = |key: &str| summary[key].as_f64().unwrap_or_else(|| panic!("{repo}: summary.{key}"));
    let controls: Vec<bool> = report["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["expected"].as_array().unwrap().is_empty())
        .map(|s| !s["retrieved"].as_array().unwrap().is_empty())
        .collect();
    Figures {
        governed: summary["governed"].as_u64().unwrap(),
        r3: number("mean_recall_at_k"),
        r1: number("mean_recall_at_1"),
        mrr: number("mrr"),
        ndcg: number("mean_ndcg_at_k"),
        injected: controls.iter().filter(|&&c| c).count() as u64,
        controls: controls.len() as u64,
    }
}

/// The cells of the table rows of `section` (from its heading to the next
/// heading of level 2) whose first cell is `name`, or `name` and a
/// parenthesis (`kuma (Go)`).
fn rows<'a>(doc: &'a str, section: &str, name: &str) -> Vec<Vec<&'a str>> {
    let start = doc.find(section).unwrap_or_else(|| panic!("no section {section}"));
    let body = &doc[start + section.len()..];
    let body = &body[..body.find("\n## ").unwrap_or(body.len())];
    body.lines()
        .filter(|l| l.starts_with("| "))
        .map(|l| l.trim().trim_matches('|').split('|').map(str::trim).collect::<Vec<_>>())
        .filter(|cells| cells[0] == name || cells[0].starts_with(&format!("{name} (")))
        .collect()
}

/// Checks that `doc`'s row for `name` in `section` ends with the six cells
/// `want` (with an arrow, `classic → default`).
#[track_caller]
fn check(doc: &str, file: &str, section: &str, name: &str, want: &[String; 6]) {
    let found = rows(doc, section, name);
    assert_eq!(found.len(), 1, "{file}: one row for {name} in {section}: {found:?}");
    let cells = &found[0];
    let got = &cells[cells.len() - 6..];
    assert_eq!(got, want, "{file}: the row of {name} in {section} (run bench/realrepos.sh --markdown)");
}

fn arrows(classic: &Figures, default: &Figures) -> [String; 6] {
    let (c, d) = (classic.cells(), default.cells());
    std::array::from_fn(|i| if i == 0 { d[0].clone() } else { format!("{} → {}", c[i], d[i]) })
}

#[test]
fn the_published_tables_are_what_run_gives_today() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let (readme, results, evidence) = (read("README.md"), read("docs/results.md"), read("tests/realrepos/README.md"));
    let mut repos: Vec<String> = std::fs::read_dir(realrepos())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("mneme-gate.yaml").is_file())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    repos.sort();
    assert!(repos.len() >= 4, "{repos:?}");

    let (mut all_classic, mut all_default) = (Vec::new(), Vec::new());
    for repo in &repos {
        let (classic, default) = (figures(repo, "classic"), figures(repo, "default"));
        let both = arrows(&classic, &default);
        check(&readme, "README.md", "## On real repositories", repo, &both);
        check(&results, "docs/results.md", "## On real repositories", repo, &both);
        check(&evidence, "tests/realrepos/README.md", "## Profile `default` now", repo, &default.cells());
        all_classic.push(classic);
        all_default.push(default);
    }
    let (classic, default) = (Figures::mean(&all_classic), Figures::mean(&all_default));
    check(&results, "docs/results.md", "## On real repositories", "mean", &arrows(&classic, &default));
    check(&evidence, "tests/realrepos/README.md", "## Profile `default` now", "mean", &default.cells());
}
