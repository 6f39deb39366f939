//! The terminal report of `mneme-gate run`: a table of scenarios, failures
//! first, then the suite summary and the gate's rules.
//!
//! Plain text with ASCII borders, so it reads the same in a terminal, a CI
//! log and a snapshot. Colour (only the headline and the rule lines, never
//! inside the table, so column widths stay right) is the caller's choice:
//! on when standard output is a terminal and `NO_COLOR` is unset.
//!
//! Every string from the inputs (ids, categories, paths, messages that quote
//! them, titles) goes through [`printable`] before it is laid out or
//! coloured, so a control character in it is shown escaped (`\n`, `\u{1b}`)
//! and cannot start a line of its own or reach the terminal raw.

use comfy_table::{presets, Cell, CellAlignment, ContentArrangement, Table};

use super::comparison::{Comparison, MemoryDiff, Movement};
use super::{figure, score, Report, ScenarioReport};
use crate::describe::printable;
use crate::gate::{GateOutcome, RuleMode};
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
            Cell::new(printable(&s.id)),
            Cell::new(printable(&s.category)),
            Cell::new(s.verdict.as_str()),
            Cell::new(figure(s.metrics.recall_at_k)).set_alignment(CellAlignment::Right),
            Cell::new(figure(s.metrics.precision_at_k)).set_alignment(CellAlignment::Right),
            Cell::new(retrieved_lines(s)),
            Cell::new(if s.missing.is_empty() { "-".to_string() } else { lines(&s.missing, "\n") }),
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
            out.push_str(&format!(
                "{} {} ({}): {}\n",
                s.verdict,
                printable(&s.id),
                printable(&s.source.to_string()),
                printable(&s.explanation)
            ));
        }
    }
    out.push('\n');
    out
}

fn retrieved_lines(s: &ScenarioReport) -> String {
    if s.retrieved.is_empty() {
        return "(nothing)".into();
    }
    s.retrieved.iter().map(|r| format!("{} {}", printable(&r.id), score(r.score))).collect::<Vec<_>>().join("\n")
}

/// Strings from the inputs, each made printable, joined by `separator`.
fn lines(items: &[String], separator: &str) -> String {
    items.iter().map(|i| printable(i)).collect::<Vec<_>>().join(separator)
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
            [printable(name).into_owned()]
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
    if let Some(b) = &m.benign {
        out.push_str(&format!(
            "{} benign scenario(s): {} PASS, {} FALSE_POSITIVE, {} uncheckable; false-positive rate {}\n",
            b.total,
            b.pass,
            b.false_positive,
            b.uncheckable,
            figure(b.false_positive_rate)
        ));
    }
    let p = &report.fingerprint.profile;
    out.push_str(&format!(
        "profile {} (k {}), memory {}, {} suite file(s)\n",
        printable(&p.name),
        k,
        printable(&report.fingerprint.memory.path),
        report.fingerprint.suite.files
    ));
    for w in &report.warnings {
        out.push_str(&format!("warning: {}\n", printable(w)));
    }
    out.push('\n');

    if let Some(diff) = &report.memory_diff {
        out.push_str(&memory_diff(diff));
        out.push('\n');
    }
    if let Some(c) = &report.comparison {
        out.push_str(&comparison(c, Some(report), style.colour));
        out.push('\n');
    }
    out.push_str(&rules(&report.gate, style.colour));
    out
}

/// Every gate rule with its outcome, then the headline.
pub fn rules(gate: &GateOutcome, colour: bool) -> String {
    let mut out = String::new();
    for rule in &gate.rules {
        let mark = match (rule.violated, rule.mode) {
            (_, RuleMode::Off) => "off ",
            (false, _) => "ok  ",
            (true, RuleMode::Fail) => "FAIL",
            (true, RuleMode::Advisory) => "warn",
        };
        let line = format!("{mark} {}: {}", printable(&rule.rule), printable(&rule.description));
        let paint_with = if rule.fails() {
            RED
        } else if rule.violated {
            YELLOW
        } else {
            ""
        };
        out.push_str(&paint(&line, paint_with, colour));
        out.push('\n');
        for d in rule.details.iter().take(RULE_DETAILS) {
            out.push_str(&format!("       {}\n", printable(d)));
        }
        if rule.details.len() > RULE_DETAILS {
            out.push_str(&format!("       ... and {} more\n", rule.details.len() - RULE_DETAILS));
        }
    }
    let headline = if gate.passed {
        paint("gate passed", GREEN, colour)
    } else {
        let n = gate.rules.iter().filter(|r| r.fails()).count();
        paint(&format!("gate FAILED: {n} rule(s) violated"), RED, colour)
    };
    out.push_str(&headline);
    out.push('\n');
    out
}

/// The comparison with the baseline: the suite figures, then every changed
/// scenario with its verdict change, ranking changes, figure deltas and the
/// diff of its context block.
pub fn comparison(c: &Comparison, report: Option<&Report>, colour: bool) -> String {
    let mut out = String::new();
    let path = printable(&c.baseline.path);
    let from = match (&c.baseline.revision, &c.baseline.commit) {
        (Some(rev), Some(commit)) => {
            let short: String = commit.chars().take(12).collect();
            format!("{path} at {} ({})", printable(rev), printable(&short))
        }
        (Some(rev), None) => format!("{path} at {}", printable(rev)),
        _ => path.into_owned(),
    };
    out.push_str(&format!(
        "Compared with the baseline {from}: memory file {}, suite {}\n",
        if c.memory_changed { "changed" } else { "unchanged" },
        if c.suite_changed { "changed" } else { "unchanged" }
    ));
    if !c.incompatible.is_empty() {
        out.push_str(&paint(
            &format!("the baseline is not comparable (compared anyway): {}", lines(&c.incompatible, "; ")),
            YELLOW,
            colour,
        ));
        out.push('\n');
    }
    if let Some(change) = &c.baseline_change {
        let line = if change.first_pin {
            format!("THIS CHANGE PINS THE FIRST BASELINE ({} has none)", printable(&change.revision))
        } else {
            format!(
                "THIS CHANGE RE-PINS THE BASELINE of {}: {} scenario(s) change{}{}{}",
                printable(&change.revision),
                change.scenarios.len(),
                list_suffix(": ", &change.scenarios),
                list_suffix("; added: ", &change.added),
                list_suffix("; removed: ", &change.removed)
            )
        };
        out.push_str(&paint(&line, if change.accepted { YELLOW } else { RED }, colour));
        out.push('\n');
        out.push_str(if change.accepted {
            "       accepted with --accept-baseline-change: compared with the working tree's baseline\n"
        } else {
            "       compared with the base revision's baseline; accept the re-pin with --accept-baseline-change\n"
        });
    }

    let mut table = Table::new();
    table.load_preset(presets::ASCII_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Disabled);
    table.set_header(vec!["figure", "baseline", "current", "delta", "movement"]);
    for m in &c.metrics {
        let is_count = m.rule.is_none();
        let fmt = |v: Option<f64>| match v {
            Some(v) if is_count => format!("{v:.0}"),
            v => figure(v),
        };
        let delta = match m.delta {
            Some(d) if is_count => format!("{d:+.0}"),
            Some(d) => format!("{d:+.3}"),
            None => "—".into(),
        };
        table.add_row(vec![
            Cell::new(printable(&m.name)),
            Cell::new(fmt(m.baseline)).set_alignment(CellAlignment::Right),
            Cell::new(fmt(m.current)).set_alignment(CellAlignment::Right),
            Cell::new(delta).set_alignment(CellAlignment::Right),
            Cell::new(movement_word(m.movement)),
        ]);
    }
    out.push_str(&table.to_string());
    out.push('\n');

    if !c.added.is_empty() {
        out.push_str(&format!("new scenarios ({}): {}\n", c.added.len(), lines(&c.added, ", ")));
    }
    if !c.removed.is_empty() {
        let what = if c.filtered { "not run (--filter)" } else { "missing from the suite" };
        out.push_str(&format!("baseline scenarios {what} ({}): {}\n", c.removed.len(), lines(&c.removed, ", ")));
    }
    if c.scenarios.is_empty() {
        out.push_str("no scenario changed its verdict, ranking or context block\n");
    }
    for s in &c.scenarios {
        let verdict = if s.baseline_verdict == s.current_verdict {
            format!("{} (unchanged)", s.current_verdict)
        } else {
            format!(
                "{} → {}{}",
                s.baseline_verdict,
                s.current_verdict,
                if s.regressed { " (REGRESSED)" } else { " (improved)" }
            )
        };
        let line = format!("{} ({}): {verdict}", printable(&s.id), printable(&s.source));
        out.push_str(&paint(&line, if s.regressed { RED } else { "" }, colour));
        out.push('\n');
        for d in &s.entered {
            out.push_str(&format!(
                "  + {} entered at rank {} (score {}){}\n",
                printable(&d.id),
                d.current_rank.unwrap_or(0),
                d.current_score.map_or("—".into(), score),
                report.and_then(|r| r.scenario(&s.id)).map_or("", |now| expected_mark(now, &d.id))
            ));
        }
        for d in &s.left {
            out.push_str(&format!(
                "  - {} left (was rank {}, score {}){}\n",
                printable(&d.id),
                d.baseline_rank.unwrap_or(0),
                d.baseline_score.map_or("—".into(), score),
                report.and_then(|r| r.scenario(&s.id)).map_or("", |now| expected_mark(now, &d.id))
            ));
        }
        for d in &s.moved {
            out.push_str(&format!(
                "  ~ {} rank {} → {}, score {} → {}\n",
                printable(&d.id),
                d.baseline_rank.unwrap_or(0),
                d.current_rank.unwrap_or(0),
                d.baseline_score.map_or("—".into(), score),
                d.current_score.map_or("—".into(), score)
            ));
        }
        for m in &s.metrics {
            out.push_str(&format!(
                "    {} {} → {}{}\n",
                printable(&m.name),
                figure(m.baseline),
                figure(m.current),
                m.delta.map_or(String::new(), |d| format!(" ({d:+.3})"))
            ));
        }
        if !s.edited_decisions.is_empty() {
            out.push_str(&format!("    edited in this change: {}\n", lines(&s.edited_decisions, ", ")));
        }
        if let Some(diff) = &s.context_diff {
            out.push_str("    context block:\n");
            for l in diff.lines() {
                out.push_str("      ");
                out.push_str(&printable(l));
                out.push('\n');
            }
        }
    }
    out
}

fn expected_mark(now: &ScenarioReport, id: &str) -> &'static str {
    if now.expected.iter().any(|e| e == id) {
        " [expected]"
    } else {
        ""
    }
}

fn list_suffix(prefix: &str, ids: &[String]) -> String {
    if ids.is_empty() {
        String::new()
    } else if ids.len() <= 10 {
        format!("{prefix}{}", lines(ids, ", "))
    } else {
        format!("{prefix}{} and {} more", lines(&ids[..10], ", "), ids.len() - 10)
    }
}

fn movement_word(m: Movement) -> &'static str {
    match m {
        Movement::Unchanged => "",
        Movement::Improved => "improved",
        Movement::WithinTolerance => "worse (within tolerance)",
        Movement::Regressed => "REGRESSED",
        Movement::NotComparable => "not comparable",
        Movement::Changed => "changed",
    }
}

/// The decision corpus between a git revision and the working tree.
pub fn memory_diff(d: &MemoryDiff) -> String {
    let mut out = format!("Decision corpus changes since {}:", printable(&d.revision));
    if d.is_empty() {
        out.push_str(" none\n");
        return out;
    }
    out.push('\n');
    for a in &d.added {
        out.push_str(&format!("  + {} {}\n", printable(&a.id), printable(&a.title)));
    }
    for r in &d.removed {
        out.push_str(&format!(
            "  - {} {}{}\n",
            printable(&r.id),
            printable(&r.title),
            r.note.as_ref().map_or(String::new(), |n| format!(" ({})", printable(n)))
        ));
    }
    for c in &d.changed {
        out.push_str(&format!("  ~ {} {}\n", printable(&c.id), printable(&c.title)));
        for f in &c.fields {
            out.push_str(&format!("      {}: {} → {}\n", printable(&f.field), one_line(&f.before), one_line(&f.after)));
        }
    }
    out
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

/// Details shown per rule (the scenario list above has them all).
const RULE_DETAILS: usize = 5;

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
