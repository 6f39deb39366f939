/*!
Reading within limits: the reader's budget grows with the file, aliases get
an allowance in proportion to what the file writes, and the first alias and
a bad UTF-8 byte are found where they are. (How a suite reads these errors,
and the bomb fixtures, are tested in `native`.)
*/

use std::path::Path;

use serde_saphyr::budget::EnforcingPolicy;

use super::*;

fn read(text: &str, limits: &YamlLimits) -> Result<Spanned<Node>, SuiteError> {
    read_yaml(text, Path::new("s.yaml"), limits)
}

fn message(text: &str, limits: &YamlLimits) -> String {
    read(text, limits).expect_err("must not load").to_string()
}

/// A suite of `n` scenarios, each with the anchored assertions of the first
/// (`*std`, 5 nodes) and `extra` more ids in `expect`.
fn suite_sharing_assertions(n: usize, extra: usize) -> String {
    let mut text = String::from(
        "scenarios:\n  - id: s0\n    task: t\n    assertions: &std\n      - forbidden_dependency: psycopg2\n      \
         - forbidden_path: migrations/\n",
    );
    for i in 1..n {
        let ids: Vec<String> = (0..extra).map(|j| format!("A{j}")).collect();
        text.push_str(&format!("  - id: s{i}\n    task: t\n    expect: [{}]\n    assertions: *std\n", ids.join(", ")));
    }
    text
}

#[test]
fn the_budget_grows_with_the_file() {
    // 260,000 nodes with no alias: more than serde-saphyr's default budget
    // (250,000), which is what refused honest suites of ~20,000 scenarios.
    // The budget counts the parser's events, whatever they are read into:
    // checked on the events alone here (a debug build reads a whole suite
    // of this size into a tree in about ten seconds; `native` does it for
    // release builds).
    let text = format!("scenarios:\n  - id: a\n    task: t\n    expect: [{}]\n", "A, ".repeat(260_000));
    let limits = YamlLimits::default();
    let budget = |options: Options| options.budget.expect("a budget");
    let check = |b: Budget| serde_saphyr::budget::check_yaml_budget(&text, b, EnforcingPolicy::AllContent);
    let before = check(Budget::default()).unwrap();
    assert!(matches!(before.breached, Some(BudgetBreach::Nodes { .. })), "{before:?}");
    let now = check(budget(options(text.len(), &limits, Allowance::first(&limits)))).unwrap();
    assert!(now.breached.is_none(), "{now:?}");
    assert_eq!(now.nodes, 260_010);
    // The text allowance grows with the file as well.
    assert_eq!(limits.text_bytes(0), 16 << 20);
    assert_eq!(limits.text_bytes(100 << 20), 500 << 20);
    assert_eq!(limits.alias_nodes(10), 10_000);
    assert_eq!(limits.alias_nodes(1_000_000), 4_000_000);
    assert_eq!(YamlLimits { alias_factor: usize::MAX, ..limits.clone() }.alias_nodes(3), usize::MAX);
    assert_eq!(Allowance::counted(&limits, usize::MAX).max_nodes, usize::MAX);
}

#[test]
fn aliases_are_allowed_in_proportion_to_what_the_file_writes() {
    // A floor far below what these honest files replay: only the
    // proportional allowance can let them through.
    let limits = YamlLimits { alias_factor: 1, min_alias_nodes: 50, ..YamlLimits::default() };
    // Each scenario after the first writes 8 nodes and replays 7.
    for n in [100, 1_000] {
        let text = suite_sharing_assertions(n, 0);
        assert!(read(&text, &limits).is_ok(), "{n}: {}", message(&text, &limits));
    }
    // 200 more uses of `*std` replay 1,400 nodes more and write 2: now
    // aliases add more than the file writes, which a factor of 1 refuses,
    // naming the limit (the written nodes, twice) and the first alias.
    let text = format!("{}x: [{}]\n", suite_sharing_assertions(100, 0), "*std, ".repeat(200));
    let m = message(&text, &limits);
    assert!(m.starts_with("s.yaml:10:17: aliases expand this file beyond "), "{m}");
    assert!(m.contains("(written out, it would hold 2903 nodes; `*std` here is the file's first alias)"), "{m}");
    let census = Census::of(&text, &limits);
    assert_eq!((census.nodes, census.replayed), (3 + 13 + 99 * 8 + 2, 299 * 7));
    assert!(m.contains(&format!("beyond {} nodes", 2 * census.nodes)), "{m}");
    // A factor of 3 lets it through (2,093 replayed for 810 written), and
    // so does a floor above what it replays.
    let thrice = YamlLimits { alias_factor: 3, ..limits.clone() };
    assert!(read(&text, &thrice).is_ok(), "{}", message(&text, &thrice));
    let floor = YamlLimits { min_alias_nodes: 2_100, ..limits.clone() };
    assert!(read(&text, &floor).is_ok(), "{}", message(&text, &floor));
    // Ids in `expect` are written nodes: 14 more a scenario raise the
    // allowance above what is replayed.
    let text = format!("{}x: [{}]\n", suite_sharing_assertions(100, 14), "*std, ".repeat(200));
    assert!(read(&text, &limits).is_ok(), "{}", message(&text, &limits));
}

#[test]
fn zero_limits_forbid_aliases() {
    let none = YamlLimits { alias_factor: 0, min_alias_nodes: 0, ..YamlLimits::default() };
    let m = message("a: &a x\nb: *a\n", &none);
    assert!(m.starts_with("s.yaml:2:4: aliases expand this file beyond 4 nodes;"), "{m}");
    // An anchor nobody uses is fine.
    assert!(read("a: &a x\nb: y\n", &none).is_ok());
}

#[test]
fn nesting_is_limited_with_its_own_message() {
    // Debug builds recurse deeply per level: a small limit keeps the test
    // within a test thread's stack.
    let limits = YamlLimits { max_depth: 8, ..YamlLimits::default() };
    assert!(read(&format!("{}{}", "[".repeat(8), "]".repeat(8)), &limits).is_ok());
    let m = message(&format!("{}{}", "[".repeat(9), "]".repeat(9)), &limits);
    assert!(m.starts_with("s.yaml:1:9: lists and mappings nest more than 8 levels deep here;"), "{m}");
}

#[test]
fn the_census_counts_written_nodes_and_finds_the_first_alias() {
    let limits = YamlLimits::default();
    let text = "# a *comment\nk: \"*quoted\"\nl: &x [é, *x1]\n";
    // `*x1` refers to no anchor: the census stops there (a syntax error).
    let c = Census::of(text, &limits);
    assert_eq!(c.first_alias, None);
    let text = "# a *comment\nk: \"*quoted\"\nl: &x [é, b]\nm: [ *x, *x ]\n";
    let c = Census::of(text, &limits);
    // The mapping, k, "*quoted", l, the list, é, b, m, the list; each `*x`
    // replays the list and its two values.
    assert_eq!((c.nodes, c.replayed, c.complete), (9, 6, true));
    assert_eq!(c.first_alias, Some(("*x".to_string(), 4, 6)));
    // Sizes nest: `*b` replays `b` with the two `a`s inside it.
    let c = Census::of("a: &a [x, y]\nb: &b {k: *a, l: *a}\nc: [*b, *b, &s z, *s]\n", &limits);
    assert_eq!((c.nodes, c.replayed), (12, 3 + 3 + 2 * 9 + 1));
}

#[test]
fn a_bomb_is_measured_without_being_expanded() {
    // Thirty levels of ten: 10^30 values, more than a usize counts. The
    // count saturates and the file is refused from the count alone.
    let mut text = String::from("scenarios: []\nl0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for level in 1..30 {
        let below = format!("*l{}", level - 1);
        text.push_str(&format!("l{level}: &l{level} [{}]\n", vec![below; 10].join(", ")));
    }
    let limits = YamlLimits::default();
    let c = Census::of(&text, &limits);
    assert_eq!(c.replayed, usize::MAX);
    // It returns at all: 10^30 values were never expanded. (Minutes are a
    // safety net that keeps an expansion from hanging the test, not a
    // measure of speed.)
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(message(&text, &limits)));
    let m = rx.recv_timeout(std::time::Duration::from_secs(300)).expect("measured without being expanded");
    assert!(m.starts_with("s.yaml:3:10: aliases expand this file beyond "), "{m}");
    assert!(m.contains("multiply content (`*l0` here is the file's first alias)"), "{m}");
}

#[test]
fn tokens_are_cut_at_spaces_and_flow_indicators() {
    let text = "a: [*one,*two]\nb: {k: *three}\n";
    assert_eq!(token_at(text, 1, 5), "*one");
    assert_eq!(token_at(text, 1, 10), "*two");
    assert_eq!(token_at(text, 2, 8), "*three");
    assert_eq!(token_at(text, 9, 1), "");
    assert_eq!(alias_at(text, (1, 1)), None);
    assert_eq!(alias_at(text, (1, 5)).as_deref(), Some("*one"));
}

#[test]
fn a_bad_byte_is_found_at_its_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    // The bytes, and the first bad byte's line, column and value.
    type Case<'a> = (&'a [u8], (usize, usize, u8));
    let cases: &[Case] = &[
        (b"\xff", (1, 1, 0xff)),
        (b"ab\xc3", (1, 3, 0xc3)),
        // Columns count characters: `é` is two bytes, one column.
        ("x: é\ny: ".as_bytes(), (0, 0, 0)),
        (b"x: \xc3\xa9\xc3\xa9\r\ny: \xe9t\xc3\xa9", (2, 4, 0xe9)),
        (b"a\n\nb\n\x80", (4, 1, 0x80)),
    ];
    for (i, (bytes, want)) in cases.iter().enumerate() {
        let path = dir.path().join(format!("{i}.yaml"));
        std::fs::write(&path, bytes).unwrap();
        match utf8(std::fs::read(&path).unwrap()) {
            Ok(_) => assert_eq!(*want, (0, 0, 0), "{i} should not read"),
            Err(Unreadable::NotUtf8 { line, column, byte }) => assert_eq!((line, column, byte), *want, "{i}"),
            Err(e) => panic!("{i}: {e:?}"),
        }
    }
    let missing = SuiteRoot::for_tests("s").read_text(&dir.path().join("missing.yaml"), true).unwrap_err();
    assert!(matches!(&missing, Unreadable::Io(e) if e.kind() == std::io::ErrorKind::NotFound));
    let e = missing.into_error(Path::new("m.yaml"), "the suite file");
    assert!(e.to_string().starts_with("m.yaml: cannot read the suite file: "), "{e}");
}
