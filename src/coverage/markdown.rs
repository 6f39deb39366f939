//! The Markdown summary of `mneme-gate coverage` (`--markdown`, for a pull
//! request or `$GITHUB_STEP_SUMMARY`): the same findings as the terminal
//! summary, each list cut to [`ROWS`] rows (all of them are in `--json`).
//!
//! Strings from the inputs are written as code spans or escaped text
//! ([`code`], [`inline`]), and no line starts with `::`, so the summary is
//! safe to print in a CI log too.

use super::{Coverage, Group};
use crate::report::figures;
use crate::report::markdown::{code, inline, no_command_lines};
use crate::report::score;

/// The most rows of each list.
pub const ROWS: usize = 50;

pub fn render(c: &Coverage) -> String {
    let mut out = String::new();
    let p = &c.inputs;
    let g = &c.gating;
    out.push_str("## mneme-gate coverage\n\n");
    out.push_str(&format!(
        "{} by {}: **{} of {}** pool decisions are expected by some scenario ({}); {} scenarios, {} governed; profile {}, k {}.\n\n",
        code(&p.memory),
        p.suite_roots.iter().map(|r| code(r)).collect::<Vec<_>>().join(", "),
        g.gated_count,
        c.pool,
        g.gated_share.map_or("—".into(), share),
        c.scenarios,
        c.governed,
        code(&p.profile.name),
        p.k
    ));
    let u = &c.unreachable;
    let f = &c.fragile;
    out.push_str("| finding | decisions or scenarios |\n|---|---:|\n");
    let scope = if u.scope_check.checked { u.scope_check.decisions.len().to_string() } else { "not checked".into() };
    let rows = [
        ("ungated decisions", g.ungated_count.to_string()),
        ("shadowed decisions (not in the top k for their own title)", u.shadowed.len().to_string()),
        ("decisions with a scope glob that matches no file", scope),
        ("decisions with no tokens", u.no_tokens.len().to_string()),
        (
            &*format!("fragile scenarios (margin below {}, of {} with a margin)", score(f.margin_below), f.with_margin),
            f.scenarios.len().to_string(),
        ),
        ("pairs retrieved together (candidates for merging)", c.overlap.together.len().to_string()),
        ("competing pairs", c.overlap.competing.len().to_string()),
        (
            &*format!(
                "hubs (in more than {} of the scenarios or in a control, rarely expected)",
                share(c.hubs.min_share)
            ),
            c.hubs.decisions.len().to_string(),
        ),
    ];
    for (what, n) in rows {
        out.push_str(&format!("| {what} | {n} |\n"));
    }
    out.push('\n');

    if c.pool > 0 {
        out.push_str("### Gated share\n\n");
        for (title, groups) in [("kind", &g.by_kind), ("scope folder", &g.by_scope_folder)] {
            out.push_str(&group_table(title, groups));
        }
    }
    if !g.ungated_decisions.is_empty() {
        out.push_str(&format!("### Ungated decisions ({})\n\n", g.ungated_decisions.len()));
        out.push_str("| id | title | kind | scope |\n|---|---|---|---|\n");
        for d in g.ungated_decisions.iter().take(ROWS) {
            let scope = if d.scope.is_empty() {
                "—".into()
            } else {
                d.scope.iter().map(|s| code(s)).collect::<Vec<_>>().join(", ")
            };
            out.push_str(&format!("| {} | {} | {} | {scope} |\n", code(&d.id), inline(&d.title), inline(&d.kind)));
        }
        more(&mut out, g.ungated_decisions.len());
    }
    if !u.shadowed.is_empty() {
        out.push_str(&format!("### Shadowed decisions ({})\n\n", u.shadowed.len()));
        out.push_str(
            "Not in the top k for their own title (with, for a scoped decision, a path its glob matches).\n\n",
        );
        out.push_str("| decision | query | its score | its rank | retrieved instead |\n|---|---|---:|---:|---|\n");
        let mut rows = 0;
        for s in &u.shadowed {
            for pr in &s.probes {
                if rows == ROWS {
                    break;
                }
                rows += 1;
                let query = match &pr.file {
                    Some(file) => format!("title, file {}", code(file)),
                    None => "title, no file".into(),
                };
                let by: Vec<String> =
                    pr.beaten_by.iter().map(|b| format!("{} {}", code(&b.id), score(b.score))).collect();
                out.push_str(&format!(
                    "| {} {} | {query} | {} | {} | {} |\n",
                    code(&s.id),
                    inline(&s.title),
                    score(pr.score),
                    pr.rank.map_or("—".into(), |r| r.to_string()),
                    if by.is_empty() { "nothing".into() } else { by.join(", ") }
                ));
            }
        }
        more(&mut out, u.shadowed.iter().map(|s| s.probes.len()).sum());
    }
    let s = &u.scope_check;
    if !s.checked {
        out.push_str(&format!(
            "Scope globs were not checked against the repository's files: {}.\n\n",
            inline(s.note.as_deref().unwrap_or(""))
        ));
    } else if !s.decisions.is_empty() {
        out.push_str(&format!("### Scope globs that match no file git tracks ({})\n\n", s.decisions.len()));
        out.push_str("| decision | globs | every glob |\n|---|---|---|\n");
        for d in s.decisions.iter().take(ROWS) {
            let globs: Vec<String> = d.globs.iter().map(|g| code(g)).collect();
            out.push_str(&format!(
                "| {} | {} | {} |\n",
                code(&d.id),
                globs.join(", "),
                if d.every_glob { "yes" } else { "no" }
            ));
        }
        more(&mut out, s.decisions.len());
    }
    if !u.no_tokens.is_empty() {
        out.push_str(&format!("### Decisions with no tokens ({})\n\n", u.no_tokens.len()));
        for d in u.no_tokens.iter().take(ROWS) {
            out.push_str(&format!("- {} {}\n", code(&d.id), inline(&d.title)));
        }
        more(&mut out, u.no_tokens.len());
    }
    if !f.scenarios.is_empty() {
        out.push_str(&format!(
            "### Fragile retrievals ({} of {})\n\nMargin below {} ({}): one edit of another decision could push out an expected decision.\n\n",
            f.scenarios.len(),
            f.with_margin,
            score(f.margin_below),
            inline(&f.threshold_from)
        ));
        out.push_str(
            "| scenario | margin | confidence | last expected (rank, score) | runner-up |\n|---|---:|---:|---|---|\n",
        );
        for sc in f.scenarios.iter().take(ROWS) {
            let up = match &sc.runner_up.id {
                Some(id) => format!("{} {}", code(id), score(sc.runner_up.score)),
                None => format!("untouched ({})", score(sc.runner_up.score)),
            };
            out.push_str(&format!(
                "| {} | {} | {} | {} ({}, {}) | {up} |\n",
                code(&sc.id),
                score(sc.margin),
                sc.confidence.map_or("—".into(), share),
                code(&sc.last_expected.id),
                sc.last_expected.rank,
                score(sc.last_expected.score)
            ));
        }
        more(&mut out, f.scenarios.len());
    }
    let o = &c.overlap;
    if !o.together.is_empty() {
        out.push_str(&format!(
            "### Retrieved together ({})\n\nIn most of the scenarios that retrieve either: candidates for merging.\n\n",
            o.together.len()
        ));
        out.push_str("| pair | together | either | share |\n|---|---:|---:|---:|\n");
        for t in o.together.iter().take(ROWS) {
            out.push_str(&format!(
                "| {} + {} | {} | {} | {} |\n",
                code(&t.a),
                code(&t.b),
                t.together,
                t.either,
                share(t.share)
            ));
        }
        more(&mut out, o.together.len());
    }
    if !o.competing.is_empty() {
        out.push_str(&format!("### Competing ({})\n\n", o.competing.len()));
        out.push_str("| expected | competitor | scenarios |\n|---|---|---|\n");
        for p in o.competing.iter().take(ROWS) {
            let shown: Vec<String> = p.scenarios.iter().take(5).map(|s| code(s)).collect();
            let extra =
                if p.scenarios.len() > 5 { format!(" and {} more", p.scenarios.len() - 5) } else { String::new() };
            out.push_str(&format!(
                "| {} | {} | {}: {}{extra} |\n",
                code(&p.expected),
                code(&p.competitor),
                p.scenarios.len(),
                shown.join(", ")
            ));
        }
        more(&mut out, o.competing.len());
    }
    let h = &c.hubs;
    if !h.decisions.is_empty() {
        out.push_str(&format!(
            "### Hubs ({})\n\nIn the top k of more than {} of the scenarios, or of a control, and expected in fewer than half of them; the terms are the query tokens that add the most to their score there.\n\n",
            h.decisions.len(),
            share(h.min_share)
        ));
        out.push_str("| decision | retrieved by | wins on |\n|---|---|---|\n");
        for d in h.decisions.iter().take(ROWS) {
            let quote = |s: &str| code(s);
            out.push_str(&format!(
                "| {} {} | {} | {} |\n",
                code(&d.id),
                inline(&d.title),
                super::terminal::hub_scenarios(d, quote),
                super::terminal::hub_terms(d, quote)
            ));
        }
        more(&mut out, h.decisions.len());
    }
    no_command_lines(&out).into_owned()
}

fn share(x: f64) -> String {
    figures::rate(x, None)
}

/// How many rows a list left out, after its table.
fn more(out: &mut String, n: usize) {
    if n > ROWS {
        out.push_str(&format!("\n… and {} more (all in `--json`).\n", n - ROWS));
    }
    out.push('\n');
}

fn group_table(title: &str, groups: &[Group]) -> String {
    let mut out = format!("| by {title} | decisions | gated | ungated | gated share |\n|---|---:|---:|---:|---:|\n");
    let (shown, left_out) = super::terminal::shown_groups(groups, ROWS);
    for g in shown {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            inline(&g.name),
            g.decision_count,
            g.gated_count,
            g.ungated_count,
            share(g.gated_share)
        ));
    }
    if left_out > 0 {
        out.push_str(&format!("\nThe {ROWS} {title}s with the most ungated decisions; {left_out} more in `--json`.\n"));
    }
    out.push('\n');
    out
}
