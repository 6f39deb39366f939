/*!
Unit tests of loading as a whole: what the pool, the exclusions and the
diagnostics are for given texts, the messages of [`MemoryError`], and that
the fast and tolerant paths agree (on hand-picked unusual files and on the
corpora of `corpus`, a seeded generator of its own).

Deliberately not here: the tests of the JSON reader, of lines and columns
and of scope globs, which sit beside the code they test.
*/
use std::collections::BTreeSet;

use super::*;

mod corpus;

/// Parses through [`Memory::parse`] and checks that the tolerant path
/// alone gives the same memory (whichever path `parse` took).
fn parse(text: &str, family: Family) -> Memory {
    let m = Memory::parse(Path::new("m.json"), text.to_string(), family);
    assert_same(&m, &tolerant::parse(Path::new("m.json"), text.to_string(), family), text);
    m
}

fn assert_same(fast: &Memory, tolerant: &Memory, text: &str) {
    let view = |m: &Memory| format!("{:#?}", (&m.pool, &m.excluded, &m.diagnostics, m.records, m.family));
    assert_eq!(view(fast), view(tolerant), "the two paths disagree on {text}");
}

fn took_fast_path(text: &str, family: Family) -> bool {
    fast::load(text, family).is_ok()
}

#[test]
fn fast_and_tolerant_paths_agree_on_unusual_files() {
    let cases = [
        // Well-formed: the fast path must take these.
        r#"{"decisions": [{"id": "a", "decision": "x", "rules": [{"type": "FORBID_LITERAL", "value": "v"}], "extra": {"deep": [[1, 2], {"k": null}]}}]}"#,
        r#"{"items": [{"id": "a", "type": "rule", "title": "T", "scope": "src/", "constraint": "c"}], "decisions": null, "meta": null}"#,
        "[\n  {\n \"id\": \"a\", \"type\": \"rule\", \"title\": \"T\\u00e9\\n\"},\n{\"id\": \"a\", \"type\": \"rule\", \"title\": \"dup\"}]",
        r#"{"decisions": [{"id": "x", "decision": "y", "status": "Retired"}, {"id": "p", "type": "preference", "title": "P"}]}"#,
        r#"{"decisions": [{"id": "x", "decision": "y", "title": 5, "tags": {}, "type": 1}], "items": [{"id": "i", "type": "rule", "title": "t", "decision": 5, "rules": 3}]}"#,
        r#"{"decisions": [{"id": "x", "decision": "y", "rules": null}, {"id": "z", "title": "t", "rules": 1}]}"#,
        r#"{"decisions": [{"id": "a", "decision": "x", "extra": {"k": 1, "K": 2}, "k": [{"k": 1}]}], "x": {"k": 1}}"#,
        r#"{"decisions": [{"id": "a", "decision": "x", "sections": {"summary": "s", "options": "o", "later": [1, {"k": 2}]}}, {"id": "b", "decision": "y", "sections": null}]}"#,
        // Unusual: the fast path must give up, and `parse` must still match.
        r#"{"decisions": [{"id": "a", "decision": "x", "sections": 3}]}"#,
        r#"{"decisions": [{"id": "a", "decision": "x", "sections": {"summary": 1}}]}"#,
        r#"{"decisions": [{"id": "a", "decision": "x", "sections": {"context": "a", "context": "b"}}]}"#,
        r#"{"decisions": [{"id": "a", "decision": "x", "rules": [{"type": 1, "type": "FORBID_LITERAL"}]}]}"#,
        r#"{"decisions": [{"id": "a", "decision": "x", "status": "accepted", "status": "retired"}]}"#,
        r#"{"decisions": [{"id": "a", "decision": "x"}], "decisions": [{"id": "b", "decision": "y"}]}"#,
        r#"{"decisions": [{"id": "a", "decision": "x", "created_at": 1, "created_at": 2}]}"#,
        r#"{"decisions": [{"id": "a", "decision": "x", "extra": {"k": 1, "k": 2}}]}"#,
        r#"{"decisions": [{"id": "a", "decision": "x", "extra": [{"k": 1, "k\u0000": 2, "k": 3}]}]}"#,
        r#"{"decisions": [{"id": "a", "decision": "x"}], "meta": {"v": 1, "v": 2}}"#,
        r#"{"decisions": [{"id": "a", "decision": "x"}], "x": 1, "x": 2}"#,
        r#"{"decisions": [{"id": "a", "decision": "x"}], "x": {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7, "h": 8, "i": 9, "j": 10, "a": 11}}"#,
        r#"{"decisions": [{"id": "a", "decision": "x", "extra": {"k\u0041": 1}}]}"#,
        "\u{feff}[]",
        "",
        "42",
        "[1]",
        "{}",
        r#"{"decisions": [{"id": "x", "title": null}]}"#,
        r#"{"meta": 3, "items": []}"#,
        r#"{"items": [{"id": "a", "id": "b", "type": "rule", "title": "T"}]}"#,
        r#"{"items": [{"i\u0064": "a", "type": "rule", "title": "T"}]}"#,
        r#"{"items": [{"id": "a", "ty\u0070e": "rule", "title": "T"}]}"#,
        r#"{"items": [{"id": "a", "type": "rule", "title": "T", "scope": "src/[ab"}]}"#,
        r#"{"items": [{"id": "a", "type": "rule", "title": "T", "scope": "src/[ab", "status": "retired"}]}"#,
        r#"{"decisions": [{"id": "a", "decision": "x", "rules": [{"type": "OTHER"}]}]}"#,
        r#"{"decisions": [{"id": "a", "decision": "x", "rules": [{"type": "FORBID_LITERAL", "type": 1}]}]}"#,
        r#"{"decisions": [{"id": "a", "decision": "x", "rules": ["x"]}]}"#,
        r#"{"decisions": [{"id": "a", "decision": "x", "scope": "one"}]}"#,
        r#"{"decisions": [{"id": " ", "decision": "x"}]}"#,
        r#"{"decisions": [{"id": "a", "decision": ""}]}"#,
        r#"{"decisions": [{"id": "a", "type": null, "title": "t"}]}"#,
        r#"{"items": [{"id": "a", "type": "rule", "title": "T", "tags": ["x", 1]}]}"#,
        r#"{"items": [{"id": "a", "type": "rule", "title": "T"},]}"#,
        r#"{"items": [{"id": "a", "type": "rule", "title": "T"}]} x"#,
        r#"{"items": [{"id": "a", "type": "rule", "title": "T", "x": "\ud800"}]}"#,
        r#"{"items": [{"id": "a", "type": "rule", "title": "T", "x": "\ud800\u0041"}]}"#,
        r#"{"items": [{"id": "a", "type": "rule", "title": "T", "x": "\udc00"}]}"#,
        r#"{"items": [{"id": "a", "type": "rule", "title": "T", "x": 01}]}"#,
        r#"{"items": [{}]}"#,
        r#"{"items": [{"id": "a", "type": "rule", "title": "T"}], "items": []}"#,
    ];
    for text in cases {
        for family in [Family::Default, Family::Mneme] {
            parse(text, family);
        }
    }
    for text in &cases[..8] {
        assert!(took_fast_path(text, Family::Default), "{text}");
    }
    for text in &cases[8..] {
        assert!(!took_fast_path(text, Family::Default), "{text}");
    }
    for depth in [90, 97, 98, 99, 100, 101, 126, 127, 128, 129, 200] {
        let deep = format!(
            r#"{{"items": [{{"id": "a", "type": "rule", "title": "T", "x": {}{}}}]}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        );
        parse(&deep, Family::Default);
    }
}

/// `sections`, as `import` writes them, are read back by both paths; a
/// member of the wrong type is an error at its place.
#[test]
fn sections_of_a_decision_record_are_read_back() {
    let m = parse(
        r#"{"decisions": [{"id": "a", "decision": "x", "sections": {"summary": "s", "consequences": "c", "subsections": "b"}}]}"#,
        Family::Default,
    );
    assert_eq!(m.pool[0].sections().summary, "s");
    assert_eq!(m.pool[0].sections().consequences, "c");
    assert_eq!(m.pool[0].sections().subsections, "b");
    let m = parse(r#"{"decisions": [{"id": "a", "decision": "x", "sections": {"summary": 1}}]}"#, Family::Default);
    assert!(
        m.diagnostics.iter().any(|d| d.message.contains("`sections.summary` must be a string, found a number")),
        "{:?}",
        m.diagnostics
    );
}

/// Generated corpora, clean and not: the fast path must take every clean
/// one and, whatever it takes, give the memory the tolerant path gives.
#[test]
fn fast_and_tolerant_paths_agree_on_generated_corpora() {
    let mut rng = corpus::Rng::new(0x006d_6e65_6d65);
    let mut cases: Vec<(String, bool)> = (0..3).map(|_| (corpus::corpus(&mut rng, 1000, true), true)).collect();
    for case in 0..600 {
        let records = rng.below(30);
        cases.push((corpus::corpus(&mut rng, records, case % 3 == 0), case % 3 == 0));
    }
    // What the fast path was shown to agree on, and what the tolerant path alone saw.
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    for (case, (text, clean)) in cases.iter().enumerate() {
        for family in [Family::Default, Family::Mneme] {
            let tolerant = tolerant::parse(Path::new("m.json"), text.clone(), family);
            let fast = took_fast_path(text, family);
            assert!(fast || !clean, "case {case}: a clean corpus must take the fast path:\n{text}");
            let memory = Memory::parse(Path::new("m.json"), text.clone(), family);
            assert_same(&memory, &tolerant, &format!("case {case} ({family:?}):\n{text}"));
            let path = if fast { "fast" } else { "tolerant" };
            seen.insert(path);
            if fast && !clean {
                seen.insert("fast: a corpus not meant to be clean");
            }
            if fast && memory.pool.len() > 10 {
                seen.insert("fast: more than 10 in the pool");
            }
            for e in &memory.excluded {
                seen.insert(if fast { e.reason.code() } else { "tolerant: an exclusion" });
            }
            if memory.has_errors() {
                seen.insert("tolerant: errors");
            }
            if memory.warnings().next().is_some() {
                seen.insert(if fast { "fast: warnings" } else { "tolerant: warnings" });
            }
            if memory.warnings().any(|w| w.message.starts_with("repeated member")) {
                // Never the fast path's: it gives up on a repeated member.
                seen.insert(if fast { "fast: a repeated member" } else { "tolerant: a repeated member" });
            }
        }
    }
    let expected = [
        "duplicate_id",
        "fast",
        "fast: a corpus not meant to be clean",
        "fast: more than 10 in the pool",
        "fast: warnings",
        "inactive_status",
        "not_eligible_type",
        "tolerant",
        "tolerant: a repeated member",
        "tolerant: an exclusion",
        "tolerant: errors",
        "tolerant: warnings",
    ];
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), expected, "the generator no longer covers every case");
}

fn ids(m: &Memory) -> Vec<&str> {
    m.pool.iter().map(|d| d.id.as_str()).collect()
}

const MIXED: &str = r#"{
  "meta": {"name": "x"},
  "items": [
{"id": "I1", "type": "decision", "title": "Item decision", "content": "c", "constraint": "one", "tags": ["t"], "scope": "src/**"},
{"id": "R1", "type": "rule", "title": "A rule", "content": "Rule body", "tags": ["x"], "scope": ["a/"]},
{"id": "A1", "type": "anti_pattern", "title": "Global state", "content": "No singletons"},
{"id": "P1", "type": "preference", "title": "Pref"},
{"id": "F1", "type": "fact", "title": "Fact"},
{"id": "S1", "type": "rule", "title": "Old rule", "status": "Superseded"}
  ],
  "decisions": [
{"id": "D1", "decision": "Use the ledger", "rationale": "why", "scope": ["payments"], "constraints": ["no db"], "anti_patterns": ["psycopg2"]},
{"id": "D2", "title": "Item inside decisions", "content": "body"}
  ]
}"#;

#[test]
fn pool_order_is_decision_records_then_items_and_maps_fields() {
    let m = parse(MIXED, Family::Default);
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
    assert_eq!(ids(&m), ["D1", "D2", "I1", "R1", "A1"]);
    let d1 = &m.pool[0];
    assert_eq!((d1.title.as_str(), d1.content.as_str()), ("Use the ledger", "why"));
    assert_eq!(
        (d1.tags.clone(), d1.constraint.clone(), d1.anti_patterns.clone()),
        (vec!["payments".to_string()], vec!["no db".to_string()], vec!["psycopg2".to_string()])
    );
    assert_eq!(m.pool[1].kind, RecordKind::Item("decision".into()));
    let i1 = &m.pool[2];
    assert_eq!((i1.constraint.clone(), i1.paths.clone()), (vec!["one".to_string()], vec!["src/**".to_string()]));
    assert_eq!(m.pool[3].paths, ["a/"]);
    let reasons: Vec<_> = m.excluded.iter().map(|e| (e.id.as_str(), e.reason.code())).collect();
    assert_eq!(reasons, [("P1", "not_eligible_type"), ("F1", "not_eligible_type"), ("S1", "inactive_status")]);
}

#[test]
fn mneme_profile_migrates_rules_and_anti_patterns_only() {
    let m = parse(MIXED, Family::Mneme);
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
    // Mneme's retriever ignores `status`: the superseded rule is in the pool.
    assert_eq!(ids(&m), ["D1", "R1", "A1", "S1"]);
    let r1 = &m.pool[1];
    assert_eq!(r1.title, "A rule");
    assert_eq!(r1.tags, ["general"]);
    assert_eq!(r1.constraint, ["Rule body"]);
    assert!(r1.anti_patterns.is_empty() && r1.content.is_empty() && r1.paths.is_empty());
    let a1 = &m.pool[2];
    assert_eq!(a1.title, "Avoid: Global state");
    assert_eq!(a1.anti_patterns, ["Global state"]);
    assert_eq!(a1.constraint, ["No singletons"]);
    let excluded: Vec<_> = m.excluded.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(excluded, ["D2", "I1", "P1", "F1"]);
}

/// Repeated ids as Mneme reads them: Mneme keeps every copy of a repeated id in
/// the pool (and warns here); `default` keeps the first.
#[test]
fn repeated_ids_stay_in_the_mneme_pool() {
    let text = r#"{"decisions": [
{"id": "dupe_id", "decision": "First copy", "scope": ["frontend"]},
{"id": "other", "decision": "Storage backend notes", "scope": ["docs"]},
{"id": "dupe_id", "decision": "Second copy about storage", "scope": ["storage", "backend"]}
]}"#;
    let m = parse(text, Family::Mneme);
    assert_eq!(ids(&m), ["dupe_id", "other", "dupe_id"]);
    assert_eq!(m.diagnostics.len(), 1);
    assert!(m.diagnostics[0].message.contains("keeps every copy"), "{:?}", m.diagnostics);
    let m = parse(text, Family::Default);
    assert_eq!(ids(&m), ["dupe_id", "other"]);
    assert_eq!(m.excluded[0].reason, Exclusion::DuplicateId { kept_line: 2, kept_file: None });
}

/// Rules as Mneme reads them: kept under `mneme`, every rule Mneme refuses
/// an error there; under `default` an unknown type or a path list that is not
/// a list is a warning, and the rules are not kept.
#[test]
fn rules_are_read_under_mneme_and_checked_under_default() {
    let good = r#"{"decisions": [{"id": "a", "decision": "A", "rules": [
{"type": "FORBID_LITERAL", "value": "psycopg2"},
{"type": "FORBID_LITERAL", "value": "mongo", "include_paths": ["src/**"], "exclude_paths": ["src/legacy/*.py"], "note": 1}
]}]}"#;
    for text in [good.to_string(), good.replace('\n', " ")] {
        let m = parse(&text, Family::Mneme);
        assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
        let rules = m.pool[0].rules();
        assert_eq!(rules.len(), 2);
        assert_eq!((rules[0].value.as_str(), rules[0].include_paths.is_none()), ("psycopg2", true));
        assert_eq!(rules[1].include_paths.as_deref(), Some(&["src/**".to_string()][..]));
        assert_eq!(rules[1].exclude_paths, ["src/legacy/*.py"]);
        assert!(parse(&text, Family::Default).pool[0].rules().is_empty());
    }
    let refused = [
        (r#"{"type": "FORBID_REGEX", "value": "x"}"#, "defines only `FORBID_LITERAL`"),
        (r#"{"type": "FORBID_LITERAL", "value": "x", "include_paths": "src/**"}"#, "must be a list"),
        (r#"{"type": "FORBID_LITERAL", "value": "x", "exclude_paths": {"a": 1}}"#, "must be a list"),
        (r#"{"type": "FORBID_LITERAL", "value": " \u001c "}"#, "needs a `value`"),
        (r#"{"type": "FORBID_LITERAL"}"#, "needs a `value`"),
        (r#"{"type": "FORBID_LITERAL", "value": "x", "include_paths": []}"#, "is empty"),
        (r#"{"type": "FORBID_LITERAL", "value": "x", "include_paths": ["/abs"]}"#, "not absolute"),
        (r#"{"type": "FORBID_LITERAL", "value": "x", "include_paths": ["src/[ab]"]}"#, "no `?`"),
        (r#"{"type": "FORBID_LITERAL", "value": "x", "exclude_paths": ["src/**"]}"#, "needs include_paths"),
    ];
    for (rule, why) in refused {
        let text = format!(r#"{{"decisions": [{{"id": "a", "decision": "A", "rules": [{rule}]}}]}}"#);
        let m = parse(&text, Family::Mneme);
        assert!(m.has_errors(), "{rule}");
        assert!(m.diagnostics.iter().any(|d| d.message.contains(why)), "{rule}: {:?}", m.diagnostics);
        let d = parse(&text, Family::Default);
        assert!(!d.has_errors(), "{rule}: {:?}", d.diagnostics);
        let warned = d.diagnostics.iter().any(|d| d.severity == Severity::Warning);
        assert_eq!(warned, why == "must be a list" || why.contains("FORBID_LITERAL"), "{rule}: {:?}", d.diagnostics);
    }
}

/// A file as `mneme decision-index migrate` writes it: under `default` the
/// migrated items' copies in decisions[] win without a warning; under
/// `mneme` the pool is the verified decisions[] and items are not migrated.
#[test]
fn a_persisted_decision_index_is_read_as_mneme_reads_it() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/mneme/migrated/project_memory.json"),
    )
    .unwrap();
    let m = parse(&text, Family::Default);
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
    assert!(m.excluded.iter().any(|e| matches!(e.reason, Exclusion::MigratedCopy { .. })));
    let m = parse(&text, Family::Mneme);
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
    assert!(m.decision_index);
    assert_eq!(m.pool.len(), 11);
    assert!(m.pool.iter().all(|d| d.kind == RecordKind::DecisionRecord));
    assert!(m.excluded.iter().all(|e| e.reason == Exclusion::NotMigrated));
    // decisions[] that no longer matches the index is refused, naming why.
    let edited = text.replacen("\"no postgres\"", "\"no mysql\"", 1);
    let m = parse(&edited, Family::Mneme);
    assert!(m.has_errors());
    let e = &m.diagnostics[0];
    assert!(e.message.contains("diverges from the decision_index") && e.message.contains("`constraints`"), "{e:?}");
    assert!(!parse(&edited, Family::Default).has_errors());
}

#[test]
fn mneme_migration_of_empty_content_gives_no_constraint() {
    let m = parse(r#"[{"id": "r", "type": "rule", "title": "T"}]"#, Family::Mneme);
    assert!(m.pool[0].constraint.is_empty());
}

#[test]
fn top_level_array_is_items() {
    let m = parse(
        r#"[{"id": "a", "type": "rule", "title": "T"}, {"id": "b", "type": "decision", "title": "U"}]"#,
        Family::Default,
    );
    assert_eq!(ids(&m), ["a", "b"]);
}

#[test]
fn inactive_statuses_ignore_case_and_active_ones_stay() {
    let text = r#"{"decisions": [
        {"id": "a", "decision": "x", "status": "DEPRECATED"},
        {"id": "b", "decision": "x", "status": "rejected"},
        {"id": "c", "decision": "x", "status": "Retired"},
        {"id": "d", "decision": "x", "status": "accepted"},
        {"id": "e", "decision": "x", "status": "proposed"}
    ]}"#;
    let m = parse(text, Family::Default);
    assert_eq!(ids(&m), ["d", "e"]);
}

#[test]
fn duplicate_ids_first_wins_with_a_warning_and_inactive_ones_do_not_count() {
    let text = "{\"decisions\": [\n{\"id\": \"a\", \"decision\": \"old\", \"status\": \"superseded\"},\n{\"id\": \"a\", \"decision\": \"first\"},\n{\"id\": \"a\", \"decision\": \"second\"}\n]}";
    let m = parse(text, Family::Default);
    assert_eq!(m.pool.len(), 1);
    assert_eq!(m.pool[0].title, "first");
    assert_eq!(m.diagnostics.len(), 1);
    let d = &m.diagnostics[0];
    assert_eq!((d.severity, d.line, d.record_id.as_deref()), (Severity::Warning, 4, Some("a")));
    assert!(d.message.contains("line 3 wins"), "{}", d.message);
    assert!(!m.has_errors());
}

#[test]
fn field_errors_name_line_column_and_record() {
    let text = "{\"items\": [\n  {\"type\": \"rule\", \"title\": \"no id\"},\n  {\"id\": \"x\", \"type\": \"rule\", \"title\": \"T\", \"tags\": \"solo\"},\n  {\"id\": 7, \"type\": \"rule\", \"title\": \"T\"},\n  {\"id\": \"y\", \"title\": \"T\"},\n  {\"id\": \"z\", \"type\": \"rule\", \"title\": \"T\", \"constraint\": [1]}\n]}";
    let m = parse(text, Family::Default);
    let shown: Vec<String> = m.diagnostics.iter().map(|d| d.render(Path::new("m.json"))).collect();
    assert_eq!(
        shown,
        [
            "m.json:2:3: error: missing required field `id` (a unique string id)",
            "m.json:3:53: error: field `tags` must be a list of strings, found a string (record \"x\")",
            "m.json:4:10: error: field `id` must be a string, found a number",
            "m.json:5:3: error: missing required field `type` (the item type, for example `decision`, `rule` or `anti_pattern`) (record \"y\")",
            "m.json:6:60: error: `constraint[0]` must be a string, found a number (constraint is a string or a list of strings) (record \"z\")",
        ]
    );
    assert!(m.pool.is_empty());
}

#[test]
fn decisions_entries_need_a_decision_or_a_title() {
    let m = parse(r#"{"decisions": [{"id": "a", "rationale": "r"}, "text"]}"#, Family::Default);
    let msgs: Vec<&str> = m.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(msgs.len(), 2, "{msgs:?}");
    assert!(msgs[0].contains("neither a string `decision`"));
    assert!(msgs[1].contains("must be an object"));
}

#[test]
fn syntax_errors_do_not_hide_other_problems() {
    let text = "{\"items\": [\n {\"id\": \"a\", \"type\": \"rule\", \"title\": \"T\",},\n {\"type\": \"rule\", \"title\": \"T\"},\n {\"id\": \"b\", \"type\": \"rule\", \"title\": \"T\", \"scope\": \"src/{a,b\"},\n {\"id\": \"c\", \"type\": \"rule\", \"title\": \"T\"},\n {\"id\": \"c\", \"type\": \"rule\", \"title\": \"T\"}\n]}";
    let m = parse(text, Family::Default);
    let lines: Vec<(usize, Severity)> = m.diagnostics.iter().map(|d| (d.line, d.severity)).collect();
    assert_eq!(
        lines,
        [(2, Severity::Error), (3, Severity::Error), (4, Severity::Error), (6, Severity::Warning)],
        "{:#?}",
        m.diagnostics
    );
    assert!(m.diagnostics[2].message.contains("unclosed alternation"), "{}", m.diagnostics[2].message);
    assert_eq!(m.diagnostics[2].record_id.as_deref(), Some("b"));
}

#[test]
fn invalid_globs_in_inactive_records_are_only_warnings() {
    let m =
        parse(r#"[{"id": "a", "type": "rule", "title": "T", "scope": "[ab", "status": "retired"}]"#, Family::Default);
    assert!(!m.has_errors());
    assert_eq!(m.warnings().count(), 1);
}

#[test]
fn shapes_that_are_not_memory_files_are_errors() {
    assert!(parse("42", Family::Default).has_errors());
    assert!(parse(r#"{"items": {}}"#, Family::Default).has_errors());
    let empty = parse("{}", Family::Default);
    assert!(!empty.has_errors() && empty.warnings().count() == 1);
    assert!(parse("", Family::Default).has_errors());
}

#[test]
fn nulls_are_absent_optional_fields() {
    let m = parse(
        r#"{"decisions": [{"id": "a", "decision": "x", "rationale": null, "scope": null, "status": null}]}"#,
        Family::Default,
    );
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
    assert_eq!(m.pool.len(), 1);
}

#[test]
fn memory_error_messages_list_the_errors_only() {
    let path = Path::new("m.json");
    let read = MemoryError::Read {
        path: path.to_path_buf(),
        source: std::io::Error::new(std::io::ErrorKind::NotFound, "gone"),
    };
    assert_eq!(read.to_string(), "cannot read the memory file m.json: gone");
    assert_eq!(std::error::Error::source(&read).map(ToString::to_string).as_deref(), Some("gone"));
    let text = "[{\"type\": \"rule\", \"title\": \"T\"}, 5,\n {\"id\": \"a\", \"type\": \"rule\", \"title\": \"T\"},\n {\"id\": \"a\", \"type\": \"rule\", \"title\": \"T\"}]";
    let memory = parse(text, Family::Default);
    assert_eq!(memory.warnings().count(), 1);
    let invalid = MemoryError::Invalid {
        path: path.to_path_buf(),
        diagnostics: memory.diagnostics.clone(),
        family: Family::Default,
    };
    assert_eq!(
        invalid.to_string(),
        "the memory file m.json has 2 error(s):\n  m.json:1:2: error: missing required field `id` (a unique string id)\n  m.json:1:34: error: [1] must be an object (a record), found a number\nrun `mneme-gate validate --memory m.json` to see every problem"
    );
    let mneme =
        MemoryError::Invalid { path: path.to_path_buf(), diagnostics: memory.diagnostics, family: Family::Mneme };
    assert!(mneme
        .to_string()
        .ends_with("run `mneme-gate validate --memory m.json --profile mneme` to see every problem"));
    assert!(std::error::Error::source(&invalid).is_none());
}

#[test]
fn repeated_members_are_warnings_at_every_occurrence() {
    let text = "{\"decisions\": [\n {\"id\": \"a\", \"decision\": \"x\", \"status\": \"accepted\",\n  \"status\": \"retired\"}\n],\n\"decisions\": [{\"id\": \"b\", \"decision\": \"y\", \"extra\": {\"k\": 1, \"k\": 2, \"k\": 3}}]}";
    let m = parse(text, Family::Default);
    assert!(!m.has_errors());
    let shown: Vec<String> = m.diagnostics.iter().map(|d| d.render(Path::new("m.json"))).collect();
    assert_eq!(
        shown,
        [
            "m.json:1:2: warning: repeated member \"decisions\": only the last one (line 5, column 1) is read, this one is ignored; keep only one",
            "m.json:2:31: warning: repeated member \"status\": only the last one (line 3, column 3) is read, this one is ignored; keep only one (record \"a\")",
            "m.json:3:3: warning: repeated member \"status\": this one is read, the one at line 2, column 31 is ignored; keep only one (record \"a\")",
            "m.json:5:1: warning: repeated member \"decisions\": this one is read, the one at line 1, column 2 is ignored; keep only one",
            "m.json:5:54: warning: repeated member \"k\": only the last one (line 5, column 70) is read, this one is ignored; keep only one (record \"b\")",
            "m.json:5:62: warning: repeated member \"k\": only the last one (line 5, column 70) is read, this one is ignored; keep only one (record \"b\")",
            "m.json:5:70: warning: repeated member \"k\": this one is read, the ones at line 5, column 54 and line 5, column 62 are ignored; keep only one (record \"b\")",
        ]
    );
    assert_eq!(ids(&m), ["b"]);
    // A long or odd name is escaped and cut.
    let name = format!("{}\n", "n".repeat(100));
    let text = format!(r#"[{{"id": "a", "type": "rule", "title": "T", "{0}": 1, "{0}": 2}}]"#, name.escape_default());
    let m = parse(&text, Family::Default);
    assert_eq!(m.warnings().count(), 2);
    assert!(m.diagnostics[0].message.starts_with(&format!("repeated member \"{}...\" (101 bytes): ", "n".repeat(60))));
    // Many members: found as well.
    let many: Vec<String> = (0..40).map(|i| format!("\"k{}\": {i}", i % 39)).collect();
    let m = parse(&format!(r#"[{{"id": "a", "type": "rule", "title": "T", {}}}]"#, many.join(", ")), Family::Default);
    assert_eq!(m.warnings().count(), 2, "{:?}", m.diagnostics);
}

/// `paths` of a decision record (what `mneme-gate import` writes for a rule
/// file): scope globs under profile `default`, ignored under `mneme` (as
/// Mneme ignores it); both loaders agree, an invalid glob included.
#[test]
fn decision_records_take_scope_globs_from_paths() {
    let text = r#"{"decisions": [{"id": "a", "decision": "x", "paths": ["src/**/*.go", "*.md"]}, {"id": "b", "decision": "y", "paths": "web/"}]}"#;
    assert!(took_fast_path(text, Family::Default));
    let m = parse(text, Family::Default);
    assert_eq!(m.pool[0].paths, ["src/**/*.go", "*.md"]);
    assert_eq!(m.pool[1].paths, ["web/"]);
    assert_eq!(m.pool[1].globs.len(), 1);
    let m = parse(text, Family::Mneme);
    assert!(m.pool.iter().all(|d| d.paths.is_empty() && d.globs.is_empty()));
    let broken = "{\"decisions\": [\n{\"id\": \"a\", \"decision\": \"x\", \"paths\": [\"src/[ab\"]},\n{\"id\": \"b\", \"decision\": \"y\", \"paths\": 5}]}";
    assert!(!took_fast_path(broken, Family::Default));
    let m = parse(broken, Family::Default);
    let found: Vec<(usize, &str)> = m.diagnostics.iter().map(|d| (d.line, d.message.as_str())).collect();
    assert_eq!(
        found,
        [
            (2, "invalid scope glob \"src/[ab\": unclosed character class `[`: close it with `]`"),
            (3, "field `paths` must be a string or a list of strings, found a number")
        ]
    );
    // Profile mneme does not read `paths` at all.
    assert!(!parse(broken, Family::Mneme).has_errors());
}
