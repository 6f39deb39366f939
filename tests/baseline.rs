//! The pinned baseline and the regression gate, through the real binary:
//! pinning (atomic, refusing failing runs), comparing, configurable rules,
//! incompatible baselines, `diff`, and git awareness (`--baseline-ref`,
//! `--memory-ref`, commit info, shallow clones) in temporary repositories.

use std::path::{Path, PathBuf};

mod common;
use common::{copy_tree, expect, git, run, Test, OFF};

/// The bundled example (configuration, memory, suite, pinned baseline) in a
/// temporary folder.
fn example() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    copy_tree(&root.join("scenarios"), &tmp.path().join("scenarios"));
    std::fs::create_dir_all(tmp.path().join("fixtures")).unwrap();
    std::fs::copy(root.join("fixtures/project_memory.json"), tmp.path().join("fixtures/project_memory.json")).unwrap();
    std::fs::copy(root.join("mneme-gate.yaml"), tmp.path().join("mneme-gate.yaml")).unwrap();
    copy_tree(&root.join("reports"), &tmp.path().join("reports"));
    tmp
}

fn edit(path: PathBuf, from: &str, to: &str) {
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{} does not contain {from:?}", path.display());
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
}

/// Moves PAY-005 out of the scope of the refund scenario, so that it is no
/// longer retrieved there: PASS becomes WEAK_RETRIEVAL.
fn break_refund_scope(dir: &Path) {
    edit(
        dir.join("fixtures/project_memory.json"),
        r#""scope": ["services/payments/**", "libs/ledger_client/**"],
      "priority": "high",
      "created_at": "2022-07-12T10:30:00Z""#,
        r#""scope": ["services/refunds-legacy/**"],
      "priority": "high",
      "created_at": "2022-07-12T10:30:00Z""#,
    );
}

#[test]
fn the_bundled_baseline_is_current() {
    // `mneme-gate run` from the repository root compares with the pinned
    // baseline and finds nothing changed.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = expect(run(root, &["run", "--quiet"], OFF), 0, "run at the root");
    assert!(
        out.stdout.contains("Compared with the baseline reports/baseline.json: memory file unchanged, suite unchanged"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("no scenario changed its verdict, ranking or context block"), "{}", out.stdout);
}

#[test]
fn a_regression_is_explained_and_fails_the_gate() {
    let dir = example();
    break_refund_scope(dir.path());
    let json = dir.path().join("out/report.json");
    let out = expect(
        run(
            dir.path(),
            &[
                "run",
                "--quiet",
                "--json",
                "out/report.json",
                "--markdown",
                "out/summary.md",
                "--junit",
                "out/junit.xml",
            ],
            OFF,
        ),
        1,
        "a scenario regressed",
    );
    insta::assert_snapshot!("regression_terminal", out.stdout);
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    // The comparison in every report format.
    insta::assert_snapshot!("regression_json_comparison", serde_json::to_string_pretty(&report["comparison"]).unwrap());
    let markdown = std::fs::read_to_string(dir.path().join("out/summary.md")).unwrap();
    let from = markdown.find("### Compared with the baseline").expect("the summary has the comparison");
    let to = markdown.find("### Scenarios that did not pass").unwrap_or(markdown.len());
    insta::assert_snapshot!("regression_markdown_comparison", &markdown[from..to]);
    let junit = std::fs::read_to_string(dir.path().join("out/junit.xml")).unwrap();
    let gate = &junit[junit.find("<testsuite name=\"mneme-gate.gate\"").expect("a gate testsuite")..];
    insta::assert_snapshot!("regression_junit_gate", gate);
    let changes = report["comparison"]["scenarios"].as_array().unwrap();
    let refund = changes.iter().find(|c| c["id"] == "refund-posts-ledger-reversal").expect("the scenario changed");
    assert_eq!(refund["baseline_verdict"], "PASS");
    assert_eq!(refund["current_verdict"], "WEAK_RETRIEVAL");
    assert_eq!(refund["regressed"], true);
    assert_eq!(refund["left"][0]["id"], "PAY-005");
    assert_eq!(refund["left"][0]["baseline_rank"], 1);
    assert!(refund["context_diff"].as_str().unwrap().contains("-1. [PAY-005]"), "{refund}");
    let rules: Vec<(&str, bool)> = report["gate"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["rule"].as_str().unwrap(), r["violated"].as_bool().unwrap()))
        .collect();
    assert!(rules.contains(&("verdict_regression", true)), "{rules:?}");
    assert!(rules.contains(&("missing_scenarios", false)), "{rules:?}");

    // `diff` shows the same for the two saved reports.
    let out = expect(
        run(dir.path(), &["diff", "reports/baseline.json", json.to_str().unwrap()], OFF),
        1,
        "diff finds the regression",
    );
    assert!(
        out.stdout
            .contains("refund-posts-ledger-reversal (scenarios/payments.yaml:5:5): PASS → WEAK_RETRIEVAL (REGRESSED)"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("  - PAY-005 left (was rank 1, score 60.027) [expected]"), "{}", out.stdout);
    let out = expect(run(dir.path(), &["diff", "reports/baseline.json", "reports/baseline.json"], OFF), 0, "no diff");
    assert!(out.stdout.contains("no scenario changed"), "{}", out.stdout);
}

#[test]
fn a_diff_says_whether_a_change_is_larger_than_the_noise() {
    let dir = example();
    // At k 1 the scenarios that expect two decisions miss one: that run fails its gate. Profile
    // classic, whose rankings of the bundled example the counts below were read from.
    for (k, code) in [("1", 1), ("3", 0)] {
        let report = format!("out/k{k}.json");
        let args = ["run", "--quiet", "--no-baseline", "--profile", "classic", "--k", k, "--json", &report];
        expect(run(dir.path(), &args, OFF), code, "a run");
    }
    let args = ["diff", "--allow-incompatible", "out/k1.json", "out/k3.json"];
    let out = expect(run(dir.path(), &args, OFF), 0, "k 3 finds more");
    let from = out.stdout.find("Is the change larger than the noise?").expect("the statistics are shown");
    let warning = from + out.stdout[from..].find("\nwarning: ").expect("two figures are too small to tell") + 1;
    let to = out.stdout[warning..].find('\n').map_or(out.stdout.len(), |n| warning + n);
    insta::assert_snapshot!("diff_statistics_terminal", &out.stdout[from..to]);
    let json = expect(run(dir.path(), &[&args[..], &["--json", "-"]].concat(), OFF), 0, "as JSON");
    let c: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let st = &c["statistics"];
    assert_eq!((st["paired"].as_u64(), st["governed"].as_u64()), (Some(51), Some(43)), "{st}");
    // k 1 → 3 finds the expected decision of 7 scenarios that ranked it second or third (recall 0 → 1)
    // and loses none: 7 wins of equal size, exact p = 2 / 2^7.
    let recall = &st["figures"][0];
    assert_eq!(recall["name"], "recall_at_k");
    assert_eq!((recall["wins"].as_u64(), recall["losses"].as_u64()), (Some(7), Some(0)), "{recall}");
    assert_eq!(recall["p_value"].as_f64(), Some(2.0 / 128.0), "{recall}");
    assert_eq!((recall["exact"].as_bool(), recall["significant"].as_bool()), (Some(true), Some(true)));
    // The same reports the other way round: as significant, with the interval mirrored.
    let back = expect(
        run(dir.path(), &["diff", "--allow-incompatible", "out/k3.json", "out/k1.json", "--json", "-"], OFF),
        1,
        "k 1 loses",
    );
    let b: serde_json::Value = serde_json::from_str(&back.stdout).unwrap();
    let r = &b["statistics"]["figures"][0];
    assert_eq!((r["losses"].as_u64(), r["p_value"].as_f64()), (Some(7), Some(2.0 / 128.0)), "{r}");
    let (lo, hi) = (recall["ci_low"].as_f64().unwrap(), recall["ci_high"].as_f64().unwrap());
    assert!(0.0 < lo && lo < 7.0 / 43.0 && 7.0 / 43.0 < hi, "{recall}");
    // Identical reports: no statistics section in the terminal, the figures in the JSON.
    let same = expect(run(dir.path(), &["diff", "out/k3.json", "out/k3.json"], OFF), 0, "no change");
    assert!(!same.stdout.contains("larger than the noise"), "{}", same.stdout);
}

#[test]
fn a_scenario_missing_from_the_suite_fails_unless_filtered() {
    let dir = example();
    edit(
        dir.path().join("scenarios/payments.yaml"),
        "  - id: refund-posts-ledger-reversal",
        "  - id: refund-posts-ledger-reversal-renamed",
    );
    let out = expect(run(dir.path(), &["run", "--quiet"], OFF), 1, "the suite shrank");
    assert!(out.stdout.contains("FAIL missing_scenarios"), "{}", out.stdout);
    assert!(
        out.stdout.contains("refund-posts-ledger-reversal is in the baseline but not in the suite"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("new scenarios (1): refund-posts-ledger-reversal-renamed"), "{}", out.stdout);
    // A filtered run compares only what it ran.
    let out = expect(run(dir.path(), &["run", "--quiet", "--filter", "order-*"], OFF), 0, "filtered");
    assert!(out.stdout.contains("not run (--filter)"), "{}", out.stdout);
}

#[test]
fn suite_means_are_advisory_by_default_and_configurable() {
    let dir = example();
    // Under profile classic (token overlap) the retitling below moves
    // precision; profile default's normalised scores barely notice it.
    edit(dir.path().join("mneme-gate.yaml"), "profile: default", "profile: classic");
    expect(run(dir.path(), &["baseline"], OFF), 0, "pinned under classic");
    // A retitled PAY-005 drops a rank in some scenarios and lets an
    // irrelevant decision in: precision falls, recall holds.
    edit(
        dir.path().join("fixtures/project_memory.json"),
        "\"title\": \"Refunds are new ledger entries, never updates to the original charge\"",
        "\"title\": \"Refunds are booked by the accounting service\"",
    );
    let out = expect(run(dir.path(), &["run", "--quiet"], OFF), 0, "advisory only");
    assert!(out.stdout.contains("warn suite_means"), "{}", out.stdout);
    assert!(out.stdout.contains("mean_precision_at_k: 0.767 → 0.760"), "{}", out.stdout);

    let config = dir.path().join("mneme-gate.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    let gated = text.replace("gate: {}", "gate:\n  suite_means: fail");
    assert_ne!(gated, text, "mneme-gate.yaml has `gate: {{}}`");
    std::fs::write(&config, &gated).unwrap();
    let out = expect(run(dir.path(), &["run", "--quiet"], OFF), 1, "suite_means: fail");
    assert!(out.stdout.contains("FAIL suite_means"), "{}", out.stdout);

    std::fs::write(&config, gated.replace("suite_means: fail", "suite_means: fail\n  tolerance: 0.05")).unwrap();
    // The figure table is a detail: not with --quiet.
    let out = expect(run(dir.path(), &["run"], OFF), 0, "within tolerance");
    assert!(out.stdout.contains("worse (within tolerance)"), "{}", out.stdout);

    std::fs::write(&config, gated.replace("suite_means: fail", "suite_means: sometimes")).unwrap();
    let out = expect(run(dir.path(), &["run", "--quiet"], OFF), 2, "a bad mode");
    assert!(out.stderr.contains("mneme-gate.yaml:"), "{}", out.stderr);
    assert!(
        out.stderr.contains("`gate.suite_means` is `sometimes`; use `fail`, `advisory` or `off`"),
        "{}",
        out.stderr
    );

    // A misspelt rule is refused with its place, the valid names and the
    // one it most likely meant: never read as a rule in `fail` mode.
    std::fs::write(&config, gated.replace("suite_means: fail", "suite_mean: fail")).unwrap();
    let out = expect(run(dir.path(), &["run", "--quiet"], OFF), 2, "a misspelt rule");
    let line = gated.lines().position(|l| l.contains("suite_means: fail")).unwrap() + 1;
    assert!(
        out.stderr.starts_with(&format!("mneme-gate: error: mneme-gate.yaml:{line}:3: unknown field `suite_mean`, expected one of recall, weak_retrieval, ")),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("(did you mean `suite_means`?)"), "{}", out.stderr);
}

#[test]
fn an_incompatible_baseline_is_refused_unless_allowed() {
    let dir = example();
    let out = expect(run(dir.path(), &["run", "--quiet", "--k", "5"], OFF), 2, "k differs");
    assert!(
        out.stderr.contains("the baseline reports/baseline.json is not comparable with this run"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("k: the baseline has 3, this run 5"), "{}", out.stderr);
    let out = run(dir.path(), &["run", "--quiet", "--profile", "mneme"], OFF);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("profile: the baseline used `default`, this run `mneme`"), "{}", out.stderr);
    let out = run(dir.path(), &["run", "--quiet", "--k", "5", "--allow-incompatible-baseline"], OFF);
    assert!(out.code == Some(0) || out.code == Some(1), "{}", out.stderr);
    assert!(
        out.stdout.contains("the baseline is not comparable (compared anyway): k: the baseline has 3, this run 5"),
        "{}",
        out.stdout
    );
    // A report of another schema, and a file that is not a report.
    std::fs::write(dir.path().join("reports/baseline.json"), "{\"schema\": \"mneme-gate.report/v0\"}").unwrap();
    let out = expect(run(dir.path(), &["run", "--quiet"], OFF), 2, "old schema");
    assert!(out.stderr.contains("the baseline has schema `mneme-gate.report/v0`"), "{}", out.stderr);
    std::fs::remove_file(dir.path().join("reports/baseline.json")).unwrap();
    let out = expect(run(dir.path(), &["run", "--quiet"], OFF), 2, "no baseline");
    assert!(
        out.stderr.contains("there is no baseline at reports/baseline.json: pin one with `mneme-gate baseline`"),
        "{}",
        out.stderr
    );
    expect(run(dir.path(), &["run", "--quiet", "--no-baseline"], OFF), 0, "--no-baseline");
}

#[test]
fn pinning_refuses_a_failing_run_and_is_reproducible() {
    let dir = example();
    let baseline = dir.path().join("reports/baseline.json");
    let before = std::fs::read(&baseline).unwrap();
    break_refund_scope(dir.path());

    let out = expect(run(dir.path(), &["baseline"], OFF), 1, "a failing run is not pinned");
    assert!(out.stdout.contains("not pinned: the run fails the gate's absolute rules"), "{}", out.stdout);
    assert_eq!(std::fs::read(&baseline).unwrap(), before, "the baseline is untouched");

    let out = expect(run(dir.path(), &["baseline", "--allow-failing"], OFF), 0, "pinned anyway");
    assert!(out.stdout.contains("changes against the baseline it replaces"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("refund-posts-ledger-reversal (scenarios/payments.yaml:5:5): PASS → WEAK_RETRIEVAL (REGRESSED)"),
        "{}",
        out.stdout
    );
    // The pinned line, fitted to 80 columns in a pipe.
    let pinned = &out.stdout[out.stdout.find("pinned 51").unwrap()..];
    assert_eq!(
        pinned,
        "pinned 51 scenario(s) to reports/baseline.json\n  50 PASS, 0 FAIL, 0 WEAK, 1 WEAK_RETRIEVAL, 0 MALFORMED; profile default, k 3\n"
    );
    fits_80(pinned);
    let pinned: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&baseline).unwrap()).unwrap();
    assert!(pinned.get("git").is_none() && pinned.get("comparison").is_none(), "a baseline carries no run metadata");
    // Pinning the same results again gives the same bytes.
    let first = std::fs::read(&baseline).unwrap();
    expect(run(dir.path(), &["baseline", "--allow-failing"], OFF), 0, "pinned again");
    assert_eq!(std::fs::read(&baseline).unwrap(), first);
}

/// Kills `mneme-gate baseline` (SIGKILL on Unix, as a cancelled CI job
/// would) at several moments of a pin over an existing baseline: the file is
/// always the old baseline or the new one, whole, never a part of either.
#[test]
fn a_killed_pin_leaves_the_old_or_the_new_baseline_whole() {
    // The bundled example, its suite copied nine times more under other ids:
    // 510 scenarios, a baseline of about a megabyte.
    let dir = example();
    let suite = dir.path().join("scenarios");
    for n in 1..=9 {
        let copy = suite.join(format!("copy{n}"));
        copy_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios"), &copy);
        for entry in std::fs::read_dir(&copy).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "yaml") {
                let text = std::fs::read_to_string(&path).unwrap();
                let renamed: String =
                    text.lines()
                        .map(|l| {
                            if l.trim_start().starts_with("- id: ") {
                                format!("{l}-copy{n}\n")
                            } else {
                                format!("{l}\n")
                            }
                        })
                        .collect();
                std::fs::write(&path, renamed).unwrap();
            }
        }
    }
    let pin = |out: &str, k: &str| {
        Test::new().args(["baseline", "--allow-failing"]).args(["--k", k, "--out", out]).dir(dir.path())
    };
    // The old baseline (k 3) and the new one (k 2), each pinned whole.
    pin("reports/baseline.json", "3").code(0);
    let baseline = dir.path().join("reports/baseline.json");
    let old = std::fs::read(&baseline).unwrap();
    pin("new.json", "2").code(0);
    let new = std::fs::read(dir.path().join("new.json")).unwrap();
    assert_ne!(old, new);
    assert!(old.len() > 500_000 && new.len() > 500_000, "large enough that a torn write would show");

    // What the folder holds: names, and the baseline's size and time.
    let reports = baseline.parent().unwrap().to_path_buf();
    let state = || {
        let mut names: Vec<String> = std::fs::read_dir(&reports)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        let meta = std::fs::metadata(&baseline).ok().map(|m| (m.len(), m.modified().ok()));
        (names, meta)
    };
    // Kill at moments told by what the run does, never by a clock: as soon
    // as it is started (long before it writes), at the first sign of
    // writing (a new file in the folder or the baseline touched, which is
    // where a torn write would happen), once a temporary file holds bytes,
    // and after it has ended. The run's timeout (minutes) only keeps a run
    // that never writes from hanging the test.
    #[derive(Debug, Clone, Copy)]
    enum Moment {
        Started,
        FirstWrite,
        Written,
        Ended,
    }
    let temporary_bytes = || {
        std::fs::read_dir(&reports)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .map(|e| e.metadata().map_or(0, |m| m.len()))
            .max()
            .unwrap_or(0)
    };
    use Moment::{Ended, FirstWrite, Started, Written};
    let moments = [Started, FirstWrite, Written, Started, FirstWrite, Ended, Written, FirstWrite];
    let (mut kept_old, mut got_new) = (0, 0);
    for moment in moments {
        let before = state();
        let mut child = pin("reports/baseline.json", "2").spawn();
        match moment {
            Started => {}
            FirstWrite => {
                while state() == before && child.running() {
                    std::thread::yield_now();
                }
            }
            Written => {
                while temporary_bytes() == 0 && state().1 == before.1 && child.running() {
                    std::thread::yield_now();
                }
            }
            Ended => {
                while child.running() {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
            }
        }
        child.kill(); // SIGKILL; it may have finished already
        let when = format!("{moment:?}");
        let now = std::fs::read(&baseline).unwrap();
        let parses = serde_json::from_slice::<serde_json::Value>(&now).is_ok();
        assert!(parses, "killed {when}: the baseline is not JSON ({} bytes)", now.len());
        if now == old {
            kept_old += 1;
        } else {
            assert!(now == new, "killed {when}: the baseline is neither the old one nor the new one");
            got_new += 1;
            std::fs::write(&baseline, &old).unwrap();
        }
        // A killed writer may leave its own temporary file, named after the
        // target; nothing else appears.
        for name in state().0 {
            assert!(
                name == "baseline.json" || (name.starts_with(".baseline.json.") && name.ends_with(".tmp")),
                "{name}"
            );
        }
    }
    // A pin that is left to finish replaces the baseline.
    pin("reports/baseline.json", "2").code(0);
    assert_eq!(std::fs::read(&baseline).unwrap(), new);
    assert!(kept_old > 0, "no kill came before the pin was written ({got_new} pin(s) finished first)");
    assert!(got_new > 0, "no pin was left to end");
}

/// A repository with the example on `main` and a `feature` branch.
fn repository() -> tempfile::TempDir {
    let dir = example();
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "example"]);
    git(dir.path(), &["checkout", "-q", "-b", "feature"]);
    dir
}

#[test]
fn reports_carry_the_commit_branch_and_dirty_flag() {
    let dir = repository();
    let head = git(dir.path(), &["rev-parse", "HEAD"]);
    let out = expect(run(dir.path(), &["run", "--quiet", "--json", "-"], &[]), 0, "clean tree");
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["git"]["commit"], head.as_str());
    assert_eq!(report["git"]["branch"], "feature");
    assert_eq!(report["git"]["dirty"], false);
    edit(dir.path().join("scenarios/payments.yaml"), "category: scope", "category: scope ");
    let out = expect(run(dir.path(), &["run", "--quiet", "--json", "-"], &[]), 0, "dirty tree");
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["git"]["dirty"], true);
}

#[test]
fn baseline_ref_and_memory_ref_read_the_base_revision() {
    let dir = repository();
    // The feature branch edits a decision and breaks a scenario, but does
    // not re-pin: compared with main's baseline, the regression shows, and
    // the memory diff names the edited decision.
    break_refund_scope(dir.path());
    git(dir.path(), &["commit", "-q", "-am", "narrow PAY-005"]);
    let out = expect(
        run(dir.path(), &["run", "--baseline-ref", "main", "--memory-ref", "main"], &[]),
        1,
        "regression against main",
    );
    assert!(out.stdout.contains("Decision corpus changes since main:"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("      scope: [services/payments/**, libs/ledger_client/**] → [services/refunds-legacy/**]"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("    edited in this change: PAY-005"), "{}", out.stdout);
    assert!(out.stdout.contains("reports/baseline.json at main ("), "{}", out.stdout);
    assert!(!out.stdout.contains("RE-PINS"), "{}", out.stdout);

    // Re-pinning on the branch moves the goalposts: said prominently, and a
    // failure unless accepted.
    expect(run(dir.path(), &["baseline", "--allow-failing"], &[]), 0, "re-pin");
    git(dir.path(), &["commit", "-q", "-am", "re-pin"]);
    let out = expect(run(dir.path(), &["run", "--quiet", "--baseline-ref", "main"], &[]), 1, "re-pinned");
    assert!(
        out.stdout
            .contains("THIS CHANGE RE-PINS THE BASELINE of main: 3 scenario(s) change: daily-payouts-from-ledger-balances, refund-posts-ledger-reversal, stripe-dispute-webhook-verifies-signature"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("FAIL baseline_change"), "{}", out.stdout);
    let out = run(dir.path(), &["run", "--quiet", "--baseline-ref", "main", "--accept-baseline-change"], &[]);
    assert!(out.stdout.contains("accepted with --accept-baseline-change"), "{}", out.stdout);
    assert!(out.stdout.contains("ok   baseline_change"), "{}", out.stdout);
    assert!(out.stdout.contains("ok   verdict_regression"), "{}", out.stdout);

    // A revision that does not exist.
    let out = expect(run(dir.path(), &["run", "--quiet", "--baseline-ref", "no-such-branch"], &[]), 2, "unknown rev");
    assert!(out.stderr.contains("revision `no-such-branch` is not in this repository"), "{}", out.stderr);
    // A revision that names a file, not a commit: said in the user's words.
    let out = expect(run(dir.path(), &["run", "--quiet", "--baseline-ref", "main:mneme-gate.yaml"], &[]), 2, "a blob");
    assert!(
        out.stderr.contains("revision `main:mneme-gate.yaml` names a blob (a file), not a commit"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("peeled"), "{}", out.stderr);
}

#[test]
fn a_shallow_clone_without_the_base_says_to_fetch_it() {
    let dir = repository();
    let base = git(dir.path(), &["rev-parse", "main"]);
    edit(dir.path().join("scenarios/payments.yaml"), "category: scope", "category: payments");
    git(dir.path(), &["commit", "-q", "-am", "recategorise"]);
    let clones = tempfile::tempdir().unwrap();
    let url = format!("file://{}", dir.path().display());
    git(clones.path(), &["clone", "-q", "--depth", "1", "--branch", "feature", &url, "shallow"]);
    let shallow = clones.path().join("shallow");
    let out = expect(run(&shallow, &["run", "--quiet", "--baseline-ref", &base], &[]), 2, "base not fetched");
    assert!(out.stderr.contains("is not in this clone, which is shallow"), "{}", out.stderr);
    assert!(out.stderr.contains("fetch-depth: 0"), "{}", out.stderr);
}

#[test]
fn git_flags_outside_a_repository_are_input_errors() {
    let dir = example();
    let out = expect(run(dir.path(), &["run", "--quiet", "--baseline-ref", "main"], &[]), 2, "no repository");
    assert!(out.stderr.contains("is not in a git repository"), "{}", out.stderr);
}

/// Every file under `dir` (but .git) with its bytes.
fn snapshot_tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            if e.file_name() == ".git" {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                out.push((e.path(), std::fs::read(e.path()).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn init_then_run_passes_and_init_again_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/project_memory.json"),
        dir.path().join("project_memory.json"),
    )
    .unwrap();
    let out = expect(run(dir.path(), &["init"], &[]), 0, "init");
    for written in
        ["mneme-gate.yaml", "scenarios/starter.yaml", ".github/workflows/mneme-gate.yml", "reports/baseline.json"]
    {
        assert!(dir.path().join(written).is_file(), "{written}\n{}", out.stdout);
    }
    assert!(out.stdout.contains("The starter suite has 42 scenario(s)"), "{}", out.stdout);
    fits_80(&out.stdout);
    let suite = std::fs::read_to_string(dir.path().join("scenarios/starter.yaml")).unwrap();
    assert_eq!(suite.matches("TODO(review): generated from").count(), 42);
    // A scoped decision gets a file its globs match.
    assert!(suite.contains("expect: [\"PAY-005\"]"), "{suite}");
    let out = expect(run(dir.path(), &["run"], &[]), 0, "run after init");
    assert!(out.stdout.contains("gate passed"), "{}", out.stdout);

    let before = snapshot_tree(dir.path());
    let out = expect(run(dir.path(), &["init"], &[]), 0, "init again");
    assert!(out.stdout.contains("Nothing written: every file exists"), "{}", out.stdout);
    assert_eq!(snapshot_tree(dir.path()), before, "init without --force changes nothing");
    // --force regenerates (same inputs, same bytes).
    expect(run(dir.path(), &["init", "--force"], &[]), 0, "init --force");
    assert_eq!(snapshot_tree(dir.path()), before);
}

/// Every line of `text` fits in 80 columns.
#[track_caller]
fn fits_80(text: &str) {
    for line in text.lines() {
        assert!(line.chars().count() <= 80, "{} columns: {line}\n{text}", line.chars().count());
    }
}

/// A repository with no decisions gets the ways forward, each fitted to 80
/// columns; `--first-adr` takes the first of them to a passing run.
#[test]
fn init_without_decisions_offers_a_way_forward() {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    let out = expect(run(dir.path(), &["init"], &[]), 2, "no decisions");
    assert!(
        out.stderr.starts_with("mneme-gate: error: init found no decisions to start from. Either:\n"),
        "{}",
        out.stderr
    );
    for way in ["mneme-gate init --first-adr", "mneme-gate init --memory SOURCE", "adr:PATH", "mneme-gate import"] {
        assert!(out.stderr.contains(way), "{way}: {}", out.stderr);
    }
    fits_80(&out.stderr);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "nothing written but .git");

    let out = expect(run(dir.path(), &["init", "--first-adr"], &[]), 0, "init --first-adr");
    fits_80(&out.stdout);
    assert!(
        out.stdout.starts_with("wrote       docs/adr/0001-record-architecture-decisions.md (review it)\n"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("The starter suite has 1 scenario(s) from the decisions of adr:docs/adr:"));
    let config = std::fs::read_to_string(dir.path().join("mneme-gate.yaml")).unwrap();
    assert!(config.contains("  - adr: \"docs/adr/\"\n"), "{config}");
    let out = expect(run(dir.path(), &["run"], &[]), 0, "run after init --first-adr");
    assert!(out.stdout.contains("1 scenario(s): 1 governed"), "{}", out.stdout);
    // Again: the ADR is there and left alone.
    let out = expect(run(dir.path(), &["init", "--first-adr"], &[]), 0, "again");
    assert!(out.stdout.contains("left alone  docs/adr/0001-record-architecture-decisions.md"), "{}", out.stdout);
}

/// `init` starts from `memory:` of an existing configuration, leaves the
/// file's bytes alone, and adds the starter suite when it names none.
#[test]
fn init_starts_from_the_memory_of_an_existing_configuration() {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    std::fs::create_dir_all(dir.path().join("data")).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/project_memory.json"),
        dir.path().join("data/mem.json"),
    )
    .unwrap();
    std::fs::write(dir.path().join("mneme-gate.yaml"), "# ours\nmemory: data/mem.json").unwrap();
    let out = expect(run(dir.path(), &["init"], &[]), 0, "init with memory: in the configuration");
    fits_80(&out.stdout);
    assert!(out.stdout.contains("left alone  mneme-gate.yaml"), "{}", out.stdout);
    assert!(out.stdout.contains("updated     mneme-gate.yaml (scenarios: [scenarios/], the starter suite)"));
    assert!(out.stdout.contains("The starter suite has 42 scenario(s) from the decisions of data/mem.json:"));
    let config = std::fs::read_to_string(dir.path().join("mneme-gate.yaml")).unwrap();
    assert!(config.starts_with("# ours\nmemory: data/mem.json\nscenarios: [scenarios/]"), "{config}");
    let out = expect(run(dir.path(), &["run"], &[]), 0, "run after init");
    assert!(out.stdout.contains("42 scenario(s)"), "{}", out.stdout);
}

/// `init --memory` takes any source `validate --memory` takes, here an ADR
/// folder outside the folders init looks in.
#[test]
fn init_takes_any_decision_source() {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    let records = dir.path().join("arch/records");
    std::fs::create_dir_all(&records).unwrap();
    let adrs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/examples/sources/docs/adr");
    for e in std::fs::read_dir(adrs).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), records.join(e.file_name())).unwrap();
        }
    }
    expect(run(dir.path(), &["validate", "--memory", "adr:arch/records/"], &[]), 0, "validate");
    let out = expect(run(dir.path(), &["init", "--memory", "adr:arch/records/"], &[]), 0, "init --memory adr:");
    fits_80(&out.stdout);
    assert!(out.stdout.contains("from the decisions of adr:arch/records:"), "{}", out.stdout);
    let config = std::fs::read_to_string(dir.path().join("mneme-gate.yaml")).unwrap();
    assert!(config.contains("  - adr: \"arch/records/\"\n"), "{config}");
    expect(run(dir.path(), &["run"], &[]), 0, "run after init");
    let help = expect(run(dir.path(), &["init", "--help"], &[]), 0, "init --help");
    assert!(help.stdout.contains("--memory <SOURCE>"), "{}", help.stdout);
    assert!(!help.stdout.contains("--memory <FILE>"), "{}", help.stdout);
}

/// A link where `init` would write (dangling, as a hostile pull request
/// would leave it, or to a file outside) is refused before anything is
/// written, with or without `--force`.
#[test]
fn init_refuses_to_write_through_a_symbolic_link() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/project_memory.json"),
        dir.path().join("project_memory.json"),
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join(".github/workflows")).unwrap();
    let target = outside.path().join("planted.yml");
    std::os::unix::fs::symlink(&target, dir.path().join(".github/workflows/mneme-gate.yml")).unwrap();
    for args in [&["init"][..], &["init", "--force"]] {
        let out = expect(run(dir.path(), args, &[]), 2, "a dangling link");
        assert!(out.stderr.contains(".github/workflows/mneme-gate.yml is a symbolic link"), "{}", out.stderr);
        assert!(!target.exists(), "nothing was written through the link");
        assert!(!dir.path().join("mneme-gate.yaml").exists(), "nothing was written at all");
    }
}
