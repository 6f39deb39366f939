//! The scenario table of the terminal report: failures first, full columns
//! or compact ones when the full table is wider than the terminal.

use crate::describe::printable;
use crate::report::{layout, score, Report, ScenarioReport};
use crate::verdict::Verdict;
use comfy_table::{Cell, CellAlignment};

use super::{figure, table, Out, Style, ALL_ROWS_UP_TO};

pub(super) fn scenario_table(report: &Report, out: &mut Out) {
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
            for m in &s.why_not {
                let quote = |t: &str| printable(t).into_owned();
                out.line(&format!("  {}", crate::report::why_not::sentence(m, &quote, &quote)), 4);
            }
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
pub(super) fn lines(items: &[String], separator: &str) -> String {
    items.iter().map(|i| printable(i)).collect::<Vec<_>>().join(separator)
}
