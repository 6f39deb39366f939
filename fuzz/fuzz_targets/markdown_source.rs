//! The Markdown decision sources (`mneme_gate::memory::sources`): an ADR, a
//! Cursor rule, `.cursorrules`, a Copilot instructions file,
//! `copilot-instructions.md`, `CLAUDE.md`, a Claude Code rule, `AGENTS.md`
//! or an un-numbered ADR, front
//! matter included, under both profiles, through
//! `sources::parse_file`. The first byte of the input picks the kind of
//! file; the rest is its text.
//!
//! Invariants checked beyond "never panics":
//!
//! - Every diagnostic and every record is at a real line of the file.
//! - Every record has an id and a title; the ids of one file are unique.
//! - Scope globs compiled one for one (`paths` and `globs` agree); profile
//!   `mneme` keeps none, as Mneme ignores them.
//! - The same text gives the same records (no hashing order, no clock).

#![no_main]

use std::collections::HashSet;

use libfuzzer_sys::fuzz_target;
use mneme_gate::memory::sources::parse_file;
use mneme_gate::memory::SourceKind;
use mneme_gate::profile::Family;

const FILES: [(SourceKind, &str); 9] = [
    (SourceKind::Adr, "0001-use-x.md"),
    (SourceKind::Cursor, "rule.mdc"),
    (SourceKind::Cursor, ".cursorrules"),
    (SourceKind::Copilot, "go.instructions.md"),
    (SourceKind::Copilot, "copilot-instructions.md"),
    (SourceKind::Claude, "CLAUDE.md"),
    (SourceKind::Claude, "api.md"),
    (SourceKind::Agents, "AGENTS.md"),
    (SourceKind::Adr, "use-x.md"),
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let (kind, name) = FILES[pick as usize % FILES.len()];
    let text = String::from_utf8_lossy(rest);
    let lines = text.split('\n').count().max(1);
    for family in [Family::Default, Family::Mneme] {
        let (decisions, diagnostics) = parse_file(kind, name, &text, family);
        for d in &diagnostics {
            assert!(d.line >= 1 && d.line <= lines, "diagnostic at line {} of {lines}: {}", d.line, d.message);
            assert!(d.column >= 1, "diagnostic at column 0: {}", d.message);
        }
        let mut ids = HashSet::new();
        for d in &decisions {
            assert!(!d.id.is_empty(), "a record without an id");
            assert!(ids.insert(d.id.as_str()), "id {:?} twice in one file", d.id);
            let origin = d.origin().expect("a record of a source has an origin");
            assert!(origin.line >= 1 && origin.line <= lines, "record at line {} of {lines}", origin.line);
            assert_eq!(d.paths.len(), d.globs.len(), "one compiled glob per scope glob");
            if family == Family::Mneme {
                assert!(d.paths.is_empty(), "profile mneme keeps no scope glob");
            }
        }
        let (again, diagnostics_again) = parse_file(kind, name, &text, family);
        let view = |v: &[mneme_gate::memory::Decision]| {
            v.iter()
                .map(|d| (d.id.clone(), d.title.clone(), d.constraint.clone(), d.anti_patterns.clone(), d.content.clone(), d.paths.clone(), d.status().map(str::to_string)))
                .collect::<Vec<_>>()
        };
        assert_eq!(view(&decisions), view(&again), "the same text read twice differs");
        assert_eq!(diagnostics, diagnostics_again, "the same text gives other diagnostics");
    }
});
