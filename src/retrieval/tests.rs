//! The retriever against hand-computed scores, and its two indexes and
//! reused scratch against each other.

use std::path::Path;

use super::*;
use crate::memory::Memory;
use crate::profile::Named;

fn index(text: &str, profile: Profile) -> Index {
    let memory = Memory::parse(Path::new("m.json"), text.to_string(), profile.family);
    assert!(!memory.has_errors(), "{:?}", memory.diagnostics);
    Index::build(memory, profile)
}

/// Profile `classic`: the token-overlap scores these tests compute by hand.
fn classic_index(text: &str) -> Index {
    index(text, Profile::of(Named::Classic))
}

fn run(ix: &Index, task: &str, file: Option<&str>) -> Vec<(String, String)> {
    ix.retrieve(Query { task, file })
        .hits
        .iter()
        .map(|h| (ix.decision(h.pool).id.clone(), h.score.to_string()))
        .collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

#[test]
fn each_field_has_its_weight() {
    let ix = classic_index(
        r#"[
        {"id": "t", "type": "rule", "title": "ledger"},
        {"id": "g", "type": "rule", "title": "x", "tags": ["ledger"]},
        {"id": "c", "type": "rule", "title": "x", "constraint": "ledger"},
        {"id": "a", "type": "rule", "title": "x", "anti_patterns": ["ledger"]},
        {"id": "n", "type": "rule", "title": "x", "content": "ledger"}
    ]"#,
    );
    let got: Vec<_> = ix
        .retrieve_with(Query { task: "ledger", file: None }, 10, &mut Scratch::default())
        .hits
        .iter()
        .map(|h| (ix.decision(h.pool).id.as_str(), h.score.to_string()))
        .collect();
    // tags: 2.5 + tag boost 1.0
    assert_eq!(
        got,
        [("g", "3.5".to_string()), ("t", "3.0".into()), ("c", "1.5".into()), ("a", "1.5".into()), ("n", "1.0".into())]
    );
}

#[test]
fn matches_count_distinct_tokens_per_field_and_sum_across_fields() {
    let ix = classic_index(
        r#"[{"id": "x", "type": "rule", "title": "ledger ledger client", "content": "ledger client refunds"}]"#,
    );
    // title: ledger, client (2 × 3.0); content: ledger, client, refunds ∩ Q = 2 × 1.0
    assert_eq!(run(&ix, "ledger client for refund", None), pairs(&[("x", "8.0")]));
}

#[test]
fn tag_boost_needs_every_token_of_the_tag() {
    let ix =
        classic_index(r#"[{"id": "x", "type": "rule", "title": "t", "tags": ["payments-ledger", "ok", "payments"]}]"#);
    // Q = {payments}: tags field 1 match (2.5) + tag "payments" hit (1.0); "ok" has no tokens.
    assert_eq!(run(&ix, "payments", None), pairs(&[("x", "3.5")]));
    // Q = {payments, ledger}: 2 × 2.5 + 2 hits.
    assert_eq!(run(&ix, "ledger payments", None), pairs(&[("x", "7.0")]));
}

#[test]
fn ties_break_by_pool_order_and_k_cuts() {
    let ix = classic_index(
        r#"{"items": [{"id": "i1", "type": "rule", "title": "cache"}, {"id": "i2", "type": "rule", "title": "cache"}],
           "decisions": [{"id": "d1", "decision": "cache"}, {"id": "d2", "decision": "cache"}]}"#,
    );
    assert_eq!(run(&ix, "cache", None), pairs(&[("d1", "3.0"), ("d2", "3.0"), ("i1", "3.0")]));
}

#[test]
fn scope_filters_only_scoped_records_and_only_with_a_path() {
    let ix = classic_index(
        r#"[{"id": "pay", "type": "rule", "title": "ledger", "scope": ["services/payments/"]},
            {"id": "web", "type": "rule", "title": "ledger", "scope": "web/**/*.tsx"},
            {"id": "all", "type": "rule", "title": "ledger"}]"#,
    );
    assert_eq!(run(&ix, "ledger", None).len(), 3);
    let ids = |file| run(&ix, "ledger", Some(file)).into_iter().map(|p| p.0).collect::<Vec<_>>();
    assert_eq!(ids("services/payments/refund.py"), ["pay", "all"]);
    assert_eq!(ids(".\\web\\src\\App.tsx"), ["web", "all"]);
    assert_eq!(ids("docs/readme.md"), ["all"]);
}

#[test]
fn path_tokens_join_the_query() {
    let ix = classic_index(r#"[{"id": "x", "type": "rule", "title": "payments refunds"}]"#);
    assert_eq!(run(&ix, "add endpoint", Some("services/payments/refunds.py")), pairs(&[("x", "6.0")]));
}

#[test]
fn min_score_drops_scores_at_or_below_it() {
    let mut p = Profile::of(Named::Classic);
    p.min_score = Milli(3000);
    let ix = index(
        r#"[{"id": "a", "type": "rule", "title": "cache"}, {"id": "b", "type": "rule", "title": "cache", "content": "cache"}]"#,
        p,
    );
    assert_eq!(run(&ix, "cache", None), pairs(&[("b", "4.0")]));
}

#[test]
fn negative_min_score_admits_untouched_candidates() {
    let mut p = Profile::of(Named::Classic);
    p.min_score = Milli(-1);
    let ix =
        index(r#"[{"id": "a", "type": "rule", "title": "cache"}, {"id": "b", "type": "rule", "title": "queue"}]"#, p);
    assert_eq!(run(&ix, "queue", None), pairs(&[("b", "3.0"), ("a", "0.0")]));
}

#[test]
fn empty_query_default_retrieves_nothing_and_says_why() {
    let ix = classic_index(r#"[{"id": "a", "type": "rule", "title": "cache"}]"#);
    let r = ix.retrieve(Query { task: "do it to me", file: None });
    assert!(r.hits.is_empty() && r.empty_query);
    assert!(r.why_empty(ix.profile()).unwrap().contains("no tokens"));
    // A query whose tokens are all unknown is not empty: it just matches nothing.
    let r = ix.retrieve(Query { task: "kubernetes", file: None });
    assert!(r.hits.is_empty() && !r.empty_query);
}

#[test]
fn empty_query_mneme_returns_pool_order_with_score_one() {
    let ix = index(
        r#"{"decisions": [{"id": "d1", "decision": "x"}, {"id": "d2", "decision": "y"}, {"id": "d3", "decision": "z"}, {"id": "d4", "decision": "w"}]}"#,
        Profile::named(Family::Mneme),
    );
    assert_eq!(run(&ix, "do we use it?", None), pairs(&[("d1", "1.0"), ("d2", "1.0"), ("d3", "1.0")]));
}

#[test]
fn explain_agrees_with_retrieval_and_gives_one_reason() {
    let ix = classic_index(
        r#"[{"id": "pay", "type": "rule", "title": "ledger", "scope": ["services/payments/"]},
            {"id": "a", "type": "rule", "title": "ledger client", "tags": ["ledger"]},
            {"id": "b", "type": "rule", "title": "ledger"},
            {"id": "c", "type": "rule", "title": "ledger"},
            {"id": "d", "type": "rule", "title": "ledger"},
            {"id": "z", "type": "rule", "title": "other"},
            {"id": "f", "type": "fact", "title": "ledger"}]"#,
    );
    let e = ix.explain(Query { task: "ledger client", file: Some("web/app.ts") });
    assert_eq!(e.retrieved, ["a", "b", "c"]);
    let summary: Vec<_> = e
        .records
        .iter()
        .map(|r| (r.id.as_str(), r.rank, r.reason.as_deref(), r.score.map(|s| s.to_string())))
        .collect();
    assert_eq!(
        summary,
        [
            ("pay", None, Some("out_of_scope"), Some("3.0".into())),
            ("a", Some(1), None, Some("9.5".into())),
            ("b", Some(2), None, Some("3.0".into())),
            ("c", Some(3), None, Some("3.0".into())),
            ("d", None, Some("beyond_k"), Some("3.0".into())),
            ("z", None, Some("below_min_score"), Some("0.0".into())),
            ("f", None, Some("not_eligible_type"), None),
        ]
    );
    let a = &e.records[1];
    assert_eq!(a.fields.len(), 2);
    assert_eq!(a.fields[0].tokens, ["client", "ledger"]);
    assert_eq!(a.tag_hits, ["ledger"]);
    assert_eq!(e.records[0].scope, ScopeCheck::OutOfScope);
}

#[test]
fn an_index_for_one_query_ranks_like_the_batch_index() {
    // Real corpora of both shapes (the bundled example, Mneme's own memory,
    // the fixtures); mneme-gate-dev's tests repeat this on generated ones.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for corpus in [
        "fixtures/project_memory.json",
        "tests/conformance/mneme/project_memory.json",
        "tests/fixtures/memory/small.json",
        "tests/fixtures/memory/warnings.json",
    ] {
        let text = std::fs::read_to_string(root.join(corpus)).unwrap();
        one_query_index_agrees(&text);
    }
}

fn one_query_index_agrees(text: &str) {
    let mut negative = Profile::of(Named::Classic);
    negative.min_score = Milli(-1);
    negative.k = 50;
    let mut stemmed = Profile::of(Named::Classic);
    stemmed.stem = true;
    let mut bm25_negative = Profile::of(Named::Default);
    bm25_negative.min_score = Milli(-1);
    for profile in [
        Profile::of(Named::Default),
        Profile::of(Named::Classic),
        Profile::of(Named::Mneme),
        negative,
        stemmed,
        bm25_negative,
    ] {
        let memory = || Memory::parse(Path::new("m.json"), text.to_string(), profile.family);
        let batch = Index::build(memory(), profile.clone());
        let files: Vec<Option<String>> =
            batch.scopes.globs.iter().map(|g| Some(g.glob().replace("**", "x/y").replace(['*', '?'], "q"))).collect();
        let mut files: Vec<Option<String>> = files.into_iter().step_by(40).collect();
        files.extend([Some("services/payments/refunds.py".to_string()), Some("a/b.py".into()), None, Some("".into())]);
        for (i, file) in files.iter().enumerate() {
            let d = batch.decision(i % batch.decisions().len());
            let tags = d.tags.join(" ");
            for task in [d.title.as_str(), tags.as_str(), "do it", "ledger payments refund"] {
                let q = Query { task, file: file.as_deref() };
                let one = Index::build_for_query(memory(), profile.clone(), q);
                assert_eq!(batch.retrieve(q), one.retrieve(q), "{task} {file:?}");
                if let Some(file) = file {
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    batch.scopes.matches_into(file, &mut a);
                    one.scopes.matches_into(file, &mut b);
                    assert_eq!(a, b, "{file}");
                }
            }
        }
    }
}

#[test]
fn retrieval_is_the_same_with_a_reused_scratch() {
    let ix = classic_index(
        r#"[{"id": "a", "type": "rule", "title": "ledger", "tags": ["ledger"], "scope": "x/**"}, {"id": "b", "type": "rule", "title": "cache ledger"}]"#,
    );
    let mut scratch = Scratch::default();
    for q in ["ledger", "cache", "ledger cache", "", "ledger"] {
        for file in [None, Some("x/y"), Some("z")] {
            let a = ix.retrieve_with(Query { task: q, file }, 3, &mut scratch);
            let b = ix.retrieve(Query { task: q, file });
            assert_eq!(a, b);
        }
    }
}

/// More distinct globs than globset can compile into one set (each one
/// compiles alone): scoped decisions still match their paths, in the batch
/// index, in `explain` and in the one-query index, instead of none of them.
#[test]
fn globs_too_many_for_one_set_still_match() {
    let heavy: Vec<String> = (0..1500)
        .map(|i| {
            format!(r#"{{"id": "h{i}", "type": "rule", "title": "ledger {i}", "scope": "h{i}/{}x"}}"#, "*?".repeat(40))
        })
        .collect();
    let text = format!(
        r#"[{}, {{"id": "pay", "type": "rule", "title": "ledger payments", "scope": "services/payments/"}}, {{"id": "late", "type": "rule", "title": "ledger late", "scope": "h1499/{}x"}}]"#,
        heavy.join(", "),
        "*?".repeat(40),
    );
    let profile = Profile::of(Named::Classic);
    let q = Query { task: "ledger payments", file: Some("services/payments/refunds.py") };
    let batch = index(&text, profile.clone());
    let all = super::scope::GlobSets::build(&batch.scopes.globs.iter().map(|g| &**g).collect::<Vec<_>>());
    assert!(all.set_count() > 1, "one set was enough: make the globs heavier");
    assert_eq!(run(&batch, q.task, q.file)[0].0, "pay");
    let why = batch.explain(q);
    let pay = why.records.iter().find(|r| r.id == "pay").unwrap();
    assert!(matches!(&pay.scope, ScopeCheck::Matched { glob } if glob == "services/payments/"), "{:?}", pay.scope);
    let long = format!("h1499/{}x", "ab".repeat(40));
    let late: Vec<String> = run(&batch, "ledger", Some(&long)).into_iter().map(|(id, _)| id).collect();
    assert_eq!(late[..2], ["h1499", "late"]);
    let memory = Memory::parse(Path::new("m.json"), text.clone(), Family::Default);
    let one = Index::build_for_query(memory, profile, q);
    assert_eq!(run(&one, q.task, q.file)[0].0, "pay");
}

/// A query's task and file.
type TaskAndFile = (String, Option<&'static str>);

/// The bundled example's index under each profile, with queries that take
/// every path of a ranking: each title, titles four at a time and all of
/// them together (which touch most of the pool), without a file and with
/// files in and out of the scopes, in turn.
fn fixture_indexes_and_queries() -> Vec<(Index, Vec<TaskAndFile>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("fixtures/project_memory.json")).unwrap();
    [Named::Default, Named::Classic, Named::Mneme]
        .into_iter()
        .map(|named| {
            let ix = index(&text, Profile::of(named));
            let titles: Vec<&str> = ix.decisions().iter().map(|d| d.title.as_str()).collect();
            let mut tasks: Vec<String> = titles.iter().map(|t| t.to_string()).collect();
            tasks.extend(titles.chunks(4).map(|c| c.join(" ")));
            tasks.push(titles.join(" "));
            let files = [None, Some("services/payments/refunds.py"), Some("web/app/page.tsx")];
            let queries = tasks.into_iter().enumerate().map(|(i, task)| (task, files[i % 3])).collect();
            (ix, queries)
        })
        .collect()
}

/// The ways a query is answered (postings summed for the decisions they
/// touch, or for the whole pool when they touch most of it; the best kept
/// while scanning, or all ranked) give the same ranking.
#[test]
fn dense_sparse_and_full_rankings_agree() {
    for (ix, queries) in fixture_indexes_and_queries() {
        let mut scratch = Scratch::default();
        let mut dense = 0;
        for (task, file) in &queries {
            let (task, file) = (task.as_str(), *file);
            let q = Query { task, file };
            ix.query_tokens(task, file, &mut scratch.query, &mut scratch.path_words);
            dense += usize::from(ix.dense(&scratch));
            for k in [1, 3, 5] {
                let fast = ix.retrieve_with(q, k, &mut scratch);
                let mut all = ix.retrieve_with(q, 1000, &mut scratch);
                all.hits.truncate(k);
                assert_eq!(fast, all, "{task} {file:?} k={k}");
            }
        }
        assert!(dense > 10, "the whole-pool path was taken {dense} times");
    }
}

/// The runner-up (the best candidate a ranking leaves out, whatever its
/// score) is the same on every path: for the top k it is the (k+1)-th of
/// the full ranking when there is one, else the full ranking's own
/// runner-up, computed on the general path.
#[test]
fn runner_up_agrees_on_every_path() {
    for (ix, mut queries) in fixture_indexes_and_queries() {
        queries.push(("zzz-unknown-token".into(), None));
        let mut scratch = Scratch::default();
        let (mut dense, mut beyond, mut left_out) = (0, 0, 0);
        for (task, file) in &queries {
            let (task, file) = (task.as_str(), *file);
            let q = Query { task, file };
            ix.query_tokens(task, file, &mut scratch.query, &mut scratch.path_words);
            dense += usize::from(ix.dense(&scratch));
            let (all, all_up) = ix.retrieve_with_runner_up(q, 1000, &mut scratch);
            for k in [1, 3, 5] {
                let (fast, up) = ix.retrieve_with_runner_up(q, k, &mut scratch);
                let mut top = all.clone();
                top.hits.truncate(k);
                assert_eq!(fast, top, "{task} {file:?} k={k}");
                let expected = match all.hits.get(k) {
                    Some(h) if ix.copy_group(h.pool) == h.pool => {
                        beyond += 1;
                        Some(RunnerUp { pool: h.pool, score: h.score, touched: true })
                    }
                    Some(_) => continue,
                    None => {
                        left_out += 1;
                        all_up
                    }
                };
                assert_eq!(up, expected, "{task} {file:?} k={k}");
                // Asking for the runner-up leaves the scratch as it was.
                assert_eq!(ix.retrieve_with(q, k, &mut scratch), top, "{task} {file:?} k={k}, again");
            }
        }
        assert!(dense > 10 && beyond > 10 && left_out > 3, "paths taken: {dense} dense, {beyond}, {left_out}");
    }
}

/// On the whole-pool path, a runner-up that no posting touched (every
/// touched candidate was retrieved) is found by summing the query again:
/// the first untouched candidate in pool order, at 0.
#[test]
fn an_untouched_runner_up_on_the_whole_pool_path() {
    let ix = classic_index(
        r#"[{"id": "a", "type": "rule", "title": "alpha", "scope": ["aaa/**"]},
            {"id": "b", "type": "rule", "title": "alpha gamma", "scope": ["bbb/**"]},
            {"id": "c", "type": "rule", "title": "gamma", "scope": ["bbb/**"]},
            {"id": "d", "type": "rule", "title": "delta"},
            {"id": "e", "type": "rule", "title": "epsilon"}]"#,
    );
    let q = Query { task: "alpha gamma", file: Some("aaa/zzz.py") };
    let mut scratch = Scratch::default();
    ix.query_tokens(q.task, q.file, &mut scratch.query, &mut scratch.path_words);
    assert!(ix.dense(&scratch), "the query touches most of the pool");
    for k in [1, 3, 1000] {
        let (r, up) = ix.retrieve_with_runner_up(q, k, &mut scratch);
        assert_eq!(r.hits.iter().map(|h| ix.decisions()[h.pool].id.as_str()).collect::<Vec<_>>(), ["a"], "k={k}");
        assert_eq!(up, Some(RunnerUp { pool: 3, score: Milli::ZERO, touched: false }), "k={k}");
    }
    // Out of scope, b and c are neither hit nor runner-up; without a file, b
    // is the hit and a (tied with c, first in pool order) the runner-up.
    let (_, up) = ix.retrieve_with_runner_up(Query { task: "alpha gamma", file: None }, 1, &mut scratch);
    assert_eq!(up.map(|u| ix.decisions()[u.pool].id.as_str()), Some("a"));
}

// ---------------------------------------------------------------------------
// Profile `default` (BM25F)
// ---------------------------------------------------------------------------

fn bm25_index(text: &str) -> Index {
    index(text, Profile::of(Named::Default))
}

/// Every score of profile `default` is rebuilt, to the thousandth, from
/// what explain prints: the sum of the terms' contributions and the tag
/// boost, each contribution from its idf, saturation and field parts.
#[test]
fn bm25_explain_rebuilds_every_score() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("fixtures/project_memory.json")).unwrap();
    let ix = bm25_index(&text);
    let params = ix.profile().bm25f.unwrap();
    let mut checked = 0;
    for d in ix.decisions().iter().take(12) {
        for file in [None, Some("services/payments/refunds.py")] {
            let q = Query { task: &d.title, file };
            let e = ix.explain(q);
            let hits = ix.retrieve_with(q, usize::MAX, &mut Scratch::default());
            for r in e.records.iter().filter(|r| r.pool_order.is_some()) {
                let mut total = r.tag_boost.0;
                for t in &r.terms {
                    let x: i64 = t.fields.iter().map(|f| f.part.0).sum();
                    assert_eq!(x, t.x.0);
                    for f in &t.fields {
                        let norm = bm25::norm_milli(params.b, f.len, f.total, t.n);
                        assert_eq!((norm, bm25::field_part(f.weight, norm)), (f.norm.0, f.part.0));
                    }
                    assert_eq!(bm25::saturate(t.x.0, params.k1), t.saturated.0);
                    assert_eq!(bm25::idf_milli(t.n, t.df), t.idf.0);
                    let mut c = bm25::contribution(t.idf.0, t.saturated.0);
                    if t.from_path {
                        c = bm25::path_part(c, params.path_weight);
                    }
                    assert_eq!(c, t.contribution.0);
                    total += c;
                }
                assert_eq!(Some(Milli(total)), r.score, "{}", r.id);
                if r.reason.as_deref() != Some("out_of_scope") {
                    let hit = hits.hits.iter().find(|h| ix.decision(h.pool).id == r.id);
                    let kept = r.score.filter(|s| s.0 > ix.profile().min_score.0);
                    assert_eq!(hit.map(|h| h.score), kept, "{}", r.id);
                }
                checked += r.terms.len();
            }
        }
    }
    assert!(checked > 100, "{checked} terms checked");
}

/// A word every decision holds weighs almost nothing; a rare one decides.
#[test]
fn bm25_weighs_rare_words_over_common_ones() {
    // Twenty decisions, every one holding `service`.
    let others: Vec<String> =
        (0..19).map(|i| format!(r#"{{"id": "o{i}", "type": "rule", "title": "service topic{i}"}}"#)).collect();
    let ix = bm25_index(&format!(
        r#"[{{"id": "a", "type": "rule", "title": "service timeout policy"}}, {}]"#,
        others.join(", ")
    ));
    let e = ix.explain(Query { task: "service timeout", file: None });
    let a = e.records.iter().find(|r| r.id == "a").unwrap();
    let (timeout, service) = (&a.terms[0], &a.terms[1]);
    assert_eq!((timeout.token.as_str(), service.token.as_str()), ("timeout", "service"));
    assert!(timeout.idf.0 > service.idf.0 + 1500, "{a:?}");
    assert!(timeout.contribution.0 > service.contribution.0, "{a:?}");
    // `service` alone clears nothing: every decision holds it.
    assert!(ix.retrieve(Query { task: "service", file: None }).hits.is_empty());
    assert_eq!(ix.retrieve(Query { task: "service timeout", file: None }).hits.len(), 1);
}

/// A long field does not win on length: the same word in a short title
/// beats it in a long body, and the abstention note says why nothing came.
#[test]
fn bm25_normalises_length_and_abstains() {
    let long = "cache ".to_string() + &"alpha beta gamma delta epsilon zeta eta theta iota kappa ".repeat(6);
    let text = format!(
        r#"[{{"id": "long", "type": "rule", "title": "x", "content": "{long}"}},
            {{"id": "short", "type": "rule", "title": "y", "content": "cache invalidation"}},
            {{"id": "o1", "type": "rule", "title": "other one"}},
            {{"id": "o2", "type": "rule", "title": "other two"}}]"#
    );
    let ix = bm25_index(&text);
    let e = ix.explain(Query { task: "cache", file: None });
    let score = |id: &str| e.records.iter().find(|r| r.id == id).unwrap().score.unwrap();
    assert!(score("short") > score("long"), "{:?} {:?}", score("short"), score("long"));
    // A word only the long body holds stays below the threshold: nothing
    // is injected, and why is said.
    let e = ix.explain(Query { task: "alpha", file: None });
    assert!(e.records.iter().find(|r| r.id == "long").unwrap().score.unwrap() > Milli::ZERO);
    assert!(e.retrieved.is_empty());
    assert!(e.note.as_deref().unwrap().contains("abstains"), "{:?}", e.note);
}

/// The path is not task words: its informative tokens count at
/// `path_weight`, a token many decisions hold not at all, and no path
/// token completes a tag.
#[test]
fn bm25_path_is_a_weak_informative_signal() {
    let ix = bm25_index(
        r#"[{"id": "w", "type": "rule", "title": "watttime client", "tags": ["watttime"]},
            {"id": "s1", "type": "rule", "title": "src layout"},
            {"id": "s2", "type": "rule", "title": "src naming"},
            {"id": "s3", "type": "rule", "title": "logging", "content": "src"},
            {"id": "o", "type": "rule", "title": "other"}]"#,
    );
    let q = Query { task: "fix retries", file: Some("src/WattTime/Client.cs") };
    let e = ix.explain(q);
    assert_eq!(e.path_tokens, ["client", "watttime"]); // `src` is in 3 of 5 decisions
    let w = e.records.iter().find(|r| r.id == "w").unwrap();
    assert!(w.tag_hits.is_empty(), "a path token completed a tag");
    assert!(w.terms.iter().all(|t| t.from_path));
    // As task words the same tokens count twice as much (path_weight 0.5) and hit the tag.
    let as_task = ix.explain(Query { task: "watttime client", file: None });
    let w2 = as_task.records.iter().find(|r| r.id == "w").unwrap();
    let path_sum: i64 = w.terms.iter().map(|t| t.contribution.0).sum();
    let task_sum: i64 = w2.terms.iter().map(|t| t.contribution.0).sum();
    assert!(path_sum * 2 <= task_sum && path_sum * 2 + 2 >= task_sum, "{path_sum} {task_sum}");
    assert_eq!(w2.tag_hits, ["watttime"]);
}

/// A word of the path counts once, by the best of its spellings the
/// decision holds: a monorepo's top folder (`dotcom-rendering`, `dotcom`,
/// `rendering`) is one piece of evidence, not three.
#[test]
fn bm25_a_path_word_counts_once_by_its_best_spelling() {
    let ix = bm25_index(
        r#"[{"id": "hub", "type": "rule", "title": "dotcom-rendering new elements", "content": "dotcom rendering"},
            {"id": "a", "type": "rule", "title": "islands"},
            {"id": "b", "type": "rule", "title": "pictures"},
            {"id": "c", "type": "rule", "title": "storybook"},
            {"id": "d", "type": "rule", "title": "testing"}]"#,
    );
    let e = ix.explain(Query { task: "fix it", file: Some("dotcom-rendering/src/x.ts") });
    let hub = e.records.iter().find(|r| r.id == "hub").unwrap();
    let counted: Vec<&str> = hub.terms.iter().filter(|t| t.outvoted_by.is_none()).map(|t| t.token.as_str()).collect();
    let outvoted: Vec<&str> = hub.terms.iter().filter(|t| t.outvoted_by.is_some()).map(|t| t.token.as_str()).collect();
    assert_eq!(counted.len(), 1, "{hub:#?}");
    assert_eq!(outvoted.len(), 2, "{hub:#?}");
    let best = hub.terms.iter().map(|t| t.contribution).max().unwrap();
    assert_eq!(hub.terms[0].contribution, best, "the counted term is the best");
    assert!(hub.terms[1..].iter().all(|t| t.outvoted_by.as_deref() == Some(counted[0])));
    // The score is the best spelling's, and the ranking agrees with explain.
    assert_eq!(hub.score, Some(best));
    let sum: i64 = hub.terms.iter().map(|t| t.contribution.0).sum();
    assert!(sum > best.0, "summed, the spellings would have scored {sum}");
    let r =
        ix.retrieve_with(Query { task: "fix it", file: Some("dotcom-rendering/src/x.ts") }, 5, &mut Scratch::default());
    assert!(r.hits.iter().all(|h| h.score <= best));
    // Two words of the path are two pieces of evidence.
    let two = ix.explain(Query { task: "fix it", file: Some("dotcom/rendering/x.ts") });
    let hub2 = two.records.iter().find(|r| r.id == "hub").unwrap();
    assert!(hub2.terms.iter().all(|t| t.outvoted_by.is_none()) && hub2.terms.len() == 2, "{hub2:#?}");
}

/// Identifiers meet their words: `MeshTimeout` in a decision is found by
/// "timeout", and "mesh timeout" finds `MeshTimeout` as a whole too.
#[test]
fn bm25_splits_identifiers_on_both_sides() {
    let ix = bm25_index(
        r#"[{"id": "m", "type": "rule", "title": "Set MeshTimeout on every mesh call", "constraint": "use snake_case_names"},
            {"id": "o1", "type": "rule", "title": "other"}, {"id": "o2", "type": "rule", "title": "else"}]"#,
    );
    let hit = |task: &str| run(&ix, task, None).first().map(|(id, _)| id.clone());
    assert_eq!(hit("timeout for mesh calls"), Some("m".into()));
    assert_eq!(hit("meshTimeout"), Some("m".into()));
    assert_eq!(hit("snake case names"), Some("m".into()));
    let classic = classic_index(r#"[{"id": "m", "type": "rule", "title": "Set MeshTimeout"}]"#);
    assert!(run(&classic, "timeout", None).is_empty(), "classic does not split");
}

/// The ADR sections are scored, each with its weight, under `default`
/// only: the summary weighs more than the consequences.
#[test]
fn bm25_scores_sections_and_classic_never_reads_them() {
    let text = r#"[{"id": "d", "type": "rule", "title": "x"}, {"id": "o", "type": "rule", "title": "y"},
                   {"id": "p", "type": "rule", "title": "z"}, {"id": "q", "type": "rule", "title": "w"}]"#;
    let with_sections = |profile: Profile| {
        let mut memory = Memory::parse(Path::new("m.json"), text.to_string(), profile.family);
        memory.pool[0].rare_mut().sections.summary = "queue backpressure".into();
        memory.pool[1].rare_mut().sections.consequences = "queue backpressure".into();
        Index::build(memory, profile)
    };
    let ix = with_sections(Profile::of(Named::Default));
    let e = ix.explain(Query { task: "queue backpressure", file: None });
    let score = |id: &str| e.records.iter().find(|r| r.id == id).unwrap().score.unwrap();
    assert!(score("d") > score("o") && score("o") > Milli::ZERO);
    let fields: Vec<Field> =
        e.records.iter().find(|r| r.id == "d").unwrap().terms[0].fields.iter().map(|f| f.field).collect();
    assert_eq!(fields, [Field::Summary]);
    let classic = with_sections(Profile::of(Named::Classic));
    assert!(classic.retrieve(Query { task: "queue backpressure", file: None }).hits.is_empty());
    let mut mneme = Profile::of(Named::Mneme);
    mneme.min_score = Milli::ZERO;
    assert!(with_sections(mneme).retrieve(Query { task: "queue backpressure", file: None }).hits.is_empty());
}

/// A chore retrieves nothing under `default`, says why, and explain shows
/// what it would have got; a team that decided about that kind of chore
/// gets its decision; `classic` and `skip_chores: false` rank it as any task.
#[test]
fn bm25_retrieves_nothing_for_a_chore() {
    let text = r#"[{"id": "p", "type": "rule", "title": "Payments use the ledger client", "tags": ["payments"]},
                   {"id": "o", "type": "rule", "title": "Orders live in Postgres"},
                   {"id": "q", "type": "rule", "title": "Queues carry events"}]"#;
    let ix = bm25_index(text);
    let task = "Fix a typo in the payments ledger client";
    assert_eq!(run(&ix, "Retry the payments ledger client", None).first().map(|(id, _)| id.as_str()), Some("p"));
    let r = ix.retrieve(Query { task, file: None });
    assert!(r.hits.is_empty());
    assert_eq!(r.chore, Some(crate::chore::Chore::Typo));
    assert!(r.why_empty(ix.profile()).unwrap().contains("a typo fix"), "{:?}", r.why_empty(ix.profile()));
    let e = ix.explain(Query { task, file: None });
    assert!(e.retrieved.is_empty());
    let p = e.records.iter().find(|r| r.id == "p").unwrap();
    assert_eq!(p.reason.as_deref(), Some("chore"));
    assert!(p.score.unwrap() > ix.profile().min_score);
    // An edit of the root README is a documentation chore; a deeper one is not.
    assert!(ix.retrieve(Query { task: "payments ledger client", file: Some("README.md") }).hits.is_empty());
    assert!(!ix
        .retrieve(Query { task: "payments ledger client", file: Some("docs/payments/README.md") })
        .hits
        .is_empty());
    // Naming a decision's number makes it no chore.
    assert!(!ix
        .retrieve(Query { task: "Fix a typo in the payments ledger client, ADR 12", file: None })
        .hits
        .is_empty());
    // A team whose decision is about typos gets it.
    let decided = bm25_index(
        r#"[{"id": "t", "type": "rule", "title": "Every typo fix runs the spelling check"},
            {"id": "o", "type": "rule", "title": "Orders live in Postgres"},
            {"id": "q", "type": "rule", "title": "Queues carry events"}]"#,
    );
    assert_eq!(run(&decided, "Fix a typo with the spelling check", None).first().map(|(id, _)| id.as_str()), Some("t"));
    // Off: ranked as any task.
    let mut off = Profile::of(Named::Default);
    off.bm25f.as_mut().unwrap().skip_chores = false;
    let ix_off = Index::build(Memory::parse(Path::new("m.json"), text.to_string(), off.family), off);
    assert_eq!(run(&ix_off, task, None).first().map(|(id, _)| id.as_str()), Some("p"));
    assert_eq!(run(&classic_index(text), task, None).first().map(|(id, _)| id.as_str()), Some("p"));
}

/// `positions_of` searches by a key of the id: every copy of an id is found,
/// in pool order, and an id that shares its key with another finds only its
/// own records.
#[test]
fn positions_of_finds_every_copy_of_an_id_and_none_of_an_id_that_shares_its_key() {
    let mut keys = std::collections::HashMap::new();
    let (a, b) = (0u32..)
        .find_map(|n| {
            let id = format!("id-{n}");
            keys.insert(id_key(&id), id.clone()).map(|first| (first, id))
        })
        .expect("two ids of the same key");
    assert_ne!(a, b);
    assert_eq!(id_key(&a), id_key(&b));
    let text = format!(
        r#"[{{"id": "{a}", "type": "rule", "title": "one"}}, {{"id": "other", "type": "rule", "title": "two"}},
            {{"id": "{b}", "type": "rule", "title": "three"}}, {{"id": "{a}", "type": "rule", "title": "four"}}]"#
    );
    let ix = index(&text, Profile::of(Named::Mneme));
    let by_hand = |id: &str| -> Vec<usize> { (0..ix.decisions().len()).filter(|&d| ix.decision(d).id == id).collect() };
    assert!(by_hand(&a).len() > 1, "profile mneme keeps both copies of {a}");
    for id in [a.as_str(), b.as_str(), "other", "absent"] {
        assert_eq!(ix.positions_of(id).collect::<Vec<_>>(), by_hand(id), "{id}");
    }
}

/// The text of an ADR's Context and Decision sub-sections is scored as
/// `content` under `default` (the field, its weight and its length are
/// content's), and not read by `classic`, whose `content` is the record's
/// own as it always was.
#[test]
fn subsections_are_content_under_default_and_unread_by_classic() {
    let text = r#"[{"id": "h", "type": "rule", "title": "Partial hydration", "content": "It did not scale."},
                   {"id": "o", "type": "rule", "title": "Pictures", "content": "Use picture elements."}]"#;
    let with_subsections = |profile: Profile| {
        let mut memory = Memory::parse(Path::new("m.json"), text.to_string(), profile.family);
        memory.pool[0].rare_mut().sections.subsections = "To create a new island wrap it.".into();
        Index::build(memory, profile)
    };
    let query = Query { task: "create an island", file: None };
    let mut profile = Profile::of(Named::Default);
    profile.min_score = Milli::ZERO;
    let ix = with_subsections(profile);
    let e = ix.explain(query);
    let h = e.records.iter().find(|r| r.id == "h").unwrap();
    assert!(h.score.unwrap() > Milli::ZERO, "{h:#?}");
    let fields: Vec<Field> = h.terms.iter().flat_map(|t| t.fields.iter().map(|f| f.field)).collect();
    assert!(!fields.is_empty() && fields.iter().all(|&f| f == Field::Content), "{fields:?}");
    let mut classic = Profile::of(Named::Classic);
    classic.min_score = Milli::ZERO;
    assert!(with_subsections(classic).retrieve(query).hits.is_empty());
}

/// Under `default`, the words that say what kind of change a task is do not
/// score: "Remove the aggregator layer" does not win every removal, a
/// decision named by the task's subject does; `classic` scores them as
/// before, and `explain` lists them.
#[test]
fn bm25_does_not_score_the_kind_of_change() {
    let text = r#"[{"id": "r", "type": "rule", "title": "Remove the aggregator layer"},
                   {"id": "j", "type": "rule", "title": "Examples are JSON files under samples"},
                   {"id": "o", "type": "rule", "title": "Orders live in Postgres"}]"#;
    let ix = bm25_index(text);
    let ids = |task| run(&ix, task, None).into_iter().map(|(id, _)| id).collect::<Vec<_>>();
    assert_eq!(ids("Remove the JSON examples"), ["j"]);
    assert!(ids("Removed").is_empty());
    assert_eq!(ids("Remove the aggregator"), ["r"]);
    let classic = classic_index(text);
    assert!(run(&classic, "Remove the JSON examples", None).iter().any(|(id, _)| id == "r"));
    let e = ix.explain(Query { task: "Remove the JSON examples", file: None });
    assert_eq!(e.task_verbs, ["remove"]);
    assert!(classic.explain(Query { task: "Remove the JSON examples", file: None }).task_verbs.is_empty());
}
