/*!
Native suite files, parsed from text: every shape a scenario, a response and
an assertion may take, and every error, with its place and its words. (The
tests that need the file system, walking and loading, are in `load`.)
*/

use std::path::{Component, Path, PathBuf};

use super::*;
use crate::scenarios::text::suggest;
use crate::scenarios::{AssertionKind, Matcher, ParsedAssertion, Severity, Suite, SuiteLimits, YamlLimits};

fn parse(text: &str) -> (Vec<Scenario>, Vec<SuiteError>) {
    parse_native(text, Path::new("suite.yaml"), &SuiteRoot::for_tests("root"), Path::new(""))
}

fn one(text: &str) -> Scenario {
    let (s, e) = parse(text);
    assert!(e.is_empty(), "unexpected errors: {e:?}");
    assert_eq!(s.len(), 1);
    s.into_iter().next().unwrap()
}

fn err_strings(text: &str) -> Vec<String> {
    parse(text).1.iter().map(|e| e.to_string()).collect()
}

#[test]
fn full_native_scenario() {
    let s = one(r#"
scenarios:
  - id: refund-endpoint-ledger
    category: scope
    description: Refunds go through the ledger client
    task: "  Add a refund endpoint  "
    file: services/payments/refunds.py
    expect: [ADR-012]
    acceptable: [ADR-003]
    responses:
      control: responses/refund-control.json
      governed: responses/refund-governed.txt
    assertions:
      - forbidden_dependency: psycopg2
      - forbidden_path: migrations/
      - forbidden_text: "psycopg2.connect"
      - forbidden_text: { regex: "create_engine\\(" }
      - required_text: LedgerClient
      - forbidden_text: { value: "TODO", severity: soft }
      - { forbidden_text: "FIXME", severity: soft }
"#);
    assert_eq!(s.id, "refund-endpoint-ledger");
    assert_eq!(s.category, "scope");
    assert_eq!(s.task, "Add a refund endpoint");
    assert_eq!(s.file.as_deref(), Some("services/payments/refunds.py"));
    assert_eq!(s.expect, vec!["ADR-012"]);
    assert_eq!(s.acceptable, vec!["ADR-003"]);
    assert_eq!((s.line, s.column), (3, 5));
    assert_eq!(s.format, SuiteFormat::Native);
    assert_eq!(
        s.control,
        Some(ResponseRef::Resolved {
            declared: "responses/refund-control.json".into(),
            path: PathBuf::from("root/responses/refund-control.json"),
            format: ResponseFormat::Structured,
            canonical_root: PathBuf::from("/nonexistent-suite-root"),
            max_bytes: 1 << 20,
            digest: Default::default(),
            folder: Default::default(),
        })
    );
    match &s.governed {
        Some(ResponseRef::Resolved { format, .. }) => assert_eq!(*format, ResponseFormat::Text),
        other => panic!("{other:?}"),
    }
    let kinds: Vec<_> = s
        .assertions
        .iter()
        .map(|a| {
            let v = a.valid().expect("valid");
            (v.kind, v.severity, matches!(v.matcher, Matcher::Regex(_)))
        })
        .collect();
    use AssertionKind::*;
    use Severity::*;
    assert_eq!(
        kinds,
        vec![
            (ForbiddenDependency, Hard, false),
            (ForbiddenPath, Hard, false),
            (ForbiddenText, Hard, false),
            (ForbiddenText, Hard, true),
            (RequiredText, Hard, false),
            (ForbiddenText, Soft, false),
            (ForbiddenText, Soft, false),
        ]
    );
    assert_eq!(s.assertions[0].line, Some(14));
    assert_eq!(s.assertions[0].column, Some(9));
}

#[test]
fn defaults() {
    let s = one("scenarios:\n  - id: a\n    task: t\n");
    assert_eq!(s.category, DEFAULT_CATEGORY);
    assert_eq!(s.description, "");
    assert!(s.expect.is_empty() && !s.is_governed());
    assert!(s.control.is_none() && s.governed.is_none());
    assert!(s.assertions.is_empty());
}

#[test]
fn empty_file_has_no_scenarios_and_no_errors() {
    let (s, e) = parse("");
    assert!(s.is_empty() && e.is_empty());
    let (s, e) = parse("scenarios: []\n");
    assert!(s.is_empty() && e.is_empty());
}

/// Where the mistake is, not where the YAML reader noticed it: the reader
/// reports a tab in an indentation at the plain scalar before it (a line
/// early) and an unclosed `[` where the next key stops it (a line late).
#[test]
fn syntax_errors_point_at_the_tab_and_at_the_unclosed_bracket() {
    let tab = "scenarios:\n  - id: a\n    task: x\n    expect: [PAY-003]\n  - id: b\n    task: y\n    expect: []\n    category: c\n    description: d\n \tfile: f\n";
    let e = err_strings(tab);
    assert_eq!(
        e,
        ["suite.yaml:10:2: syntax error: a tab in the indentation; YAML indents with spaces only: replace the tab; \
          fix the file and load it again"]
    );
    let open = "scenarios:\n  - id: a\n    task: x\n    expect: [PAY-003, \"it's [not] here\" # a [comment\n  - id: b\n    task: y\n";
    let e = err_strings(open);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].starts_with("suite.yaml:4:13: syntax error: this `[` is never closed (the YAML reader stopped at 5:"),
        "{e:?}"
    );
    // A bracket inside a plain value opens nothing, and one closed on the
    // next line is no error.
    let fine = "scenarios:\n  - id: a[1]\n    task: x\n    expect: [PAY-003,\n      PAY-005]\n";
    assert!(parse(fine).1.is_empty(), "{:?}", parse(fine).1);
}

#[test]
fn syntax_error_points_at_line_and_column() {
    let (_, e) = parse("scenarios:\n  - id: a\n    task: \"open\n  - id: b\n");
    assert_eq!(e.len(), 1);
    assert!(matches!(e[0], SuiteError::Syntax { line: 4, column: 3, .. }), "{e:?}");
    assert!(e[0].to_string().starts_with("suite.yaml:4:3: syntax error:"));
    assert!(!e[0].to_string().contains('\n'));
}

#[test]
fn duplicate_key_is_a_syntax_error() {
    let (_, e) = parse("scenarios:\n  - id: a\n    id: b\n    task: t\n");
    assert!(matches!(e[0], SuiteError::Syntax { line: 3, column: 5, .. }), "{e:?}");
}

#[test]
fn unknown_keys_are_rejected_with_a_suggestion() {
    let e = parse("scenarios:\n  - id: a\n    task: t\n    expcet: [X]\n    responses:\n      baseline: x.json\n").1;
    assert_eq!(e.len(), 2, "{e:?}");
    match &e[0] {
        SuiteError::UnknownKey { line, column, key, suggestion, .. } => {
            assert_eq!((*line, *column, key.as_str()), (4, 5, "expcet"));
            assert_eq!(suggestion.as_deref(), Some("expect"));
        }
        other => panic!("{other:?}"),
    }
    assert!(e[0].to_string().contains("did you mean `expect`?"));
    assert!(matches!(&e[1], SuiteError::UnknownKey { line: 6, key, .. } if key == "baseline"));
    let top = parse("scenario:\n  - id: a\n").1;
    assert!(top.iter().any(|e| matches!(e, SuiteError::UnknownKey { suggestion: Some(s), .. } if s == "scenarios")));
    assert!(top.iter().any(|e| matches!(e, SuiteError::MissingField { field, .. } if field == "scenarios")));
}

#[test]
fn missing_id_and_task_are_errors_at_the_scenario() {
    let e = parse("scenarios:\n  - id: a\n  - task: t\n  - id: c\n    task: \"  \"\n").1;
    let got: Vec<_> = e
        .iter()
        .map(|e| match e {
            SuiteError::MissingField { field, line, .. } => (field.as_str(), *line),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(got, vec![("task", 2), ("id", 3), ("task", 4)]);
}

#[test]
fn wrong_types_are_reported_all_at_once() {
    let e = err_strings(
        "scenarios:\n  - id: 12\n    task: [a]\n    expect: ADR-1\n    acceptable: [1, \"\"]\n    responses: [x]\n    assertions: {}\n",
    );
    assert_eq!(e.len(), 7, "{e:#?}");
    assert!(
        e[4].starts_with("suite.yaml:5:21: `acceptable[]` must be a decision id, found an empty string"),
        "{}",
        e[4]
    );
    assert_eq!(e[0], "suite.yaml:2:9: `id` must be a string, found the number `12` (quote it to make it a string)");
    assert!(e[2].contains("write `expect: [ADR-1]`"), "{}", e[2]);
    assert!(e[3].starts_with("suite.yaml:5:18: `acceptable[]`"), "{}", e[3]);
    let top = err_strings("- id: a\n");
    assert!(top[0].contains("`suite file` must be a mapping"), "{top:?}");
    let list = err_strings("scenarios:\n  - just a string\n");
    assert!(list[0].starts_with("suite.yaml:2:5: `scenarios[]` must be a mapping"), "{list:?}");
}

#[test]
fn a_bad_scenario_does_not_hide_the_good_ones() {
    let (s, e) = parse("scenarios:\n  - id: a\n    task: t\n  - id: b\n  - id: c\n    task: t\n");
    assert_eq!(s.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), ["a", "c"]);
    assert_eq!(e.len(), 1);
}

#[test]
fn response_paths_must_stay_inside_the_root() {
    let (_, e) = parse_native(
        "scenarios:\n  - id: a\n    task: t\n    responses:\n      control: ../../x.json\n      governed: /etc/passwd\n",
        Path::new("root/sub/s.yaml"),
        &SuiteRoot::for_tests("root"),
        Path::new("sub"),
    );
    assert_eq!(e.len(), 2, "{e:?}");
    assert!(
        matches!(&e[0], SuiteError::PathOutsideRoot { line: 5, column: 16, response, .. } if response == "../../x.json")
    );
    assert!(matches!(&e[1], SuiteError::PathOutsideRoot { line: 6, .. }));
    // Climbing within the root is fine, and the file need not exist.
    let (s, e) = parse_native(
        "scenarios:\n  - id: a\n    task: t\n    responses:\n      control: ../common/./x.json\n      governed: ok/../y.md\n",
        Path::new("root/sub/s.yaml"),
        &SuiteRoot::for_tests("root"),
        Path::new("sub"),
    );
    assert!(e.is_empty(), "{e:?}");
    match (&s[0].control, &s[0].governed) {
        (
            Some(ResponseRef::Resolved { path: c, format: cf, .. }),
            Some(ResponseRef::Resolved { path: g, format: gf, .. }),
        ) => {
            assert_eq!(c, &PathBuf::from("root/common/x.json"));
            assert_eq!(g, &PathBuf::from("root/sub/y.md"));
            assert_eq!((*cf, *gf), (ResponseFormat::Structured, ResponseFormat::Text));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn null_or_empty_response_paths_are_unusable_not_load_errors() {
    let s = one("scenarios:\n  - id: a\n    task: t\n    responses:\n      control:\n      governed: \"\"\n");
    assert!(matches!(s.control, Some(ResponseRef::Unusable { .. })));
    assert!(matches!(s.governed, Some(ResponseRef::Unusable { .. })));
}

fn invalid_reason(assertion_yaml: &str) -> String {
    let s = one(&format!("scenarios:\n  - id: a\n    task: t\n    assertions:\n      - {assertion_yaml}\n"));
    match &s.assertions[0].parsed {
        ParsedAssertion::Invalid { reason } => reason.clone(),
        other => panic!("expected invalid, got {other:?}"),
    }
}

#[test]
fn invalid_assertions_are_kept_with_a_reason() {
    assert!(invalid_reason("forbiden_text: x").contains("did you mean `forbidden_text`?"));
    assert!(invalid_reason("forbidden_text: \"\"").contains("empty value"));
    assert!(invalid_reason("forbidden_text: { value: \"  \" }").contains("empty value"));
    assert!(invalid_reason("forbidden_text: { regex: \"(\" }").contains("invalid regex"));
    assert!(invalid_reason("forbidden_path: { regex: \"^a\" }").contains("plain `value`"));
    assert!(invalid_reason("forbidden_text: { value: a, severity: medium }").contains("`medium`"));
    assert!(invalid_reason("forbidden_text: { value: a, regex: b }").contains("both"));
    assert!(invalid_reason("forbidden_text: { valeu: a }").contains("did you mean `value`?"));
    assert!(invalid_reason("forbidden_text: 12").contains("quote it"));
    assert!(invalid_reason("{ forbidden_text: a, required_text: b }").contains("split it"));
    assert!(invalid_reason("{ severity: soft }").contains("no type key"));
    assert!(invalid_reason("just-a-string").contains("is a mapping"));
    assert!(invalid_reason("{ forbidden_text: { value: a, severity: soft }, severity: soft }").contains("twice"));
    assert!(invalid_reason("{ type: nope, value: a }").contains("unknown assertion type `nope`"));
}

#[test]
fn mneme_style_assertions_in_yaml_and_path_pattern_alias() {
    let s = one("scenarios:\n  - id: a\n    task: t\n    assertions:\n      - { type: forbidden_path_pattern, value: agents/ }\n      - forbidden_path_pattern: chains/\n");
    for a in &s.assertions {
        assert_eq!(a.valid().unwrap().kind, AssertionKind::ForbiddenPath);
    }
}

#[test]
fn anchors_aliases_and_merge_keys() {
    let (s, e) = parse(
        "x-common: &std\n  - forbidden_dependency: psycopg2\nscenarios:\n  - &base\n    id: a\n    task: t\n    assertions: *std\n  - <<: *base\n    id: b\n",
    );
    // The top-level `x-common` key is not allowed: anchors live inside `scenarios`.
    assert!(matches!(&e[..], [SuiteError::UnknownKey { key, .. }] if key == "x-common"), "{e:?}");
    assert_eq!(s.len(), 2);
    let (s, e) = parse(
        "scenarios:\n  - &base\n    id: a\n    task: t\n    assertions: &std\n      - forbidden_dependency: psycopg2\n  - <<: *base\n    id: b\n  - id: c\n    task: t\n    assertions: *std\n",
    );
    assert!(e.is_empty(), "{e:?}");
    let ids: Vec<_> = s.iter().map(|s| (s.id.as_str(), s.task.as_str(), s.assertions.len())).collect();
    assert_eq!(ids, [("a", "t", 1), ("b", "t", 1), ("c", "t", 1)]);
    assert_eq!(s[1].line, 7);
}

#[test]
fn lexical_resolution() {
    assert_eq!(resolve_inside_root(Path::new(""), "a/b.json"), Some("a/b.json".into()));
    assert_eq!(resolve_inside_root(Path::new("x"), "../a.json"), Some("a.json".into()));
    assert_eq!(resolve_inside_root(Path::new("x"), "../../a.json"), None);
    assert_eq!(resolve_inside_root(Path::new(""), "./../a"), None);
    assert_eq!(resolve_inside_root(Path::new(""), "/a"), None);
}

proptest::proptest! {
    /// A resolved response path never climbs out of the root, and a
    /// path is rejected exactly when its `..`s outnumber what precedes them.
    #[test]
    fn resolution_stays_inside_the_root(
        dir in proptest::collection::vec(proptest::sample::select(vec!["a", "b"]), 0..3),
        segs in proptest::collection::vec(proptest::sample::select(vec!["a", "..", ".", "x.json"]), 1..6),
    ) {
        let rel_dir: PathBuf = dir.iter().collect();
        let declared = segs.join("/");
        let mut depth: i64 = 0;
        let mut escapes = false;
        for c in dir.iter().copied().chain(segs.iter().copied()) {
            match c {
                "." => {}
                ".." => { depth -= 1; if depth < 0 { escapes = true; } }
                _ => depth += 1,
            }
        }
        let got = resolve_inside_root(&rel_dir, &declared);
        proptest::prop_assert_eq!(got.is_none(), escapes);
        if let Some(p) = got {
            proptest::prop_assert!(p.components().all(|c| matches!(c, Component::Normal(_))));
        }
    }
}

#[test]
fn suggestions_only_for_near_misses() {
    assert_eq!(suggest("taks", SCENARIO_KEYS).as_deref(), Some("task"));
    assert_eq!(suggest("banana", SCENARIO_KEYS), None);
    assert_eq!(suggest("forbiden_text", &["forbidden_text", "required_text"]).as_deref(), Some("forbidden_text"));
    assert_eq!(suggest("zzz", &["forbidden_text"]), None, "too far to be a typo");
}

// Large and hostile files: the YAML reader's limits grow with the
// file, aliases are limited in proportion to what a file writes itself, and
// what the parser says is reworded before a user reads it.

/// An honest suite of `n` scenarios, 15 YAML nodes each, no alias.
fn honest_suite(n: usize) -> String {
    let mut text = String::from("scenarios:\n");
    for i in 0..n {
        text.push_str(&format!(
            "  - id: s{i:06}\n    task: Add a refund endpoint number {i}\n    expect: [ADR-{a}, ADR-{b}, ADR-{c}]\n    \
             assertions:\n      - forbidden_dependency: psycopg2\n",
            a = i % 97,
            b = i % 89,
            c = i % 83
        ));
    }
    text
}

fn hostile(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/suites").join(rel)
}

/// Words of serde-saphyr's own messages, which name its API and its
/// internal counters: none may reach a user.
const PARSER_INTERNALS: &[&str] = &[
    "budget",
    "Breach",
    "Nodes {",
    "ScalarBytes",
    "Options",
    "from_str",
    "Option<",
    "DuplicateKeyPolicy",
    "replayed_events",
    "anchor id",
    "weak",
];

fn assert_worded_for_users(e: &SuiteError) {
    let text = e.to_string();
    assert!(!text.contains('\n'), "{text}");
    for word in PARSER_INTERNALS {
        assert!(!text.contains(word), "`{word}` in: {text}");
    }
}

/// The whole path, tree and validation, for a file like the one of issue
/// 19. A debug build takes about fifteen seconds for it, so only release
/// builds run it (`cargo test --release`); `read` checks the budget itself
/// on a file of this size in every build.
#[test]
#[cfg_attr(debug_assertions, ignore = "slow in a debug build: run with `cargo test --release`")]
fn an_honest_suite_beyond_the_old_node_budget_loads() {
    // 20,000 x 15 = 300,000 nodes: serde-saphyr's default budget stopped at
    // 250,000, which refused such a file.
    let text = honest_suite(20_000);
    let (s, e) = parse(&text);
    assert!(e.is_empty(), "{}", e.first().map(ToString::to_string).unwrap_or_default());
    assert_eq!(s.len(), 20_000);
    assert_eq!((s[19_999].id.as_str(), s[19_999].line), ("s019999", 2 + 19_999 * 5));
}

#[test]
fn alias_bombs_stop_fast_and_name_the_first_alias() {
    for (file, line, column, alias) in
        [("lists.yaml", 6, 8, "a"), ("mapping.yaml", 9, 19, "l0"), ("merge.yaml", 6, 14, "m0")]
    {
        let path = hostile("alias-bomb").join(file);
        // Refused by counting, not by expanding: it returns at all. (Minutes
        // are a safety net that keeps an expansion from hanging the test,
        // not a measure of speed.)
        let (tx, rx) = std::sync::mpsc::channel();
        let loading = path.clone();
        std::thread::spawn(move || tx.send(Suite::load(&[&loading])));
        let e = rx.recv_timeout(std::time::Duration::from_secs(300)).expect("refused without expanding").unwrap_err();
        assert_eq!(e.len(), 1, "{file}: {e:?}");
        let text = e[0].to_string();
        let head = format!("{}:{line}:{column}: aliases expand this file beyond ", path.display());
        assert!(text.starts_with(&head), "{file}: {text}");
        assert!(text.contains(" nodes; YAML anchors cannot be used to multiply content"), "{file}: {text}");
        assert!(text.contains(&format!("`*{alias}`")), "{file}: {text}");
        assert_eq!((e[0].line(), e[0].column()), (Some(line), Some(column)));
        assert_worded_for_users(&e[0]);
    }
}

#[test]
fn an_alias_that_multiplies_text_is_stopped_too() {
    // One long string used a hundred times: few nodes, 100 MB of text.
    let text = format!("scenarios: []\nx: &big \"{}\"\ny: [{}]\n", "lol".repeat(350_000), "*big, ".repeat(100));
    let (_, e) = parse(&text);
    assert_eq!(e.len(), 1, "{e:?}");
    let m = e[0].to_string();
    assert!(m.starts_with("suite.yaml:3:5: aliases expand the text of this file beyond "), "{m}");
    assert!(m.contains("YAML anchors cannot be used to multiply content") && m.contains("`*big`"), "{m}");
    assert_worded_for_users(&e[0]);
}

#[test]
fn parser_messages_are_reworded_with_their_place() {
    let cases: &[(&str, (usize, usize), &str)] = &[
        (
            "scenarios:\n  - id: a\n    task: t\n---\nscenarios: []\n",
            (5, 1),
            "a second YAML document starts here; a suite file is one document",
        ),
        ("scenarios:\n  - id: a\n    task: t\n    id: b\n", (4, 5), "the key `id` appears twice in this mapping"),
        ("scenarios:\n  - id: a\n    task: *nowhere\n", (3, 11), "the alias `*nowhere` refers to no anchor"),
        ("scenarios: &loop\n  - id: a\n    task: t\n    expect: *loop\n", (4, 13), "the alias `*loop` is inside"),
        ("scenarios:\n  - ? [a]\n    : x\n", (2, 7), "a key must be a name"),
        ("scenarios:\n  - id: a\n    task: .nan\n", (3, 11), "`.nan` is not a finite number; quote it"),
    ];
    for (text, at, words) in cases {
        let (_, e) = parse(text);
        assert_eq!(e.len(), 1, "{text}: {e:?}");
        let m = e[0].to_string();
        assert_eq!((e[0].line(), e[0].column()), (Some(at.0), Some(at.1)), "{m}");
        assert!(m.contains(words), "{text}: {m}");
        assert_worded_for_users(&e[0]);
    }
}

#[test]
fn a_file_that_is_not_utf8_says_where() {
    let dir = tempfile::tempdir().unwrap();
    let native = dir.path().join("suite.yaml");
    std::fs::write(&native, b"scenarios:\n  - id: a\n    task: caf\xe9 au lait\n").unwrap();
    let e = Suite::load(&[&native]).unwrap_err();
    assert_eq!((e[0].line(), e[0].column()), (Some(3), Some(14)), "{e:?}");
    assert_eq!(
        e[0].to_string(),
        format!("{}:3:14: the file is not UTF-8: byte 0xE9 cannot be read; save the file as UTF-8", native.display())
    );
    // A Mneme scenario.json likewise.
    let mneme = dir.path().join("bench");
    std::fs::create_dir(&mneme).unwrap();
    std::fs::write(mneme.join("scenario.json"), b"{\n  \"name\": \"\xff\"\n}\n").unwrap();
    let e = Suite::load(&[&mneme]).unwrap_err();
    assert_eq!((e[0].line(), e[0].column()), (Some(2), Some(12)), "{e:?}");
    assert!(e[0].to_string().contains("byte 0xFF cannot be read"), "{}", e[0]);
}

/// The errors of one file come in line order, whichever check found them
/// (an id used twice is found after the whole file is read).
#[test]
fn errors_of_one_file_come_in_line_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("suite.yaml");
    std::fs::write(
        &path,
        "scenarios:\n  - id: a\n    task: xx\n  - id: a\n    task: yy\n  - id: c\n    task: zz\n    colour: red\n",
    )
    .unwrap();
    let errors = Suite::load(&[&path]).unwrap_err();
    let places: Vec<(usize, usize)> = errors.iter().filter_map(|e| e.line_column()).collect();
    assert_eq!(places.len(), 2, "{errors:?}");
    let mut sorted = places.clone();
    sorted.sort();
    assert_eq!(places, sorted, "{errors:?}");
    assert_eq!(places[0].0, 4, "the second `a` first: {errors:?}");
}

#[test]
fn drafted_scenarios_keep_their_commit_and_review_marker() {
    let hash = "0123456789abcdef0123456789ABCDEF01234567";
    let s = one(&format!("scenarios:\n  - id: d\n    task: t\n    commit: {hash}\n    review: pending\n"));
    assert_eq!(s.commit.as_deref(), Some(hash.to_ascii_lowercase().as_str()));
    assert!(s.review.is_pending());
    let s = one("scenarios:\n  - id: d\n    task: t\n");
    assert_eq!((s.commit, s.review), (None, crate::scenarios::Review::Reviewed));
    let errors = err_strings("scenarios:\n  - id: d\n    task: t\n    commit: abc123\n    review: done\n");
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].contains("`commit` must be a full commit hash"), "{errors:?}");
    assert!(errors[1].contains("`review` must be `pending`"), "{errors:?}");
}

/// A big file read in pieces gives what reading it whole gives: the same
/// scenarios and the same errors at the same places. Each case says whether
/// it is cut at all, so that a case that silently falls back to reading the
/// whole file does not pass for one that was compared.
fn same_in_pieces(text: &str, limits: &SuiteLimits) -> bool {
    match read_in_pieces_and_whole(text, limits) {
        Some((pieces, whole)) => {
            assert_eq!(pieces, whole, "{text}");
            true
        }
        None => false,
    }
}

#[test]
fn a_file_read_in_pieces_is_read_as_a_whole_file_is() {
    let limits = SuiteLimits::default();
    let cut = [
        // Errors inside entries keep their places.
        "scenarios:\n  - id: a\n    task: t\n    expect: 3\n  - id: b\n    taks: t\n  - task: no id\n  - [a list]\n",
        // Entries at column 0, a bare `-`, comments and blank lines.
        "# header\nscenarios:   # list\n- id: a\n  task: t\n\n# between\n-\n  id: b\n  task: t\n- id: c\n  task: t\n",
        // Block scalars, kept and stripped, at the end of a piece.
        "scenarios:\n  - id: a\n    task: |+\n      keep\n\n\n  - id: b\n    task: >-\n      fold\n      me\n\n  - id: c\n    task: t\n",
        // A flow mapping entry, and assertions with regexes and their errors.
        "scenarios:\n  - {id: a, task: t,\n     expect: [X]}\n  - id: b\n    task: t\n    responses: {governed: r.json}\n    assertions:\n      - regex: '(['\n      - forbid: x\n",
        // Duplicate ids are a load error, found after parsing: both kept.
        "scenarios:\n  - id: a\n    task: t\n  - id: a\n    task: t\n",
    ];
    for text in cut {
        assert!(same_in_pieces(text, &limits), "not cut: {text}");
    }
    // Where a line that looks like an entry is inside an open value, the
    // piece before it does not parse and the file is read whole.
    let whole = [
        "scenarios:\n  - id: a\n    task: \"open\n  - id: b\n    task: t\"\n  - id: c\n    task: t\n",
        "scenarios:\n  - id: a\n    task: [open,\n  - id: b\n    ]\n  - id: c\n    task: t\n",
        "scenarios:\n  - id: a\n    task: 'x\n  - y'\n  - id: c\n    task: t\n",
        // A control character in a comment before the list, found by the
        // native_suite fuzz target: the lines before the first entry are
        // read too.
        "# a comment \u{1}\u{11}\nscenarios:\n  - id: a\n    task: t\n  - id: b\n    task: t\n",
        // An alias to an anchor in another piece is never cut (no `&`).
        "scenarios:\n  - id: a\n    task: &t shared\n  - id: b\n    task: *t\n",
    ];
    for text in whole {
        assert!(!same_in_pieces(text, &limits), "cut: {text}");
    }
}

#[test]
fn a_piece_is_as_deep_as_the_file_allows() {
    // The entry nests 2 + n levels (the file's mapping, the list, then the
    // entry and its lists): at the limit both readings agree, and one level
    // past it both refuse (the pieces by falling back to the whole file).
    let nested = |n: usize| {
        format!(
            "scenarios:\n  - id: a\n    task: t\n  - id: b\n    task: t\n    x: {}1{}\n",
            "[".repeat(n),
            "]".repeat(n)
        )
    };
    for depth in 3..8 {
        let limits =
            SuiteLimits { yaml: YamlLimits { max_depth: depth, ..YamlLimits::default() }, ..SuiteLimits::default() };
        for n in 0..depth {
            let text = nested(n);
            let whole_ok = read_yaml(&text, Path::new("s.yaml"), &limits.yaml).is_ok();
            let cut = same_in_pieces(&text, &limits);
            assert_eq!(cut, whole_ok, "depth {depth}, nesting {n}");
        }
    }
}

mod in_pieces {
    use proptest::prelude::*;

    use super::*;

    /// Entries written in many of the shapes a hand-written suite has,
    /// some wrong; the last leaves a quoted value open, so that a file with
    /// it is never cut.
    const SHAPES: [&str; 13] = [
        "- id: ID\n  task: a task\n  expect: [ADR-1]\n",
        "- id: ID\n  task: |\n    - a line\n    # not a comment\n\n",
        "- id: ID\n  task: >+\n    folded\n\n",
        "- {id: ID, task: flow,\n   file: a.py}\n",
        "-\n  id: ID\n  task: t\n  # a comment\n",
        "- id: ID\n  task: 3\n  expect: nope\n",
        "- id: ID\n  tsk: typo\n",
        "- just a string\n",
        "- id: ID\n  task: \"two\n    lines\"\n",
        "- id: ID\n  task: t\n  assertions:\n    - regex: 'a(b'\n    - nothing: x\n",
        "- id: ID\n  task: t\n  review: pending\n  commit: 0123456789abcdef0123456789abcdef01234567\n",
        "# a comment line\n\n",
        "- id: ID\n  task: \"open\n",
    ];

    fn suite(indent: usize, entries: &[(usize, usize)]) -> (String, usize) {
        let pad = " ".repeat(indent);
        let mut text = "scenarios:\n".to_string();
        for &(id, shape) in entries {
            let shape = SHAPES[shape].replace("ID", &format!("s{id}"));
            text.extend(shape.lines().map(|l| if l.is_empty() { "\n".to_string() } else { format!("{pad}{l}\n") }));
        }
        (text, entries.iter().filter(|&&(_, shape)| shape != 11).count())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// Closed values only: every file of two entries or more is cut,
        /// and reads as the whole file does.
        #[test]
        fn agrees_with_the_whole_file(indent in 0usize..5, entries in prop::collection::vec((0usize..1000, 0usize..12), 1..40)) {
            let (text, count) = suite(indent, &entries);
            prop_assert_eq!(same_in_pieces(&text, &SuiteLimits::default()), count >= 2, "{}", text);
        }

        /// With an open value anywhere, never cut (and never different).
        #[test]
        fn falls_back_on_an_open_value(indent in 0usize..5, entries in prop::collection::vec((0usize..1000, 0usize..12), 1..20), at in 0usize..20) {
            let mut entries = entries;
            entries.insert(at.min(entries.len()), (0, 12));
            let (text, _) = suite(indent, &entries);
            prop_assert!(!same_in_pieces(&text, &SuiteLimits::default()), "{}", text);
        }
    }
}

/// Every suite file in the repository, the real projects' suites among them,
/// reads in pieces as it reads whole.
#[test]
fn every_suite_file_here_reads_in_pieces_as_whole() {
    fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
            let path = entry.path();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                yaml_files(&path, out);
            } else if kind.is_file() && path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                out.push(path);
            }
        }
    }
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["scenarios", "tests/realrepos", "tests/fixtures/suites", "fuzz/seeds/native_suite"] {
        yaml_files(&here.join(dir), &mut files);
    }
    let mut cut = 0;
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else { continue };
        if let Some(same) = pieces_read_as_whole(&text) {
            assert!(same, "{} reads otherwise in pieces", file.display());
            cut += 1;
        }
    }
    // The seven real projects' suites are plain lists.
    assert!(cut >= 7, "only {cut} of {} files were cut", files.len());
}
