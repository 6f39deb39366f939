//! `mneme-gate draft` on the real binary, in throw-away git repositories made
//! with the git command (fixed dates, so hashes and output are the same on
//! every run): the suite, the review page and the terminal as snapshots, a
//! second draft that keeps a reviewed scenario, the gate that does not count
//! pending ones, and the refusals.

mod common;

use std::path::Path;

use common::{expect, run, OFF};

/// git with a fixed identity and dates.
fn git(dir: &Path, args: &[&str]) {
    let dates = [("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z"), ("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")];
    common::git_with(dir, args, &dates);
}

fn commit(dir: &Path, message: &str, files: &[(&str, &str)]) {
    for (path, text) in files {
        let full = dir.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
        git(dir, &["add", path]);
    }
    git(dir, &["commit", "-q", "-m", message]);
}

const ORDERS: &str = "# 12. Store orders in Postgres\n\n## Status\n\nAccepted\n\n## Decision\n\nThe orders service stores orders in Postgres, never in Redis.\n";
const OUTBOX: &str = "# 3. Publish payment events through the outbox\n\n## Status\n\nAccepted\n\n## Decision\n\nPayment events go through the transactional outbox table.\n";

fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    git(d, &["init", "-q"]);
    commit(
        d,
        "Add the decisions",
        &[("docs/adr/0012-store-orders-in-postgres.md", ORDERS), ("docs/adr/0003-outbox.md", OUTBOX)],
    );
    commit(
        d,
        "Write each order in one Postgres transaction",
        &[
            ("docs/adr/0012-store-orders-in-postgres.md", &format!("{ORDERS}\nOne transaction per order.\n")),
            ("services/orders/store.py", "def save(order):\n    pass\n"),
        ],
    );
    commit(
        d,
        "Emit refund events <b>now</b> (ADR-0003)",
        &[("services/payments/refunds.py", "def refund():\n    pass\n")],
    );
    commit(d, "Fix a typo in the README", &[("README.md", "Hello\n")]);
    dir
}

const DRAFT: &[&str] =
    &["draft", "--memory", "adr:docs/adr/", "--out", "scenarios/drafted.yaml", "--html", "review.html"];

#[test]
fn draft_writes_a_suite_to_review_and_its_page() {
    let dir = repository();
    let d = dir.path();
    let out = expect(run(d, DRAFT, OFF), 0, "draft");
    insta::assert_snapshot!("draft_stdout", out.stdout);
    let suite = std::fs::read_to_string(d.join("scenarios/drafted.yaml")).unwrap();
    insta::assert_snapshot!("draft_suite", suite);
    let head = common::git(d, &["rev-parse", "HEAD~2"]);
    assert!(suite.contains(&format!("    commit: \"{head}\"\n")), "the full hash of the commit:\n{suite}");
    let page = std::fs::read_to_string(d.join("review.html")).unwrap();
    insta::assert_snapshot!("draft_review_page", page);
    assert!(!page.contains("<b>now</b>") && page.contains("&lt;b&gt;now&lt;/b&gt;"));

    // The drafted suite runs; the gate counts none of it, and says so.
    let args =
        ["run", "--memory", "adr:docs/adr/", "--scenarios", "scenarios/", "--no-baseline", "--markdown", "summary.md"];
    let out = expect(run(d, &args, OFF), 0, "run of a pending suite");
    assert!(out.stdout.contains("3 of 3 scenario(s) wait for review"), "{}", out.stdout);
    let summary = std::fs::read_to_string(d.join("summary.md")).unwrap();
    assert!(summary.contains("3 of 3 scenario(s) wait for review"), "{summary}");
    // The same history drafts the same bytes.
    expect(run(d, DRAFT, OFF), 0, "draft again");
    assert_eq!(std::fs::read_to_string(d.join("scenarios/drafted.yaml")).unwrap(), suite);
}

#[test]
fn a_reviewed_scenario_survives_the_next_draft() {
    let dir = repository();
    let d = dir.path();
    expect(run(d, DRAFT, OFF), 0, "draft");
    let path = d.join("scenarios/drafted.yaml");
    let suite = std::fs::read_to_string(&path).unwrap();
    // A person reviews the scenario of the transaction commit.
    let at = suite.find("task: \"Write each order").unwrap();
    let start = suite[..at].rfind("  - id:").unwrap();
    let block_end = suite[start + 1..].find("  - id:").map_or(suite.len(), |e| start + 1 + e);
    let reviewed = suite[start..block_end].replacen("    review: pending\n", "", 1).replacen(
        "Write each order in one Postgres transaction",
        "Save an order in one transaction",
        1,
    );
    let edited = format!("{}{}{}", &suite[..start], reviewed, &suite[block_end..]);
    std::fs::write(&path, &edited).unwrap();
    commit(d, "Note the outbox in the refunds (adr 3)", &[("services/payments/notes.py", "x = 1\n")]);
    let out = expect(run(d, DRAFT, OFF), 0, "draft after a review");
    assert!(out.stdout.contains("1 reviewed kept as they were"), "{}", out.stdout);
    let again = std::fs::read_to_string(&path).unwrap();
    assert!(again.contains(&reviewed), "the reviewed scenario is kept byte for byte:\n{again}");
    assert!(again.contains("Note the outbox in the refunds"), "{again}");
    // The reviewed scenario counts: the gate sees it.
    let args = ["run", "--memory", "adr:docs/adr/", "--scenarios", "scenarios/", "--no-baseline"];
    let out = expect(run(d, &args, OFF), 0, "run");
    assert!(out.stdout.contains("3 of 4 scenario(s) wait for review"), "{}", out.stdout);
}

#[test]
fn draft_refuses_what_it_cannot_do_safely() {
    let dir = repository();
    let d = dir.path();
    let out = expect(run(d, &["draft", "--memory", "adr:docs/adr/", "--out", "../outside.yaml"], OFF), 2, "outside");
    assert!(out.stderr.contains("is outside the repository"), "{}", out.stderr);
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), d.join("linked")).unwrap();
    let out =
        expect(run(d, &["draft", "--memory", "adr:docs/adr/", "--out", "linked/x.yaml"], OFF), 2, "through a link");
    assert!(out.stderr.contains("is outside the repository"), "{}", out.stderr);
    assert!(std::fs::read_dir(elsewhere.path()).unwrap().next().is_none(), "nothing written through the link");
    expect(run(d, &["draft", "--memory", "adr:docs/adr/", "--out", "x.yaml", "--max", "0"], OFF), 2, "--max 0");
    let out = expect(
        run(d, &["draft", "--memory", "adr:docs/adr/", "--out", "x.yaml", "--since", "nope"], OFF),
        2,
        "--since",
    );
    assert!(out.stderr.contains("`nope`"), "{}", out.stderr);
    // A file that is not a suite is never overwritten.
    std::fs::write(d.join("broken.yaml"), "scenarios:\n  - id: a\n    taks: t\n").unwrap();
    let out = expect(run(d, &["draft", "--memory", "adr:docs/adr/", "--out", "broken.yaml"], OFF), 2, "broken");
    assert!(out.stderr.contains("left alone"), "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(d.join("broken.yaml")).unwrap(), "scenarios:\n  - id: a\n    taks: t\n");
    // No history: a folder that is not a repository.
    let bare = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(bare.path().join("docs/adr")).unwrap();
    std::fs::write(bare.path().join("docs/adr/0003-outbox.md"), OUTBOX).unwrap();
    let out = expect(run(bare.path(), &["draft", "--memory", "adr:docs/adr/", "--out", "x.yaml"], OFF), 2, "no git");
    assert!(out.stderr.contains("inside a git repository"), "{}", out.stderr);
}

#[test]
fn init_drafts_from_the_history_and_says_what_the_baseline_rests_on() {
    let dir = repository();
    let d = dir.path();
    // init's lines are fitted to 80 columns: the sentences are compared with
    // their line breaks as spaces.
    let flat = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let out = expect(run(d, &["init"], OFF), 0, "init with a history");
    assert!(out.stdout.contains("wrote       scenarios/drafted.yaml"), "{}", out.stdout);
    assert!(!d.join("scenarios/starter.yaml").exists(), "{}", out.stdout);
    assert!(
        flat(&out.stdout)
            .contains("gate passed; all 3 wait for review, so this gate rests on no reviewed scenario yet"),
        "{}",
        out.stdout
    );
    let baseline = std::fs::read_to_string(d.join("reports/baseline.json")).unwrap();
    assert!(baseline.contains("3 of 3 scenario(s) wait for review (`review: pending`) (all of them"), "{baseline}");
    assert_eq!(baseline.matches("\"review_pending\": true").count(), 3, "{baseline}");

    // Without a history: the title-as-task starters, marked as such.
    let bare = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(bare.path().join("docs/adr")).unwrap();
    std::fs::write(bare.path().join("docs/adr/0012-store-orders-in-postgres.md"), ORDERS).unwrap();
    let out = expect(run(bare.path(), &["init"], OFF), 0, "init without a history");
    assert!(out.stdout.contains("wrote       scenarios/starter.yaml"), "{}", out.stdout);
    assert!(flat(&out.stdout).contains("each task is a decision's own"), "{}", out.stdout);
    assert!(flat(&out.stdout).contains("all 1 wait for review"), "{}", out.stdout);
    let suite = std::fs::read_to_string(bare.path().join("scenarios/starter.yaml")).unwrap();
    assert!(suite.contains("    review: pending\n    category: starter\n"), "{suite}");
}

#[test]
fn validate_says_how_many_scenarios_wait_for_review() {
    let dir = repository();
    let d = dir.path();
    expect(run(d, &["init"], OFF), 0, "init");
    let out = expect(run(d, &["validate"], OFF), 0, "validate");
    assert!(out.stdout.contains("suite: 3 of 3 scenario(s) wait for review (`review: pending`)"), "{}", out.stdout);
    let out = expect(run(d, &["validate", "--format", "json"], OFF), 0, "validate --format json");
    assert!(
        out.stdout.contains("\"suite\": {\n    \"scenarios\": 3,\n    \"review_pending\": 3\n  }"),
        "{}",
        out.stdout
    );
}
