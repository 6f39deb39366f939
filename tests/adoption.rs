//! Adoption without friction, through the real binary in
//! temporary git repositories: the pull request that adds mneme-gate passes
//! its own gate, an accepted re-pin says who accepted it, errors in CI are
//! annotations, the Markdown summary is added to the job summary, and
//! `init` writes a workflow that names a real release and keeps the
//! generated reports out of git.

use std::path::Path;
use std::process::Command;

mod common;

use common::{expect, git, run};

/// A repository whose `main` has a memory file and nothing of mneme-gate.
fn repository_with_a_memory_file() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/project_memory.json"),
        dir.path().join("project_memory.json"),
    )
    .unwrap();
    git(dir.path(), &["add", "project_memory.json"]);
    git(dir.path(), &["commit", "-q", "-m", "the team's decisions"]);
    dir
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

// Item 1: `init` on a branch, committed; `run --baseline-ref main` passes
// and says that this change pins the first baseline, in every report.
#[test]
fn the_pull_request_that_adopts_mneme_gate_passes_its_own_gate() {
    let dir = repository_with_a_memory_file();
    let d = dir.path();
    git(d, &["checkout", "-q", "-b", "adopt-mneme-gate"]);
    expect(run(d, &["init"], &[]), 0, "init");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "adopt mneme-gate"]);

    let args = ["run", "--quiet", "--baseline-ref", "main", "--json", "report.json", "--markdown", "summary.md"];
    let out = expect(run(d, &args, &[]), 0, "the adopting pull request");
    assert!(out.stdout.contains("THIS CHANGE PINS THE FIRST BASELINE (main has none)"), "{}", out.stdout);
    assert!(out.stdout.contains("no goalposts to move: compared with the baseline this change pins"), "{}", out.stdout);
    assert!(out.stdout.contains("\nok   baseline_change:"), "{}", out.stdout);
    assert!(out.stdout.contains("gate passed"), "{}", out.stdout);
    assert!(!out.stdout.contains("--accept-baseline-change"), "nothing to accept: {}", out.stdout);

    let report = json(&std::fs::read_to_string(d.join("report.json")).unwrap());
    let change = &report["comparison"]["baseline_change"];
    assert_eq!(change["first_pin"], true, "{change}");
    assert_eq!(change["accepted"], false, "{change}");
    assert_eq!(change["revision"], "main", "{change}");
    let rule = report["gate"]["rules"].as_array().unwrap().iter().find(|r| r["rule"] == "baseline_change").unwrap();
    assert_eq!(rule["violated"], false, "{rule}");
    let md = std::fs::read_to_string(d.join("summary.md")).unwrap();
    assert!(md.contains("> **This change pins the first baseline**: `main` has none"), "{md}");
    assert!(!md.contains("re-pins"), "{md}");
}

/// A repository where `init` was committed on `main`, and a branch that
/// adds a scenario and re-pins the baseline.
fn repository_with_a_re_pin() -> tempfile::TempDir {
    let dir = repository_with_a_memory_file();
    let d = dir.path();
    expect(run(d, &["init"], &[]), 0, "init");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "adopt mneme-gate"]);
    git(d, &["checkout", "-q", "-b", "more-scenarios"]);
    let suite = d.join("scenarios/starter.yaml");
    let mut text = std::fs::read_to_string(&suite).unwrap();
    text.push_str("  - id: readme-typo\n    task: Fix a typo in the README\n    expect: []\n");
    std::fs::write(&suite, text).unwrap();
    expect(run(d, &["baseline"], &[]), 0, "re-pin");
    git(d, &["commit", "-q", "-am", "a control scenario, re-pinned"]);
    dir
}

// Item 2: an accepted re-pin says who (or what) accepted it, escaped, in
// the terminal report, the Markdown summary and the JSON report.
#[test]
fn an_accepted_re_pin_says_who_accepted_it() {
    let dir = repository_with_a_re_pin();
    let d = dir.path();
    let out = expect(run(d, &["run", "--quiet", "--baseline-ref", "main"], &[]), 1, "not accepted");
    assert!(out.stdout.contains("FAIL baseline_change"), "{}", out.stdout);

    let by = "the label `mneme-gate:accept-baseline` on pull request #7 (opened by @octo)";
    let hostile = format!("{by}\n::add-mask::SECRET\u{1b}[31m");
    let args = [
        "run",
        "--quiet",
        "--baseline-ref",
        "main",
        "--accept-baseline-change",
        "--accepted-by",
        &hostile,
        "--json",
        "report.json",
        "--markdown",
        "summary.md",
    ];
    let out = expect(run(d, &args, &[]), 0, "accepted by the label");
    assert!(
        out.stdout.contains(&format!(
            "       accepted with --accept-baseline-change, by {by}\\n::add-mask::SECRET\\u{{1b}}[31m: compared with"
        )),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.lines().any(|l| l.starts_with("::")), "{}", out.stdout);
    let report = json(&std::fs::read_to_string(d.join("report.json")).unwrap());
    let change = &report["comparison"]["baseline_change"];
    assert_eq!(change["accepted"], true, "{change}");
    assert_eq!(change["accepted_by"], hostile.as_str(), "the JSON value is what the run was told");
    assert_eq!(change["added"], serde_json::json!(["readme-typo"]), "{change}");
    let md = std::fs::read_to_string(d.join("summary.md")).unwrap();
    assert!(
        md.contains(&format!("Accepted with `--accept-baseline-change`, by {by} ::add-mask::SECRET\\u{{1b}}[31m.")),
        "{md}"
    );
    assert!(!md.contains('\u{1b}') && !md.lines().any(|l| l.trim_start().starts_with("::")), "{md}");

    // Without --accept-baseline-change there is nothing to attribute.
    let out = run(d, &["run", "--baseline-ref", "main", "--accepted-by", "someone"], &[]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("--accept-baseline-change"), "{}", out.stderr);
    // Without a re-pin, the baseline is main's and the field is absent.
    git(d, &["checkout", "-q", "main"]);
    let out = expect(
        run(
            d,
            &[
                "run",
                "--quiet",
                "--baseline-ref",
                "main",
                "--accept-baseline-change",
                "--accepted-by",
                by,
                "--json",
                "-",
            ],
            &[],
        ),
        0,
        "nothing re-pinned",
    );
    assert!(json(&out.stdout)["comparison"].get("baseline_change").is_none(), "{}", out.stdout);
}

/// The `::error` lines of a text, unescaped as the runner reads them.
fn error_annotations(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("::error title=mneme-gate::"))
        .map(|m| m.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%"))
        .collect()
}

// Item 4: an exit 2 or 3 in GitHub Actions is an `::error` annotation with
// the message, not only a line in the log.
#[test]
fn errors_in_github_actions_are_annotations() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let github = [("GITHUB_ACTIONS", "true")];
    let missing = ["run", "--memory", "no 100%.json", "--scenarios", "s"];

    let out = expect(run(d, &missing, &github), 2, "no memory file");
    let annotations = error_annotations(&out.stderr);
    assert_eq!(annotations.len(), 1, "{}", out.stderr);
    let note = out.stderr.lines().next().unwrap().strip_prefix("mneme-gate: error: ").unwrap();
    assert_eq!(annotations[0], note, "the annotation says what the log says");
    assert!(note.contains("no 100%.json"), "{note}");
    assert!(out.stderr.contains("no 100%25.json"), "`%` is escaped: {}", out.stderr);

    // Outside GitHub Actions, or told not to, there is none.
    let out = expect(run(d, &missing, &[]), 2, "outside CI");
    assert!(error_annotations(&out.stderr).is_empty(), "{}", out.stderr);
    let out = expect(run(d, &[&missing[..], &["--annotations", "off"]].concat(), &github), 2, "--annotations off");
    assert!(error_annotations(&out.stderr).is_empty(), "{}", out.stderr);
    // Asked for, anywhere.
    let out = expect(run(d, &[&missing[..], &["--annotations", "github"]].concat(), &[]), 2, "--annotations github");
    assert_eq!(error_annotations(&out.stderr).len(), 1, "{}", out.stderr);

    // A mistake on the command line, and an infrastructure error (exit 3).
    let out = expect(run(d, &["run", "--no-such-flag"], &github), 2, "unknown flag");
    let annotations = error_annotations(&out.stderr);
    assert_eq!(annotations.len(), 1, "{}", out.stderr);
    assert!(annotations[0].starts_with("unexpected argument '--no-such-flag' found"), "{annotations:?}");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = expect(run(root, &["run", "--quiet", "--json", "/dev/full"], &github), 3, "a full disk");
    let annotations = error_annotations(&out.stderr);
    assert_eq!(annotations.len(), 1, "{}", out.stderr);
    assert!(annotations[0].starts_with("cannot write /dev/full"), "{annotations:?}");
}

// Item 4: `--markdown "$GITHUB_STEP_SUMMARY"` adds to the job summary that
// the job's other steps share; any other file is replaced whole.
#[test]
fn the_markdown_summary_is_added_to_the_job_summary() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::create_dir(d.join("summary")).unwrap();
    let summary = d.join("summary/step_summary.md");
    std::fs::write(&summary, "## An earlier step\n\nIt wrote this.").unwrap();
    let env = [("GITHUB_STEP_SUMMARY", summary.to_str().unwrap())];
    // The same file under another name.
    let other_name = d.join("summary/../summary/./step_summary.md");
    let args = ["run", "--quiet", "--no-baseline", "--markdown", other_name.to_str().unwrap()];
    expect(run(root, &args, &env), 0, "first run");
    let once = std::fs::read_to_string(&summary).unwrap();
    assert!(
        once.starts_with("## An earlier step\n\nIt wrote this.\n\n## ✅ mneme-gate: gate passed"),
        "kept, then a blank line: {once}"
    );
    assert_eq!(once.matches("mneme-gate: gate passed").count(), 1, "{once}");
    expect(run(root, &args, &env), 0, "second run");
    let twice = std::fs::read_to_string(&summary).unwrap();
    assert!(twice.starts_with(&once), "{twice}");
    assert!(twice[once.len()..].starts_with("\n## ✅ mneme-gate: gate passed"), "{twice}");
    assert_eq!(twice.matches("mneme-gate: gate passed").count(), 2, "{twice}");

    // Another file is written whole, as before.
    let report = d.join("report.md");
    std::fs::write(&report, "stale").unwrap();
    let args = ["run", "--quiet", "--no-baseline", "--markdown", report.to_str().unwrap()];
    expect(run(root, &args, &env), 0, "another file");
    let text = std::fs::read_to_string(&report).unwrap();
    assert!(!text.contains("stale") && text.starts_with("## ✅ mneme-gate: gate passed"), "{text}");
    assert_eq!(std::fs::read_to_string(&summary).unwrap(), twice, "the job summary is untouched");
}

// Item 4: `init` keeps the generated reports out of git, never the
// baseline, once, and refuses a `.gitignore` that is a symbolic link.
#[test]
fn init_adds_the_generated_reports_to_gitignore() {
    let dir = repository_with_a_memory_file();
    let d = dir.path();
    std::fs::write(d.join(".gitignore"), "target").unwrap();
    let out = expect(run(d, &["init"], &[]), 0, "init");
    assert!(out.stdout.contains("updated     .gitignore"), "{}", out.stdout);
    let text = std::fs::read_to_string(d.join(".gitignore")).unwrap();
    assert!(text.starts_with("target\n# "), "{text}");
    assert!(text.ends_with("\nreports/junit.xml\nreports/*.md\n"), "{text}");
    std::fs::write(d.join("reports/junit.xml"), "<testsuites/>").unwrap();
    std::fs::write(d.join("reports/summary.md"), "# summary").unwrap();
    git(d, &["add", "-A"]);
    let tracked = git(d, &["ls-files"]);
    assert!(tracked.lines().any(|l| l == "reports/baseline.json"), "the baseline is committed:\n{tracked}");
    assert!(!tracked.contains("reports/junit.xml") && !tracked.contains("reports/summary.md"), "{tracked}");

    let out = expect(run(d, &["init"], &[]), 0, "init again");
    assert!(out.stdout.contains("Nothing written"), "{}", out.stdout);
    assert_eq!(std::fs::read_to_string(d.join(".gitignore")).unwrap(), text, "unchanged");

    // A `.gitignore` that points elsewhere is not written through.
    let fresh = repository_with_a_memory_file();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("planted");
    std::os::unix::fs::symlink(&target, fresh.path().join(".gitignore")).unwrap();
    let out = expect(run(fresh.path(), &["init"], &[]), 2, "a link");
    assert!(out.stderr.contains(".gitignore is a symbolic link"), "{}", out.stderr);
    assert!(!target.exists() && !fresh.path().join("mneme-gate.yaml").exists(), "nothing written");
}

// Item 3: the workflow `init` writes names this repository's action at a
// ref that exists before any release: a binary built from source (not a
// release build) names the main branch, which the action builds from
// source (action/install.sh falls back to it for any ref that is not a
// release tag); it reruns on labels.
#[test]
fn init_writes_a_workflow_that_works_before_any_release() {
    let dir = repository_with_a_memory_file();
    expect(run(dir.path(), &["init"], &[]), 0, "init");
    let workflow = std::fs::read_to_string(dir.path().join(".github/workflows/mneme-gate.yml")).unwrap();
    assert!(workflow.contains("        uses: mneme-gate/mneme-gate@main\n"), "{workflow}");
    assert!(!workflow.contains(&format!("@v{}", env!("CARGO_PKG_VERSION"))), "{workflow}");
    let script = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("action/install.sh")).unwrap();
    assert!(script.contains("is not a release tag (vX.Y.Z)"), "install.sh builds any other ref from source");
    insta::assert_snapshot!("init_workflow", workflow);
}

// The README's Install section says plainly that no release exists yet and
// how to build from source, and names the workflow ref `init` writes;
// docs/install.md says what a tag would publish and what a build needs. The
// `cargo install --git` line names the package (the repository is a
// workspace with more than one binary: without it, cargo refuses).
#[test]
fn the_install_section_promises_only_what_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let start = readme.find("\n## Install\n").expect("an Install section");
    let end = readme[start + 1..].find("\n## ").map_or(readme.len(), |i| start + 1 + i);
    let install = &readme[start..end];
    let repository = env!("CARGO_PKG_REPOSITORY");
    for needle in [
        "There is no release yet".to_string(),
        format!("cargo install --locked --git {repository} mneme-gate\n"),
        "cargo install --locked --path .".to_string(),
        "uses: mneme-gate/mneme-gate@main".to_string(),
        "(docs/install.md)".to_string(),
    ] {
        assert!(install.contains(&needle), "the Install section lacks {needle:?}:\n{install}");
    }
    let page = std::fs::read_to_string(root.join("docs/install.md")).unwrap();
    for needle in ["will publish", "## Prerequisites", "There is no release yet"] {
        assert!(page.contains(needle) || install.contains(needle), "docs/install.md lacks {needle:?}:\n{page}");
    }
    // No command that needs a release that does not exist.
    let version = env!("CARGO_PKG_VERSION");
    for file in ["README.md", "docs/install.md", "docs/ci.md"] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        for stale in
            [format!("@v{version}"), format!("ghcr.io/mneme-gate/mneme-gate:{version}"), format!("--tag v{version}")]
        {
            assert!(!text.contains(&stale), "{file} names a release: {stale}");
        }
    }
    // The targets the release workflow builds are the ones the section lists
    // and the ones the action's install script maps runners to.
    let release = std::fs::read_to_string(root.join(".github/workflows/release.yml")).unwrap();
    let script = std::fs::read_to_string(root.join("action/install.sh")).unwrap();
    for target in [
        "x86_64-unknown-linux-musl",
        "aarch64-unknown-linux-musl",
        "x86_64-apple-darwin",
        "aarch64-apple-darwin",
        "x86_64-pc-windows-msvc",
    ] {
        assert!(page.contains(target), "{target} in docs/install.md");
        assert!(release.contains(&format!("target: {target},")), "{target} in release.yml");
        assert!(script.contains(&format!("target={target}")), "{target} in action/install.sh");
    }
}

// Item 7: `.ci/run` names every missing prerequisite, one line each, and
// stops before any work: its prerequisite block, run where nothing is on
// PATH.
#[test]
fn ci_run_names_every_missing_prerequisite_before_any_work() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = std::fs::read_to_string(root.join(".ci/run")).unwrap();
    let first_work = script.find("\n# Nothing a step writes leaves this checkout").expect(".ci/run enters its sandbox");
    let checks = &script[..first_work];
    assert!(checks.trim_end().ends_with("[ \"$missing\" = 0 ] || exit 2"), "{checks}");
    let empty = tempfile::tempdir().unwrap();
    let out = Command::new("/bin/bash")
        .args(["-c", checks, "ci-run"])
        .env_clear()
        .env("PATH", empty.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    for tool in
        ["cargo", "rustup", "rustfmt", "cargo-clippy", "cc", "python3", "git", "jq", "curl", "sha256sum", "node", "npm"]
    {
        let lines = stderr.lines().filter(|l| l.starts_with(&format!(".ci/run: needs {tool}: "))).count();
        assert_eq!(lines, 1, "one line for {tool}:\n{stderr}");
    }

    // A python3 without venv (and too old), and a rustup without nightly.
    let stubs = tempfile::tempdir().unwrap();
    let stub = |name: &str, body: &str| {
        use std::os::unix::fs::PermissionsExt;
        let path = stubs.path().join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    stub("python3", "[ \"$1\" = --version ] && echo 'Python 3.8.10'; exit 1");
    stub("rustup", "echo 'stable-x86_64-unknown-linux-gnu (default)'");
    let grep = std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .map(|dir| dir.join("grep"))
        .find(|p| p.is_file())
        .expect("grep on PATH");
    stub("grep", &format!("exec {} \"$@\"", grep.display()));
    let out = Command::new("/bin/bash")
        .args(["-c", checks, "ci-run"])
        .env_clear()
        .env("PATH", stubs.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    for line in [
        ".ci/run: needs Python 3.9 or later; python3 is Python 3.8.10",
        ".ci/run: needs Python's venv and ensurepip modules (pip in a venv): install python3-venv",
        ".ci/run: needs the nightly toolchain for .ci/fuzz.sh: rustup toolchain install nightly --profile minimal",
    ] {
        assert!(stderr.lines().any(|l| l == line), "{line}\n{stderr}");
    }
    assert!(!stderr.contains("needs python3:") && !stderr.contains("needs rustup:"), "{stderr}");
}

// `.ci/run` writes only inside its checkout. Every step runs with
// HOME in target/ci-sandbox/ and TMPDIR in a folder of the run's own outside
// the checkout (the tests' throw-away folders must not sit inside its git
// repository), both of which must be empty at the end: the check fails,
// naming what a step left, and removes them when empty.
#[test]
fn ci_run_fails_when_a_step_writes_into_home_or_tmpdir() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = std::fs::read_to_string(root.join(".ci/run")).unwrap();
    let enter = script.find("\nsandbox_enter\n").expect(".ci/run enters the sandbox");
    assert!(enter < script.find("\ncargo fmt").unwrap(), "before the first step");
    assert!(script.trim_end().ends_with("\nsandbox_check"), "the last step checks it");

    let checkout = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let sandbox = root.join(".ci/sandbox.sh");
    let step = |body: &str| {
        Command::new("/bin/bash")
            .args(["-c", &format!(". {}; sandbox_enter; {body}; sandbox_check", sandbox.display())])
            .current_dir(checkout.path())
            .env("HOME", home.path())
            .env_remove("TMPDIR")
            .env_remove("XDG_CACHE_HOME")
            .env_remove("XDG_CONFIG_HOME")
            .output()
            .unwrap()
    };
    // A step that cleans up after itself, and caches under target/.
    let out = step(
        r#"case "$TMPDIR" in "$PWD"/*) exit 9;; esac; echo "$TMPDIR" > "$XDG_CACHE_HOME.tmpdir"; t="$(mktemp -d)"; touch "$t/x"; rm -rf "$t"; mkdir -p "$XDG_CACHE_HOME/pip""#,
    );
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!checkout.path().join("target/ci-sandbox").exists(), "an empty sandbox is removed");
    assert!(checkout.path().join("target/ci-cache/pip").is_dir());
    let tmpdir = std::fs::read_to_string(checkout.path().join("target/ci-cache.tmpdir")).unwrap();
    assert!(!Path::new(tmpdir.trim()).exists(), "the run's TMPDIR is removed: {tmpdir}");
    // Steps that leave a file in HOME and a temporary folder behind.
    let out = step(r#"mkdir -p "$HOME/.cache/tool" && touch "$HOME/.cache/tool/venv"; mktemp -d > /dev/null"#);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(".ci/run: a step wrote outside the checkout (into HOME or TMPDIR)"), "{stderr}");
    assert!(stderr.contains("  home/.cache/tool/venv\n") && stderr.contains("  TMPDIR/tmp."), "{stderr}");
    // The user's own HOME is never written.
    assert_eq!(std::fs::read_dir(home.path()).unwrap().count(), 0);
}
