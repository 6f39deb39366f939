//! `project_memory.json` (spec §1) under both profiles, through the public
//! entry points: `Memory::parse` for UTF-8 text, `Memory::read` for the rest.
//!
//! Invariants checked beyond "never panics":
//!
//! - The two readers agree. `Memory::parse` takes the `serde_json` fast
//!   path when it can and falls back to the tolerant reader otherwise; the
//!   fast path gives up on a byte-order mark, which the tolerant reader
//!   skips. So parsing the text with a BOM in front forces the tolerant
//!   reader, and the two results must be the same (pool, exclusions,
//!   diagnostics; columns on line 1 aside, which the BOM shifts).
//! - The pool has only eligible kinds; under profile `default` its ids are
//!   unique and no status is inactive; under `mneme` (Mneme 0.10.0 ignores
//!   status and keeps every copy of an id) the typed rules it holds are
//!   well-formed, and a pool read from a persisted `decision_index` holds
//!   decision records only; under `default` no rule is kept.
//! - Every diagnostic is at a real line and column.
//! - A memory without errors can be indexed and queried, and the one-query
//!   index (`Index::build_for_query`) ranks exactly like the full one.

#![no_main]

use std::collections::HashSet;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use mneme_gate::memory::{python_strip, Decision, Exclusion, Memory, RecordKind, Rule, Severity, INACTIVE_STATUSES};
use mneme_gate::profile::{Family, Profile};
use mneme_gate::retrieval::{Index, Query};

const BOM: char = '\u{feff}';

fuzz_target!(|data: &[u8]| {
    let text = match std::str::from_utf8(data) {
        Ok(text) => text,
        Err(e) => return check_not_utf8(data, e.valid_up_to()),
    };
    for family in [Family::Default, Family::Mneme] {
        let memory = Memory::parse(Path::new("project_memory.json"), text.to_string(), family);
        check_pool(&memory, family);
        check_diagnostics(&memory, text);
        if text.starts_with(BOM) {
            continue;
        }
        let with_bom = format!("{BOM}{text}");
        let tolerant = Memory::parse(Path::new("project_memory.json"), with_bom.clone(), family);
        check_diagnostics(&tolerant, &with_bom);
        assert_same(&memory, &tolerant);
        if !memory.has_errors() {
            check_retrieval(memory, tolerant, family);
        }
    }
});

/// Not UTF-8: only `Memory::read` sees such bytes, and makes them one error
/// that points at the first invalid byte.
fn check_not_utf8(data: &[u8], valid: usize) {
    let dir = mneme_gate_fuzz::scratch();
    let path = dir.path().join("project_memory.json");
    std::fs::write(&path, data).expect("write the input");
    let prefix = std::str::from_utf8(&data[..valid]).expect("the valid prefix");
    let line = prefix.matches('\n').count() + 1;
    let column = prefix[prefix.rfind('\n').map_or(0, |i| i + 1)..].chars().count() + 1;
    for family in [Family::Default, Family::Mneme] {
        let memory = Memory::read(&path, family).expect("the file is readable");
        assert!(memory.has_errors(), "invalid UTF-8 must be an error");
        check_diagnostics(&memory, &String::from_utf8_lossy(data));
        let d = &memory.diagnostics[0];
        assert_eq!((d.line, d.column), (line, column), "not the place of the first invalid byte");
    }
}

fn check_pool(memory: &Memory, family: Family) {
    let mut ids = HashSet::new();
    for d in &memory.pool {
        assert!(!d.id.trim().is_empty(), "blank id in the pool");
        match family {
            Family::Default => {
                assert!(ids.insert(d.id.as_str()), "duplicate id {:?} in the pool", d.id);
                if let Some(status) = d.status() {
                    assert!(
                        !INACTIVE_STATUSES.iter().any(|s| s.eq_ignore_ascii_case(status.trim())),
                        "inactive status {status:?} in the pool"
                    );
                }
                assert!(d.rules().is_empty(), "profile default keeps no rule");
            }
            Family::Mneme => {
                for r in d.rules() {
                    assert!(!python_strip(&r.value).is_empty(), "a rule without a value in the pool");
                    assert!(r.include_paths.as_ref().is_none_or(|p| !p.is_empty()), "an empty include_paths");
                    assert!(r.include_paths.is_some() || r.exclude_paths.is_empty(), "exclude_paths alone");
                }
                if memory.decision_index {
                    assert_eq!(d.kind, RecordKind::DecisionRecord, "an item in a pool read from decision_index");
                }
            }
        }
        if let RecordKind::Item(t) = &d.kind {
            let eligible = match family {
                Family::Default => matches!(t.as_str(), "decision" | "rule" | "anti_pattern"),
                Family::Mneme => matches!(t.as_str(), "rule" | "anti_pattern"),
            };
            assert!(eligible, "item type {t:?} in the pool under {family:?}");
        }
        assert_eq!(d.paths.len(), d.globs.len(), "one compiled glob per scope path");
    }
    assert!(memory.pool.len() + memory.excluded.len() <= memory.records);
}

fn check_diagnostics(memory: &Memory, text: &str) {
    let lines = text.split('\n').count().max(1);
    for d in &memory.diagnostics {
        assert!(d.line >= 1 && d.column >= 1, "diagnostic at {}:{}: {}", d.line, d.column, d.message);
        assert!(d.line <= lines, "diagnostic at line {} of {lines}: {}", d.line, d.message);
    }
}

/// What must not depend on which reader ran.
fn view(d: &Decision) -> PoolView<'_> {
    (&d.id, &d.title, &d.tags, &d.constraint, &d.anti_patterns, &d.content, &d.paths, d.status(), &d.kind, d.rules())
}

type PoolView<'m> = (
    &'m str,
    &'m str,
    &'m [String],
    &'m [String],
    &'m [String],
    &'m str,
    &'m [String],
    Option<&'m str>,
    &'m RecordKind,
    &'m [Rule],
);

fn pool_view(m: &Memory) -> Vec<PoolView<'_>> {
    m.pool.iter().map(view).collect()
}

fn excluded_view(m: &Memory) -> Vec<(&str, &str, &RecordKind, usize, &Exclusion)> {
    m.excluded.iter().map(|e| (e.id.as_str(), e.title.as_str(), &e.kind, e.line, &e.reason)).collect()
}

type DiagnosticView<'m> = (Severity, usize, Option<usize>, Option<&'m str>, String);

/// Columns on line 1 aside: the BOM shifts them, in the `column` field and
/// in messages that name another place ("the ones at line 1, column 3").
/// `bom` says whether `m` was read with the BOM; its messages are shifted
/// back.
fn diagnostics_view(m: &Memory, bom: bool) -> Vec<DiagnosticView<'_>> {
    m.diagnostics
        .iter()
        .map(|d| {
            let message = if bom { unshift_line_one(&d.message) } else { d.message.clone() };
            (d.severity, d.line, (d.line > 1).then_some(d.column), d.record_id.as_deref(), message)
        })
        .collect()
}

/// "line 1, column N" becomes "line 1, column N-1": the place as it is
/// without the BOM in front.
fn unshift_line_one(message: &str) -> String {
    const PLACE: &str = "line 1, column ";
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find(PLACE) {
        let after = &rest[at + PLACE.len()..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        out.push_str(&rest[..at + PLACE.len()]);
        match after[..digits].parse::<usize>() {
            Ok(n) if n > 1 => out.push_str(&(n - 1).to_string()),
            _ => out.push_str(&after[..digits]),
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

fn assert_same(fast: &Memory, tolerant: &Memory) {
    assert_eq!(pool_view(fast), pool_view(tolerant), "the readers disagree on the pool");
    assert_eq!(excluded_view(fast), excluded_view(tolerant), "the readers disagree on the exclusions");
    assert_eq!(
        diagnostics_view(fast, false),
        diagnostics_view(tolerant, true),
        "the readers disagree on the diagnostics"
    );
    assert_eq!(fast.records, tolerant.records, "the readers disagree on the record count");
}

fn check_retrieval(full: Memory, one: Memory, family: Family) {
    // A query made of the first decision: its title and tags, and a file
    // its first scope glob could match.
    let (task, file) = match full.pool.first() {
        Some(d) => {
            let mut task = d.title.clone();
            for tag in &d.tags {
                task.push(' ');
                task.push_str(tag);
            }
            let file = d.paths.first().map(|p| p.replace(['*', '?', '[', ']', '{', '}'], "x"));
            (task, file)
        }
        None => ("use the database".to_string(), None),
    };
    let query = Query { task: &task, file: file.as_deref() };
    let profile = Profile::named(family);
    let index = Index::build(full, profile.clone());
    let hits = index.retrieve(query).hits;
    assert!(hits.len() <= profile.k);
    let _ = index.explain(query);
    let _ = index.retrieve(Query { task: "", file: None });
    let only = Index::build_for_query(one, profile, query);
    assert_eq!(only.retrieve(query).hits, hits, "the one-query index ranks differently");
}
