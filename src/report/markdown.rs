//! The Markdown summary (`--markdown`), for a pull request comment or
//! `$GITHUB_STEP_SUMMARY`, written for how GitHub renders it: a headline
//! that says at a glance whether the gate passed and, if not, what failed
//! and how badly; what failed, each scenario linked to its file and line;
//! the suite figures against the baseline with arrows and a Mermaid chart;
//! the warnings, one list item each, repeated ones grouped; the comparison
//! with the baseline, each changed scenario folded in a `<details>` block;
//! then every scenario that did not pass. A passing run stays short.
//!
//! Markdown is not processed inside HTML blocks, so the `<summary>` lines
//! are plain HTML (`<b>`, `<code>`, `<a>`), never `**` or backticks.
//!
//! Links: with [`Links::github`] (the command line resolves it from the
//! GitHub Actions environment), a scenario's `path:line` links to the file at
//! the run's commit; without it, the same text is plain. The report holds no
//! link, so the JSON report does not depend on the environment.
//!
//! Every string from the inputs is escaped for where it lands: free text and
//! table cells with [`inline`] (line breaks as spaces, other control
//! characters shown escaped, `<`, `>`, `&` as entities, `|` as `\|`), ids and
//! paths with [`code`] (a code span, or a `<code>` element with entities when
//! the string holds `<`, `>` or `&`), text inside HTML with
//! [`html`](escape::html) after [`printable`](crate::describe::printable),
//! URLs percent-encoded, and a context-block diff in a fence longer than any
//! backtick run in it (a `<pre>` block with entities when it holds `<`, `>`
//! or `&`). No string can open a tag, a comment or close the `<details>` it
//! sits in.
//!
//! GitHub refuses a step summary over 1 MiB, so the whole document is capped
//! at [`BUDGET`]: it is built piece by piece (a failed rule, a table row, a
//! warning, a changed scenario of the comparison, a scenario that did not
//! pass), and from the first piece that would not fit, everything after it
//! is left out and a closing note says what (counted by kind) and that the
//! JSON report has everything. Scenarios are listed worst first, so the least
//! severe go.

mod budget;
mod escape;
mod links;
mod misses;
mod sections;

pub use budget::BUDGET;
pub(crate) use escape::{code, inline, no_command_lines};
pub use links::Links;

use super::{Report, ScenarioReport};
use crate::verdict::Verdict;
use budget::{Doc, Kind};
use sections::{categories, comparison, figures, head, rules, scenario, warnings};

/// The summary without links, within [`BUDGET`].
pub fn render(report: &Report) -> String {
    summary(report, &Links::default(), BUDGET)
}

/// The summary with file references linked as `links` says, within [`BUDGET`].
pub fn render_linked(report: &Report, links: &Links) -> String {
    summary(report, links, BUDGET)
}

/// The summary in at most `budget` bytes, without links (a budget too small
/// for even the headline and the note gives the note alone, which may
/// exceed it).
pub fn render_capped(report: &Report, budget: usize) -> String {
    summary(report, &Links::default(), budget)
}

fn summary(report: &Report, links: &Links, budget: usize) -> String {
    let mut doc = Doc { out: String::new(), budget, left: Vec::new() };
    let failed = !report.gate.passed;
    doc.item(Kind::Heading, &head(report));
    if failed {
        rules(report, links, &mut doc);
    }
    figures(report, &mut doc);
    if !failed {
        rules(report, links, &mut doc);
    }
    categories(report, &mut doc);
    warnings(report, &mut doc);
    if let Some(c) = &report.comparison {
        comparison(report, c, links, &mut doc);
    }
    let problems: Vec<&ScenarioReport> =
        report.failures_first().into_iter().filter(|s| s.verdict != Verdict::Pass).collect();
    if !problems.is_empty() {
        doc.push(&format!("### Scenarios that did not pass ({})\n\n", problems.len()));
        for s in problems {
            doc.item(Kind::Problem, &scenario(s, links));
        }
    }
    doc.finish()
}

#[cfg(test)]
mod tests {
    use super::escape::{diff_block, fenced};
    use super::sections::{change, changed_scenario, headline};
    use super::*;
    use crate::gate::{Rule, RuleMode, RuleOutcome};
    use crate::report::comparison::{MetricChange, Movement};

    fn bundled() -> Report {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/baseline.json");
        crate::report::json::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn a_passing_run_is_short_and_says_so() {
        let text = render(&bundled());
        assert!(
            text.starts_with("## ✅ mneme-gate: gate passed — all 51 scenarios pass (recall@3 1.000)\n\n"),
            "{text}"
        );
        assert!(
            text.contains("\n✅ All 4 rules hold: `recall`, `weak_retrieval`, `malformed`, `pass_rate`.\n"),
            "{text}"
        );
        assert!(
            text.ends_with(
                "Verdicts: all 51 PASS (anti_pattern 4, architecture 11, control 8, scope 18, security 10).\n\n"
            ),
            "{text}"
        );
        assert!(text.lines().filter(|l| !l.is_empty()).count() <= 16, "{text}");
    }

    #[test]
    fn a_failing_headline_names_what_failed_and_how_badly() {
        use crate::gate::GateOutcome;
        let mut r = bundled();
        let rule = |name: &str, details: Vec<String>| RuleOutcome {
            rule: Rule::named(name).unwrap(),
            description: String::new(),
            mode: RuleMode::Fail,
            violated: !details.is_empty(),
            message: None,
            details,
        };
        let id = r.scenarios[0].id.clone();
        r.scenarios[0].verdict = Verdict::WeakRetrieval;
        r.scenarios[0].missing = vec!["X-1".into()];
        r.summary.mean_recall_at_k = Some(0.98);
        r.gate = GateOutcome::new(vec![
            rule("recall", vec![format!("{id}: recall@3 0/1 (missing X-1)")]),
            rule("weak_retrieval", vec![format!("{id}: explanation")]),
            rule("malformed", Vec::new()),
        ]);
        assert_eq!(
            headline(&r),
            "❌ mneme-gate: gate FAILED — 1 scenario misses an expected decision (recall@3 0.980)"
        );
        let text = render(&r);
        assert!(
            text.contains(&format!(
                "\n  - `{id}` (`{}:{}`): recall@3 0/1 (missing X-1)\n",
                r.scenarios[0].source.path, r.scenarios[0].source.line
            )),
            "{text}"
        );
        r.gate = GateOutcome::new(vec![
            rule("pass_rate", vec!["pass rate 0.900".into()]),
            rule("min_margin", vec!["x".into()]),
        ]);
        r.summary.fail = 2;
        r.summary.pass = 18;
        r.summary.pass_rate = Some(0.9);
        assert_eq!(
            headline(&r),
            "❌ mneme-gate: gate FAILED — 2 governed answers still break a decision (pass rate 0.900); rule `min_margin` violated"
        );
    }

    #[test]
    fn repeated_warnings_are_one_item_naming_the_scenarios() {
        let mut r = bundled();
        let missing = "`GONE-1`, which is not in the memory file (a typo, or a decision that was removed?)";
        let mut all = vec!["suite root s was given twice; it is loaded once".to_string()];
        for (i, verb) in ["expects", "accepts", "accepts"].iter().enumerate() {
            let w = format!("{} {verb} {missing}", r.scenarios[i].id);
            let id = &r.scenarios[i].id;
            let mut own = vec![w.clone(), format!("{id}: warning {i} of its own")];
            if i < 2 {
                own.push(format!("{id}: with_mneme.txt has no sibling"));
            }
            r.scenarios[i].warnings = own;
            all.extend(r.scenarios[i].warnings.iter().cloned());
        }
        all.sort();
        r.warnings = all;
        let text = render(&r);
        let from = text.find("### ⚠️ Warnings (6)\n\n").expect("2 grouped + 3 of their own + 1 of the run");
        let list: Vec<&str> = text[from..].lines().skip(2).take_while(|l| l.starts_with("- ")).collect();
        assert_eq!(list.len(), 6, "{list:#?}");
        let grouped: Vec<&&str> = list.iter().filter(|l| l.contains("GONE-1")).collect();
        assert_eq!(grouped.len(), 1, "{list:#?}");
        let (a, b, c) = (&r.scenarios[0].id, &r.scenarios[1].id, &r.scenarios[2].id);
        assert_eq!(
            *grouped[0],
            format!("- 3 scenarios expect or accept {missing}: expected by `{a}`; accepted by `{b}`, `{c}`")
        );
        assert!(list.contains(&format!("- {a}: warning 0 of its own").as_str()), "{list:#?}");
        assert!(
            list.contains(&format!("- with_mneme.txt has no sibling — 2 scenarios: `{a}`, `{b}`").as_str()),
            "{list:#?}"
        );
        assert!(list.contains(&"- suite root s was given twice; it is loaded once"), "{list:#?}");
    }

    #[test]
    fn moved_decisions_show_the_rank_and_the_score_change() {
        use crate::report::comparison::{DecisionMove, ScenarioChange};
        let r = bundled();
        let moved = |id: &str, ranks: (usize, usize), scores: (f64, f64)| DecisionMove {
            id: id.into(),
            baseline_rank: Some(ranks.0),
            current_rank: Some(ranks.1),
            baseline_score: Some(scores.0),
            current_score: Some(scores.1),
        };
        let change = ScenarioChange {
            id: r.scenarios[0].id.clone(),
            source: "x".into(),
            baseline_verdict: Verdict::Pass,
            current_verdict: Verdict::Pass,
            regressed: false,
            entered: Vec::new(),
            left: Vec::new(),
            moved: vec![moved("A", (2, 3), (4.0, 3.5)), moved("B", (3, 2), (9.0, 9.0)), moved("C", (1, 1), (7.0, 7.5))],
            metrics: Vec::new(),
            context_diff: None,
            edited_decisions: Vec::new(),
        };
        let text = changed_scenario(&r, &change, &Links::default());
        assert!(text.contains("- moved: `A` rank 2 → 3, score 4.0 → 3.5\n"), "{text}");
        assert!(text.contains("- moved: `B` rank 3 → 2, score 9.0\n"), "{text}");
        assert!(text.contains("- moved: `C` rank 1, score 7.0 → 7.5\n"), "{text}");
    }

    #[test]
    fn a_figure_change_has_an_arrow_and_a_mark() {
        let mc = |delta: f64, movement| MetricChange {
            name: "mrr".into(),
            baseline: Some(0.5),
            current: Some(0.5 + delta),
            delta: Some(delta),
            movement,
            rule: Some(Rule::SuiteMeans),
        };
        assert_eq!(change(&mc(-0.035, Movement::Regressed)), "▼ -0.035 🔴 worse");
        assert_eq!(change(&mc(0.047, Movement::Regressed)), "▲ +0.047 🔴 worse");
        assert_eq!(change(&mc(0.1, Movement::Improved)), "▲ +0.100 🟢 better");
        assert_eq!(change(&mc(-0.01, Movement::WithinTolerance)), "▼ -0.010 🟡 worse, within tolerance");
        assert_eq!(change(&mc(0.0, Movement::Unchanged)), "unchanged");
    }

    #[test]
    fn special_characters_cannot_break_the_layout() {
        assert_eq!(code("a|b\nc`d"), "`a\\|b c'd`");
        assert_eq!(code("<script>|`x`\u{1b}"), "<code>&lt;script&gt;&#124;&#96;x&#96;&#92;u{1b}</code>");
        assert_eq!(inline("<script> & | x\ny\u{7}"), "&lt;script&gt; &amp; \\| x y\\u{7}");
        assert_eq!(fenced("diff", "has ``` inside"), "````diff\nhas ``` inside\n````\n");
        assert_eq!(diff_block("+ a\u{1b}\n- b\n"), "```diff\n+ a\\u{1b}\n- b\n```\n");
        assert_eq!(diff_block("+ </details><!--\n"), "<pre>\n+ &lt;/details&gt;&lt;!--\n</pre>\n");
        assert_eq!(diff_block(" ::add-mask::x\n"), "<pre>\n ::add-mask::x\n</pre>\n");
        assert_eq!(no_command_lines("<pre>\n ::add-mask::x\n</pre>\n"), "<pre>\n &#58;:add-mask::x\n</pre>\n");
        assert!(matches!(no_command_lines("| a | b::c |\n"), std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn a_huge_suite_is_capped_under_the_budget_with_a_note() {
        let mut r = bundled();
        let template = r.scenarios[0].clone();
        r.scenarios.clear();
        for i in 0..30_000 {
            let mut s = template.clone();
            s.id = format!("scenario-{i:05}");
            s.verdict = Verdict::Fail;
            s.explanation = "Governance did not prevent the violation: a fairly long explanation. ".repeat(3);
            r.scenarios.push(s);
        }
        let text = render(&r);
        assert!(text.len() <= BUDGET, "{} bytes", text.len());
        assert!(text.len() > BUDGET - 5_000, "the budget is used: {} bytes", text.len());
        let shown = text.matches("#### FAIL `scenario-").count();
        assert!(shown > 100 && shown < 30_000, "{shown}");
        assert!(
            text.ends_with(&format!(
                "Left out: {} scenario(s) that did not pass. The JSON report (`--json`) has everything.\n",
                30_000 - shown
            )),
            "the note counts them: {}",
            &text[text.len() - 400..]
        );
        // A small budget keeps the headline and the note.
        let small = render_capped(&r, 6_000);
        assert!(small.len() <= 6_000, "{}", small.len());
        assert!(small.starts_with("## ✅ mneme-gate: gate passed"), "{small}");
        assert!(small.contains("**This summary was cut short**"), "{small}");
    }

    #[test]
    fn the_comparison_counts_against_the_budget() {
        use crate::report::comparison::{BaselineSource, Comparison, ScenarioChange};
        let mut r = bundled();
        let diff = format!("@@ -1,3 +1,3 @@\n{}", "-  Constraints: a long line of a decision\n".repeat(400));
        let scenarios: Vec<ScenarioChange> = (0..2_000)
            .map(|i| ScenarioChange {
                id: format!("scenario-{i:05}"),
                source: "scenarios/a.yaml:1:5".into(),
                baseline_verdict: Verdict::Pass,
                current_verdict: Verdict::Fail,
                regressed: true,
                entered: Vec::new(),
                left: Vec::new(),
                moved: Vec::new(),
                metrics: Vec::new(),
                context_diff: Some(diff.clone()),
                edited_decisions: Vec::new(),
            })
            .collect();
        r.comparison = Some(Comparison {
            baseline: BaselineSource { path: "reports/baseline.json".into(), revision: None, commit: None },
            memory_changed: true,
            suite_changed: true,
            incompatible: Vec::new(),
            metrics: Vec::new(),
            scenarios,
            added: Vec::new(),
            removed: Vec::new(),
            filtered: false,
            baseline_change: None,
            statistics: None,
        });
        let text = render(&r);
        assert!(text.len() <= BUDGET, "{} bytes", text.len());
        let shown = text.matches("<details>").count();
        assert!(shown > 10 && shown < 2_000, "{shown}");
        assert_eq!(text.matches("</details>").count(), shown, "no block is cut in the middle");
        assert!(
            text.contains(&format!(
                "Left out: {} changed scenario(s) of the comparison with the baseline.",
                2_000 - shown
            )),
            "{}",
            &text[text.len() - 400..]
        );
    }
}
