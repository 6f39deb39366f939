//! Each expectation below is what Mneme 0.10.0's own functions return for
//! the same input (`_word_in_text`, `literal_in_text`, `check_prompt`, run
//! in Python 3.11 with mneme-hq 0.10.0).

use super::*;
use crate::memory::{Decision, RecordKind, Rule};

fn decision(id: &str, anti: &[&str], constraints: &[&str], rules: &[(&str, bool)]) -> Decision {
    Decision {
        id: id.into(),
        title: id.into(),
        tags: vec![],
        constraint: constraints.iter().map(|s| s.to_string()).collect(),
        anti_patterns: anti.iter().map(|s| s.to_string()).collect(),
        content: String::new(),
        paths: vec![],
        kind: RecordKind::DecisionRecord,
        offset: 0,
        globs: vec![],
        rare: crate::memory::Rare {
            rules: rules
                .iter()
                .map(|(v, scoped)| Rule {
                    value: v.to_string(),
                    include_paths: scoped.then(|| vec!["src/**".to_string()]),
                    exclude_paths: vec![],
                })
                .collect(),
            ..Default::default()
        }
        .boxed(),
    }
}

#[test]
fn whole_words_ignore_case_as_python_does() {
    let cases = [
        ("postgres", "Use Postgres here", true),
        ("postgres", "postgres_db", false),
        ("postgres", "\u{fb01}postgres", false),
        ("kafka", "KAFKA!", true),
        ("kafka", "\u{212a}afka", true),
        ("sqlite", "\u{17f}qlite", true),
        ("sqlite", "SQL\u{130}TE", true),
        ("redis", "\u{e9}redis", false),
        ("redis", "redis\u{b2}", false),
        ("redis", "redis\u{301}", true),
        ("orm", "an ORM.", true),
        ("orm", "form", false),
    ];
    for (term, text, want) in cases {
        assert_eq!(Text::new(text).has_word(term), want, "{term:?} in {text:?}");
    }
}

#[test]
fn literals_do_not_match_a_longer_identifier() {
    let cases = [
        ("psycopg2", "import psycopg2", true),
        ("psycopg2", "psycopg2-binary", false),
        ("legacy-package", "install legacy-package-next", false),
        ("legacy-package", "install legacy-package now", true),
        (".env", ".envrc", false),
        ("a.b", "xa.b", false),
        ("pip install x", "run pip install x;", true),
        ("DROP TABLE", "drop table", false),
        ("aa", "xaaa aa", true),
        ("", "anything", false),
    ];
    for (literal, text, want) in cases {
        assert_eq!(literal_in_text(literal, text), want, "{literal:?} in {text:?}");
    }
}

#[test]
fn no_constraints_are_read_as_mneme_reads_them() {
    assert_eq!(no_phrase("no postgres"), Some("postgres"));
    assert_eq!(no_phrase("  No \u{a0} external database "), Some("external database"));
    assert_eq!(no_phrase("nobody cares"), None);
    assert_eq!(no_phrase("no\nline break"), Some("line break"));
    assert_eq!(no_phrase("no a\nb"), None);
    assert_eq!(no_phrase("no"), None);
    assert_eq!(rule_terms("no the add"), Vec::<String>::new());
    let literal = |t: &str| rule_terms(t).len() == 1;
    assert!(literal("psycopg2") && !literal("introduce ORM") && !literal("the and"));
}

#[test]
fn check_prompt_follows_mneme_tier_by_tier() {
    let d1 = decision(
        "d1",
        &["introduce ORM", "psycopg2", "add migration layer"],
        &["no postgres", "No  external database", "nobody cares", "no the", "no\nline break"],
        &[("sqlalchemy", false), ("mongo", true)],
    );
    let d2 = decision("d2", &["global state", "singleton"], &["no redis"], &[]);
    let text = "We could introduce an ORM via SQLAlchemy and sqlalchemy; use psycopg2 with Postgres, External \
                stuff; Redis; global_state; introduce-orm; Singleton; mongo";
    let (c1, c2) = (Checks::of(&d1), Checks::of(&d2));
    let scope = [Scoped { checks: &c1, literal_only: false }, Scoped { checks: &c2, literal_only: true }];
    assert_eq!(
        check_prompt(text, &scope),
        ["sqlalchemy", "introduce ORM", "psycopg2", "postgres", "external", "singleton", "redis"]
    );
    let scope = [Scoped { checks: &c2, literal_only: false }, Scoped { checks: &c1, literal_only: true }];
    assert_eq!(
        check_prompt(text, &scope),
        ["global state", "singleton", "redis", "sqlalchemy", "psycopg2", "postgres"]
    );
    assert!(c1.beyond_retrieval() && c2.beyond_retrieval());
    let d3 = decision("d3", &["global state", "the and"], &["prefer small modules", "no global state"], &[("x", true)]);
    assert!(!Checks::of(&d3).beyond_retrieval());
}

#[test]
fn the_word_table_is_sorted_and_disjoint() {
    let r = &word_chars::WORD_RANGES;
    assert!(r.windows(2).all(|w| w[0].1 < w[1].0 && w[0].0 <= w[0].1));
    assert!(is_word('\u{e9}') && is_word('\u{b2}') && !is_word('\u{301}') && !is_word('\u{feff}') && is_word('_'));
}
