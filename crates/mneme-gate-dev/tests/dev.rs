//! `mneme-gate-dev` end to end, and the tests of `mneme-gate` that need
//! generated inputs (which the product crate cannot generate: it does not
//! depend on this one).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use mneme_gate::memory::Memory;
use mneme_gate::profile::{Family, Milli, Profile};
use mneme_gate::retrieval::{Index, Query};
use mneme_gate_dev::synth;

/// The repository root (the workspace root).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn dev(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mneme-gate-dev")).args(args).current_dir(dir).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[track_caller]
fn expect(out: Output, code: i32) -> (String, String) {
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(code), "stdout:\n{stdout}\nstderr:\n{stderr}");
    (stdout, stderr)
}

/// Every file under `dir`, relative path and bytes, in path order.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push((path.strip_prefix(dir).unwrap().to_path_buf(), std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// The `mneme-gate` binary as shipped (without the `schema` feature), in this
/// build's target folder and profile. Cargo builds only the tested package's
/// own binaries for its tests, so this asks cargo for the product's: a
/// no-op after `cargo build` or `cargo test` at the root.
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

#[test]
fn synth_writes_the_same_inputs_for_the_same_flags() {
    let tmp = tempfile::tempdir().unwrap();
    let gen = |name: &str, layout: &str, seed: &str| {
        let out = tmp.path().join(name);
        let args = ["synth", "--decisions", "60", "--scenarios", "40", "--seed", seed, "--layout", layout];
        let (_, stderr) = expect(dev(&[&args[..], &["--out", out.to_str().unwrap()]].concat(), tmp.path()), 0);
        assert!(stderr.contains("wrote") && stderr.contains("(60 decisions, 40 scenarios, seed"), "{stderr}");
        tree(&out)
    };
    let native = gen("a", "native", "3");
    assert_eq!(native, gen("b", "native", "3"));
    assert_ne!(native, gen("c", "native", "4"));
    let names = |t: &[(PathBuf, Vec<u8>)]| t.iter().map(|(p, _)| p.to_str().unwrap().to_string()).collect::<Vec<_>>();
    assert!(names(&native).contains(&"project_memory.json".to_string()));
    assert!(names(&native).iter().any(|n| n.starts_with("scenarios/") && n.ends_with(".yaml")), "{:?}", names(&native));
    let mneme = gen("d", "mneme", "3");
    assert!(names(&mneme).iter().any(|n| n.ends_with("/scenario.json")), "{:?}", names(&mneme));
    // The library writes what the binary writes.
    let corpus = synth::corpus(&synth::CorpusSpec::new(60, 3));
    assert_eq!(
        native[native.iter().position(|(p, _)| p == Path::new("project_memory.json")).unwrap()].1,
        corpus.to_json().into_bytes()
    );

    // Corpus only, by default; a bad layout is a usage error.
    let only = tmp.path().join("only");
    expect(dev(&["synth", "--decisions", "10", "--out", only.to_str().unwrap()], tmp.path()), 0);
    assert_eq!(names(&tree(&only)), ["project_memory.json"]);
    let (_, stderr) = expect(dev(&["synth", "--layout", "yaml", "--out", "x"], tmp.path()), 2);
    assert!(stderr.contains("possible values: native, mneme"), "{stderr}");
}

#[test]
fn floor_reads_what_run_reads_and_counts_it() {
    // From the repository root, as `mneme-gate run` would: mneme-gate.yaml
    // names the memory and the suite.
    let (stdout, _) = expect(dev(&["floor"], &root()), 0);
    let memory = Memory::load(&root().join("fixtures/project_memory.json"), Family::Default).unwrap();
    let suite = mneme_gate::scenarios::Suite::load(&[root().join("scenarios")]).unwrap();
    let responses = suite
        .scenarios
        .iter()
        .flat_map(|s| [&s.control, &s.governed])
        .flatten()
        .filter(|r| mneme_gate::verdict::read_response(r).is_ok())
        .count();
    assert!(responses > 0);
    assert_eq!(
        stdout,
        format!(
            "floor: {} decisions, {} scenarios, {responses} responses read\n",
            memory.pool.len(),
            suite.scenarios.len()
        )
    );

    // Flags instead of the configuration, on a generated suite.
    let tmp = tempfile::tempdir().unwrap();
    expect(dev(&["synth", "--decisions", "50", "--scenarios", "30", "--seed", "2", "--out", "g"], tmp.path()), 0);
    let args = ["floor", "--memory", "g/project_memory.json", "--scenarios", "g/scenarios", "--jobs", "2"];
    let (stdout, _) = expect(dev(&args, tmp.path()), 0);
    assert!(stdout.starts_with("floor: 50 decisions, 30 scenarios, "), "{stdout}");

    let (_, stderr) = expect(dev(&["floor", "--scenarios", "g/scenarios"], tmp.path()), 2);
    assert!(stderr.contains("no memory file"), "{stderr}");
    let (_, stderr) = expect(dev(&["floor", "--memory", "nope.json", "--scenarios", "g/scenarios"], tmp.path()), 2);
    assert!(stderr.starts_with("mneme-gate-dev: error: "), "{stderr}");
}

#[test]
fn the_published_report_schema_is_up_to_date() {
    let path = root().join("schema/report.schema.json");
    let schema = mneme_gate::report::json::schema();
    if std::env::var_os("MNEME_GATE_UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &schema).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == schema,
        "schema/report.schema.json is stale: run `mneme-gate-dev schema > schema/report.schema.json` \
         (or `MNEME_GATE_UPDATE_SCHEMA=1 cargo test -p mneme-gate-dev the_published_report_schema`)"
    );
}

#[test]
fn the_published_coverage_schema_is_up_to_date() {
    let path = root().join("schema/coverage.schema.json");
    let schema = mneme_gate::coverage::schema();
    if std::env::var_os("MNEME_GATE_UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &schema).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == schema,
        "schema/coverage.schema.json is stale: run `mneme-gate-dev schema --coverage > schema/coverage.schema.json` \
         (or `MNEME_GATE_UPDATE_SCHEMA=1 cargo test -p mneme-gate-dev the_published_coverage_schema`)"
    );
    let (stdout, _) = expect(dev(&["schema", "--coverage"], &root()), 0);
    assert_eq!(stdout, schema);
}

#[test]
fn schema_prints_and_checks() {
    let tmp = tempfile::tempdir().unwrap();
    let (stdout, _) = expect(dev(&["schema"], tmp.path()), 0);
    assert_eq!(stdout, mneme_gate::report::json::schema());
    let fresh = tmp.path().join("fresh.json");
    std::fs::write(&fresh, &stdout).unwrap();
    expect(dev(&["schema", "--check", fresh.to_str().unwrap()], tmp.path()), 0);
    let stale = tmp.path().join("stale.json");
    std::fs::write(&stale, stdout.replace("\"schema\"", "\"schemata\"")).unwrap();
    let (_, stderr) = expect(dev(&["schema", "--check", stale.to_str().unwrap()], tmp.path()), 1);
    assert!(stderr.contains("stale.json is stale"), "{stderr}");
    expect(dev(&["schema", "--check", "missing.json"], tmp.path()), 2);
}

/// Moved from the product's tests/cli.rs: it needs a generated suite.
#[test]
fn reports_are_byte_identical_across_jobs_and_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("synth");
    let synth =
        ["synth", "--decisions", "300", "--scenarios", "400", "--seed", "11", "--out", corpus.to_str().unwrap()];
    expect(dev(&synth, tmp.path()), 0);
    let outputs = |jobs: &str| -> Vec<(String, Vec<u8>)> {
        let dir = tmp.path().join(format!("out-{jobs}"));
        let p = |n: &str| dir.join(n).to_str().unwrap().to_string();
        let args = [
            "run",
            "--no-baseline",
            "--memory",
            "synth/project_memory.json",
            "--scenarios",
            "synth/scenarios",
            "--jobs",
            jobs,
            "--json",
            &p("r.json"),
            "--junit",
            &p("r.xml"),
            "--markdown",
            &p("r.md"),
            "--trec-run",
            &p("r.run"),
            "--trec-qrels",
            &p("r.qrels"),
        ];
        let out = Command::new(product())
            .args(args)
            .current_dir(tmp.path())
            .env_remove("GITHUB_ACTIONS")
            .env("MNEME_GATE_GIT", "off")
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert!(matches!(out.status.code(), Some(0 | 1)), "{}", text(&out.stderr));
        let mut files: Vec<(String, Vec<u8>)> = ["r.json", "r.xml", "r.md", "r.run", "r.qrels"]
            .iter()
            .map(|n| (n.to_string(), std::fs::read(dir.join(n)).unwrap()))
            .collect();
        files.push(("stdout".into(), out.stdout));
        files
    };
    let one = outputs("1");
    assert!(one.iter().all(|(_, bytes)| !bytes.is_empty()));
    assert_eq!(one, outputs("4"), "--jobs 1 and --jobs 4 give the same bytes");
    assert_eq!(one, outputs("1"), "two runs give the same bytes");
}

/// Stands in for the product's unit test that compared the fast and the
/// tolerant memory parsers on generated corpora (it needed `synth`): generated
/// corpora load without errors under both families.
#[test]
fn synthetic_corpora_load_cleanly() {
    for (n, seed) in [(300, 1), (300, 2), (1000, 7)] {
        let text = synth::corpus_json(&synth::CorpusSpec::new(n, seed));
        for family in [Family::Default, Family::Mneme] {
            let memory = Memory::parse(Path::new("m.json"), text.clone(), family);
            assert!(!memory.has_errors(), "{n} {seed} {family:?}: {:?}", memory.diagnostics);
            // Under `mneme` some record shapes leave the pool; under `default` all are in.
            let least = if family == Family::Default { n } else { 1 };
            assert!(memory.pool.len() >= least, "{n} {seed} {family:?}: {}", memory.pool.len());
        }
    }
}

/// Moved from the product's retrieval unit tests (it needed `synth`), through
/// the public API: the one-query index (`context`) ranks exactly as the batch
/// index (`run`) on a generated corpus, for every profile shape.
#[test]
fn an_index_for_one_query_ranks_like_the_batch_index() {
    let text = synth::corpus_json(&synth::CorpusSpec::new(400, 3));
    let mut negative = Profile::named(Family::Default);
    negative.min_score = Milli(-1);
    negative.k = 50;
    let mut stemmed = Profile::named(Family::Default);
    stemmed.stem = true;
    for profile in [Profile::named(Family::Default), Profile::named(Family::Mneme), negative, stemmed] {
        let memory = || Memory::parse(Path::new("m.json"), text.clone(), profile.family);
        let batch = Index::build(memory(), profile.clone());
        // One path per 40th distinct scope glob (in pool order), made to match it.
        let mut globs: Vec<&str> = Vec::new();
        for d in batch.decisions() {
            for g in &d.paths {
                if !globs.contains(&g.as_str()) {
                    globs.push(g);
                }
            }
        }
        let mut files: Vec<Option<String>> =
            globs.iter().step_by(40).map(|g| Some(g.replace("**", "x/y").replace(['*', '?'], "q"))).collect();
        files.extend([Some("services/payments/refunds.py".to_string()), Some("a/b.py".into()), None, Some("".into())]);
        for (i, file) in files.iter().enumerate() {
            let d = batch.decision(i % batch.decisions().len());
            let tags = d.tags.join(" ");
            for task in [d.title.as_str(), tags.as_str(), "do it", "ledger payments refund"] {
                let q = Query { task, file: file.as_deref() };
                let one = Index::build_for_query(memory(), profile.clone(), q);
                assert_eq!(batch.retrieve(q), one.retrieve(q), "{task} {file:?}");
            }
        }
    }
}

/// `render-md`: a summary of the product rendered as GitHub shows it, with
/// its tables, folded blocks and Mermaid chart, and Mermaid drawn only when
/// its bundle is given.
#[test]
fn render_md_renders_a_summary_as_github_shows_it() {
    let tmp = tempfile::tempdir().unwrap();
    let md = tmp.path().join("summary.md");
    std::fs::write(
        &md,
        "## ✅ gate passed\n\n| figure | value |\n|---|---:|\n| `a \\| b` | **1** |\n\n\
         <details><summary><b>x</b></summary>\n\n- y\n\n</details>\n\n```mermaid\nxychart-beta\n```\n",
    )
    .unwrap();
    let html = tmp.path().join("summary.html");
    expect(dev(&["render-md", md.to_str().unwrap(), html.to_str().unwrap()], tmp.path()), 0);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains("<title>summary.md</title>"), "{page}");
    for part in [
        "<h2>✅ gate passed</h2>",
        "<td><code>a | b</code></td>",
        "<strong>1</strong>",
        "<details><summary><b>x</b></summary>",
        "<code class=\"language-mermaid\">xychart-beta",
        "class=\"markdown-body\"",
    ] {
        assert!(page.contains(part), "{part}:\n{page}");
    }
    assert!(!page.contains("<script"), "no script without --mermaid");
    let js = tmp.path().join("mermaid dir/mermaid.min.js");
    std::fs::create_dir_all(js.parent().unwrap()).unwrap();
    std::fs::write(&js, "window.mermaid = {};").unwrap();
    let args = ["render-md", md.to_str().unwrap(), html.to_str().unwrap(), "--mermaid", js.to_str().unwrap()];
    expect(dev(&args, tmp.path()), 0);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("mermaid%20dir/mermaid.min.js\"></script>"), "{page}");
    let (_, stderr) = expect(dev(&["render-md", "missing.md", "out.html"], tmp.path()), 2);
    assert!(stderr.contains("missing.md"), "{stderr}");
}
