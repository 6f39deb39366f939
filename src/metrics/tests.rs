//! The figures against hand-computed values, Mneme's conformance summary,
//! and plain formulas on generated inputs.

use super::*;
use crate::verdict::Verdict;
use proptest::prelude::*;

fn m(r: &[&str], e: &[&str], a: &[&str], k: usize) -> ScenarioMetrics {
    ScenarioMetrics::compute(r, e, a, k)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn discount_table_matches_log2() {
    for i in 0..DISCOUNT_TABLE_LEN + 8 {
        let direct = 1.0 / ((i + 2) as f64).log2();
        assert!((discount(i) - direct).abs() <= f64::EPSILON, "rank {i}");
    }
    assert_eq!(discount(0), 1.0);
    assert_eq!(discount(2), 0.5);
    assert_eq!(discount(6), 1.0 / 3.0);
    assert_eq!(discount(14), 0.25);
    assert_eq!(discount(30), 0.2);
}

#[test]
fn all_hits_at_the_top() {
    let s = m(&["a", "b", "c"], &["a", "b"], &[], 3);
    assert_eq!(s.hits, 2);
    assert_eq!(s.recall_at_k, Some(1.0));
    assert_eq!(s.recall_at_1, Some(0.5));
    assert_eq!(s.precision_at_k, Some(2.0 / 3.0));
    assert_eq!(s.reciprocal_rank, Some(1.0));
    assert_eq!(s.ndcg_at_k, Some(1.0));
    assert_eq!(s.irrelevant_injection, Some(true));
    assert_eq!(s.ungoverned_injection, None);
    assert_eq!(s.irrelevant, vec!["c"]);
    assert!(s.missed.is_empty());
    assert!(s.is_governed());
}

#[test]
fn mneme_convention_one_expected_k3() {
    let s = m(&["x", "anti-002", "y"], &["anti-002"], &[], 3);
    assert_eq!(s.recall_at_k, Some(1.0));
    assert_eq!(s.recall_at_1, Some(0.0));
    assert_eq!(s.precision_at_k, Some(1.0 / 3.0));
    assert_eq!(s.reciprocal_rank, Some(0.5));
    assert_eq!(s.ndcg_at_k, Some(discount(1)));
    assert_eq!(s.irrelevant_injection, Some(true));
}

#[test]
fn miss_and_partial_recall() {
    let s = m(&["x", "b"], &["a", "b", "c", "d"], &[], 3);
    assert_eq!(s.hits, 1);
    assert_eq!(s.recall_at_k, Some(0.25));
    assert_eq!(s.recall_at_1, Some(0.0));
    assert_eq!(s.precision_at_k, Some(0.5));
    assert_eq!(s.reciprocal_rank, Some(0.5));
    let idcg = discount(0) + discount(1) + discount(2);
    assert_eq!(s.ndcg_at_k, Some(discount(1) / idcg));
    assert_eq!(s.missed, vec!["a", "c", "d"]);
    assert!(!s.all_expected_retrieved());
}

#[test]
fn nothing_relevant_retrieved() {
    let s = m(&["x", "y", "z"], &["a"], &[], 3);
    assert_eq!(s.recall_at_k, Some(0.0));
    assert_eq!(s.precision_at_k, Some(0.0));
    assert_eq!(s.reciprocal_rank, Some(0.0));
    assert_eq!(s.ndcg_at_k, Some(0.0));
    assert!(s.ndcg_at_k.unwrap().is_sign_positive(), "never -0.0: a report would print it");
    assert_eq!(s.irrelevant_injection, Some(true));
}

#[test]
fn empty_retrieval_governed() {
    let s = m(&[], &["a"], &[], 3);
    assert_eq!(s.retrieved_count, 0);
    assert_eq!(s.recall_at_k, Some(0.0));
    assert_eq!(s.recall_at_1, Some(0.0));
    assert_eq!(s.precision_at_k, Some(1.0), "nothing injected, nothing wrong");
    assert_eq!(s.reciprocal_rank, Some(0.0));
    assert_eq!(s.ndcg_at_k, Some(0.0));
    assert!(s.ndcg_at_k.unwrap().is_sign_positive(), "never -0.0: a report would print it");
    assert_eq!(s.irrelevant_injection, Some(false));
    assert_eq!(s.missed, vec!["a"]);
}

#[test]
fn ungoverned_scenarios() {
    let empty = m(&[], &[], &[], 3);
    assert!(!empty.is_governed());
    assert_eq!(empty.ungoverned_injection, Some(false));
    for governed in [empty.recall_at_k, empty.recall_at_1, empty.precision_at_k, empty.reciprocal_rank, empty.ndcg_at_k]
    {
        assert_eq!(governed, None);
    }
    assert_eq!(empty.irrelevant_injection, None);

    let injected = m(&["a", "b"], &[], &[], 3);
    assert_eq!(injected.ungoverned_injection, Some(true));
    assert_eq!(injected.irrelevant, vec!["a", "b"]);
    assert_eq!(injected.hits, 0);

    let tolerated = m(&["a", "b"], &[], &["a", "b", "c"], 3);
    assert_eq!(tolerated.ungoverned_injection, Some(false));
    let partly = m(&["a", "b"], &[], &["a"], 3);
    assert_eq!(partly.ungoverned_injection, Some(true));
    assert_eq!(partly.irrelevant, vec!["b"]);
}

#[test]
fn acceptable_ids_count_as_relevant_but_not_as_hits() {
    let s = m(&["ok", "a", "noise"], &["a"], &["ok"], 3);
    assert_eq!(s.hits, 1);
    assert_eq!(s.recall_at_k, Some(1.0));
    assert_eq!(s.recall_at_1, Some(0.0));
    assert_eq!(s.precision_at_k, Some(2.0 / 3.0));
    assert_eq!(s.reciprocal_rank, Some(0.5));
    assert_eq!(s.ndcg_at_k, Some(discount(1)));
    assert_eq!(s.irrelevant_injection, Some(true));
    assert_eq!(s.irrelevant, vec!["noise"]);

    let clean = m(&["ok", "a"], &["a"], &["ok"], 3);
    assert_eq!(clean.precision_at_k, Some(1.0));
    assert_eq!(clean.irrelevant_injection, Some(false));
}

#[test]
fn id_both_expected_and_acceptable_is_expected() {
    let s = m(&["a"], &["a"], &["a"], 3);
    assert_eq!(s.hits, 1);
    assert_eq!(s.precision_at_k, Some(1.0));
    assert_eq!(s.irrelevant_injection, Some(false));
}

#[test]
fn k_larger_than_pool() {
    let s = m(&["a"], &["a", "b"], &[], 10);
    assert_eq!(s.recall_at_k, Some(0.5));
    assert_eq!(s.precision_at_k, Some(1.0));
    // IDCG runs over min(|E|, k) = 2 ranks even though only one id came back.
    assert_eq!(s.ndcg_at_k, Some(1.0 / (discount(0) + discount(1))));
}

#[test]
fn retrieved_beyond_k_is_ignored() {
    let s = m(&["x", "y", "a", "b"], &["a", "b"], &[], 2);
    assert_eq!(s.retrieved_count, 2);
    assert_eq!(s.hits, 0);
    assert_eq!(s.recall_at_k, Some(0.0));
    assert_eq!(s.missed, vec!["a", "b"]);
}

#[test]
fn k_zero() {
    let s = m(&["a"], &["a"], &[], 0);
    assert_eq!(s.retrieved_count, 0);
    assert_eq!(s.recall_at_k, Some(0.0));
    assert_eq!(s.precision_at_k, Some(1.0));
    assert_eq!(s.ndcg_at_k, Some(0.0));
    assert_eq!(m(&["a"], &[], &[], 0).ungoverned_injection, Some(false));
}

#[test]
fn duplicates_count_once() {
    let s = m(&["a", "a", "b"], &["a", "b"], &[], 3);
    assert_eq!(s, m(&["a", "b"], &["a", "b"], &[], 3));
    assert_eq!(s.hits, 2);
    assert_eq!(s.precision_at_k, Some(1.0));
    assert_eq!(s.ndcg_at_k, Some(1.0));

    // The cut at k comes first: the repeat still uses one of the k slots.
    let cut = m(&["x", "x", "a"], &["a"], &[], 2);
    assert_eq!(cut.retrieved_count, 1);
    assert_eq!(cut.recall_at_k, Some(0.0));

    let e = m(&["a"], &["a", "a"], &["z", "z"], 3);
    assert_eq!(e.expected_count, 1);
    assert_eq!(e.recall_at_k, Some(1.0));
    assert_eq!(e.ndcg_at_k, Some(1.0));
}

#[test]
fn accepts_strings_and_strs() {
    let r = vec!["a".to_string(), "b".to_string()];
    let e = vec!["a".to_string()];
    let a: Vec<String> = Vec::new();
    let owned = ScenarioMetrics::compute(&r, &e, &a, 3);
    assert_eq!(owned, m(&["a", "b"], &["a"], &[], 3));
}

/// The suite of `(category, figures, verdict as written)`.
fn suite_of(items: &[(&str, ScenarioMetrics, &str)]) -> SuiteMetrics {
    SuiteMetrics::aggregate(items.iter().map(|(c, m, v)| (*c, m, v.parse::<Verdict>().unwrap())))
}

#[test]
fn empty_suite_has_null_means() {
    let s = SuiteMetrics::aggregate(Vec::<(&str, &ScenarioMetrics, Verdict)>::new());
    assert_eq!(s.total, 0);
    assert_eq!(s.governed, 0);
    assert_eq!(s.mean_recall_at_k, None);
    assert_eq!(s.ungoverned_injection_rate, None);
    assert_eq!(s.pass_rate, None, "nothing judged: no pass rate");
    assert!(!s.layer2_evaluated);
    assert!(s.by_category.is_empty());
    let json = serde_json::to_value(&s).unwrap();
    assert!(json["mean_recall_at_k"].is_null());
    assert!(json["mrr"].is_null());
    assert!(json["ungoverned_injection_rate"].is_null());
    assert!(json["pass_rate"].is_null());
}

#[test]
fn suite_means_and_counts() {
    let items = [
        ("scope", m(&["a", "x"], &["a"], &[], 3), "PASS"),
        ("scope", m(&["x", "y", "b"], &["b", "c"], &[], 3), "WEAK_RETRIEVAL"),
        ("arch", m(&["p"], &[], &[], 3), "FAIL"),
        ("arch", m(&[], &[], &[], 3), "WEAK"),
        ("zeta", m(&["q"], &["q"], &[], 3), "MALFORMED"),
    ];
    let s = suite_of(&items);
    assert_eq!((s.total, s.governed, s.ungoverned), (5, 3, 2));
    assert!(close(s.mean_recall_at_k.unwrap(), (1.0 + 0.5 + 1.0) / 3.0));
    assert!(close(s.mean_recall_at_1.unwrap(), (1.0 + 0.0 + 1.0) / 3.0));
    assert!(close(s.mean_precision_at_k.unwrap(), (0.5 + 1.0 / 3.0 + 1.0) / 3.0));
    assert!(close(s.mrr.unwrap(), (1.0 + 1.0 / 3.0 + 1.0) / 3.0));
    let n2 = discount(2) / (discount(0) + discount(1));
    assert!(close(s.mean_ndcg_at_k.unwrap(), (1.0 + n2 + 1.0) / 3.0));
    assert!(close(s.irrelevant_injection_rate.unwrap(), 2.0 / 3.0));
    assert_eq!(s.ungoverned_injection_rate, Some(0.5));
    assert_eq!((s.pass, s.fail, s.weak, s.weak_retrieval, s.malformed), (1, 1, 1, 1, 1));
    assert_eq!(s.pass_rate, Some(0.5));
    assert!(s.layer2_evaluated, "FAIL and WEAK imply Layer 2");
    let cats: Vec<&str> = s.by_category.keys().map(String::as_str).collect();
    assert_eq!(cats, ["arch", "scope", "zeta"]);
    assert_eq!(
        s.by_category["scope"],
        VerdictCounts { total: 2, pass: 1, weak_retrieval: 1, ..VerdictCounts::default() }
    );
    assert_eq!(s.counts().total, 5);
}

#[test]
fn pass_rate_ignores_weak_and_malformed() {
    let sm = m(&["a"], &["a"], &[], 3);
    let only_weak = suite_of(&[("c", sm.clone(), "WEAK"), ("c", sm.clone(), "MALFORMED")]);
    assert_eq!(only_weak.pass_rate, None, "nothing judged: not measured, not 0");
    let s = suite_of(&[
        ("c", sm.clone(), "PASS"),
        ("c", sm.clone(), "WEAK"),
        ("c", sm.clone(), "WEAK_RETRIEVAL"),
        ("c", sm, "MALFORMED"),
    ]);
    assert_eq!(s.pass_rate, Some(1.0));
}

#[test]
fn layer2_flag() {
    let sm = m(&["a"], &["a"], &[], 3);
    let retrieval_only = suite_of(&[("c", sm.clone(), "PASS")]);
    assert!(!retrieval_only.layer2_evaluated);
    let explicit = SuiteMetrics::aggregate([ScenarioOutcome {
        category: "c",
        metrics: &sm,
        verdict: Verdict::Pass,
        layer2: true,
    }]);
    assert!(explicit.layer2_evaluated);
    assert_eq!(explicit.pass, 1);
}

#[test]
fn suite_round_trips_through_json() {
    let items = [
        ("scope", m(&["a", "x", "y"], &["a"], &[], 3), "PASS"),
        ("scope", m(&["x", "b"], &["b", "c", "d"], &["x"], 3), "PASS"),
        ("arch", m(&["p"], &[], &[], 3), "PASS"),
    ];
    let s = suite_of(&items);
    let json = serde_json::to_string(&s).unwrap();
    let back: SuiteMetrics = serde_json::from_str(&json).unwrap();
    assert_eq!(back, s);
    let sm = &items[1].1;
    let back: ScenarioMetrics = serde_json::from_str(&serde_json::to_string(sm).unwrap()).unwrap();
    assert_eq!(&back, sm);
}

/// The seven scenarios of Mneme's conformance benchmark, as recorded in
/// `expected-mneme-0.10.0-benchmark.json` (retrieved, expected, category).
#[test]
fn reproduces_mneme_conformance_summary() {
    let runs: [(&str, &[&str], &[&str]); 7] = [
        ("scope", &["anti-002", "mneme_no_agents_v1", "anti-003"], &["anti-002"]),
        ("anti_pattern", &["anti-001", "anti-002", "mneme_storage_json"], &["anti-001"]),
        ("scope", &["anti-002", "mneme_no_agents_v1", "rule-004"], &["anti-002"]),
        ("scope", &[], &[]),
        ("anti_pattern", &["rule-003", "rule-002", "rule-005"], &[]),
        (
            "architecture",
            &["mneme_retrieval_deterministic", "rule-002", "rule-005"],
            &["mneme_retrieval_deterministic"],
        ),
        ("architecture", &["mneme_storage_json", "rule-003", "rule-002"], &["mneme_storage_json"]),
    ];
    let metrics: Vec<(&str, ScenarioMetrics)> = runs.iter().map(|(cat, r, e)| (*cat, m(r, e, &[], 3))).collect();
    for (_, sm) in &metrics {
        if sm.is_governed() {
            assert_eq!(sm.recall_at_k, Some(1.0));
            assert_eq!(sm.precision_at_k, Some(0.3333333333333333));
            assert_eq!(sm.irrelevant_injection, Some(true));
        }
    }
    let s = SuiteMetrics::aggregate(metrics.iter().map(|(c, sm)| (*c, sm, Verdict::Pass)));
    assert_eq!(s.total, 7);
    assert_eq!(s.governed, 5);
    assert_eq!(s.ungoverned, 2);
    assert_eq!(s.mean_recall_at_k, Some(1.0));
    assert!(close(s.mean_precision_at_k.unwrap(), 1.0 / 3.0));
    assert_eq!(format!("{:.3}", s.mean_precision_at_k.unwrap()), "0.333");
    assert_eq!(s.irrelevant_injection_rate, Some(1.0));
    assert_eq!(s.ungoverned_injection_rate, Some(0.5));
    assert_eq!(s.pass, 7);
    assert_eq!(s.pass_rate, Some(1.0));
    let cats: Vec<(&str, usize)> = s.by_category.iter().map(|(c, n)| (c.as_str(), n.pass)).collect();
    assert_eq!(cats, [("anti_pattern", 2), ("architecture", 2), ("scope", 3)]);
}

// ---- properties against the formulas written out plainly ----

const IDS: [&str; 10] = ["d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9"];

/// A ranking of distinct ids, and subsets E and A of the same small pool.
fn case() -> impl Strategy<Value = (Vec<&'static str>, Vec<&'static str>, Vec<&'static str>, usize)> {
    let ids = || proptest::sample::subsequence(IDS.to_vec(), 0..=IDS.len());
    (ids().prop_shuffle(), ids(), ids(), 0usize..12)
}

fn config() -> ProptestConfig {
    ProptestConfig { cases: 1000, failure_persistence: None, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn matches_plain_formulas((r_all, e, a, k) in case()) {
        let got = ScenarioMetrics::compute(&r_all, &e, &a, k);
        let r: Vec<&str> = r_all.iter().take(k).copied().collect();
        let in_e = |id: &str| e.contains(&id);
        let in_a = |id: &str| a.contains(&id);

        prop_assert_eq!(got.retrieved_count, r.len());
        prop_assert_eq!(got.expected_count, e.len());
        let hits = r.iter().filter(|id| in_e(id)).count();
        prop_assert_eq!(got.hits, hits);

        if e.is_empty() {
            prop_assert_eq!(got.recall_at_k, None);
            prop_assert_eq!(got.recall_at_1, None);
            prop_assert_eq!(got.precision_at_k, None);
            prop_assert_eq!(got.reciprocal_rank, None);
            prop_assert_eq!(got.ndcg_at_k, None);
            prop_assert_eq!(got.irrelevant_injection, None);
            let injected = !r.is_empty() && r.iter().any(|id| !in_a(id));
            prop_assert_eq!(got.ungoverned_injection, Some(injected));
        } else {
            let e_len = e.len() as f64;
            prop_assert_eq!(got.recall_at_k, Some(hits as f64 / e_len));
            let top = r.first().map_or(0, |id| usize::from(in_e(id)));
            prop_assert_eq!(got.recall_at_1, Some(top as f64 / e_len));
            let precision = if r.is_empty() {
                1.0
            } else {
                r.iter().filter(|id| in_e(id) || in_a(id)).count() as f64 / r.len() as f64
            };
            prop_assert_eq!(got.precision_at_k, Some(precision));
            let mut rr = 0.0;
            for (i, id) in r.iter().enumerate() {
                if in_e(id) {
                    rr = 1.0 / (i as f64 + 1.0);
                    break;
                }
            }
            prop_assert_eq!(got.reciprocal_rank, Some(rr));
            let mut dcg = 0.0;
            for (i, id) in r.iter().enumerate() {
                if in_e(id) {
                    dcg += 1.0 / ((i + 2) as f64).log2();
                }
            }
            let mut idcg = 0.0;
            for i in 0..e.len().min(k) {
                idcg += 1.0 / ((i + 2) as f64).log2();
            }
            let ndcg = if idcg > 0.0 { dcg / idcg } else { 0.0 };
            let got_ndcg = got.ndcg_at_k.unwrap();
            prop_assert!((got_ndcg - ndcg).abs() < 1e-12, "ndcg {} vs {}", got_ndcg, ndcg);
            prop_assert!((0.0..=1.0 + 1e-12).contains(&got_ndcg));
            let irrelevant = r.iter().any(|id| !in_e(id) && !in_a(id));
            prop_assert_eq!(got.irrelevant_injection, Some(irrelevant));
            prop_assert_eq!(got.ungoverned_injection, None);
            let missed: Vec<&str> = e.iter().copied().filter(|id| !r.contains(id)).collect();
            prop_assert_eq!(&got.missed, &missed);
        }
    }

    #[test]
    fn repeats_in_the_ranking_count_once(
        (r, e, a, k) in case(),
        dup_at in proptest::collection::vec(0usize..10, 0..4),
    ) {
        // Insert repeats of earlier ids; the outcome equals the deduplicated
        // prefix of length k.
        let mut noisy = r.clone();
        for at in dup_at {
            if !noisy.is_empty() {
                let id = noisy[at % noisy.len()];
                let pos = (at % noisy.len()) + 1;
                noisy.insert(pos, id);
            }
        }
        let mut clean: Vec<&str> = Vec::new();
        for id in noisy.iter().take(k) {
            if !clean.contains(id) {
                clean.push(id);
            }
        }
        prop_assert_eq!(
            ScenarioMetrics::compute(&noisy, &e, &a, k),
            ScenarioMetrics::compute(&clean, &e, &a, k)
        );
    }

    #[test]
    fn suite_matches_plain_means_and_ignores_order(
        cases in proptest::collection::vec((case(), 0usize..5, 0usize..3), 0..20),
        rotate in 0usize..20,
    ) {
        let cats = ["a", "b", "c"];
        let items: Vec<(&str, ScenarioMetrics, &str)> = cases
            .iter()
            .map(|((r, e, a, k), v, c)| {
                (cats[*c], ScenarioMetrics::compute(r, e, a, *k), ["PASS", "WEAK", "WEAK_RETRIEVAL", "FAIL", "MALFORMED"][*v])
            })
            .collect();
        let s = suite_of(&items);

        let governed: Vec<&ScenarioMetrics> =
            items.iter().map(|(_, m, _)| m).filter(|m| m.expected_count > 0).collect();
        prop_assert_eq!(s.governed, governed.len());
        prop_assert_eq!(s.ungoverned, items.len() - governed.len());
        let plain = |f: &dyn Fn(&ScenarioMetrics) -> f64| -> Option<f64> {
            if governed.is_empty() {
                None
            } else {
                Some(governed.iter().map(|m| f(m)).sum::<f64>() / governed.len() as f64)
            }
        };
        let near = |x: Option<f64>, y: Option<f64>| match (x, y) {
            (None, None) => true,
            (Some(x), Some(y)) => (x - y).abs() < 1e-12,
            _ => false,
        };
        prop_assert!(near(s.mean_recall_at_k, plain(&|m| m.hits as f64 / m.expected_count as f64)));
        prop_assert!(near(s.mean_recall_at_1, plain(&|m| m.recall_at_1.unwrap())));
        prop_assert!(near(s.mean_precision_at_k, plain(&|m| m.precision_at_k.unwrap())));
        prop_assert!(near(s.mrr, plain(&|m| m.reciprocal_rank.unwrap())));
        prop_assert!(near(s.mean_ndcg_at_k, plain(&|m| m.ndcg_at_k.unwrap())));
        let injected = plain(&|m| f64::from(u8::from(!m.irrelevant.is_empty())));
        prop_assert!(near(s.irrelevant_injection_rate, injected));

        let mut pass = 0;
        let mut fail = 0;
        for (_, _, v) in &items {
            pass += usize::from(*v == "PASS");
            fail += usize::from(*v == "FAIL");
        }
        prop_assert_eq!((s.pass, s.fail), (pass, fail));
        let rate = (pass + fail > 0).then(|| pass as f64 / (pass + fail) as f64);
        prop_assert_eq!(s.pass_rate, rate);
        let per_cat: usize = s.by_category.values().map(|c| c.total).sum();
        prop_assert_eq!(per_cat, items.len());

        // Same scenarios in another order: the same bits.
        let mut shuffled = items.clone();
        if !shuffled.is_empty() {
            let n = rotate % shuffled.len();
            shuffled.rotate_left(n);
            shuffled.reverse();
        }
        prop_assert_eq!(suite_of(&shuffled), s);
    }
}

/// A benign scenario (profile `mneme`) as the run hands it over.
struct Benign<'a>(ScenarioMetrics, &'a str);

impl Outcome for Benign<'_> {
    fn category(&self) -> &str {
        "benign"
    }
    fn metrics(&self) -> &ScenarioMetrics {
        &self.0
    }
    fn verdict(&self) -> Verdict {
        self.1.parse().unwrap()
    }
    fn layer2_evaluated(&self) -> bool {
        true
    }
    fn benign(&self) -> bool {
        true
    }
}

/// Mneme counts benign scenarios apart: not in the verdict counts, the pass
/// rate, `layer2_evaluated` or the categories, but in the total and in the
/// Layer 1 means; FALSE_POSITIVE over PASS + FALSE_POSITIVE is the rate.
#[test]
fn benign_scenarios_are_counted_apart() {
    let hit = m(&["a"], &["a"], &[], 3);
    let miss = m(&["b"], &["a"], &[], 3);
    let violation = ScenarioOutcome { category: "c", metrics: &hit, verdict: Verdict::Pass, layer2: false };
    let benign = [Benign(hit.clone(), "PASS"), Benign(miss, "FALSE_POSITIVE"), Benign(hit.clone(), "FALSE_POSITIVE")];
    let uncheckable = [Benign(hit.clone(), "WEAK_RETRIEVAL"), Benign(hit.clone(), "MALFORMED")];
    let all: Vec<&dyn Outcome> = std::iter::once(&violation as &dyn Outcome)
        .chain(benign.iter().chain(&uncheckable).map(|b| b as &dyn Outcome))
        .collect();
    let s = SuiteMetrics::aggregate(all);
    assert_eq!((s.total, s.pass, s.fail, s.pass_rate), (6, 1, 0, Some(1.0)));
    assert!(!s.layer2_evaluated, "a benign answer is not a governed answer for pass_rate");
    assert_eq!(s.by_category.keys().collect::<Vec<_>>(), ["c"]);
    assert_eq!(s.counts().total, 1);
    let b = s.benign.unwrap();
    assert_eq!((b.total, b.pass, b.false_positive, b.uncheckable), (5, 1, 2, 2));
    assert!(close(b.false_positive_rate.unwrap(), 2.0 / 3.0));
    assert_eq!(s.governed, 6);
    assert!(close(s.mean_recall_at_k.unwrap(), 5.0 / 6.0));
    // Without benign scenarios the report has no `benign` key.
    let plain = suite_of(&[("c", hit, "PASS")]);
    assert!(plain.benign.is_none());
    assert!(!serde_json::to_string(&plain).unwrap().contains("benign"));
}

#[test]
fn every_verdict_is_counted_without_a_panic() {
    // A verdict reaches the metrics typed: no name can be unknown here, and
    // a string that is not a verdict is refused where it is read.
    assert!("PASSED".parse::<Verdict>().is_err());
    assert!("".parse::<Verdict>().is_err());
    let sm = ScenarioMetrics::compute(&["a"], &["a"], &[] as &[&str], 3);
    let all: Vec<(&str, &ScenarioMetrics, Verdict)> = Verdict::ALL.iter().map(|v| ("c", &sm, *v)).collect();
    let s = SuiteMetrics::aggregate(all);
    // FALSE_POSITIVE outside a benign scenario (no run gives it) counts as
    // the FAIL it is.
    assert_eq!((s.pass, s.weak, s.weak_retrieval, s.fail, s.malformed), (1, 1, 1, 2, 1));
    assert_eq!(s.by_category["c"].total, 6);
}
