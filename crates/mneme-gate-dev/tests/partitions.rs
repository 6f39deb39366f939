//! `mneme-gate run --partition K/N` and `merge` on generated suites (the
//! product's own tests do the bundled suite and the refusals,
//! `tests/partitions.rs`): a native suite of 10,000 scenarios, and a
//! Mneme-layout one under profile `mneme`, run once and in N partitions for
//! N from 1 to 5; every report file, the terminal report and the exit code
//! of the merge are the single run's, byte for byte.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// The `mneme-gate` binary as shipped, in this build's target folder and
/// profile (as `tests/dev.rs` finds it).
fn product() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let dev = Path::new(env!("CARGO_BIN_EXE_mneme-gate-dev"));
        let profile_dir = dev.parent().unwrap();
        let profile = match profile_dir.file_name().unwrap().to_str().unwrap() {
            "debug" => "dev",
            other => other,
        };
        let status = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "-p", "mneme-gate", "--bin", "mneme-gate"])
            .args(["--profile", profile, "--target-dir"])
            .arg(profile_dir.parent().unwrap())
            .current_dir(root())
            .status()
            .expect("cargo runs");
        assert!(status.success(), "cargo build -p mneme-gate failed");
        profile_dir.join(format!("mneme-gate{}", std::env::consts::EXE_SUFFIX))
    })
}

fn mneme_gate(dir: &Path, args: &[String]) -> Output {
    Command::new(product())
        .args(args)
        .current_dir(dir)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("COLUMNS")
        .env("MNEME_GATE_GIT", "off")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn synth(dir: &Path, decisions: usize, scenarios: usize, layout: &str) {
    let out = Command::new(env!("CARGO_BIN_EXE_mneme-gate-dev"))
        .args(["synth", "--decisions", &decisions.to_string(), "--scenarios", &scenarios.to_string()])
        .args(["--seed", "11", "--layout", layout, "--out"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

const FORMATS: [(&str, &str); 5] = [
    ("--json", "report.json"),
    ("--junit", "junit.xml"),
    ("--markdown", "summary.md"),
    ("--trec-run", "trec.run"),
    ("--trec-qrels", "trec.qrels"),
];

/// Exit code, terminal report and every report file of a run or merge
/// writing into `out`.
fn outcome(output: Output, out: &Path) -> (Option<i32>, String, Vec<Vec<u8>>) {
    let files = FORMATS.iter().map(|(_, name)| std::fs::read(out.join(name)).unwrap_or_default()).collect();
    (output.status.code(), String::from_utf8(output.stdout).unwrap(), files)
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

fn with_reports(mut args: Vec<String>, out: &Path) -> Vec<String> {
    for (flag, name) in FORMATS {
        args.push(flag.into());
        args.push(out.join(name).display().to_string());
    }
    args
}

/// The single run, then for N from 1 to 5 the N partitions (run side by
/// side) merged: the same outcome every time.
fn partitions_merge_to_the_single_run(dir: &Path, run: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let single_dir = tmp.path().join("single");
    std::fs::create_dir(&single_dir).unwrap();
    let args = with_reports([strings(&["run", "--jobs", "2"]), strings(run)].concat(), &single_dir);
    let single = outcome(mneme_gate(dir, &args), &single_dir);
    assert!(matches!(single.0, Some(0 | 1)), "the single run failed:\n{}", single.1);
    for n in 1..=5usize {
        let parts: Vec<String> =
            (1..=n).map(|k| tmp.path().join(format!("part-{k}-of-{n}.json")).display().to_string()).collect();
        std::thread::scope(|scope| {
            let runs: Vec<_> = parts
                .iter()
                .enumerate()
                .map(|(k, part)| {
                    let slice = format!("{}/{n}", k + 1);
                    let args = [
                        strings(&["run", "--jobs", "1"]),
                        strings(run),
                        strings(&["--partition", &slice, "--json", part]),
                    ]
                    .concat();
                    scope.spawn(move || mneme_gate(dir, &args))
                })
                .collect();
            for run in runs {
                let out = run.join().unwrap();
                assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            }
        });
        let merged_dir = tmp.path().join(format!("merged-{n}"));
        std::fs::create_dir(&merged_dir).unwrap();
        let args = with_reports([strings(&["merge", "--no-baseline"]), parts].concat(), &merged_dir);
        let merged = outcome(mneme_gate(dir, &args), &merged_dir);
        assert_eq!(merged.0, single.0, "N={n}: exit code");
        assert!(merged.1 == single.1, "N={n}: the terminal report differs");
        for ((name, _), (want, got)) in FORMATS.iter().zip(single.2.iter().zip(&merged.2)) {
            assert!(!want.is_empty(), "{name}: not written");
            assert!(want == got, "N={n}: {name} differs from the single run's");
        }
    }
}

#[test]
fn ten_thousand_generated_scenarios_merge_from_1_to_5_partitions_to_the_single_run() {
    let tmp = tempfile::tempdir().unwrap();
    synth(tmp.path(), 200, 10_000, "native");
    let run = ["--no-baseline", "--memory", "project_memory.json", "--scenarios", "scenarios"];
    partitions_merge_to_the_single_run(tmp.path(), &run);
}

#[test]
fn a_generated_mneme_layout_suite_merges_to_the_single_run_under_profile_mneme() {
    let tmp = tempfile::tempdir().unwrap();
    synth(tmp.path(), 120, 300, "mneme");
    let run = ["--no-baseline", "--profile", "mneme", "--memory", "project_memory.json", "--scenarios", "scenarios"];
    partitions_merge_to_the_single_run(tmp.path(), &run);
}
