//! The terminal report of `mneme-gate run`: a table of scenarios, failures
//! first, then the suite summary and the gate's rules.
//!
//! Plain text with ASCII borders, so it reads the same in a terminal, a CI
//! log and a snapshot. Colour (only the headline and the rule lines, never
//! inside the table, so column widths stay right) is the caller's choice:
//! on when standard output is a terminal and `NO_COLOR` is unset.

use comfy_table::{presets, Cell, CellAlignment, ContentArrangement, Table};

use super::{figure, score, Report, ScenarioReport};
use crate::verdict::Verdict;

/// Above this many scenarios, passing ones are left out of the table (they
/// are all in `--json`).
pub const ALL_ROWS_UP_TO: usize = 100;

/// Options of the terminal report.
#[derive(Debug, Clone, Copy, Default)]
pub struct Style {
    pub colour: bool,
    /// Only the summary and the gate, no scenario table.
    pub quiet: bool,
}

pub fn render(report: &Report, style: Style) -> String {
    let mut out = String::new();
    if !style.quiet {
        out.push_str(&scenario_table(report));
    }
    out.push_str(&summary(report, style));
    out
}

fn scenario_table(report: &Report) -> String {
    let k = report.fingerprint.k;
    let ordered = report.failures_first();
    let show_passing = ordered.len() <= ALL_ROWS_UP_TO;
    let mut table = Table::new();
    table.load_preset(presets::ASCII_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Disabled);
    table.set_header(vec![
        "scenario".to_string(),
        "category".to_string(),
        "verdict".to_string(),
        format!("recall@{k}"),
        format!("precision@{k}"),
        "retrieved (score)".to_string(),
        "missing".to_string(),
    ]);
    let mut hidden = 0;
    for s in &ordered {
        if s.verdict == Verdict::Pass && !show_passing {
            hidden += 1;
            continue;
        }
        table.add_row(vec![
            Cell::new(&s.id),
            Cell::new(&s.category),
            Cell::new(s.verdict.as_str()),
            Cell::new(figure(s.metrics.recall_at_k)).set_alignment(CellAlignment::Right),
            Cell::new(figure(s.metrics.precision_at_k)).set_alignment(CellAlignment::Right),
            Cell::new(retrieved_lines(s)),
            Cell::new(if s.missing.is_empty() { "-".to_string() } else { s.missing.join("\n") }),
        ]);
    }
    let mut out = String::new();
    if hidden < ordered.len() {
        out.push_str(&table.to_string());
        out.push('\n');
    }
    if hidden > 0 {
        out.push_str(&format!(
            "{hidden} passing scenario(s) not listed (the suite has more than {ALL_ROWS_UP_TO}; all are in --json)\n"
        ));
    }
    let problems: Vec<&&ScenarioReport> = ordered.iter().filter(|s| s.verdict != Verdict::Pass).collect();
    if !problems.is_empty() {
        out.push('\n');
        for s in problems {
            out.push_str(&format!("{} {} ({}): {}\n", s.verdict, s.id, s.source, s.explanation));
        }
    }
    out.push('\n');
    out
}

fn retrieved_lines(s: &ScenarioReport) -> String {
    if s.retrieved.is_empty() {
        return "(nothing)".into();
    }
    s.retrieved.iter().map(|r| format!("{} {}", r.id, score(r.score))).collect::<Vec<_>>().join("\n")
}

fn summary(report: &Report, style: Style) -> String {
    let m = &report.summary;
    let k = report.fingerprint.k;
    let mut out = String::new();

    let mut table = Table::new();
    table.load_preset(presets::ASCII_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Disabled);
    table.set_header(vec!["Layer 1 (governed scenarios)", "value"]);
    let rows: [(String, Option<f64>); 7] = [
        (format!("mean recall@{k}"), m.mean_recall_at_k),
        ("mean recall@1".into(), m.mean_recall_at_1),
        (format!("mean precision@{k}"), m.mean_precision_at_k),
        ("MRR".into(), m.mrr),
        (format!("mean nDCG@{k}"), m.mean_ndcg_at_k),
        ("irrelevant-injection rate".into(), m.irrelevant_injection_rate),
        ("ungoverned-injection rate".into(), m.ungoverned_injection_rate),
    ];
    for (name, value) in rows {
        table.add_row(vec![Cell::new(name), Cell::new(figure(value)).set_alignment(CellAlignment::Right)]);
    }
    out.push_str(&table.to_string());
    out.push('\n');

    let mut table = Table::new();
    table.load_preset(presets::ASCII_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Disabled);
    table.set_header(vec!["category", "total", "PASS", "FAIL", "WEAK", "WEAK_RETRIEVAL", "MALFORMED"]);
    let mut add = |name: &str, c: &crate::metrics::VerdictCounts| {
        table.add_row(
            [name.to_string()]
                .into_iter()
                .chain([c.total, c.pass, c.fail, c.weak, c.weak_retrieval, c.malformed].map(|n| n.to_string()))
                .enumerate()
                .map(|(i, t)| if i == 0 { Cell::new(t) } else { Cell::new(t).set_alignment(CellAlignment::Right) })
                .collect::<Vec<_>>(),
        );
    };
    for (name, counts) in &m.by_category {
        add(name, counts);
    }
    add("all", &m.counts());
    out.push_str(&table.to_string());
    out.push('\n');

    out.push_str(&format!(
        "{} scenario(s): {} governed, {} ungoverned; pass rate {:.3} ({} PASS / {} PASS+FAIL){}\n",
        m.total,
        m.governed,
        m.ungoverned,
        m.pass_rate,
        m.pass,
        m.pass + m.fail,
        if m.layer2_evaluated { "" } else { "; no governed answer was checked" }
    ));
    let p = &report.fingerprint.profile;
    out.push_str(&format!(
        "profile {} (k {}), memory {}, {} suite file(s)\n",
        p.name, k, report.fingerprint.memory.path, report.fingerprint.suite.files
    ));
    for w in &report.warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    out.push('\n');

    for rule in &report.gate.rules {
        let mark = match (rule.violated, rule.mode) {
            (_, crate::gate::RuleMode::Off) => "off ",
            (false, _) => "ok  ",
            (true, crate::gate::RuleMode::Fail) => "FAIL",
            (true, crate::gate::RuleMode::Advisory) => "warn",
        };
        let line = format!("{mark} {}: {}", rule.rule, rule.description);
        out.push_str(&paint(&line, if rule.fails() { RED } else { "" }, style.colour));
        out.push('\n');
        for d in rule.details.iter().take(RULE_DETAILS) {
            out.push_str(&format!("       {d}\n"));
        }
        if rule.details.len() > RULE_DETAILS {
            out.push_str(&format!("       ... and {} more\n", rule.details.len() - RULE_DETAILS));
        }
    }
    let headline = if report.gate.passed {
        paint("gate passed", GREEN, style.colour)
    } else {
        let n = report.gate.rules.iter().filter(|r| r.fails()).count();
        paint(&format!("gate FAILED: {n} rule(s) violated"), RED, style.colour)
    };
    out.push_str(&headline);
    out.push('\n');
    out
}

/// Details shown per rule (the scenario list above has them all).
const RULE_DETAILS: usize = 5;

const RED: &str = "\x1b[1;31m";
const GREEN: &str = "\x1b[1;32m";

fn paint(text: &str, colour: &str, on: bool) -> String {
    if on && !colour.is_empty() {
        format!("{colour}{text}\x1b[0m")
    } else {
        text.to_string()
    }
}
