//! The comparison in the terminal report: with the baseline after a run, or
//! between two saved reports (`diff`): the suite figures, the changed
//! scenarios, the statistics and the memory diff.

use comfy_table::{Cell, CellAlignment};

use super::scenarios::lines;
use super::{figure, one_line, table, Out, Style, RED, YELLOW};
use crate::describe::printable;
use crate::report::comparison::{Comparison, ComparisonStatistics, MemoryDiff, Movement};
use crate::report::{figures, layout, score, statistics, Report, ScenarioReport};

/// What the two sides of a comparison are.
#[derive(Debug, Clone, Copy)]
pub(super) enum Sides<'a> {
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

pub(super) fn comparison_into(c: &Comparison, report: Option<&Report>, sides: Sides<'_>, out: &mut Out) {
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
pub(super) fn memory_diff_into(d: &MemoryDiff, out: &mut Out) {
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
