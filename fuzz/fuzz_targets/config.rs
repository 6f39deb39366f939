//! `mneme-gate.yaml`: `Config::parse`, then what the command line asks of a
//! configuration: the effective profile (`config.profile(None, None)`, and
//! with a command-line profile and `--k`), the gate settings, and the paths
//! resolved against the file's folder. A profile that loads is then used:
//! the small fixture memory is indexed with it and queried.
//!
//! Invariants checked beyond "never panics":
//!
//! - an error names the file and a 1-based place when it has one;
//! - a loaded profile has `1 <= k <= 1_000_000` and
//!   `1 <= min_token_len <= 64`; gate tolerances are in `[0, 1]`;
//! - retrieval under a configured profile returns at most `k` distinct
//!   decisions, best first.

#![no_main]

use std::collections::HashSet;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use mneme_gate::config::{Config, ConfigError};
use mneme_gate::gate::SuiteMean;
use mneme_gate::memory::Memory;
use mneme_gate::profile::{Named, Profile};
use mneme_gate::retrieval::{Index, Query};

const MEMORY: &str = include_str!("../../tests/fixtures/memory/small.json");

const QUERIES: [Query<'static>; 4] = [
    Query { task: "Add a refund endpoint that reverses the payment", file: Some("services/payments/refunds.py") },
    Query { task: "Show the order total on the checkout page", file: Some("web/src/checkout/Total.tsx") },
    Query { task: "Move terraform state to a new backend", file: Some("./infra\\terraform\\main.tf") },
    Query { task: "do it", file: None },
];

fuzz_target!(|data: &[u8]| {
    // `Config::discover` reads the file with `read_to_string`: only UTF-8
    // reaches the parser.
    let Ok(text) = std::str::from_utf8(data) else { return };
    let path = Path::new("conf/mneme-gate.yaml");
    let config = match Config::parse(path, text) {
        Ok(c) => c,
        Err(e) => return check_error(&e),
    };
    if config.file.memory.is_some() {
        // `memory:` is one memory file or a list of decision sources, each
        // resolved against the file's folder.
        let sources = config.memory_sources(&[]).expect("a configured memory gives its sources");
        assert!(!sources.list.is_empty(), "`memory:` without a source");
        assert_eq!(sources.root, Path::new("conf"));
        for s in &sources.list {
            assert!(s.path.starts_with("conf") || s.path.is_absolute(), "{:?} not resolved", s.path);
            let _ = s.label();
        }
    }
    if let Some(b) = &config.file.baseline {
        let _ = config.resolve_path(&b.value);
    }
    match config.gate_settings() {
        Ok(settings) => {
            for metric in SuiteMean::ALL {
                let t = settings.tolerance(metric);
                assert!((0.0..=1.0).contains(&t), "tolerance {t} for {metric}");
            }
        }
        Err(e) => check_error(&e),
    }
    for (named, k) in [(None, None), (Some(Named::Mneme), Some(2)), (Some(Named::Default), None), (Some(Named::Classic), None)] {
        match config.profile(named, k) {
            Ok(profile) => {
                assert!((1..=1_000_000).contains(&profile.k), "k = {}", profile.k);
                assert!((1..=64).contains(&profile.min_token_len), "min_token_len = {}", profile.min_token_len);
                if named.is_none() {
                    check_retrieval(profile);
                }
            }
            Err(e) => check_error(&e),
        }
    }
});

fn check_error(e: &ConfigError) {
    if let Some(line) = e.line {
        assert!(line >= 1, "line 0: {}", e.message);
        assert!(e.path.is_some(), "a place without a file: {}", e.message);
    }
    if let Some(column) = e.column {
        assert!(column >= 1, "column 0: {}", e.message);
    }
    let _ = e.to_string();
}

fn check_retrieval(profile: Profile) {
    let memory = Memory::parse(Path::new("small.json"), MEMORY.to_string(), profile.family);
    assert!(!memory.has_errors());
    let k = profile.k;
    let index = Index::build(memory, profile);
    for query in QUERIES {
        let hits = index.retrieve(query).hits;
        assert!(hits.len() <= k, "{} hits for k = {k}", hits.len());
        let distinct: HashSet<usize> = hits.iter().map(|h| h.pool).collect();
        assert_eq!(distinct.len(), hits.len(), "a decision retrieved twice");
        assert!(hits.windows(2).all(|w| w[0].score >= w[1].score), "hits not best first: {hits:?}");
        let _ = index.explain(query);
    }
}
