//! The Markdown summary (`--markdown`), for a pull request comment or
//! `$GITHUB_STEP_SUMMARY`: the headline, the metrics, the gate's rules, the
//! comparison with the baseline, then every scenario that did not pass.
//!
//! GitHub refuses a step summary over 1 MiB, so the text is capped: when it
//! would exceed [`BUDGET`], scenario details are dropped from the end (least
//! severe first, since they are listed worst first) and a note says how many
//! were left out and that the JSON report has them all.

use super::comparison::{Comparison, Movement};
use super::{figure, score, Report, ScenarioReport};
use crate::gate::RuleMode;
use crate::verdict::Verdict;

/// Bytes a summary may take: under GitHub's 1 MiB step-summary limit, with
/// room for the note.
pub const BUDGET: usize = 1_000_000;

pub fn render(report: &Report) -> String {
    render_capped(report, BUDGET)
}

/// The summary in at most `budget` bytes (the head is always kept).
pub fn render_capped(report: &Report, budget: usize) -> String {
    let mut out = head(report);
    let problems: Vec<&ScenarioReport> =
        report.failures_first().into_iter().filter(|s| s.verdict != Verdict::Pass).collect();
    if problems.is_empty() {
        out.push_str("Every scenario passed.\n");
        return out;
    }
    out.push_str(&format!("### Scenarios that did not pass ({})\n\n", problems.len()));
    let note_room = 300;
    for (i, s) in problems.iter().enumerate() {
        let section = scenario(s);
        if out.len() + section.len() + note_room > budget {
            out.push_str(&format!(
                "> **{} more scenario(s) left out** to keep this summary under GitHub's 1 MiB limit; \
                 the JSON report (`--json`) has every scenario.\n",
                problems.len() - i
            ));
            return out;
        }
        out.push_str(&section);
    }
    out
}

fn head(report: &Report) -> String {
    let m = &report.summary;
    let k = report.fingerprint.k;
    let mut out = String::from("## mneme-gate\n\n");
    if report.gate.passed {
        out.push_str(&format!("**Gate passed**: {} scenario(s), pass rate {:.3}.\n\n", m.total, m.pass_rate));
    } else {
        let n = report.gate.rules.iter().filter(|r| r.fails()).count();
        out.push_str(&format!(
            "**Gate FAILED**: {n} rule(s) violated; {} scenario(s), pass rate {:.3}.\n\n",
            m.total, m.pass_rate
        ));
    }
    out.push_str(&format!(
        "Profile `{}`, k = {}, memory `{}` (sha256 `{}`).\n\n",
        cell(&report.fingerprint.profile.name),
        k,
        cell(&report.fingerprint.memory.path),
        &report.fingerprint.memory.sha256[..12.min(report.fingerprint.memory.sha256.len())]
    ));

    out.push_str("| Layer 1 (governed scenarios) | value |\n|---|---:|\n");
    let rows = [
        (format!("mean recall@{k}"), m.mean_recall_at_k),
        ("mean recall@1".to_string(), m.mean_recall_at_1),
        (format!("mean precision@{k}"), m.mean_precision_at_k),
        ("MRR".to_string(), m.mrr),
        (format!("mean nDCG@{k}"), m.mean_ndcg_at_k),
        ("irrelevant-injection rate".to_string(), m.irrelevant_injection_rate),
        ("ungoverned-injection rate".to_string(), m.ungoverned_injection_rate),
    ];
    for (name, value) in rows {
        out.push_str(&format!("| {name} | {} |\n", figure(value)));
    }
    out.push('\n');

    out.push_str(
        "| category | total | PASS | FAIL | WEAK | WEAK_RETRIEVAL | MALFORMED |\n|---|---:|---:|---:|---:|---:|---:|\n",
    );
    let all = m.counts();
    for (name, c) in m.by_category.iter().map(|(n, c)| (n.as_str(), c)).chain([("**all**", &all)]) {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            cell(name),
            c.total,
            c.pass,
            c.fail,
            c.weak,
            c.weak_retrieval,
            c.malformed
        ));
    }
    out.push('\n');

    out.push_str("| rule | mode | outcome |\n|---|---|---|\n");
    for r in &report.gate.rules {
        let outcome = match (r.mode, r.violated) {
            (RuleMode::Off, _) => "off",
            (_, false) => "ok",
            (RuleMode::Fail, true) => "**FAILED**",
            (RuleMode::Advisory, true) => "warning",
        };
        let mode = match r.mode {
            RuleMode::Fail => "fail",
            RuleMode::Advisory => "advisory",
            RuleMode::Off => "off",
        };
        let mut details = String::new();
        if r.violated {
            let shown: Vec<String> = r.details.iter().take(5).map(|d| cell(d)).collect();
            details = format!(": {}", shown.join("<br>"));
            if r.details.len() > 5 {
                details.push_str(&format!("<br>… and {} more", r.details.len() - 5));
            }
        }
        out.push_str(&format!("| `{}` | {mode} | {outcome}{details} |\n", r.rule));
    }
    out.push('\n');
    for w in &report.warnings {
        out.push_str(&format!("> warning: {}\n", inline(w)));
    }
    if !report.warnings.is_empty() {
        out.push('\n');
    }
    if let Some(c) = &report.comparison {
        out.push_str(&comparison(c));
    }
    out
}

fn comparison(c: &Comparison) -> String {
    let mut out = format!(
        "### Compared with the baseline `{}`{}\n\nMemory file {}, suite {}.\n\n",
        cell(&c.baseline.path),
        c.baseline.revision.as_ref().map_or(String::new(), |r| format!(" at `{}`", cell(r))),
        if c.memory_changed { "changed" } else { "unchanged" },
        if c.suite_changed { "changed" } else { "unchanged" }
    );
    if let Some(change) = &c.baseline_change {
        out.push_str(&format!(
            "> **This change re-pins the baseline** of `{}`: {} scenario(s) change{}.{}\n\n",
            cell(&change.revision),
            change.scenarios.len(),
            if change.scenarios.is_empty() {
                String::new()
            } else {
                format!(" ({})", inline(&change.scenarios.join(", ")))
            },
            if change.accepted { " Accepted with `--accept-baseline-change`." } else { "" }
        ));
    }
    out.push_str("| figure | baseline | current | delta | |\n|---|---:|---:|---:|---|\n");
    for m in c.metrics.iter().filter(|m| m.rule.is_some()) {
        let mark = match m.movement {
            Movement::Regressed => "**regressed**",
            Movement::Improved => "improved",
            Movement::WithinTolerance => "worse (within tolerance)",
            Movement::NotComparable => "not comparable",
            _ => "",
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {mark} |\n",
            m.name,
            figure(m.baseline),
            figure(m.current),
            m.delta.map_or("—".into(), |d| format!("{d:+.3}"))
        ));
    }
    out.push('\n');
    if !c.added.is_empty() {
        out.push_str(&format!("New scenarios: {}\n\n", inline(&c.added.join(", "))));
    }
    if !c.removed.is_empty() {
        out.push_str(&format!("Baseline scenarios not in this run: {}\n\n", inline(&c.removed.join(", "))));
    }
    for s in &c.scenarios {
        let verdict = if s.baseline_verdict == s.current_verdict {
            format!("{} (unchanged)", s.current_verdict)
        } else if s.regressed {
            format!("{} → **{}** (regressed)", s.baseline_verdict, s.current_verdict)
        } else {
            format!("{} → {} (improved)", s.baseline_verdict, s.current_verdict)
        };
        out.push_str(&format!("<details><summary><code>{}</code>: {verdict}</summary>\n\n", html(&s.id)));
        for d in &s.entered {
            out.push_str(&format!(
                "- entered: `{}` at rank {} (score {})\n",
                cell(&d.id),
                d.current_rank.unwrap_or(0),
                d.current_score.map_or("—".into(), score)
            ));
        }
        for d in &s.left {
            out.push_str(&format!(
                "- left: `{}` (was rank {}, score {})\n",
                cell(&d.id),
                d.baseline_rank.unwrap_or(0),
                d.baseline_score.map_or("—".into(), score)
            ));
        }
        for d in &s.moved {
            out.push_str(&format!(
                "- moved: `{}` rank {} → {}\n",
                cell(&d.id),
                d.baseline_rank.unwrap_or(0),
                d.current_rank.unwrap_or(0)
            ));
        }
        if !s.edited_decisions.is_empty() {
            out.push_str(&format!("- edited in this change: {}\n", inline(&s.edited_decisions.join(", "))));
        }
        if let Some(diff) = &s.context_diff {
            out.push_str(&format!("\n{}", fenced("diff", diff)));
        }
        out.push_str("\n</details>\n\n");
    }
    out
}

fn scenario(s: &ScenarioReport) -> String {
    let mut out = format!("#### {} `{}`\n\n", s.verdict, cell(&s.id));
    out.push_str(&format!("{}\n\n", inline(&s.explanation)));
    out.push_str(&format!("- source: `{}`\n", cell(&s.source.to_string())));
    out.push_str(&format!("- task: {}\n", inline(&s.task)));
    if let Some(f) = &s.file {
        out.push_str(&format!("- file: `{}`\n", cell(f)));
    }
    out.push_str(&format!("- expected: {}\n", ids(&s.expected)));
    let retrieved: Vec<String> =
        s.retrieved.iter().map(|r| format!("`{}` ({})", cell(&r.id), score(r.score))).collect();
    out.push_str(&format!(
        "- retrieved: {}\n",
        if retrieved.is_empty() { "nothing".to_string() } else { retrieved.join(", ") }
    ));
    if !s.missing.is_empty() {
        out.push_str(&format!("- missing: {}\n", ids(&s.missing)));
    }
    if !s.triggers.control.is_empty() || !s.triggers.governed.is_empty() {
        out.push_str(&format!(
            "- triggers: control {}; governed {}\n",
            ids(&s.triggers.control),
            ids(&s.triggers.governed)
        ));
    }
    out.push('\n');
    out
}

fn ids(items: &[String]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items.iter().map(|i| format!("`{}`", cell(i))).collect::<Vec<_>>().join(", ")
    }
}

/// Text inside a table cell or inline code: no pipes or line breaks.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace(['\r', '\n'], " ").replace('`', "'")
}

/// Free text on one line, with HTML and Markdown specials defused.
fn inline(s: &str) -> String {
    html(&s.replace(['\r', '\n'], " ")).replace('|', "\\|")
}

fn html(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// A fenced block whose fence is longer than any backtick run inside it.
fn fenced(lang: &str, body: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in body.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat((longest + 1).max(3));
    format!("{fence}{lang}\n{}{}{fence}\n", body, if body.ends_with('\n') { "" } else { "\n" })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundled() -> Report {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/baseline.json");
        crate::report::json::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn a_passing_run_is_short_and_says_so() {
        let text = render(&bundled());
        assert!(text.starts_with("## mneme-gate\n\n**Gate passed**: 51 scenario(s), pass rate 1.000."), "{text}");
        assert!(text.ends_with("Every scenario passed.\n"), "{text}");
    }

    #[test]
    fn special_characters_cannot_break_the_layout() {
        assert_eq!(cell("a|b\nc`d"), "a\\|b c'd");
        assert_eq!(inline("<script> & | x\ny"), "&lt;script&gt; &amp; \\| x y");
        assert_eq!(fenced("diff", "has ``` inside"), "````diff\nhas ``` inside\n````\n");
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
        assert!(text.len() < 1024 * 1024, "{} bytes", text.len());
        assert!(text.len() > BUDGET - 5_000, "the budget is used: {} bytes", text.len());
        let shown = text.matches("#### FAIL `scenario-").count();
        assert!(shown > 100 && shown < 30_000, "{shown}");
        assert!(text.contains(&format!("**{} more scenario(s) left out**", 30_000 - shown)), "the note counts them");
        // A small budget keeps the head and the note.
        let small = render_capped(&r, 6_000);
        assert!(small.len() <= 6_000, "{}", small.len());
        assert!(small.contains("more scenario(s) left out"));
    }
}
