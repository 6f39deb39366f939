//! The compiled index of the cache (`cache::Compiled`), read from a
//! directory that may be anything: the fuzzer mutates the directory of the
//! bundled example's compiled index (the committed seed), and the records
//! stay that index's own, so that a mutated directory points into real,
//! checksummed records and the query code past `open` is reached.
//!
//! The file header's checksum makes such a directory unlikely on disk, but
//! the reader must not rely on it: a cache lives in a folder other
//! processes can write.
//!
//! Invariants checked beyond "never panics":
//!
//! - the real directory opens and ranks every query exactly as the index
//!   built from the memory does;
//! - any directory that opens ranks at most `k` distinct decisions of its
//!   own pool, best first, or says it is corrupt;
//! - showing a retrieved decision and listing the warnings either work or
//!   say the index is corrupt.

#![no_main]

use std::collections::HashSet;
use std::path::Path;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use mneme_gate::cache::{compile, Compiled, Parts};
use mneme_gate::memory::Memory;
use mneme_gate::profile::{Family, Profile};
use mneme_gate::retrieval::{Index, Query};
use mneme_gate::tokenize::Tokenizer;

const MEMORY: &str = include_str!("../../fixtures/project_memory.json");

const QUERIES: [Query<'static>; 5] = [
    Query { task: "Add a refund endpoint that reverses the payment", file: Some("services/payments/refunds.py") },
    Query { task: "Show the order total on the checkout page", file: Some("web/src/checkout/Total.tsx") },
    Query { task: "Move terraform state to a new backend", file: Some("infra/terraform/main.tf") },
    Query { task: "database connection ledger client", file: None },
    Query { task: "", file: Some("") },
];

struct Fixture {
    profile: Profile,
    tokenizer: Tokenizer,
    parts: Parts,
    index: Index,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let profile = Profile::named(Family::Default);
        let memory = || Memory::parse(Path::new("project_memory.json"), MEMORY.to_string(), profile.family);
        let parts = compile(&memory(), &profile).expect("the bundled example compiles");
        let tokenizer = Tokenizer::for_profile(&profile);
        let index = Index::build(memory(), profile.clone());
        Fixture { profile, tokenizer, parts, index }
    })
}

fuzz_target!(|data: &[u8]| {
    let f = fixture();
    let Ok(compiled) = Compiled::open(data, &f.parts.records) else {
        assert_ne!(data, f.parts.directory.as_slice(), "the real directory does not open");
        return;
    };
    let real = data == f.parts.directory.as_slice();
    let _ = compiled.warnings();
    for query in QUERIES {
        let Ok(retrieval) = compiled.retrieve(&f.profile, &f.tokenizer, query) else {
            assert!(!real, "the real directory is corrupt for {query:?}");
            continue;
        };
        if real {
            assert_eq!(retrieval, f.index.retrieve(query), "{query:?}");
        }
        let hits = &retrieval.hits;
        assert!(hits.len() <= f.profile.k, "{} hits for k = {}", hits.len(), f.profile.k);
        let distinct: HashSet<usize> = hits.iter().map(|h| h.pool).collect();
        assert_eq!(distinct.len(), hits.len(), "a decision retrieved twice");
        assert!(hits.windows(2).all(|w| w[0].score >= w[1].score), "hits not best first: {hits:?}");
        for h in hits {
            assert!(h.pool < compiled.len(), "decision {} of {}", h.pool, compiled.len());
            let _ = compiled.shown(h.pool);
        }
    }
});
