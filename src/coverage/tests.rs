//! The analysis on the corpus built for it (tests/fixtures/coverage: a
//! decision built to be shadowed, a scope that matches no file, a fragile
//! scenario), the runner-up of a ranking and the margin figures on small
//! hand-computed cases.

use std::path::{Path, PathBuf};

use super::*;
use crate::memory::Memory;
use crate::metrics::Margins;
use crate::profile::{Family, Profile};
use crate::run::{run, RunOptions};
use crate::scenarios::Suite;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/coverage")
}

fn load(family: Family) -> (Index, Vec<Scenario>) {
    let dir = fixture();
    let memory = Memory::load(&dir.join("project_memory.json"), family).unwrap();
    let suite = Suite::load(&[dir.join("scenarios")]).unwrap();
    // Profile `classic`: the hand-computed scores below are token overlaps.
    let profile =
        if family == Family::Default { Profile::of(crate::profile::Named::Classic) } else { Profile::named(family) };
    (Index::build(memory, profile), suite.scenarios)
}

fn options(files: Files) -> Options {
    Options {
        files,
        margin_below: Milli(3000),
        threshold_from: "the heaviest field weight".into(),
        memory_path: "m.json".into(),
        memory_sha256: String::new(),
        suite_roots: vec!["s".into()],
        hub_share: DEFAULT_HUB_SHARE,
    }
}

fn index(text: &str, profile: Profile) -> Index {
    let memory = Memory::parse(Path::new("m.json"), text.to_string(), profile.family);
    assert!(!memory.has_errors(), "{:?}", memory.diagnostics);
    Index::build(memory, profile)
}

#[test]
fn the_corpus_shows_each_finding() {
    let (index, scenarios) = load(Family::Default);
    let c = analyse(&index, &scenarios, &options(Files::NotChecked("no repository".into())));
    assert_eq!((c.pool, c.scenarios, c.governed), (12, 5, 5));
    assert_eq!((c.gating.gated_count, c.gating.ungated_count), (4, 8));
    let ungated: Vec<&str> = c.gating.ungated_decisions.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(
        ungated,
        ["CACHE-003", "CACHE-009", "KEY-001", "KEY-002", "KEY-004", "LEGACY-001", "DOC-001", "NOISE-001"]
    );
    let folders: Vec<(&str, usize, usize)> =
        c.gating.by_scope_folder.iter().map(|g| (g.name.as_str(), g.decision_count, g.gated_count)).collect();
    assert_eq!(folders, [("(no scope)", 10, 3), ("legacy/cobol", 1, 0), ("web/legacy", 1, 1), ("web/src", 1, 1)]);

    // Built to be shadowed: three decisions say its title's words in more fields.
    let [shadowed] = c.unreachable.shadowed.as_slice() else { panic!("{:?}", c.unreachable.shadowed) };
    assert_eq!(shadowed.id, "CACHE-009");
    let [probe] = shadowed.probes.as_slice() else { panic!("{shadowed:?}") };
    assert_eq!((probe.file.as_deref(), probe.score, probe.rank), (None, 9.0, Some(4)));
    let by: Vec<(&str, f64)> = probe.beaten_by.iter().map(|b| (b.id.as_str(), b.score)).collect();
    assert_eq!(by, [("CACHE-001", 27.0), ("CACHE-002", 26.0), ("CACHE-003", 22.5)]);
    assert!(c.unreachable.unprobed.is_empty());
    assert_eq!(c.unreachable.no_tokens.iter().map(|d| d.id.as_str()).collect::<Vec<_>>(), ["NOISE-001"]);
    assert!(!c.unreachable.scope_check.checked);
    assert_eq!(c.unreachable.scope_check.note.as_deref(), Some("no repository"));

    // Fragile: KEY-003 is third, 1.0 then 2.0 above KEY-004.
    let fragile: Vec<(&str, f64, &str, Option<&str>)> = c
        .fragile
        .scenarios
        .iter()
        .map(|s| (s.id.as_str(), s.margin, s.last_expected.id.as_str(), s.runner_up.id.as_deref()))
        .collect();
    assert_eq!(
        fragile,
        [
            ("keep-keys-in-the-hsm", 1.0, "KEY-003", Some("KEY-004")),
            ("rotate-keys-in-the-hsm", 2.0, "KEY-003", Some("KEY-004"))
        ]
    );
    assert_eq!((c.fragile.with_margin, c.fragile.smallest_margin), (5, Some(1.0)));
    assert_eq!(c.fragile.scenarios[0].last_expected.rank, 3);
    assert_eq!(c.fragile.scenarios[0].confidence, Some(0.0), "KEY-001 and KEY-002 tie at rank 1");

    let competing: Vec<(&str, &str, usize)> =
        c.overlap.competing.iter().map(|p| (p.expected.as_str(), p.competitor.as_str(), p.scenarios.len())).collect();
    assert_eq!(competing, [("KEY-003", "KEY-004", 2)]);
    let together: Vec<(&str, &str)> = c.overlap.together.iter().map(|t| (t.a.as_str(), t.b.as_str())).collect();
    assert!(together.contains(&("CACHE-001", "CACHE-002")), "{together:?}");
    assert!(c.overlap.together.iter().all(|t| t.together >= MIN_SUPPORT && 2 * t.together > t.either));
}

#[test]
fn a_scope_that_matches_no_file_is_found() {
    let (index, scenarios) = load(Family::Default);
    let files = vec!["README.md".to_string(), "web/src/components/ProductCard.tsx".to_string()];
    let c = analyse(&index, &scenarios, &options(Files::Tracked(files)));
    let s = &c.unreachable.scope_check;
    assert!(s.checked && s.note.is_none());
    assert_eq!(s.files, 2);
    let found: Vec<(&str, Vec<&str>, bool)> = s
        .decisions
        .iter()
        .map(|d| (d.id.as_str(), d.globs.iter().map(String::as_str).collect(), d.every_glob))
        .collect();
    assert_eq!(found, [("LEGACY-001", vec!["legacy/cobol/**"], true), ("WEB-001", vec!["web/legacy/**/*.jsx"], false)]);
}

#[test]
fn the_figures_are_the_run_reports() {
    let (index, scenarios) = load(Family::Default);
    let c = analyse(&index, &scenarios, &options(Files::NotChecked(String::new())));
    let result = run(&index, scenarios, RunOptions::default()).unwrap();
    for f in &c.fragile.scenarios {
        let s = result.scenarios.iter().find(|s| s.scenario.id == f.id).unwrap();
        assert_eq!(s.metrics.margin, Some(f.margin));
        assert_eq!(s.metrics.confidence, f.confidence);
        assert_eq!(s.metrics.runner_up.as_ref(), Some(&f.runner_up));
    }
    assert_eq!(result.summary.smallest_margin, c.fragile.smallest_margin);
}

#[test]
fn the_analysis_does_not_depend_on_threads() {
    let (index, scenarios) = load(Family::Default);
    let files = Files::Tracked(vec!["web/src/a.tsx".into()]);
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let four = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    let a = one.install(|| analyse(&index, &scenarios, &options(files.clone())));
    let b = four.install(|| analyse(&index, &scenarios, &options(files.clone())));
    assert_eq!(a, b);
}

#[test]
fn a_scope_folder_is_the_literal_start_of_the_glob() {
    let cases = [
        ("services/payments/**", "services/payments"),
        ("services/**/*.sql", "services"),
        ("web/src/**/*.tsx", "web/src"),
        ("data/", "data"),
        ("infra/terraform/", "infra/terraform"),
        ("api/openapi/*.yaml", "api/openapi"),
        ("**/Dockerfile", "(any folder)"),
        ("*.md", "(root)"),
        ("README.md", "(root)"),
        ("docs/README.md", "docs"),
        ("./web/x/**", "web/x"),
    ];
    for (glob, folder) in cases {
        assert_eq!(scope_folder(glob), folder, "{glob}");
    }
}

#[test]
fn the_runner_up_is_the_best_decision_left_out() {
    let ix = index(
        r#"[
        {"id": "a", "type": "rule", "title": "ledger refunds"},
        {"id": "b", "type": "rule", "title": "ledger"},
        {"id": "c", "type": "rule", "title": "ledger"},
        {"id": "d", "type": "rule", "title": "unrelated"},
        {"id": "s", "type": "rule", "title": "ledger refunds", "scope": ["web/**"]}
    ]"#,
        Profile { k: 2, ..Profile::of(crate::profile::Named::Classic) },
    );
    let mut scratch = Scratch::default();
    let q = |task, file| Query { task, file };
    // b and c tie at 3.0: c, later in pool order, is left out.
    let (r, up) = ix.retrieve_with_runner_up(q("ledger refunds", Some("services/x.py")), 2, &mut scratch);
    assert_eq!(r.hits.iter().map(|h| h.pool).collect::<Vec<_>>(), [0, 1]);
    assert_eq!(up, Some(RunnerUp { pool: 2, score: Milli(3000), touched: true }), "s is out of scope");
    // Without a file, s is in scope and ties with a; pool order puts it third.
    let (r, up) = ix.retrieve_with_runner_up(q("ledger refunds", None), 2, &mut scratch);
    assert_eq!(r.hits.iter().map(|h| h.pool).collect::<Vec<_>>(), [0, 4]);
    assert_eq!(up, Some(RunnerUp { pool: 1, score: Milli(3000), touched: true }));
    // Everything touched is retrieved: the first untouched decision, at 0.
    let (_, up) = ix.retrieve_with_runner_up(q("refunds", Some("services/x.py")), 2, &mut scratch);
    assert_eq!(up, Some(RunnerUp { pool: 1, score: Milli::ZERO, touched: false }));
    // No query token: nothing retrieved, every decision at 0.
    let (r, up) = ix.retrieve_with_runner_up(q("the of", None), 2, &mut scratch);
    assert!(r.hits.is_empty() && r.empty_query);
    assert_eq!(up, Some(RunnerUp { pool: 0, score: Milli::ZERO, touched: false }));
    // The retrieval itself is the one `retrieve_with` gives, and the scratch is clean.
    for (task, file) in [("ledger refunds", None), ("ledger", Some("web/a.ts")), ("x", None)] {
        let (with, _) = ix.retrieve_with_runner_up(q(task, file), 2, &mut scratch);
        assert_eq!(with, ix.retrieve_with(q(task, file), 2, &mut Scratch::default()));
    }
    // Nothing left out: no runner-up.
    let small =
        index(r#"[{"id": "a", "type": "rule", "title": "ledger"}]"#, Profile::of(crate::profile::Named::Classic));
    assert_eq!(small.retrieve_with_runner_up(q("ledger", None), 3, &mut scratch).1, None);
}

#[test]
fn mneme_empty_query_fallback_ties_at_one() {
    let ix = index(
        r#"[{"id": "a", "type": "rule", "title": "ledger"}, {"id": "b", "type": "rule", "title": "refunds"},
            {"id": "c", "type": "rule", "title": "audit"}]"#,
        Profile { k: 2, ..Profile::named(Family::Mneme) },
    );
    let (r, up) = ix.retrieve_with_runner_up(Query { task: "it", file: None }, 2, &mut Scratch::default());
    assert_eq!(r.hits.len(), 2);
    assert_eq!(up, Some(RunnerUp { pool: 2, score: Milli(1000), touched: false }));
}

#[test]
fn margins_are_defined_only_when_every_expected_decision_is_in() {
    let r = [("a", Milli(9000)), ("b", Milli(7500)), ("c", Milli(3000))];
    let m = Margins::compute(&r, &["b"], Some(Milli(2500)));
    assert_eq!(m.margin, Some(Milli(5000)), "b's 7.5 over the runner-up's 2.5");
    assert_eq!(m.confidence(), Some(1.5 / 9.0));
    let m = Margins::compute(&r, &["a", "c"], Some(Milli(3000)));
    assert_eq!(m.margin, Some(Milli::ZERO), "c won on pool order");
    assert_eq!(Margins::compute(&r, &["a", "x"], Some(Milli(1000))).margin, None, "x was not retrieved");
    assert_eq!(Margins::compute(&r, &[] as &[&str], Some(Milli(1000))).margin, None, "ungoverned");
    assert_eq!(Margins::compute(&r, &["a"], None).margin, None, "nothing left out");
    // One retrieved: rank 2 is the runner-up.
    let one = Margins::compute(&r[..1], &["a"], Some(Milli(4500)));
    assert_eq!((one.margin, one.confidence()), (Some(Milli(4500)), Some(0.5)));
    assert_eq!(Margins::compute(&r[..1], &["a"], None).confidence(), None);
    assert_eq!(Margins::compute(&[], &["a"], Some(Milli::ZERO)).confidence(), None);
    assert_eq!(Margins::compute(&[("a", Milli(-1000)), ("b", Milli(-2000))], &["a"], None).confidence(), None);
}

/// A memory where `LOG-001` holds `service`, a word of every scenario's task,
/// and nothing else the tasks say; each other decision is what its own
/// scenarios expect, but `DOC-001` only a control retrieves.
fn hub_corpus() -> (Index, Vec<Scenario>, tempfile::TempDir) {
    let ix = index(
        r#"[
        {"id": "LOG-001", "type": "rule", "title": "Every service logs structured fields"},
        {"id": "PAY-001", "type": "rule", "title": "The payments ledger is append only", "content": "Refunds reconcile the ledger."},
        {"id": "AUTH-001", "type": "rule", "title": "Auth tokens expire after an hour", "content": "Login shortens token expiry."},
        {"id": "SEARCH-001", "type": "rule", "title": "The search index is rebuilt nightly", "content": "Rebuild the catalog index."},
        {"id": "DOC-001", "type": "rule", "title": "The changelog is written by hand", "content": "Each release has a changelog."}
    ]"#,
        Profile { k: 2, ..Profile::of(crate::profile::Named::Classic) },
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("hubs.yaml"),
        "scenarios:
  - {id: append-a-refund, task: Append a refund to the payments ledger service, expect: [PAY-001]}
  - {id: reconcile-the-ledger, task: Reconcile the payments ledger in the billing service, expect: [PAY-001]}
  - {id: shorten-token-expiry, task: Shorten auth token expiry in the login service, expect: [AUTH-001]}
  - {id: rebuild-the-index, task: Rebuild the search index for the catalog service, expect: [SEARCH-001]}
  - {id: write-the-changelog, task: Write the service changelog for the release, expect: []}
",
    )
    .unwrap();
    let suite = Suite::load(&[dir.path()]).unwrap();
    (ix, suite.scenarios, dir)
}

#[test]
fn a_decision_every_scenario_retrieves_and_none_expects_is_a_hub() {
    let (ix, scenarios, _dir) = hub_corpus();
    let c = analyse(&ix, &scenarios, &options(Files::NotChecked(String::new())));
    assert_eq!(c.hubs.min_share, 0.25);
    let found: Vec<(&str, usize, usize, usize)> =
        c.hubs.decisions.iter().map(|h| (h.id.as_str(), h.retrieved, h.expected, h.controls)).collect();
    // PAY-001 is in 2 of 5 scenarios, above the share, but both expect it.
    assert_eq!(found, [("LOG-001", 5, 0, 1), ("DOC-001", 1, 0, 1)]);

    let hub = &c.hubs.decisions[0];
    assert_eq!((hub.share, hub.explained), (1.0, 5));
    assert_eq!(hub.control_scenarios, ["write-the-changelog"]);
    let [term] = hub.terms.as_slice() else { panic!("{:?}", hub.terms) };
    assert_eq!((term.token.as_str(), term.scenarios, term.df), ("service", 5, 1));
    // The figure `explain` gives for one scenario, in each of the five.
    let one = ix.explain(Query { task: &scenarios[0].task, file: None });
    let record = one.records.iter().find(|r| r.id == "LOG-001").unwrap();
    assert_eq!(term.contribution, 5.0 * record.score.unwrap().as_f64());
    assert_eq!(term.contribution, 15.0, "the title weight, 3.0, in five scenarios");

    // Retrieved only by the control: a hub whatever the share.
    let doc = &c.hubs.decisions[1];
    assert_eq!((doc.share, doc.control_scenarios.as_slice()), (0.2, &["write-the-changelog".to_string()][..]));
    assert_eq!(doc.terms.iter().map(|t| t.token.as_str()).collect::<Vec<_>>(), ["changelog", "release"]);
    assert!(c.hubs.decisions.iter().all(|h| h.id != "PAY-001"));
}

#[test]
fn the_hub_share_sets_how_wide_a_hub_is() {
    let (ix, mut scenarios, _dir) = hub_corpus();
    scenarios.retain(|s| s.is_governed());
    let ids = |share: f64| -> Vec<String> {
        let c = analyse(&ix, &scenarios, &Options { hub_share: share, ..options(Files::NotChecked(String::new())) });
        c.hubs.decisions.into_iter().map(|h| h.id).collect()
    };
    assert_eq!(ids(0.25), ["LOG-001"]);
    // In 4 of 4 scenarios: not more than all of them.
    assert!(ids(1.0).is_empty());
    // PAY-001 is in half of the suite, but expected wherever it is.
    assert_eq!(ids(0.0), ["LOG-001"]);
}

#[test]
fn a_hubs_terms_are_the_sums_of_explain_under_bm25f() {
    let dir = fixture();
    let memory = Memory::load(&dir.join("project_memory.json"), Family::Default).unwrap();
    let ix = Index::build(memory, Profile::named(Family::Default));
    let (_, mut scenarios) = load(Family::Default);
    let (_, extra, _dir) = hub_corpus();
    scenarios.extend(extra.into_iter().filter(|s| !s.is_governed()));
    let c = analyse(&ix, &scenarios, &Options { hub_share: 0.0, ..options(Files::NotChecked(String::new())) });
    assert!(!c.hubs.decisions.is_empty());
    for hub in &c.hubs.decisions {
        assert!(!hub.terms.is_empty(), "{hub:?}");
        assert_eq!(hub.explained, hub.retrieved, "every scenario that retrieves it is explained");
        for term in &hub.terms {
            let (mut sum, mut n, mut df) = (0, 0, None);
            for s in &scenarios {
                let e = ix.explain(Query { task: &s.task, file: s.file.as_deref() });
                if !e.retrieved.contains(&hub.id) {
                    continue;
                }
                let record = e.records.iter().find(|r| r.id == hub.id).unwrap();
                if let Some(t) = record.terms.iter().find(|t| t.token == term.token) {
                    sum += t.contribution.0;
                    n += 1;
                    df = Some(t.df);
                }
            }
            assert_eq!((term.contribution, term.scenarios, Some(term.df)), (Milli(sum).as_f64(), n, df), "{hub:?}");
        }
    }
}

#[test]
fn every_scenario_that_retrieves_a_hub_is_explained() {
    let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"];
    let memory: Vec<String> =
        words.iter().map(|w| format!(r#"{{"id": "H-{w}", "type": "rule", "title": "The {w} rule"}}"#)).collect();
    let ix = index(&format!("[{}]", memory.join(",")), Profile { k: 1, ..Profile::of(crate::profile::Named::Classic) });
    let mut suite = String::from("scenarios:\n");
    let per_word = 25;
    for w in words {
        for i in 0..per_word {
            suite.push_str(&format!("  - {{id: {w}-{i:02}, task: Touch {w} again, expect: []}}\n"));
        }
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("many.yaml"), suite).unwrap();
    let scenarios = Suite::load(&[dir.path()]).unwrap().scenarios;
    let c = analyse(&ix, &scenarios, &options(Files::NotChecked(String::new())));
    assert_eq!(c.hubs.decisions.len(), words.len());
    for (i, h) in c.hubs.decisions.iter().enumerate() {
        assert_eq!((h.id.as_str(), h.retrieved, h.explained), (format!("H-{}", words[i]).as_str(), per_word, per_word));
        assert_eq!((h.terms[0].token.as_str(), h.terms[0].scenarios), (words[i], per_word), "{h:?}");
    }
}
