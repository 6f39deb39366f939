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

use comfy_table::{presets, Cell, CellAlignment, ContentArrangement, Table};

use super::comparison::{Comparison, ComparisonStatistics, MemoryDiff, Movement};
use super::{figures, layout, score, statistics, Report, ScenarioReport};
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

fn scenario_table(report: &Report, out: &mut Out) {
    let k = report.fingerprint.k;
    let ordered = report.failures_first();
    let show_passing = ordered.len() <= ALL_ROWS_UP_TO;
    let rows: Vec<&ScenarioReport> =
        ordered.iter().copied().filter(|s| show_passing || s.verdict != Verdict::Pass).collect();
    let hidden = ordered.len() - rows.len();
    if !rows.is_empty() {
        let full = full_table(&rows, k);
        let fits = |t: &str| out.style.width.is_none_or(|w| t.lines().all(|l| layout::width(l) <= w));
        let (text, compact) = match out.style.width {
            Some(w) if !fits(&full) => (compact_table(&rows, k, w, out.style), true),
            _ => (full, false),
        };
        out.text.push_str(&text);
        out.text.push('\n');
        if compact {
            out.line(
                &format!(
                    "R@{k}: recall@{k}, the share of the expected decisions in the top {k}; P@{k}: precision@{k}, \
                     the share of the top {k} that is expected or acceptable"
                ),
                2,
            );
        }
    }
    if hidden > 0 {
        out.line(
            &format!(
                "{hidden} passing scenario(s) not listed (the suite has more than {ALL_ROWS_UP_TO}; all are in --json)"
            ),
            2,
        );
    }
    let problems: Vec<&&ScenarioReport> = ordered.iter().filter(|s| s.verdict != Verdict::Pass).collect();
    if !problems.is_empty() {
        out.blank();
        for s in problems {
            out.line(
                &format!(
                    "{} {} ({}): {}",
                    s.verdict,
                    printable(&s.id),
                    printable(&s.source.to_string()),
                    printable(&s.explanation)
                ),
                2,
            );
        }
    }
    out.blank();
}

/// Every column, as wide as its content: for a file, a pipe or a wide
/// terminal.
fn full_table(rows: &[&ScenarioReport], k: usize) -> String {
    let mut table = table(Style::default());
    table.set_header(vec![
        "scenario".to_string(),
        "category".to_string(),
        "verdict".to_string(),
        format!("recall@{k}"),
        format!("precision@{k}"),
        "retrieved (score)".to_string(),
        "missing".to_string(),
    ]);
    for s in rows {
        table.add_row(vec![
            Cell::new(printable(&s.id)),
            Cell::new(printable(&s.category)),
            Cell::new(s.verdict.as_str()),
            Cell::new(figure(s.metrics.recall_at_k)).set_alignment(CellAlignment::Right),
            Cell::new(figure(s.metrics.precision_at_k)).set_alignment(CellAlignment::Right),
            Cell::new(retrieved_lines(s)),
            Cell::new(missing_lines(s)),
        ]);
    }
    table.to_string()
}

/// The scenario table for a narrow terminal: the category under the id,
/// short headers (`R@3` is recall@3, `P@3` precision@3), and ids broken
/// after their separators to what the other columns leave.
fn compact_table(rows: &[&ScenarioReport], k: usize, width: usize, style: Style) -> String {
    let header = [
        "scenario".to_string(),
        "verdict".into(),
        format!("R@{k}"),
        format!("P@{k}"),
        "retrieved".into(),
        "missing".into(),
    ];
    let cells: Vec<[String; 5]> = rows
        .iter()
        .map(|s| {
            [
                s.verdict.as_str().to_string(),
                figure(s.metrics.recall_at_k),
                figure(s.metrics.precision_at_k),
                retrieved_lines(s),
                missing_lines(s),
            ]
        })
        .collect();
    let widest = |i: usize| {
        cells.iter().flat_map(|c| c[i].lines()).chain([header[i + 1].as_str()]).map(layout::width).max().unwrap_or(0)
    };
    // Six columns: `| ` + ` | ` between + ` |`.
    let others: usize = (0..5).map(widest).sum::<usize>() + 1 + 6 * 3;
    let room = width.saturating_sub(others).max(12);
    let mut table = table(style);
    table.set_header(header.to_vec());
    for (s, [verdict, recall, precision, retrieved, missing]) in rows.iter().zip(cells) {
        let scenario = format!(
            "{}\n({})",
            layout::break_id(&printable(&s.id), room),
            layout::break_id(&printable(&s.category), room)
        );
        table.add_row(vec![
            Cell::new(scenario),
            Cell::new(verdict),
            Cell::new(recall).set_alignment(CellAlignment::Right),
            Cell::new(precision).set_alignment(CellAlignment::Right),
            Cell::new(retrieved),
            Cell::new(missing),
        ]);
    }
    table.to_string()
}

fn retrieved_lines(s: &ScenarioReport) -> String {
    if s.retrieved.is_empty() {
        return "(nothing)".into();
    }
    s.retrieved.iter().map(|r| format!("{} {}", printable(&r.id), score(r.score))).collect::<Vec<_>>().join("\n")
}

fn missing_lines(s: &ScenarioReport) -> String {
    if s.missing.is_empty() {
        "-".to_string()
    } else {
        lines(&s.missing, "\n")
    }
}

/// Strings from the inputs, each made printable, joined by `separator`.
fn lines(items: &[String], separator: &str) -> String {
    items.iter().map(|i| printable(i)).collect::<Vec<_>>().join(separator)
}

fn summary(report: &Report, out: &mut Out) {
    let m = &report.summary;
    let k = report.fingerprint.k;
    let style = out.style;

    let mut t = table(style);
    t.set_header(vec!["Layer 1 (governed scenarios)", "value"]);
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
        t.add_row(vec![Cell::new(name), Cell::new(figure(value)).set_alignment(CellAlignment::Right)]);
    }
    out.table(&t);
    if !style.quiet {
        out.line(
            "governed: a scenario that expects decisions; injection: a retrieved decision it neither expects \
             nor accepts (docs/metrics.md)",
            2,
        );
    }

    let mut t = table(style);
    t.set_header(vec!["category", "total", "PASS", "FAIL", "WEAK", "WEAK_RETRIEVAL", "MALFORMED"]);
    let mut add = |name: &str, c: &crate::metrics::VerdictCounts| {
        t.add_row(
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
    out.table(&t);

    out.line(
        &format!(
            "{} scenario(s): {} governed, {} ungoverned; pass rate {} ({} PASS / {} PASS+FAIL){}",
            m.total,
            m.governed,
            m.ungoverned,
            figures::ratio(m.pass, m.pass + m.fail, Some(1.0)),
            m.pass,
            m.pass + m.fail,
            if m.layer2_evaluated { "" } else { "; no governed answer was checked" }
        ),
        2,
    );
    if let Some(b) = &m.benign {
        out.line(
            &format!(
                "{} benign scenario(s): {} PASS, {} FALSE_POSITIVE, {} uncheckable; false-positive rate {}",
                b.total,
                b.pass,
                b.false_positive,
                b.uncheckable,
                figure(b.false_positive_rate)
            ),
            2,
        );
    }
    let p = &report.fingerprint.profile;
    out.line(
        &format!(
            "profile {} (k {}), memory {}, {}",
            printable(&p.name),
            k,
            printable(&report.fingerprint.memory.path),
            file_counts(report)
        ),
        2,
    );
    for w in &report.warnings {
        out.line(&format!("warning: {}", printable(w)), 2);
    }
    out.blank();

    if let Some(diff) = &report.memory_diff {
        memory_diff_into(diff, out);
        out.blank();
    }
    if let Some(c) = &report.comparison {
        comparison_into(c, Some(report), Sides::Baseline, out);
        out.blank();
    }
    rules_into(&report.gate, out);
}

/// What the suite read, as `10 suite files, 38 answer files`: the files
/// that hold scenarios (a YAML suite file; a benchmark folder's
/// `scenario.json` and `query.txt`), then the rest of the fingerprint's
/// files, the recorded answers.
fn file_counts(report: &Report) -> String {
    let mut native = std::collections::BTreeSet::new();
    let mut mneme = std::collections::BTreeSet::new();
    for s in &report.scenarios {
        if s.format == "mneme" {
            mneme.insert(s.source.path.as_str());
        } else {
            native.insert(s.source.path.as_str());
        }
    }
    let suite = native.len() + 2 * mneme.len();
    let answers = report.fingerprint.suite.files.saturating_sub(suite);
    let files = |n: usize, what: &str| format!("{n} {what} file{}", if n == 1 { "" } else { "s" });
    match answers {
        0 => files(suite, "suite"),
        n => format!("{}, {}", files(suite, "suite"), files(n, "answer")),
    }
}

/// Every gate rule with its outcome, then the headline: a rule that holds
/// (or is off) with its passing condition, a violated one with what is
/// wrong and the first details.
pub fn rules(gate: &GateOutcome, style: Style) -> String {
    let mut out = Out::new(style);
    rules_into(gate, &mut out);
    out.text
}

fn rules_into(gate: &GateOutcome, out: &mut Out) {
    for rule in &gate.rules {
        let mark = match (rule.violated, rule.mode) {
            (_, RuleMode::Off) => "off ",
            (false, _) => "ok  ",
            (true, RuleMode::Fail) => "FAIL",
            (true, RuleMode::Advisory) => "warn",
        };
        let said = rule.message.as_deref().filter(|_| rule.violated).unwrap_or(&rule.description);
        let line = format!("{mark} {}: {}", rule.rule, printable(said));
        let paint_with = if rule.fails() {
            RED
        } else if rule.violated {
            YELLOW
        } else {
            ""
        };
        out.painted(&line, 5, paint_with);
        // A detail that only repeats the message is not said twice.
        let details: Vec<&String> =
            rule.details.iter().filter(|d| Some(d.as_str()) != rule.message.as_deref()).collect();
        for d in details.iter().take(RULE_DETAILS) {
            out.line(&format!("       {}", printable(d)), 2);
        }
        if details.len() > RULE_DETAILS {
            out.line(&format!("       ... and {} more", details.len() - RULE_DETAILS), 2);
        }
    }
    let headline = if gate.passed {
        "gate passed".to_string()
    } else {
        let n = gate.rules.iter().filter(|r| r.fails()).count();
        format!("gate FAILED: {n} rule(s) violated")
    };
    out.painted(&headline, 2, if gate.passed { GREEN } else { RED });
}

/// What the two sides of a comparison are.
#[derive(Debug, Clone, Copy)]
enum Sides<'a> {
    /// A run and its pinned baseline.
    Baseline,
    /// Two saved reports (`diff OLD NEW`); the new one's path.
    Reports { new: &'a str },
}

/// The comparison with the baseline: the suite figures, then every changed
/// scenario with its verdict change, ranking changes, figure deltas and the
/// diff of its context block (with [`Style::quiet`], one line on what
/// changed).
pub fn comparison(c: &Comparison, report: Option<&Report>, style: Style) -> String {
    let mut out = Out::new(style);
    comparison_into(c, report, Sides::Baseline, &mut out);
    out.text
}

/// [`comparison`] for `diff OLD NEW`: each side named by its role, the old
/// report and the new one (whose path is `new_path`).
pub fn reports_comparison(c: &Comparison, new_path: &str, report: &Report, style: Style) -> String {
    let mut out = Out::new(style);
    comparison_into(c, Some(report), Sides::Reports { new: new_path }, &mut out);
    out.text
}

fn comparison_into(c: &Comparison, report: Option<&Report>, sides: Sides<'_>, out: &mut Out) {
    let path = printable(&c.baseline.path);
    let from = match (&c.baseline.revision, &c.baseline.commit) {
        (Some(rev), Some(commit)) => {
            let short: String = commit.chars().take(12).collect();
            format!("{path} at {} ({})", printable(rev), printable(&short))
        }
        (Some(rev), None) => format!("{path} at {}", printable(rev)),
        _ => path.into_owned(),
    };
    let compared = match sides {
        Sides::Baseline => format!("Compared with the baseline {from}"),
        Sides::Reports { new } => format!("Compared the old report {from} with the new report {}", printable(new)),
    };
    out.line(
        &format!(
            "{compared}: memory file {}, suite {}",
            if c.memory_changed { "changed" } else { "unchanged" },
            if c.suite_changed { "changed" } else { "unchanged" }
        ),
        2,
    );
    if !c.incompatible.is_empty() {
        let what = match sides {
            Sides::Baseline => "the baseline is",
            Sides::Reports { .. } => "the reports are",
        };
        out.painted(&format!("{what} not comparable (compared anyway): {}", lines(&c.incompatible, "; ")), 2, YELLOW);
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
        out.painted(&line, 7, if change.accepted || change.first_pin { YELLOW } else { RED });
        let by = change.accepted_by.as_deref().map_or(String::new(), |by| format!(", by {}", printable(by)));
        let note = if change.first_pin {
            "       no goalposts to move: compared with the baseline this change pins".to_string()
        } else if change.accepted {
            format!("       accepted with --accept-baseline-change{by}: compared with the working tree's baseline")
        } else {
            "       compared with the base revision's baseline; accept the re-pin with --accept-baseline-change"
                .to_string()
        };
        out.line(&note, 7);
    }
    if out.style.quiet {
        comparison_summary(c, sides, out);
        return;
    }

    let (old, new) = match sides {
        Sides::Baseline => ("baseline", "current"),
        Sides::Reports { .. } => ("old", "new"),
    };
    // A table of zeros says nothing: when no figure moved, one line says so.
    if c.metrics.iter().all(|m| m.baseline == m.current) {
        let other = match sides {
            Sides::Baseline => "the baseline",
            Sides::Reports { .. } => "the old report",
        };
        out.line(&format!("every suite figure ({}) is the same as in {other}", c.metrics.len()), 2);
    } else {
        figures_table(c, old, new, out);
    }
    if let Some(st) = c.statistics.as_ref().filter(|st| st.changed()) {
        statistics_into(st, out);
    }
    added_and_removed(c, sides, &c.added, &c.removed, out);
    if c.scenarios.is_empty() {
        out.line("no scenario changed its verdict, ranking or context block", 2);
    }
    scenario_changes(c, report, out);
}

/// The suite figures side by side, with their deltas and movements.
fn figures_table(c: &Comparison, old: &str, new: &str, out: &mut Out) {
    let mut table = table(out.style);
    table.set_header(vec!["figure", old, new, "delta", "movement"]);
    for m in &c.metrics {
        let is_count = m.rule.is_none();
        let fmt = |v: Option<f64>| match v {
            Some(v) if is_count => format!("{:.0}", figures::positive_zero(v)),
            v => figure(v),
        };
        let delta = match m.delta {
            Some(d) if is_count => format!("{:+.0}", figures::positive_zero(d)),
            Some(d) => figures::delta(d),
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
    out.table(&table);
}

/// Every changed scenario: its verdict change, ranking changes, figure
/// deltas and the diff of its context block.
fn scenario_changes(c: &Comparison, report: Option<&Report>, out: &mut Out) {
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
        out.painted(&line, 2, if s.regressed { RED } else { "" });
        for d in &s.entered {
            out.line(
                &format!(
                    "  + {} entered at rank {} (score {}){}",
                    printable(&d.id),
                    d.current_rank.unwrap_or(0),
                    d.current_score.map_or("—".into(), score),
                    report.and_then(|r| r.scenario(&s.id)).map_or("", |now| expected_mark(now, &d.id))
                ),
                2,
            );
        }
        for d in &s.left {
            out.line(
                &format!(
                    "  - {} left (was rank {}, score {}){}",
                    printable(&d.id),
                    d.baseline_rank.unwrap_or(0),
                    d.baseline_score.map_or("—".into(), score),
                    report.and_then(|r| r.scenario(&s.id)).map_or("", |now| expected_mark(now, &d.id))
                ),
                2,
            );
        }
        for d in &s.moved {
            out.line(
                &format!(
                    "  ~ {} rank {} → {}, score {} → {}",
                    printable(&d.id),
                    d.baseline_rank.unwrap_or(0),
                    d.current_rank.unwrap_or(0),
                    d.baseline_score.map_or("—".into(), score),
                    d.current_score.map_or("—".into(), score)
                ),
                2,
            );
        }
        for m in &s.metrics {
            out.line(
                &format!(
                    "    {} {} → {}{}",
                    printable(&m.name),
                    figure(m.baseline),
                    figure(m.current),
                    m.delta.map_or(String::new(), |d| format!(" ({})", figures::delta(d)))
                ),
                2,
            );
        }
        if !s.edited_decisions.is_empty() {
            out.line(&format!("    edited in this change: {}", lines(&s.edited_decisions, ", ")), 2);
        }
        if let Some(diff) = &s.context_diff {
            out.line("    context block:", 2);
            for l in diff.lines() {
                context_diff_line(&printable(l), out);
            }
        }
    }
}

/// One line of a context-block diff, indented under its scenario; when it
/// is wrapped, each continuation keeps the line's `-`, `+` or ` ` column (so
/// the block still reads as removed, added or kept) and is indented deeper
/// than the line's own text.
fn context_diff_line(line: &str, out: &mut Out) {
    const INDENT: &str = "      ";
    let text = format!("{INDENT}{line}");
    match out.style.width {
        Some(w) if layout::width(&text) > w => {
            let mut chars = line.chars();
            let marker = chars.next().filter(|c| matches!(c, '-' | '+' | ' ')).unwrap_or(' ');
            let own = chars.as_str().len() - chars.as_str().trim_start_matches(' ').len();
            let prefix = format!("{INDENT}{marker}{}", " ".repeat((own + 4).min(w / 4)));
            for piece in layout::wrap_with(&text, w, &prefix) {
                out.text.push_str(&piece);
                out.text.push('\n');
            }
        }
        _ => {
            out.text.push_str(&text);
            out.text.push('\n');
        }
    }
}

/// Whether the changes are larger than the noise of the suite: the paired
/// figures in a table, then the suite's resolution, the verdicts, the pass
/// rates and a warning per change too small to tell from noise.
fn statistics_into(st: &ComparisonStatistics, out: &mut Out) {
    out.line(
        &format!(
            "Is the change larger than the noise? {} scenario(s) in both runs, paired (seed {}):",
            st.paired, st.seed
        ),
        2,
    );
    let mut t = table(out.style);
    t.set_header(vec!["figure", "won", "lost", "tied", "change", "95% CI", "p", "reading"]);
    for f in &st.figures {
        let right = |s: String| Cell::new(s).set_alignment(CellAlignment::Right);
        let short = match f.name.as_str() {
            "recall_at_k" => "recall",
            "reciprocal_rank" => "RR",
            "ndcg_at_k" => "nDCG",
            other => other,
        };
        let p = statistics::p_value(f.p_value, false);
        t.add_row(vec![
            Cell::new(short),
            right(f.wins.to_string()),
            right(f.losses.to_string()),
            right(f.ties.to_string()),
            right(statistics::mean_change(f)),
            Cell::new(statistics::interval(f)),
            right(if f.exact { p } else { format!("≈{p}") }),
            Cell::new(match (f.significant, f.too_small) {
                (true, _) => "significant",
                (false, true) => "too small",
                _ => "unchanged",
            }),
        ]);
    }
    out.table(&t);
    let sampled = if st.figures.iter().any(|f| !f.exact) {
        format!(" (≈: {} seeded sign assignments)", st.resamples)
    } else {
        String::new()
    };
    out.line(
        &format!(
            "recall@k, reciprocal rank and nDCG@k per scenario; change: the mean change and its paired-bootstrap \
             interval; p: paired randomization test, exact{sampled}."
        ),
        2,
    );
    out.line(&statistics::detectable(st), 2);
    for line in [statistics::verdicts(st), statistics::pass_rates(st)].into_iter().flatten() {
        out.line(&line, 2);
    }
    if let Some(w) = statistics::warning(st) {
        out.painted(&format!("warning: {w}"), 9, YELLOW);
    }
}

/// `--quiet`: what changed, in a line; the details are in the full report
/// and the report files.
fn comparison_summary(c: &Comparison, sides: Sides<'_>, out: &mut Out) {
    if let Some(st) = c.statistics.as_ref().filter(|st| st.changed()) {
        if let Some(w) = statistics::warning(st) {
            out.painted(&format!("warning: {w}"), 9, YELLOW);
        }
    }
    added_and_removed(c, sides, &c.added, &c.removed, out);
    if c.scenarios.is_empty() {
        out.line("no scenario changed its verdict, ranking or context block", 2);
        return;
    }
    let ids: Vec<String> = c.scenarios.iter().map(|s| s.id.clone()).collect();
    let regressed = c.scenarios.iter().filter(|s| s.regressed).count();
    out.line(
        &format!(
            "{} scenario(s) changed, {regressed} regressed{} (the details: without --quiet, or in --json and \
             --markdown)",
            ids.len(),
            list_suffix(": ", &ids)
        ),
        2,
    );
}

fn added_and_removed(c: &Comparison, sides: Sides<'_>, added: &[String], removed: &[String], out: &mut Out) {
    let quiet = out.style.quiet;
    let listed = |ids: &[String]| if quiet { list_suffix("", ids) } else { lines(ids, ", ") };
    if !added.is_empty() {
        out.line(&format!("new scenarios ({}): {}", added.len(), listed(added)), 2);
    }
    if !removed.is_empty() {
        let what = match (sides, c.filtered) {
            (_, true) => "baseline scenarios not run (--filter)",
            (Sides::Baseline, false) => "baseline scenarios missing from the suite",
            (Sides::Reports { .. }, false) => "scenarios of the old report missing from the new one",
        };
        out.line(&format!("{what} ({}): {}", removed.len(), listed(removed)), 2);
    }
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

/// The decision corpus between a git revision and the working tree (with
/// [`Style::quiet`], one line: how many and which).
fn memory_diff_into(d: &MemoryDiff, out: &mut Out) {
    let head = format!("Decision corpus changes since {}:", printable(&d.revision));
    if d.is_empty() {
        out.line(&format!("{head} none"), 2);
        return;
    }
    if out.style.quiet {
        let kinds: [(&str, Vec<String>); 3] = [
            ("added", d.added.iter().map(|a| a.id.clone()).collect()),
            ("removed", d.removed.iter().map(|r| r.id.clone()).collect()),
            ("changed", d.changed.iter().map(|c| c.id.clone()).collect()),
        ];
        let parts: Vec<String> = kinds
            .iter()
            .filter(|(_, ids)| !ids.is_empty())
            .map(|(what, ids)| format!("{} {what}{}", ids.len(), list_suffix(": ", ids)))
            .collect();
        out.line(&format!("{head} {}", parts.join("; ")), 2);
        return;
    }
    out.line(&head, 2);
    for a in &d.added {
        out.line(&format!("  + {} {}", printable(&a.id), printable(&a.title)), 2);
    }
    for r in &d.removed {
        out.line(
            &format!(
                "  - {} {}{}",
                printable(&r.id),
                printable(&r.title),
                r.note.as_ref().map_or(String::new(), |n| format!(" ({})", printable(n)))
            ),
            2,
        );
    }
    for c in &d.changed {
        out.line(&format!("  ~ {} {}", printable(&c.id), printable(&c.title)), 2);
        for f in &c.fields {
            out.line(&format!("      {}: {} → {}", printable(&f.field), one_line(&f.before), one_line(&f.after)), 2);
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn bundled() -> Report {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/baseline.json");
        crate::report::json::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn a_rate_that_misses_its_threshold_never_prints_as_it() {
        let mut r = bundled();
        let m = &mut r.summary;
        (m.pass, m.fail, m.pass_rate) = (8789, 1, 8789.0 / 8790.0);
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
