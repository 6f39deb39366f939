//! The terminal report of `mneme-gate run`: a table of scenarios, failures
//! first, then the suite summary and the gate's rules.
//!
//! Plain text with ASCII borders, so it reads the same in a terminal, a CI
//! log and a snapshot. Colour (only the headline and the rule lines, never
//! inside the table, so column widths stay right) is the caller's choice:
//! on when standard output is a terminal and `NO_COLOR` is unset.
//!
//! Laid out to [`Style::width`] when there is one (a terminal, or
//! `COLUMNS`): tables are arranged by comfy-table to fit, the scenario table
//! drops to compact columns when the full one is wider, and long lines wrap
//! with a hanging indent ([`layout`]). Without a width (a file, a pipe, CI
//! logs) every line is as long as it needs to be.
//!
//! Every string from the inputs (ids, categories, paths, messages that quote
//! them, titles) goes through [`printable`] before it is laid out or
//! coloured, so a control character in it is shown escaped (`\n`, `\u{1b}`)
//! and cannot start a line of its own or reach the terminal raw.
//!
//! Figures are rounded with [`figures`], so a rate that misses its
//! threshold never prints as the threshold.

use comfy_table::{presets, ContentArrangement, Table};

use super::{figures, layout, Report};
use crate::describe::printable;

mod changes;
mod scenarios;
mod summary;

pub use changes::{comparison, reports_comparison};
use scenarios::scenario_table;
pub use summary::rules;
use summary::summary;

/// Above this many scenarios, passing ones are left out of the table (they
/// are all in `--json`).
pub const ALL_ROWS_UP_TO: usize = 100;

/// Options of the terminal report.
#[derive(Debug, Clone, Copy, Default)]
pub struct Style {
    pub colour: bool,
    /// Only the summary, a line on the comparison, and the gate: no scenario
    /// table, no per-scenario lines, no comparison details (they are in the
    /// report files).
    pub quiet: bool,
    /// The columns to lay the text out to; `None` (a file or a pipe): every
    /// line as long as it needs to be.
    pub width: Option<usize>,
}

pub fn render(report: &Report, style: Style) -> String {
    let mut out = Out::new(style);
    if !style.quiet {
        scenario_table(report, &mut out);
    }
    summary(report, &mut out);
    out.text
}

/// Text laid out to the style's width, a logical line at a time.
struct Out {
    text: String,
    style: Style,
}

impl Out {
    fn new(style: Style) -> Out {
        Out { text: String::new(), style }
    }

    /// One line, wrapped with continuation lines indented `hang` columns
    /// more than the line itself.
    fn line(&mut self, line: &str, hang: usize) {
        self.painted(line, hang, "");
    }

    /// [`Out::line`] in a colour (each piece painted on its own, so the
    /// colour never spans a line break).
    fn painted(&mut self, line: &str, hang: usize, colour: &str) {
        for piece in layout::wrap(line, self.style.width, hang) {
            self.text.push_str(&paint(&piece, colour, self.style.colour));
            self.text.push('\n');
        }
    }

    fn blank(&mut self) {
        self.text.push('\n');
    }

    fn table(&mut self, table: &Table) {
        self.text.push_str(&table.to_string());
        self.text.push('\n');
    }
}

/// A table in the report's style, arranged to the width when there is one.
fn table(style: Style) -> Table {
    let mut table = Table::new();
    table.load_preset(presets::ASCII_FULL_CONDENSED);
    match style.width {
        Some(w) => {
            table.set_content_arrangement(ContentArrangement::Dynamic).set_width(u16::try_from(w).unwrap_or(u16::MAX));
        }
        None => {
            table.set_content_arrangement(ContentArrangement::Disabled);
        }
    }
    table
}

/// A figure between 0 and 1 as the tables show it, or `—` when absent.
fn figure(value: Option<f64>) -> String {
    value.map_or("—".into(), |v| figures::rate(v, None))
}

fn one_line(s: &str) -> String {
    let flat = printable(&s.replace('\n', " ")).into_owned();
    if flat.chars().count() > 120 {
        format!("{}…", flat.chars().take(119).collect::<String>())
    } else if flat.is_empty() {
        "(empty)".into()
    } else {
        flat
    }
}

const RED: &str = "\x1b[1;31m";
const GREEN: &str = "\x1b[1;32m";
const YELLOW: &str = "\x1b[1;33m";

fn paint(text: &str, colour: &str, on: bool) -> String {
    if on && !colour.is_empty() {
        format!("{colour}{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::{GateOutcome, RuleMode};
    use crate::report::comparison::Comparison;
    use crate::report::ScenarioReport;
    use crate::verdict::Verdict;

    fn bundled() -> Report {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/baseline.json");
        crate::report::json::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn a_rate_that_misses_its_threshold_never_prints_as_it() {
        let mut r = bundled();
        let m = &mut r.summary;
        (m.pass, m.fail, m.pass_rate) = (8789, 1, Some(8789.0 / 8790.0));
        m.mean_recall_at_k = Some(0.99996);
        let text = render(&r, Style { quiet: true, ..Style::default() });
        assert!(text.contains("pass rate 0.9999 (8789 PASS / 8790 PASS+FAIL)"), "{text}");
        assert!(text.contains("| mean recall@3                | 0.99996 |"), "{text}");
        assert!(!text.contains("1.000 ("), "{text}");
    }

    #[test]
    fn a_violated_rule_says_what_is_wrong_once() {
        use crate::gate::RuleOutcome;
        let said = "this change re-pins the baseline of main: 2 scenario(s) change".to_string();
        let rule = RuleOutcome {
            rule: crate::gate::Rule::BaselineChange,
            description: "the pull request does not move its own goalposts".into(),
            mode: RuleMode::Fail,
            violated: true,
            message: Some(said.clone()),
            details: vec![said.clone()],
        };
        let text = rules(&GateOutcome::new(vec![rule]), Style::default());
        assert_eq!(text, format!("FAIL baseline_change: {said}\ngate FAILED: 1 rule(s) violated\n"));
    }

    #[test]
    fn quiet_says_what_changed_in_a_line_and_leaves_the_details_out() {
        use crate::report::comparison::{BaselineSource, ScenarioChange};
        let new = bundled();
        let change = |s: &ScenarioReport, regressed: bool| ScenarioChange {
            id: s.id.clone(),
            source: s.source.to_string(),
            baseline_verdict: Verdict::Pass,
            current_verdict: if regressed { Verdict::Fail } else { Verdict::Pass },
            regressed,
            entered: vec![],
            left: vec![],
            moved: vec![],
            metrics: vec![],
            context_diff: Some("--- baseline\n+++ current\n@@ -1 +1 @@\n-a\n+b\n".into()),
            edited_decisions: vec![],
        };
        let c = Comparison {
            baseline: BaselineSource { path: "b.json".into(), revision: None, commit: None },
            memory_changed: false,
            suite_changed: false,
            incompatible: vec![],
            metrics: vec![],
            scenarios: vec![change(&new.scenarios[0], true), change(&new.scenarios[1], false)],
            added: vec![],
            removed: vec![],
            filtered: false,
            baseline_change: None,
            statistics: None,
        };
        let (a, b) = (&new.scenarios[0].id, &new.scenarios[1].id);
        let quiet = comparison(&c, Some(&new), Style { quiet: true, ..Style::default() });
        assert_eq!(
            quiet,
            format!(
                "Compared with the baseline b.json: memory file unchanged, suite unchanged\n2 scenario(s) changed, 1 \
                 regressed: {a}, {b} (the details: without --quiet, or in --json and --markdown)\n"
            )
        );
        let full = comparison(&c, Some(&new), Style::default());
        assert!(full.contains("every suite figure (0) is the same as in the baseline\n"), "{full}");
        assert!(!full.contains("| figure ") && full.contains("context block:"), "{full}");
        // At 40 columns everything still fits.
        let narrow = comparison(&c, Some(&new), Style { width: Some(40), ..Style::default() });
        assert!(narrow.lines().all(|l| layout::width(l) <= 40), "{narrow}");
    }
}
