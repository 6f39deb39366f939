//! The compiled index against the ordinary index, query by query, and a
//! damaged compiled index that is refused, never believed or panicked on.

use std::path::Path;

use std::time::Duration;

use super::*;
use crate::profile::{Family, Milli};

/// A memory exercising every rule: fields and their weights, repeated and
/// multi-token tags, stopwords, scope globs (shared, trailing `/`, classes,
/// alternations), unscoped records, retired records, a duplicate id (a
/// warning), non-ASCII text, item records under both profiles.
const MEMORY: &str = r#"{
  "decisions": [
    {"id": "PAY-001", "decision": "Refunds are posted to the ledger", "rationale": "Auditors read the ledger.",
     "scope": ["payments", "ledger"], "constraints": ["every refund posts a reversal entry", "amounts are integer cents:\n never floats"],
     "anti_patterns": ["updating balances in the payments database"], "status": "accepted"},
    {"id": "PAY-002", "decision": "Payment providers are called only from the gateway",
     "scope": ["payments", "payment-providers", "payments"]},
    {"id": "OLD-001", "decision": "Refunds update the charge", "status": "superseded"},
    {"id": "WEB-001", "decision": "Übersicht pages render on the server", "scope": ["web", "übersicht"]}
  ],
  "items": [
    {"id": "R-1", "type": "rule", "title": "Payments code never opens a database connection",
     "content": "use LedgerClient", "constraint": "no psycopg2 under services/payments/", "tags": ["payments", "database"],
     "scope": "services/payments/", "anti_patterns": ["psycopg2.connect"]},
    {"id": "R-2", "type": "rule", "title": "Handlers validate input", "tags": ["api"],
     "scope": ["services/*/handlers/**", "web/{app,lib}/*.ts"]},
    {"id": "R-3", "type": "anti_pattern", "title": "Raw SQL against ledger tables", "tags": ["ledger"],
     "scope": ["services/payments/", "services/ledger/[a-m]*.py"]},
    {"id": "R-4", "type": "decision", "title": "Ledger entries are immutable", "content": "refund ledger posting"},
    {"id": "R-1", "type": "rule", "title": "A second record with a used id"},
    {"id": "P-1", "type": "preference", "title": "Prefer tabs"}
  ]
}"#;

fn memory(family: Family) -> Memory {
    let memory = Memory::parse(Path::new("m.json"), MEMORY.to_string(), family);
    assert!(!memory.has_errors(), "{:?}", memory.diagnostics);
    memory
}

fn profiles() -> Vec<Profile> {
    let mut negative = Profile::named(Family::Default);
    negative.min_score = Milli(-1);
    negative.k = 50;
    let mut stemmed = Profile::named(Family::Default);
    stemmed.stem = true;
    stemmed.tag_boost = Milli(2500);
    let mut tuned = Profile::named(Family::Default);
    tuned.weights.content = Milli(4125);
    tuned.min_score = Milli(3000);
    tuned.k = 1;
    tuned.min_token_len = 5;
    let mut mneme_k = Profile::named(Family::Mneme);
    mneme_k.k = 2;
    vec![Profile::named(Family::Default), Profile::named(Family::Mneme), negative, stemmed, tuned, mneme_k]
}

const TASKS: [&str; 9] = [
    "Add a refund endpoint that posts to the ledger",
    "payments payment providers gateway",
    "Refunding the payments was posted",
    "the of and",
    "",
    "ÜBERSICHT page",
    "ledger",
    "psycopg2 connect database",
    "validate handlers input api",
];

const FILES: [Option<&str>; 10] = [
    None,
    Some("services/payments/refunds.py"),
    Some(".\\services\\payments\\handlers\\x.py"),
    Some("services/ledger/entries.py"),
    Some("services/ledger/zz.py"),
    Some("web/app/page.ts"),
    Some(""),
    Some("README.md"),
    // One path word, several spellings; a token in two words.
    Some("services/payments/LedgerClient.py"),
    Some("ledger/refund-ledger/ledger_posting.py"),
];

#[test]
fn the_compiled_index_ranks_exactly_as_the_index() {
    for profile in profiles() {
        let parts = compile(&memory(profile.family), &profile).unwrap();
        let compiled = Compiled::open(&parts.directory, &parts.records).unwrap();
        let tokenizer = Tokenizer::for_profile(&profile);
        let index = Index::build(memory(profile.family), profile.clone());
        let mut checked = 0;
        for task in TASKS {
            for file in FILES {
                let q = Query { task, file };
                let want = index.retrieve(q);
                assert_eq!(compiled.retrieve(&profile, &tokenizer, q).unwrap(), want, "{profile:?} {q:?}");
                let shown: Vec<Shown> = want.hits.iter().map(|h| compiled.shown(h.pool).unwrap()).collect();
                let expected: Vec<Shown> = want.hits.iter().map(|h| Shown::from(index.decision(h.pool))).collect();
                assert_eq!(shown, expected);
                checked += usize::from(!want.hits.is_empty());
            }
        }
        assert!(checked > 10, "{profile:?}: too few queries retrieve anything ({checked}) to compare");
    }
}

#[test]
fn the_answer_is_the_same_from_the_memory_and_from_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("project_memory.json");
    std::fs::write(&path, MEMORY).unwrap();
    let cache = dir.path().join("cache");
    for profile in profiles() {
        for (task, file) in [(TASKS[0], FILES[1]), (TASKS[3], None), (TASKS[7], FILES[3])] {
            let q = Query { task, file };
            let first = answer(&path, &profile, q, Some(&cache)).unwrap();
            let second = answer(&path, &profile, q, Some(&cache)).unwrap();
            let uncached = answer(&path, &profile, q, None).unwrap();
            let origins = (first.origin, second.origin, uncached.origin);
            assert_eq!(
                origins,
                (AnswerOrigin::Memory, AnswerOrigin::CacheByHash, AnswerOrigin::Memory),
                "{profile:?} {q:?}"
            );
            for a in [&second, &uncached] {
                assert_eq!((&a.retrieval, &a.shown, &a.warnings), (&first.retrieval, &first.shown, &first.warnings));
            }
            assert_eq!(first.warnings.len(), 1, "the duplicate id");
            std::fs::remove_dir_all(&cache).unwrap();
        }
    }
}

#[test]
fn an_edited_memory_is_read_again_and_a_damaged_cache_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("project_memory.json");
    std::fs::write(&path, MEMORY).unwrap();
    let cache = dir.path().join("cache");
    let profile = Profile::named(Family::Default);
    let q = Query { task: "ledger entries immutable", file: None };
    let ids = |a: &Answer| a.shown.iter().map(|s| s.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&answer(&path, &profile, q, Some(&cache)).unwrap())[0], "R-4");
    // The same length, another title: the content hash tells them apart.
    std::fs::write(&path, MEMORY.replace("Ledger entries are immutable", "Ledger entries are mutable!")).unwrap();
    let edited = answer(&path, &profile, q, Some(&cache)).unwrap();
    assert_eq!(edited.origin, AnswerOrigin::Memory);
    assert!(edited.shown.iter().any(|s| s.title == "Ledger entries are mutable!"), "{:?}", edited.shown);
    assert_eq!(answer(&path, &profile, q, Some(&cache)).unwrap().origin, AnswerOrigin::CacheByHash);

    // Every cache file damaged in place: ignored, and rewritten.
    for entry in std::fs::read_dir(&cache).unwrap() {
        let file = entry.unwrap().path();
        let mut bytes = std::fs::read(&file).unwrap();
        // In the directory, which every query reads.
        bytes[200] ^= 0x40;
        std::fs::write(&file, bytes).unwrap();
    }
    let rebuilt = answer(&path, &profile, q, Some(&cache)).unwrap();
    assert_eq!(rebuilt.origin, AnswerOrigin::Memory);
    assert_eq!(rebuilt.shown, edited.shown);
    assert_eq!(answer(&path, &profile, q, Some(&cache)).unwrap().origin, AnswerOrigin::CacheByHash);

    // A broken edit is an error, as `context` reports it, cached or not.
    std::fs::write(&path, "{\"decisions\": [").unwrap();
    assert!(matches!(answer(&path, &profile, q, Some(&cache)), Err(MemoryError::Invalid { .. })));
    std::fs::remove_file(&path).unwrap();
    assert!(matches!(answer(&path, &profile, q, Some(&cache)), Err(MemoryError::Read { .. })));
}

#[test]
fn an_unwritable_cache_folder_only_costs_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("project_memory.json");
    std::fs::write(&path, MEMORY).unwrap();
    // A file where the folder should be: nothing can be written under it.
    let cache = dir.path().join("not-a-folder");
    std::fs::write(&cache, "x").unwrap();
    let profile = Profile::named(Family::Default);
    let q = Query { task: "ledger", file: None };
    let a = answer(&path, &profile, q, Some(&cache)).unwrap();
    assert_eq!(a.origin, AnswerOrigin::Memory);
    assert!(!a.shown.is_empty());
}

/// With every stamp settled at once (no racy margin), a file that keeps
/// its stamp is answered without being read; any write changes the stamp
/// and the bytes are read again, even when they are as long as before.
#[cfg(unix)]
#[test]
fn a_settled_stamp_spares_reading_the_memory_and_any_write_voids_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("project_memory.json");
    std::fs::write(&path, MEMORY).unwrap();
    let cache = dir.path().join("cache");
    let profile = Profile::named(Family::Default);
    let q = Query { task: "ledger entries immutable", file: None };
    let ask = || answer_with(&path, &profile, q, Some(&cache), Duration::ZERO).unwrap();
    assert_eq!(ask().origin, AnswerOrigin::Memory);
    let by_stamp = ask();
    assert_eq!(by_stamp.origin, AnswerOrigin::CacheByStamp);
    assert_eq!(by_stamp.shown, answer(&path, &profile, q, None).unwrap().shown);
    // A stamp settled only later: the bytes are hashed once, and re-stamped.
    std::fs::remove_dir_all(&cache).unwrap();
    assert_eq!(
        answer_with(&path, &profile, q, Some(&cache), Duration::from_secs(3600)).unwrap().origin,
        AnswerOrigin::Memory
    );
    assert_eq!(
        answer_with(&path, &profile, q, Some(&cache), Duration::from_secs(3600)).unwrap().origin,
        AnswerOrigin::CacheByHash
    );
    assert_eq!(ask().origin, AnswerOrigin::CacheByHash);
    assert_eq!(ask().origin, AnswerOrigin::CacheByStamp);
    // Rewritten with the same bytes: hashed, the same.
    std::fs::write(&path, MEMORY).unwrap();
    // Each rewrite its own modification time, whatever the clock's tick.
    let touch = |secs| {
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(std::time::UNIX_EPOCH + Duration::from_secs(secs))
            .unwrap()
    };
    touch(1);
    assert_eq!(ask().origin, AnswerOrigin::CacheByHash);
    // The same length, other bytes: read, and a new cache.
    std::fs::write(&path, MEMORY.replace("Ledger entries are immutable", "Ledger entries are mutable!")).unwrap();
    touch(2);
    let edited = ask();
    assert_eq!(edited.origin, AnswerOrigin::Memory);
    assert!(edited.shown.iter().any(|s| s.title == "Ledger entries are mutable!"));
    assert_eq!(ask().origin, AnswerOrigin::CacheByStamp);
}

/// Every prefix of a directory and every single-byte change of it is
/// opened and queried without a panic (refused, or answered: a change of
/// the directory is what the file's checksum of it catches), and a changed
/// record is refused whenever a query reads it: an answer is never wrong.
#[test]
fn a_damaged_index_is_refused_or_answered_never_a_panic_nor_a_wrong_record() {
    let profile = Profile::named(Family::Default);
    let parts = compile(&memory(Family::Default), &profile).unwrap();
    let tokenizer = Tokenizer::for_profile(&profile);
    // Queries with a path compile globs (slow in a debug build): they run
    // on every third change only.
    let query =
        |directory: &[u8], records: &Vec<u8>, with_paths: bool| -> Result<Vec<(Retrieval, Vec<Shown>)>, Corrupt> {
            let c = Compiled::open(directory, records)?;
            let paths: &[Option<&str>] = if with_paths { &[None, FILES[1], FILES[5]] } else { &[None] };
            let mut answers = Vec::new();
            for (task, &file) in TASKS.iter().zip(paths.iter().cycle()) {
                let r = c.retrieve(&profile, &tokenizer, Query { task, file })?;
                let shown = r.hits.iter().map(|h| c.shown(h.pool)).collect::<Result<Vec<_>, _>>()?;
                answers.push((r, shown));
            }
            c.warnings()?;
            Ok(answers)
        };
    let intact = (
        query(&parts.directory, &parts.records, false).unwrap(),
        query(&parts.directory, &parts.records, true).unwrap(),
    );
    for len in 0..parts.directory.len() {
        assert!(
            query(&parts.directory[..len], &parts.records, false).is_err(),
            "a directory cut at {len} bytes was accepted"
        );
    }
    for i in 0..parts.directory.len() {
        for flip in [0x01u8, 0x80] {
            let mut damaged = parts.directory.clone();
            damaged[i] ^= flip;
            let _ = query(&damaged, &parts.records, i % 3 == 0 && flip == 0x01);
        }
    }
    let mut refused = 0;
    for i in 0..parts.records.len() {
        let mut damaged = parts.records.clone();
        damaged[i] ^= 0x01;
        let with_paths = i % 3 == 0;
        match query(&parts.directory, &damaged, with_paths) {
            Ok(answers) => {
                assert_eq!(answers, if with_paths { intact.1.clone() } else { intact.0.clone() }, "record byte {i}")
            }
            Err(_) => refused += 1,
        }
    }
    assert!(refused > 0, "no changed record was ever read");
}

#[test]
fn the_same_memory_compiles_to_the_same_bytes() {
    for profile in profiles() {
        let a = compile(&memory(profile.family), &profile).unwrap();
        let b = compile(&memory(profile.family), &profile).unwrap();
        assert_eq!(a, b, "{profile:?}");
    }
}

#[test]
fn content_hashes_are_sha256_in_hex() {
    assert_eq!(content_hash(b""), "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}
