//! The compiled index cache of `context` and `hook` never answers otherwise
//! than the index: on generated corpora (`synth`) in every profile shape,
//! query by query in process, and byte for byte through the binary
//! (`context` and `context --format json` from the cache against the same command
//! without it, and against the rankings of `retrieve`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use mneme_gate::cache::{answer, compile, AnswerOrigin, Compiled, Shown};
use mneme_gate::memory::Memory;
use mneme_gate::profile::{Family, Milli, Profile};
use mneme_gate::retrieval::{Index, Query};
use mneme_gate::tokenize::Tokenizer;
use mneme_gate_dev::synth;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// The `mneme-gate` binary as shipped, built by cargo for this profile (as
/// `tests/dev.rs` finds it).
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

fn profiles() -> Vec<Profile> {
    let mut negative = Profile::named(Family::Default);
    negative.min_score = Milli(-1);
    negative.k = 50;
    let mut stemmed = Profile::named(Family::Default);
    stemmed.stem = true;
    let mut tuned = Profile::named(Family::Default);
    tuned.weights.tags = Milli(125);
    tuned.tag_boost = Milli(7500);
    tuned.min_score = Milli(4000);
    tuned.k = 10;
    vec![Profile::named(Family::Default), Profile::named(Family::Mneme), negative, stemmed, tuned]
}

/// Queries that reach every part of a generated corpus: each decision's
/// title and tags, with a path made to match each distinct scope glob,
/// a path no glob matches, no path, and an empty path.
fn queries(index: &Index) -> Vec<(String, Option<String>)> {
    let mut globs: Vec<&str> = Vec::new();
    for d in index.decisions() {
        for g in &d.paths {
            if !globs.contains(&g.as_str()) {
                globs.push(g);
            }
        }
    }
    let mut files: Vec<Option<String>> =
        globs.iter().step_by(7).map(|g| Some(g.replace("**", "x/y").replace(['*', '?'], "q"))).collect();
    files.extend([Some("services/payments/refunds.py".to_string()), Some("a/b.py".into()), None, Some("".into())]);
    let mut out = Vec::new();
    for (i, d) in index.decisions().iter().enumerate().step_by(3) {
        let file = &files[i % files.len()];
        out.push((d.title.clone(), file.clone()));
        out.push((d.tags.join(" "), file.clone()));
        out.push((format!("{} {}", d.title, d.constraint.join(" ")), None));
        // Chores: by their words, and by the file they edit (docs/retrieval.md, Chores).
        out.push((format!("Fix a typo in {}", d.title), file.clone()));
        out.push((d.title.clone(), Some("README.md".into())));
    }
    out.extend([("do it".to_string(), None), ("".to_string(), Some("a/b.py".into())), ("the of and".into(), None)]);
    out
}

#[test]
fn the_compiled_index_ranks_every_generated_query_as_the_index_does() {
    for (n, seed) in [(400, 3), (250, 11)] {
        let text = synth::corpus_json(&synth::CorpusSpec::new(n, seed));
        for profile in profiles() {
            let memory = || Memory::parse(Path::new("m.json"), text.clone(), profile.family);
            let index = Index::build(memory(), profile.clone());
            let parts = compile(&memory(), &profile).unwrap();
            let compiled = Compiled::open(&parts.directory, &parts.records).unwrap();
            let tokenizer = Tokenizer::for_profile(&profile);
            let mut retrieved = 0;
            for (task, file) in queries(&index) {
                let q = Query { task: &task, file: file.as_deref() };
                let want = index.retrieve(q);
                assert_eq!(compiled.retrieve(&profile, &tokenizer, q).unwrap(), want, "{n}/{seed} {profile:?} {q:?}");
                for h in &want.hits {
                    assert_eq!(compiled.shown(h.pool).unwrap(), Shown::from(index.decision(h.pool)));
                }
                retrieved += want.hits.len();
            }
            assert!(retrieved > 100, "{profile:?}: the queries retrieve too little ({retrieved}) to compare");
        }
    }
}

/// A chore retrieves nothing from the cache as from the index, and a kind of
/// chore that a decision's title names is ranked as any task in both.
#[test]
fn the_compiled_index_skips_chores_as_the_index_does() {
    let text = r#"[{"id": "t", "type": "rule", "title": "Every typo fix runs the spelling check"},
                   {"id": "p", "type": "rule", "title": "Payments post to the ledger", "tags": ["payments"]},
                   {"id": "o", "type": "rule", "title": "Orders live in Postgres"}]"#;
    let profile = Profile::named(Family::Default);
    let memory = || Memory::parse(Path::new("m.json"), text.to_string(), profile.family);
    let index = Index::build(memory(), profile.clone());
    let parts = compile(&memory(), &profile).unwrap();
    let compiled = Compiled::open(&parts.directory, &parts.records).unwrap();
    let tokenizer = Tokenizer::for_profile(&profile);
    let cases = [
        ("Fix a typo in the spelling check", None, true),
        ("Bump payments ledger from 1.2 to 1.3", None, false),
        ("payments ledger", Some("README.md"), false),
        ("payments ledger", Some("docs/README.md"), true),
        ("Fix the payments ledger per ADR-3", Some("README.md"), true),
    ];
    for (task, file, retrieves) in cases {
        let q = Query { task, file };
        let want = index.retrieve(q);
        assert_eq!(compiled.retrieve(&profile, &tokenizer, q).unwrap(), want, "{q:?}");
        assert_eq!(!want.hits.is_empty(), retrieves, "{q:?}: {want:?}");
    }
}

#[test]
fn the_answer_of_the_cache_is_the_answer_of_the_memory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("project_memory.json");
    std::fs::write(&path, synth::corpus_json(&synth::CorpusSpec::new(300, 5))).unwrap();
    let cache = dir.path().join("cache");
    for profile in profiles() {
        let index = Index::build(Memory::load(&path, profile.family).unwrap(), profile.clone());
        for (task, file) in queries(&index).into_iter().step_by(5) {
            let q = Query { task: &task, file: file.as_deref() };
            let plain = answer(&path, &profile, q, None).unwrap();
            let first = answer(&path, &profile, q, Some(&cache)).unwrap();
            let cached = answer(&path, &profile, q, Some(&cache)).unwrap();
            // By hash, or by stamp once the file is two seconds old.
            assert_ne!(cached.origin, AnswerOrigin::Memory, "{profile:?} {q:?}");
            for a in [&first, &cached] {
                assert_eq!((&a.retrieval, &a.shown, &a.warnings), (&plain.retrieval, &plain.shown, &plain.warnings));
            }
        }
    }
}

fn run(args: &[&str], dir: &Path, cache: Option<&Path>, stdin: Option<&str>) -> Vec<u8> {
    use std::io::Write;
    let mut c = Command::new(product());
    c.args(args).current_dir(dir).env("MNEME_GATE_GIT", "off").env_remove("MNEME_GATE_CACHE");
    match cache {
        Some(cache) => c.env("MNEME_GATE_CACHE_DIR", cache),
        None => c.env("MNEME_GATE_CACHE", "off"),
    };
    let mut child = c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin.unwrap_or_default().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    [out.stdout, b"\n--stderr--\n".to_vec(), out.stderr].concat()
}

#[test]
fn context_from_the_cache_prints_the_bytes_of_context_without_it_and_ranks_as_retrieve() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("project_memory.json"), synth::corpus_json(&synth::CorpusSpec::new(600, 9)))
        .unwrap();
    let cache = dir.path().join("cache");
    let memory = Memory::load(&dir.path().join("project_memory.json"), Family::Default).unwrap();
    let index = Index::build(memory, Profile::named(Family::Default));
    let picked: Vec<(String, Option<String>)> = queries(&index).into_iter().step_by(17).take(12).collect();
    let mut lines = String::new();
    for (i, (task, file)) in picked.iter().enumerate() {
        lines.push_str(&serde_json::json!({"id": i.to_string(), "task": task, "file": file}).to_string());
        lines.push('\n');
    }
    for profile in ["default", "mneme"] {
        let retrieve = run(&["retrieve", "--queries", "-", "--profile", profile], dir.path(), None, Some(&lines));
        let retrieve = String::from_utf8(retrieve).unwrap();
        let rankings: Vec<serde_json::Value> = retrieve
            .lines()
            .take_while(|l| !l.starts_with("--stderr--"))
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        for (i, (task, file)) in picked.iter().enumerate() {
            for json in [false, true] {
                let mut args = vec!["context", "--profile", profile, "--task", task.as_str()];
                if let Some(f) = file {
                    args.extend(["--file", f.as_str()]);
                }
                if json {
                    args.extend(["--format", "json"]);
                }
                let without = run(&args, dir.path(), None, None);
                assert_eq!(run(&args, dir.path(), Some(&cache), None), without, "first run: {args:?}");
                let cached = run(&args, dir.path(), Some(&cache), None);
                assert_eq!(cached, without, "from the cache: {args:?}");
                if json {
                    let doc: serde_json::Value = serde_json::from_slice(
                        &cached[..cached.windows(12).position(|w| w == b"\n--stderr--\n").unwrap()],
                    )
                    .unwrap();
                    let ranked: Vec<serde_json::Value> = doc["retrieved"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|r| serde_json::json!({"id": r["id"], "score": r["score"]}))
                        .collect();
                    assert_eq!(serde_json::Value::Array(ranked), rankings[i]["retrieved"], "{args:?}");
                }
            }
        }
    }
}
