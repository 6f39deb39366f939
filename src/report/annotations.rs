//! GitHub Actions annotations: `::error` / `::warning` workflow commands that
//! put each problem on the line of the scenario that has it, in the pull
//! request's diff view.
//!
//! GitHub shows at most 50 annotations per job, so the worst come first
//! (MALFORMED, FAIL, WEAK_RETRIEVAL, regressions, then WEAK and advisory
//! rules), and when there are more, the last slot says how many were left
//! out and where to find them.
//!
//! A violated rule that belongs to no single scenario says what is wrong
//! (its message: `pass rate 6/7 is below 1.0: 1 scenario is FAIL: a`); a
//! scenario's annotation names the decisions edited in this change that it
//! retrieves or expects (with `--memory-ref`), as the terminal report does.
//!
//! Strings from the inputs are first made [`printable`] (a control character
//! is shown escaped, as `\n` or `\u{1b}`), then escaped by the workflow
//! command rules: the line breaks GitHub turns back into line breaks
//! (`%0A`) are only the tool's own, between the parts of a message.

use super::{Report, ScenarioReport};
use crate::describe::printable;
use crate::gate::{Rule, RuleMode};
use crate::verdict::Verdict;

/// GitHub's limit of annotations per job.
pub const GITHUB_LIMIT: usize = 50;

#[derive(Debug, Clone, PartialEq, Eq)]
struct Annotation {
    /// 0 for errors, 1 for warnings.
    level: u8,
    /// Within a level, lower is worse.
    rank: u8,
    file: Option<String>,
    line: Option<usize>,
    column: Option<usize>,
    title: String,
    message: String,
}

impl Annotation {
    fn render(&self) -> String {
        let mut props = Vec::new();
        if let Some(f) = &self.file {
            props.push(format!("file={}", escape_property(&printable(f))));
        }
        if let Some(l) = self.line {
            props.push(format!("line={l}"));
        }
        if let Some(c) = self.column {
            props.push(format!("col={c}"));
        }
        props.push(format!("title={}", escape_property(&self.title)));
        let command = if self.level == 0 { "error" } else { "warning" };
        format!("::{command} {}::{}\n", props.join(","), escape_data(&self.message))
    }
}

/// Escapes a workflow command's message.
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Escapes a workflow command's property value (also `:` and `,`).
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// The annotations of a report, worst first, at most `limit` (the last one
/// says how many were left out when there are more).
pub fn github(report: &Report, limit: usize) -> String {
    let mut all = Vec::new();
    let regressed: Vec<&str> = report
        .comparison
        .iter()
        .flat_map(|c| c.scenarios.iter().filter(|s| s.regressed).map(|s| s.id.as_str()))
        .collect();
    for s in &report.scenarios {
        let change = report.comparison.as_ref().and_then(|c| c.scenarios.iter().find(|c| c.id == s.id));
        let was = change.map(|c| c.baseline_verdict);
        let edited = change.map_or(&[][..], |c| c.edited_decisions.as_slice());
        let regression = regressed.contains(&s.id.as_str());
        let (level, rank) = match s.verdict {
            Verdict::Malformed => (0, 0),
            Verdict::Fail | Verdict::FalsePositive => (0, 1),
            Verdict::WeakRetrieval => (0, 2),
            _ if regression => (0, 3),
            Verdict::Weak => (1, 0),
            Verdict::Pass => continue,
        };
        all.push(scenario_annotation(s, level, rank, was.filter(|_| regression), edited));
    }
    for rule in &report.gate.rules {
        // Scenario-level rules are already on their scenarios' lines.
        if !rule.violated
            || matches!(
                rule.rule,
                Rule::Recall | Rule::WeakRetrieval | Rule::Malformed | Rule::VerdictRegression | Rule::FalsePositive
            )
        {
            continue;
        }
        let level = if rule.mode == RuleMode::Fail { 0 } else { 1 };
        let mut message = printable(rule.message.as_deref().unwrap_or(&rule.description)).into_owned();
        // A detail that only repeats the message is not said twice.
        let details: Vec<&String> =
            rule.details.iter().filter(|d| Some(d.as_str()) != rule.message.as_deref()).collect();
        for d in details.iter().take(10) {
            message.push('\n');
            message.push_str(&printable(d));
        }
        if details.len() > 10 {
            message.push_str(&format!("\n... and {} more", details.len() - 10));
        }
        all.push(Annotation {
            level,
            rank: 4,
            file: None,
            line: None,
            column: None,
            title: format!("mneme-gate: {}", rule.rule),
            message,
        });
    }
    // Stable: worst first, then report order (scenarios by id, then rules).
    all.sort_by_key(|a| (a.level, a.rank));
    let mut out = String::new();
    if all.len() <= limit {
        for a in &all {
            out.push_str(&a.render());
        }
        return out;
    }
    let shown = limit.saturating_sub(1);
    for a in &all[..shown] {
        out.push_str(&a.render());
    }
    let left = all.len() - shown;
    out.push_str(&format!(
        "::warning title={}::{}\n",
        escape_property("mneme-gate: annotations left out"),
        escape_data(&format!(
            "{left} more annotation(s) were left out (GitHub shows {limit} per job); every scenario is in the job summary and the JSON report"
        ))
    ));
    out
}

fn scenario_annotation(s: &ScenarioReport, level: u8, rank: u8, was: Option<Verdict>, edited: &[String]) -> Annotation {
    let id = printable(&s.id);
    let title = match was {
        Some(was) => format!("{id}: {} (was {was})", s.verdict),
        None => format!("{id}: {}", s.verdict),
    };
    let mut message = printable(&s.explanation).into_owned();
    if !s.missing.is_empty() {
        let missing: Vec<_> = s.missing.iter().map(|m| printable(m)).collect();
        message.push_str(&format!("\nMissing: {}", missing.join(", ")));
    }
    let retrieved: Vec<String> =
        s.retrieved.iter().map(|r| format!("{} ({})", printable(&r.id), super::score(r.score))).collect();
    message.push_str(&format!(
        "\nRetrieved: {}",
        if retrieved.is_empty() { "nothing".to_string() } else { retrieved.join(", ") }
    ));
    if !edited.is_empty() {
        let edited: Vec<_> = edited.iter().map(|e| printable(e)).collect();
        message.push_str(&format!("\nEdited in this change: {}", edited.join(", ")));
    }
    Annotation {
        level,
        rank,
        file: Some(s.source.path.clone()),
        line: Some(s.source.line),
        column: Some(s.source.column),
        title,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundled() -> Report {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/baseline.json");
        crate::report::json::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn escaping_follows_the_workflow_command_rules() {
        assert_eq!(escape_data("50% done\r\nnext: a, b"), "50%25 done%0D%0Anext: a, b");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }

    #[test]
    fn a_passing_report_has_no_annotation() {
        assert_eq!(github(&bundled(), GITHUB_LIMIT), "");
    }

    #[test]
    fn failures_point_at_their_scenario_worst_first() {
        let mut r = bundled();
        r.scenarios[0].verdict = Verdict::Weak;
        r.scenarios[0].explanation = "no teeth: 100% clean".into();
        r.scenarios[1].verdict = Verdict::Malformed;
        r.scenarios[1].explanation = "bad, very bad".into();
        let text = github(&r, GITHUB_LIMIT);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        let first = &r.scenarios[1];
        assert!(
            lines[0].starts_with(&format!(
                "::error file={},line={},col={},title={}%3A MALFORMED::bad, very bad%0ARetrieved: ",
                first.source.path, first.source.line, first.source.column, first.id
            )),
            "{}",
            lines[0]
        );
        assert!(lines[1].starts_with("::warning file="), "{}", lines[1]);
        assert!(lines[1].contains("::no teeth: 100%25 clean%0A"), "{}", lines[1]);
    }

    #[test]
    fn a_rule_says_what_is_wrong_and_a_scenario_names_the_edit_that_changed_it() {
        use crate::report::comparison::{BaselineSource, Comparison, ScenarioChange};
        let mut r = bundled();
        let s = &mut r.scenarios[0];
        s.verdict = Verdict::WeakRetrieval;
        s.explanation = "expected PAY-005 was not retrieved".into();
        let (id, source) = (s.id.clone(), s.source.to_string());
        r.comparison = Some(Comparison {
            baseline: BaselineSource { path: "b.json".into(), revision: None, commit: None },
            memory_changed: true,
            suite_changed: false,
            incompatible: vec![],
            metrics: vec![],
            scenarios: vec![ScenarioChange {
                id: id.clone(),
                source,
                baseline_verdict: Verdict::Pass,
                current_verdict: Verdict::WeakRetrieval,
                regressed: true,
                entered: vec![],
                left: vec![],
                moved: vec![],
                metrics: vec![],
                context_diff: None,
                edited_decisions: vec!["PAY-005".into()],
            }],
            added: vec![],
            removed: vec![],
            filtered: false,
            baseline_change: None,
            statistics: None,
        });
        let pass_rate = r.gate.rules.iter_mut().find(|g| g.rule == crate::gate::Rule::PassRate).unwrap();
        pass_rate.violated = true;
        pass_rate.message = Some("pass rate 6/7 is below 1.0: 1 scenario is FAIL: x".into());
        pass_rate.details = vec!["x: leaked".into()];
        let text = github(&r, GITHUB_LIMIT);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert!(lines[0].contains(&format!("title={id}%3A WEAK_RETRIEVAL (was PASS)::")), "{}", lines[0]);
        assert!(lines[0].ends_with("%0AEdited in this change: PAY-005"), "{}", lines[0]);
        assert_eq!(
            lines[1],
            "::error title=mneme-gate%3A pass_rate::pass rate 6/7 is below 1.0: 1 scenario is FAIL: x%0Ax: leaked"
        );
    }

    #[test]
    fn more_than_the_limit_says_how_many_were_left_out() {
        let mut r = bundled();
        for s in &mut r.scenarios {
            s.verdict = Verdict::Fail;
        }
        let total = r.scenarios.len();
        assert!(total > 10);
        let text = github(&r, 10);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 10);
        assert!(lines[..9].iter().all(|l| l.starts_with("::error ")));
        assert!(lines[9].contains(&format!("{} more annotation(s) were left out", total - 9)), "{}", lines[9]);
        assert_eq!(github(&r, GITHUB_LIMIT).lines().count(), total.min(GITHUB_LIMIT));
    }
}
