//! The terminal summary of `mneme-gate coverage`: the gated share (tables
//! per kind and per scope folder), then each finding with the first
//! [`LIST_LIMIT`] entries of its list (all of them are in `--json`).
//!
//! Plain text with ASCII tables, laid out to the width when there is one,
//! like the run's terminal report; every string from the inputs goes
//! through [`printable`].

use std::fmt::Write as _;

use comfy_table::{presets, Cell, CellAlignment, ContentArrangement, Table};

use super::{Coverage, Group, Hub, Probe};
use crate::describe::printable;
use crate::report::{figures, layout, score};

/// How many entries of each list the summary shows.
pub const LIST_LIMIT: usize = 20;

/// Options of the summary.
#[derive(Debug, Clone, Copy, Default)]
pub struct Style {
    /// The columns to lay the text out to; `None`: lines as long as they need.
    pub width: Option<usize>,
}

pub fn render(c: &Coverage, style: Style) -> String {
    let mut out = Out { text: String::new(), width: style.width };
    let p = &c.inputs;
    out.line(
        &format!(
            "Coverage of {} ({} pool decision(s)) by {} ({} scenario(s), {} governed); profile {} (k {})",
            printable(&p.memory),
            c.pool,
            printable(&p.suite_roots.join(", ")),
            c.scenarios,
            c.governed,
            printable(&p.profile.name),
            p.k
        ),
        2,
    );
    out.blank();
    gated(c, &mut out);
    unreachable(c, &mut out);
    fragile(c, &mut out);
    overlap(c, &mut out);
    hubs(c, &mut out);
    out.text
}

struct Out {
    text: String,
    width: Option<usize>,
}

impl Out {
    fn line(&mut self, line: &str, hang: usize) {
        for piece in layout::wrap(line, self.width, hang) {
            self.text.push_str(&piece);
            self.text.push('\n');
        }
    }

    fn blank(&mut self) {
        self.text.push('\n');
    }

    /// At most [`LIST_LIMIT`] lines of a list, then how many more.
    fn list(&mut self, lines: impl ExactSizeIterator<Item = String>) {
        let n = lines.len();
        for l in lines.take(LIST_LIMIT) {
            self.line(&format!("  {l}"), 4);
        }
        if n > LIST_LIMIT {
            self.line(&format!("  ... and {} more (all in --json)", n - LIST_LIMIT), 4);
        }
    }
}

fn share(x: f64) -> String {
    figures::rate(x, None)
}

fn gated(c: &Coverage, out: &mut Out) {
    let g = &c.gating;
    out.line(
        &format!(
            "Gated: {} of {} pool decision(s) are expected by some scenario ({}); {} {} not.",
            g.gated_count,
            c.pool,
            g.gated_share.map_or("—".into(), share),
            g.ungated_count,
            if g.ungated_count == 1 { "is" } else { "are" }
        ),
        2,
    );
    if c.pool == 0 {
        out.blank();
        return;
    }
    for (title, groups) in [("kind", &g.by_kind), ("scope folder", &g.by_scope_folder)] {
        out.text.push_str(&group_table(title, groups, out.width));
    }
    if !g.ungated_decisions.is_empty() {
        out.line(&format!("Ungated decisions ({}): no scenario expects them", g.ungated_decisions.len()), 2);
        out.list(g.ungated_decisions.iter().map(|d| format!("{}  {}", printable(&d.id), printable(&d.title))));
    }
    out.blank();
}

/// The groups a table shows: all of them, in name order, when they fit in
/// `limit` rows; else the `limit` with the most ungated decisions (then by
/// name), and how many were left out.
pub(super) fn shown_groups(groups: &[Group], limit: usize) -> (Vec<&Group>, usize) {
    if groups.len() <= limit {
        return (groups.iter().collect(), 0);
    }
    let mut most: Vec<&Group> = groups.iter().collect();
    most.sort_by(|a, b| b.ungated_count.cmp(&a.ungated_count).then_with(|| a.name.cmp(&b.name)));
    most.truncate(limit);
    (most, groups.len() - limit)
}

fn group_table(title: &str, groups: &[Group], width: Option<usize>) -> String {
    let mut table = Table::new();
    table.load_preset(presets::ASCII_FULL_CONDENSED);
    match width {
        Some(w) => {
            table.set_content_arrangement(ContentArrangement::Dynamic).set_width(u16::try_from(w).unwrap_or(u16::MAX));
        }
        None => {
            table.set_content_arrangement(ContentArrangement::Disabled);
        }
    }
    table.set_header([
        "by ".to_string() + title,
        "decisions".into(),
        "gated".into(),
        "ungated".into(),
        "gated share".into(),
    ]);
    let (shown, left_out) = shown_groups(groups, LIST_LIMIT);
    for g in shown {
        table.add_row([
            Cell::new(printable(&g.name)),
            Cell::new(g.decision_count).set_alignment(CellAlignment::Right),
            Cell::new(g.gated_count).set_alignment(CellAlignment::Right),
            Cell::new(g.ungated_count).set_alignment(CellAlignment::Right),
            Cell::new(share(g.gated_share)).set_alignment(CellAlignment::Right),
        ]);
    }
    let mut text = table.to_string();
    text.push('\n');
    if left_out > 0 {
        text.push_str(&format!(
            "  (the {LIST_LIMIT} {title}s with the most ungated decisions; {left_out} more in --json)\n"
        ));
    }
    text
}

/// A probe in words: `for its title: score 4.5, rank 5; beaten by A 9.0, B 8.5`.
pub(super) fn probe_line(p: &Probe) -> String {
    let query = match (&p.file, &p.glob) {
        (Some(file), Some(glob)) => format!("with file {} (scope {})", printable(file), printable(glob)),
        (Some(file), None) => format!("with file {}", printable(file)),
        _ => "without a file".to_string(),
    };
    let rank = match p.rank {
        Some(r) => format!("rank {r}"),
        None => "not a candidate (not above min_score)".into(),
    };
    let by: Vec<String> = p.beaten_by.iter().map(|b| format!("{} {}", printable(&b.id), score(b.score))).collect();
    let by = if by.is_empty() { "nothing".to_string() } else { by.join(", ") };
    format!("{query}: score {}, {rank}; retrieved instead: {by}", score(p.score))
}

fn unreachable(c: &Coverage, out: &mut Out) {
    let u = &c.unreachable;
    let k = c.inputs.k;
    if u.shadowed.is_empty() {
        out.line(&format!("Shadowed: none (every decision comes back in the top {k} for its own title)"), 2);
    } else {
        out.line(
            &format!("Shadowed: {} decision(s) do not come back in the top {k} for their own title", u.shadowed.len()),
            2,
        );
        let mut lines = Vec::new();
        for s in &u.shadowed {
            let mut line = format!("{}  {}", printable(&s.id), printable(&s.title));
            for p in &s.probes {
                let _ = write!(line, "\n      {}", probe_line(p));
            }
            lines.push(line);
        }
        // A probe line is a line of its own, wrapped on its own.
        let n = lines.len();
        for l in lines.iter().take(LIST_LIMIT) {
            for (i, piece) in l.split('\n').enumerate() {
                out.line(&if i == 0 { format!("  {piece}") } else { piece.to_string() }, 4);
            }
        }
        if n > LIST_LIMIT {
            out.line(&format!("  ... and {} more (all in --json)", n - LIST_LIMIT), 4);
        }
    }
    for g in &u.unprobed {
        out.line(
            &format!(
                "  not probed: {} scope {} (no path it matches could be made)",
                printable(&g.id),
                printable(&g.glob)
            ),
            4,
        );
    }
    let s = &u.scope_check;
    if !s.checked {
        out.line(
            &format!(
                "Scope: not checked against the repository's files: {}",
                printable(s.note.as_deref().unwrap_or(""))
            ),
            2,
        );
    } else if s.decisions.is_empty() {
        out.line("Scope: every scope glob matches a file git tracks", 2);
    } else {
        let every = s.decisions.iter().filter(|d| d.every_glob).count();
        out.line(
            &format!(
                "Scope: {} decision(s) have a scope glob that matches no file git tracks; for {every} of them no glob does (never in scope when a file is given)",
                s.decisions.len()
            ),
            2,
        );
        out.list(s.decisions.iter().map(|d| {
            format!(
                "{}  {}{}",
                printable(&d.id),
                printable(&d.globs.join(", ")),
                if d.every_glob { " (every glob)" } else { "" }
            )
        }));
    }
    if u.no_tokens.is_empty() {
        out.line("No tokens: none", 2);
    } else {
        out.line(
            &format!(
                "No tokens: {} decision(s) have no token in any field: no query retrieves them",
                u.no_tokens.len()
            ),
            2,
        );
        out.list(u.no_tokens.iter().map(|d| format!("{}  {}", printable(&d.id), printable(&d.title))));
    }
    out.blank();
}

fn fragile(c: &Coverage, out: &mut Out) {
    let f = &c.fragile;
    let smallest = f.smallest_margin.map_or("—".into(), score);
    out.line(
        &format!(
            "Fragile: {} of {} governed scenario(s) with a margin win by less than {} ({}); smallest margin {smallest}",
            f.scenarios.len(),
            f.with_margin,
            score(f.margin_below),
            printable(&f.threshold_from)
        ),
        2,
    );
    out.list(f.scenarios.iter().map(|s| {
        let up = match &s.runner_up.id {
            Some(id) => format!("{} ({})", printable(id), score(s.runner_up.score)),
            None => format!("any untouched decision ({})", score(s.runner_up.score)),
        };
        format!(
            "{}  margin {}, confidence {}: {} (rank {}, {}) over {up}",
            printable(&s.id),
            score(s.margin),
            s.confidence.map_or("—".into(), share),
            printable(&s.last_expected.id),
            s.last_expected.rank,
            score(s.last_expected.score)
        )
    }));
    out.blank();
}

fn overlap(c: &Coverage, out: &mut Out) {
    let o = &c.overlap;
    if o.together.is_empty() {
        out.line("Retrieved together: no pair in most of the scenarios that retrieve either", 2);
    } else {
        out.line(
            &format!(
                "Retrieved together: {} pair(s) in most of the scenarios that retrieve either (candidates for merging)",
                o.together.len()
            ),
            2,
        );
        out.list(o.together.iter().map(|t| {
            format!(
                "{} + {}: {} of {} scenario(s) ({})",
                printable(&t.a),
                printable(&t.b),
                t.together,
                t.either,
                share(t.share)
            )
        }));
    }
    if o.competing.is_empty() {
        out.line("Competing: no decision competes with an expected one in more than one scenario", 2);
    } else {
        out.line(
            &format!(
                "Competing: {} pair(s) of an expected decision and one that competes for its slot",
                o.competing.len()
            ),
            2,
        );
        out.list(o.competing.iter().map(|p| {
            let shown: Vec<String> = p.scenarios.iter().take(5).map(|s| printable(s).into_owned()).collect();
            let more =
                if p.scenarios.len() > 5 { format!(" and {} more", p.scenarios.len() - 5) } else { String::new() };
            format!(
                "{} vs {}: {} scenario(s): {}{more}",
                printable(&p.expected),
                printable(&p.competitor),
                p.scenarios.len(),
                shown.join(", ")
            )
        }));
    }
}

/// A hub's scenarios in words: `6 scenario(s) (0.750), expected in 1; 2 control(s): a, b`.
pub(super) fn hub_scenarios(h: &Hub, quote: impl Fn(&str) -> String) -> String {
    let mut line = format!("{} scenario(s) ({}), expected in {}", h.retrieved, share(h.share), h.expected);
    if h.accepted > 0 {
        let _ = write!(line, ", acceptable in {}", h.accepted);
    }
    if h.missing > 0 {
        let _ = write!(line, ", holds the slot of a missed decision in {}", h.missing);
    }
    if h.controls > 0 {
        let shown: Vec<String> = h.control_scenarios.iter().take(5).map(|s| quote(s)).collect();
        let more =
            if h.controls > shown.len() { format!(" and {} more", h.controls - shown.len()) } else { String::new() };
        let _ = write!(line, "; {} control(s): {}{more}", h.controls, shown.join(", "));
    }
    line
}

/// A hub's terms in words: `cache 12.0 (4 scenario(s), df 9), ...`.
pub(super) fn hub_terms(h: &Hub, quote: impl Fn(&str) -> String) -> String {
    let mut terms: Vec<String> = h
        .terms
        .iter()
        .map(|t| format!("{} {} ({} scenario(s), df {})", quote(&t.token), score(t.contribution), t.scenarios, t.df))
        .collect();
    if h.tag_boost != 0.0 {
        terms.push(format!("tag boost {}", score(h.tag_boost)));
    }
    let over =
        if h.explained < h.retrieved { format!(" (in the first {} scenario(s))", h.explained) } else { String::new() };
    if terms.is_empty() {
        format!("no term{over} (it wins on a fallback score)")
    } else {
        format!("{}{over}", terms.join(", "))
    }
}

fn hubs(c: &Coverage, out: &mut Out) {
    let h = &c.hubs;
    out.blank();
    if h.decisions.is_empty() {
        out.line(
            &format!(
                "Hubs: none (no rarely expected decision in more than {} of the scenarios, nor in a control)",
                share(h.min_share)
            ),
            2,
        );
        return;
    }
    out.line(
        &format!(
            "Hubs: {} decision(s) in the top {} of more than {} of the scenarios, or of a control, and expected in fewer than half of them",
            h.decisions.len(),
            c.inputs.k,
            share(h.min_share)
        ),
        2,
    );
    let lines: Vec<String> = h
        .decisions
        .iter()
        .map(|d| {
            let quote = |s: &str| printable(s).into_owned();
            format!(
                "{}  {}\n      {}\n      wins on: {}",
                printable(&d.id),
                printable(&d.title),
                hub_scenarios(d, quote),
                hub_terms(d, quote)
            )
        })
        .collect();
    let n = lines.len();
    for l in lines.iter().take(LIST_LIMIT) {
        for (i, piece) in l.split('\n').enumerate() {
            out.line(&if i == 0 { format!("  {piece}") } else { piece.to_string() }, if i == 0 { 4 } else { 2 });
        }
    }
    if n > LIST_LIMIT {
        out.line(&format!("  ... and {} more (all in --json)", n - LIST_LIMIT), 4);
    }
}
