//! The sections of the Markdown summary, in the order they appear: the
//! headline, the gate rules, the suite figures and chart, the verdicts by
//! category, the warnings, the comparison with the baseline and the
//! scenarios that did not pass.

use std::collections::{BTreeSet, HashMap};

use super::budget::{Doc, Kind};
use super::escape::{code, diff_block, html, inline};
use super::links::Links;
use crate::describe::printable;
use crate::gate::{Rule, RuleMode, RuleOutcome};
use crate::report::comparison::{Comparison, ComparisonStatistics, MetricChange, Movement, ScenarioChange};
use crate::report::{figure, figures, score, statistics, Report, ScenarioReport, ScenarioSource};
use crate::verdict::Verdict;

/// Details listed under a violated rule before "… and N more".
const RULE_DETAILS: usize = 10;

/// Scenarios named in one grouped warning before "… and N more".
const WARNING_SCENARIOS: usize = 10;

/// `1 scenario`, `2 scenarios`.
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The headline (what the gate decided, what failed and how badly), then
/// the profile and the memory file.
pub(super) fn head(report: &Report) -> String {
    let fp = &report.fingerprint;
    format!(
        "## {}\n\nProfile {}, k = {}, memory {} (sha256 {}).\n\n",
        headline(report),
        code(&fp.profile.name),
        fp.k,
        code(&fp.memory.path),
        code(&fp.memory.sha256.chars().take(12).collect::<String>())
    )
}

/// The first line: a status mark, the gate's decision, and in words what
/// failed (each failed rule once, the scenarios it concerns counted) and the
/// figure that shows how badly; for a passing run, how many scenarios pass.
pub(super) fn headline(report: &Report) -> String {
    let m = &report.summary;
    let recall = recall_figure(report).map_or(String::new(), |r| format!(" ({r})"));
    if report.gate.passed {
        let mut text = if m.pass == m.total {
            format!("all {} pass{recall}", count(m.total, "scenario"))
        } else {
            let others: Vec<String> =
                [(m.weak, "WEAK"), (m.weak_retrieval, "WEAK_RETRIEVAL"), (m.fail, "FAIL"), (m.malformed, "MALFORMED")]
                    .iter()
                    .filter(|(n, _)| *n > 0)
                    .map(|(n, name)| format!("{n} {name}"))
                    .collect();
            format!("{} of {} pass, {}{recall}", m.pass, count(m.total, "scenario"), others.join(", "))
        };
        let advisory: Vec<String> = report
            .gate
            .rules
            .iter()
            .filter(|r| r.violated && r.mode == RuleMode::Advisory)
            .map(|r| code(r.rule.name()))
            .collect();
        if !advisory.is_empty() {
            text.push_str(&format!("; advisory: {} warns", advisory.join(", ")));
        }
        return format!("✅ mneme-gate: gate passed — {text}");
    }
    format!("❌ mneme-gate: gate FAILED — {}", failures(report, &recall).join("; "))
}

/// `recall@k` of the run, and of the baseline when it differs.
fn recall_figure(report: &Report) -> Option<String> {
    let k = report.fingerprint.k;
    let current = report.summary.mean_recall_at_k?;
    let before = report
        .comparison
        .as_ref()
        .and_then(|c| c.metrics.iter().find(|m| m.name == "mean_recall_at_k"))
        .and_then(|m| m.baseline)
        .filter(|b| figure(Some(*b)) != figure(Some(current)));
    Some(match before {
        Some(b) => format!("recall@{k} {} → {}", figure(Some(b)), figure(Some(current))),
        None => format!("recall@{k} {}", figure(Some(current))),
    })
}

/// What failed, in words, most severe first: one phrase per failed rule,
/// rules about the same scenarios said once.
fn failures(report: &Report, recall: &str) -> Vec<String> {
    let m = &report.summary;
    let failed: Vec<&RuleOutcome> = report.gate.rules.iter().filter(|r| r.fails()).collect();
    let fails = |rule: Rule| failed.iter().any(|r| r.rule == rule);
    let mut phrases: Vec<String> = Vec::new();
    // Scenarios a phrase has already counted.
    let mut named: BTreeSet<&str> = BTreeSet::new();
    let with_verdict = |v: Verdict| report.scenarios.iter().filter(move |s| s.verdict == v);
    if fails(Rule::Malformed) {
        named.extend(with_verdict(Verdict::Malformed).map(|s| s.id.as_str()));
        let n = m.malformed;
        phrases.push(format!("{} {} MALFORMED", count(n, "scenario"), if n == 1 { "is" } else { "are" }));
    }
    if fails(Rule::PassRate) {
        named.extend(with_verdict(Verdict::Fail).map(|s| s.id.as_str()));
        let n = m.fail;
        phrases.push(format!(
            "{} still {} a decision (pass rate {})",
            count(n, "governed answer"),
            if n == 1 { "breaks" } else { "break" },
            figures::ratio(m.pass, m.pass + m.fail, Some(1.0))
        ));
    }
    if fails(Rule::Recall) || fails(Rule::WeakRetrieval) {
        let missing: Vec<&ScenarioReport> = report
            .scenarios
            .iter()
            .filter(|s| s.verdict == Verdict::WeakRetrieval || s.metrics.recall_at_k.is_some_and(|r| r < 1.0))
            .collect();
        let lost = missing.iter().filter(|s| lost_an_expected_decision(report, s)).count();
        named.extend(missing.iter().map(|s| s.id.as_str()));
        let n = missing.len();
        phrases.push(if lost == n && n > 0 {
            format!("{} lost an expected decision{recall}", count(n, "scenario"))
        } else if lost > 0 {
            format!("{} {} an expected decision, {lost} lost since the baseline{recall}", count(n, "scenario"), miss(n))
        } else {
            format!("{} {} an expected decision{recall}", count(n, "scenario"), miss(n))
        });
    }
    if let (true, Some(c)) = (fails(Rule::VerdictRegression), &report.comparison) {
        let more: Vec<&ScenarioChange> =
            c.scenarios.iter().filter(|s| s.regressed && !named.contains(s.id.as_str())).collect();
        if !more.is_empty() {
            let also = if named.is_empty() { "" } else { "more " };
            phrases.push(format!(
                "{}{} regressed{}",
                also,
                count(more.len(), "scenario"),
                match more.as_slice() {
                    [one] => format!(" ({} → {})", one.baseline_verdict, one.current_verdict),
                    _ => String::new(),
                }
            ));
        }
    }
    for r in &failed {
        let n = r.details.len();
        match r.rule {
            Rule::Malformed | Rule::PassRate | Rule::Recall | Rule::WeakRetrieval | Rule::VerdictRegression => {}
            Rule::MissingScenarios => {
                let n = report.comparison.as_ref().map_or(n, |c| c.removed.len());
                phrases.push(format!("{} of the baseline missing from this run", count(n, "scenario")));
            }
            Rule::SuiteMeans => phrases.push(format!("{} worse than the baseline", count(n, "suite figure"))),
            Rule::BaselineChange => phrases.push("this change re-pins the baseline".to_string()),
            other => phrases.push(format!("rule {} violated", code(other.name()))),
        }
    }
    if phrases.is_empty() {
        phrases.push(format!("{} violated", count(failed.len(), "rule")));
    }
    phrases
}

fn miss(n: usize) -> &'static str {
    if n == 1 {
        "misses"
    } else {
        "miss"
    }
}

/// Whether one of the decisions a scenario misses was retrieved in the
/// baseline and left since.
fn lost_an_expected_decision(report: &Report, s: &ScenarioReport) -> bool {
    let Some(c) = &report.comparison else { return false };
    c.scenarios.binary_search_by(|change| change.id.as_str().cmp(&s.id)).ok().is_some_and(|i| {
        let change = &c.scenarios[i];
        change.left.iter().any(|d| s.missing.contains(&d.id))
    })
}

/// The suite figures: a table of the Layer 1 means and the pass rate, with
/// the baseline, the change and a mark when there is a baseline, and a chart
/// of the means when one of them moved.
pub(super) fn figures(report: &Report, doc: &mut Doc) {
    let m = &report.summary;
    let k = report.fingerprint.k;
    let rows = [
        ("mean_recall_at_k", format!("mean recall@{k}"), format!("recall@{k}"), m.mean_recall_at_k),
        ("mean_recall_at_1", "mean recall@1".to_string(), "recall@1".to_string(), m.mean_recall_at_1),
        ("mean_precision_at_k", format!("mean precision@{k}"), format!("precision@{k}"), m.mean_precision_at_k),
        ("mrr", "MRR".to_string(), "MRR".to_string(), m.mrr),
        ("mean_ndcg_at_k", format!("mean nDCG@{k}"), format!("nDCG@{k}"), m.mean_ndcg_at_k),
        (
            "irrelevant_injection_rate",
            "irrelevant-injection rate".to_string(),
            "irrelevant".to_string(),
            m.irrelevant_injection_rate,
        ),
        (
            "ungoverned_injection_rate",
            "ungoverned-injection rate".to_string(),
            "ungoverned".to_string(),
            m.ungoverned_injection_rate,
        ),
    ];
    let pass_rate = if m.layer2_evaluated { m.pass_rate } else { None };
    let Some(c) = &report.comparison else {
        doc.push("| suite figure | value |\n|---|---:|\n");
        for (_, name, _, value) in &rows {
            doc.item(Kind::Figure, &format!("| {name} | {} |\n", figure(*value)));
        }
        if m.layer2_evaluated {
            let shown = m.pass_rate.map_or("—".into(), |_| figures::ratio(m.pass, m.pass + m.fail, Some(1.0)));
            doc.item(Kind::Figure, &format!("| pass rate | {shown} |\n"));
        }
        doc.push("\n");
        return;
    };
    let change_of = |key: &str| c.metrics.iter().find(|mc| mc.name == key);
    doc.push("| suite figure | baseline | this run | change |\n|---|---:|---:|---|\n");
    let pass_row = ("pass_rate", "pass rate".to_string(), String::new(), pass_rate);
    for (key, name, _, value) in rows.iter().chain([&pass_row]) {
        let Some(mc) = change_of(key) else {
            if value.is_some() {
                doc.item(Kind::Figure, &format!("| {name} | — | {} | |\n", figure(*value)));
            }
            continue;
        };
        doc.item(
            Kind::Figure,
            &format!("| {name} | {} | {} | {} |\n", figure(mc.baseline), figure(mc.current), change(mc)),
        );
    }
    doc.push("\n");
    // Bars: this run; line: the baseline. Only figures both sides have.
    let both: Vec<(&str, f64, f64)> = rows
        .iter()
        .filter_map(|(key, _, short, _)| {
            let mc = change_of(key)?;
            Some((short.as_str(), mc.baseline?, mc.current?))
        })
        .collect();
    let moved = both.iter().any(|(_, b, c)| format!("{b:.3}") != format!("{c:.3}"));
    if moved {
        doc.item(Kind::Chart, &chart(&both));
    }
}

/// A figure's change against the baseline: an arrow for its direction, the
/// delta, and a mark for whether that is worse or better.
pub(super) fn change(mc: &MetricChange) -> String {
    let Some(delta) = mc.delta else {
        return if mc.movement == Movement::NotComparable { "not comparable".into() } else { "—".into() };
    };
    let shown = figures::delta(delta);
    let arrow = if shown == "+0.000" {
        ""
    } else if delta > 0.0 {
        "▲ "
    } else {
        "▼ "
    };
    let mark = match mc.movement {
        Movement::Regressed => " 🔴 worse",
        Movement::WithinTolerance => " 🟡 worse, within tolerance",
        Movement::Improved => " 🟢 better",
        Movement::NotComparable => " not comparable",
        Movement::Unchanged | Movement::Changed => "",
    };
    if arrow.is_empty() && mark.is_empty() {
        return "unchanged".into();
    }
    format!("{arrow}{shown}{mark}")
}

/// The chart's size and colours (bars blue, the baseline's line dark grey),
/// as a Mermaid directive GitHub honours.
const CHART_STYLE: &str = "%%{init: {\"xyChart\": {\"width\": 640, \"height\": 280}, \
    \"themeVariables\": {\"xyChart\": {\"plotColorPalette\": \"#54aeff, #59636e\"}}}}%%";

/// A Mermaid bar chart of the suite means (GitHub draws it): bars for this
/// run, a line for the baseline. Labels are the tool's own, values figures.
fn chart(figures: &[(&str, f64, f64)]) -> String {
    let labels: Vec<String> = figures.iter().map(|(name, _, _)| format!("\"{name}\"")).collect();
    let values = |pick: fn(&(&str, f64, f64)) -> f64| -> String {
        figures.iter().map(|f| crate::report::figures::fixed(pick(f), 3, false)).collect::<Vec<_>>().join(", ")
    };
    format!(
        "```mermaid\n{CHART_STYLE}\nxychart-beta\n    title \"Suite means: bars this run, line the baseline\"\n    \
         x-axis [{}]\n    y-axis 0 --> 1\n    bar [{}]\n    line [{}]\n```\n\n",
        labels.join(", "),
        values(|f| f.2),
        values(|f| f.1)
    )
}

/// The gate's rules. Each violated rule (`fail` first, then advisory) with
/// what it demands and what violated it, each scenario linked to its file
/// and line; then, on one line, the rules that hold.
pub(super) fn rules(report: &Report, links: &Links, doc: &mut Doc) {
    let rules = &report.gate.rules;
    let violated: Vec<&RuleOutcome> = rules
        .iter()
        .filter(|r| r.fails())
        .chain(rules.iter().filter(|r| r.violated && r.mode == RuleMode::Advisory))
        .collect();
    if !violated.is_empty() {
        doc.push(if report.gate.passed { "### Advisory rules violated\n\n" } else { "### What failed\n\n" });
        for r in violated {
            doc.item(Kind::Rule, &rule(report, r, links));
        }
        doc.push("\n");
    }
    let hold: Vec<String> =
        rules.iter().filter(|r| r.mode != RuleMode::Off && !r.violated).map(|r| code(r.rule.name())).collect();
    let off: Vec<String> = rules.iter().filter(|r| r.mode == RuleMode::Off).map(|r| code(r.rule.name())).collect();
    let mut line = if hold.len() == rules.len() {
        format!("✅ All {} hold: {}.", count(hold.len(), "rule"), hold.join(", "))
    } else if hold.is_empty() {
        String::new()
    } else {
        format!("Rules that hold: {}.", hold.join(", "))
    };
    if !off.is_empty() {
        line.push_str(&format!("{}Off: {}.", if line.is_empty() { "" } else { " " }, off.join(", ")));
    }
    if !line.is_empty() {
        doc.item(Kind::Rule, &format!("{line}\n\n"));
    }
}

/// One violated rule as a list item, its details as a nested list.
fn rule(report: &Report, r: &RuleOutcome, links: &Links) -> String {
    let (mark, mode) = if r.fails() { ("❌", "") } else { ("⚠️", " (advisory)") };
    // What is wrong (the rule's message); what the rule demands when there is none.
    let said = r.message.as_deref().unwrap_or(&r.description);
    let mut out = format!("- {mark} {}{mode}: {}\n", code(r.rule.name()), inline(said));
    if r.rule == Rule::SuiteMeans && report.comparison.is_some() {
        // Each figure is a row of the table of suite figures, marked there.
        out.push_str(&format!(
            "  - {} worse than the baseline beyond the tolerance: 🔴 in the suite figures\n",
            count(r.details.len(), "figure")
        ));
        return out;
    }
    let mut linked = false;
    for d in r.details.iter().take(RULE_DETAILS) {
        let line = match detail_scenario(report, d) {
            Some((s, rest)) => {
                linked = true;
                format!("{} ({}){}", code(&s.id), place(&s.source, links), plain(rest))
            }
            None => plain(d),
        };
        out.push_str(&format!("  - {line}\n"));
    }
    if r.details.len() > RULE_DETAILS {
        out.push_str(&format!("  - … and {} more\n", r.details.len() - RULE_DETAILS));
    }
    // The pass rate names no scenario on a line of its own: list the failing ones.
    if r.rule == Rule::PassRate && !linked {
        let failing: Vec<&ScenarioReport> = report.scenarios.iter().filter(|s| s.verdict == Verdict::Fail).collect();
        for s in failing.iter().take(RULE_DETAILS) {
            out.push_str(&format!("  - {} ({}): FAIL\n", code(&s.id), place(&s.source, links)));
        }
        if failing.len() > RULE_DETAILS {
            out.push_str(&format!("  - … and {} more\n", failing.len() - RULE_DETAILS));
        }
    }
    out
}

/// The scenario a rule's detail line is about (it starts with the id and a
/// `:`), and the rest of the line from that `:`.
fn detail_scenario<'r, 'd>(report: &'r Report, detail: &'d str) -> Option<(&'r ScenarioReport, &'d str)> {
    detail.match_indices(':').find_map(|(i, _)| report.scenario(&detail[..i]).map(|s| (s, &detail[i..])))
}

/// Free text of a rule's detail: [`inline`], with backticks as `'` (a
/// detail quoting a path would open a code span).
fn plain(text: &str) -> String {
    inline(text).replace('`', "'")
}

/// A scenario's `path:line` in Markdown: a link to the line when there are
/// links, else a code span.
fn place(source: &ScenarioSource, links: &Links) -> String {
    let text = code(&format!("{}:{}", source.path, source.line));
    match links.to(&source.path, source.line) {
        Some(url) => format!("[{text}]({url})"),
        None => text,
    }
}

/// A scenario's `path:line` inside HTML (a `<summary>`): an `<a>` element
/// when there are links, else text.
fn place_html(source: &ScenarioSource, links: &Links) -> String {
    let text = html(&printable(&format!("{}:{}", source.path, source.line)));
    match links.to(&source.path, source.line) {
        Some(url) => format!("<a href=\"{}\">{text}</a>", html(&url)),
        None => text,
    }
}

/// The verdicts by category: a table, or, when every scenario passed, one
/// line.
pub(super) fn categories(report: &Report, doc: &mut Doc) {
    let m = &report.summary;
    if let Some(b) = &m.benign {
        doc.item(
            Kind::Category,
            &format!(
                "Benign scenarios: {} ({} PASS, {} FALSE_POSITIVE, {} uncheckable); false-positive rate {}.\n\n",
                b.total,
                b.pass,
                b.false_positive,
                b.uncheckable,
                figure(b.false_positive_rate)
            ),
        );
    }
    let all = m.counts();
    if all.pass == all.total {
        let each: Vec<String> = m.by_category.iter().map(|(n, c)| format!("{} {}", inline(n), c.total)).collect();
        doc.item(
            Kind::Category,
            &format!(
                "Verdicts: all {} PASS{}.\n\n",
                all.total,
                if each.is_empty() { String::new() } else { format!(" ({})", each.join(", ")) }
            ),
        );
        return;
    }
    doc.push(
        "| category | total | PASS | FAIL | WEAK | WEAK_RETRIEVAL | MALFORMED |\n|---|---:|---:|---:|---:|---:|---:|\n",
    );
    let categories = m.by_category.iter().map(|(n, c)| (inline(n), c));
    for (name, c) in categories.chain([("**all**".to_string(), &all)]) {
        doc.item(
            Kind::Category,
            &format!(
                "| {} | {} | {} | {} | {} | {} | {} |\n",
                name, c.total, c.pass, c.fail, c.weak, c.weak_retrieval, c.malformed
            ),
        );
    }
    doc.push("\n");
}

/// A run-level warning and the scenarios that share it.
struct WarningGroup<'r> {
    /// The warning as written, when no other scenario shares it.
    text: &'r str,
    /// The warning without its scenario's id (from the space or `:` after
    /// it), or, for an expected or acceptable id, from the id on.
    key: &'r str,
    /// Scenarios that expect (or share a warning of another kind).
    expecting: Vec<&'r str>,
    /// Scenarios that accept.
    accepting: Vec<&'r str>,
    /// Whether the warning is about an expected or acceptable id.
    about_an_id: bool,
}

/// The warnings, one list item each; a warning that several scenarios share
/// (seven scenarios that expect or accept the same missing id) is one item
/// naming them.
pub(super) fn warnings(report: &Report, doc: &mut Doc) {
    if report.warnings.is_empty() {
        return;
    }
    // Which scenario wrote each warning that starts with its id.
    let mut owner: HashMap<&str, &str> = HashMap::new();
    for s in &report.scenarios {
        for w in &s.warnings {
            if w.starts_with(s.id.as_str()) && w[s.id.len()..].starts_with([' ', ':']) {
                owner.entry(w.as_str()).or_insert(s.id.as_str());
            }
        }
    }
    let mut groups: Vec<WarningGroup> = Vec::new();
    let mut index: HashMap<(bool, &str), usize> = HashMap::new();
    for w in &report.warnings {
        let Some(id) = owner.get(w.as_str()).copied() else {
            groups.push(WarningGroup {
                text: w,
                key: w,
                expecting: Vec::new(),
                accepting: Vec::new(),
                about_an_id: false,
            });
            continue;
        };
        let rest = &w[id.len()..];
        let (key, accepts, about_an_id) = match (rest.strip_prefix(" expects "), rest.strip_prefix(" accepts ")) {
            (Some(key), _) => (key, false, true),
            (_, Some(key)) => (key, true, true),
            _ => (rest, false, false),
        };
        let at = *index.entry((about_an_id, key)).or_insert_with(|| {
            groups.push(WarningGroup { text: w, key, expecting: Vec::new(), accepting: Vec::new(), about_an_id });
            groups.len() - 1
        });
        let group = &mut groups[at];
        if accepts {
            group.accepting.push(id);
        } else {
            group.expecting.push(id);
        }
    }
    doc.push(&format!("### ⚠️ Warnings ({})\n\n", groups.len()));
    for g in &groups {
        doc.item(Kind::Warning, &format!("- {}\n", warning(g)));
    }
    doc.push("\n");
}

fn warning(g: &WarningGroup) -> String {
    let n = g.expecting.len() + g.accepting.len();
    if n < 2 {
        return inline(g.text);
    }
    let names = |ids: &[&str]| {
        let mut shown: Vec<String> = ids.iter().take(WARNING_SCENARIOS).map(|id| code(id)).collect();
        if ids.len() > WARNING_SCENARIOS {
            shown.push(format!("… and {} more", ids.len() - WARNING_SCENARIOS));
        }
        shown.join(", ")
    };
    if !g.about_an_id {
        let rest = g.key.trim_start_matches([' ', ':']).trim_start();
        return format!("{} — {}: {}", inline(rest), count(n, "scenario"), names(&g.expecting));
    }
    let verb = match (g.expecting.is_empty(), g.accepting.is_empty()) {
        (false, false) => "expect or accept",
        (false, true) => "expect",
        _ => "accept",
    };
    let mut who = Vec::new();
    if !g.expecting.is_empty() {
        who.push(format!("expected by {}", names(&g.expecting)));
    }
    if !g.accepting.is_empty() {
        who.push(format!("accepted by {}", names(&g.accepting)));
    }
    format!("{} {verb} {}: {}", count(n, "scenario"), inline(g.key), who.join("; "))
}

pub(super) fn comparison(report: &Report, c: &Comparison, links: &Links, doc: &mut Doc) {
    let regressed = c.scenarios.iter().filter(|s| s.regressed).count();
    let improved = c.scenarios.iter().filter(|s| !s.regressed && s.baseline_verdict != s.current_verdict).count();
    let changed = c.scenarios.len() - regressed - improved;
    let mut counted = Vec::new();
    if regressed > 0 {
        counted.push(format!("{regressed} regressed"));
    }
    if improved > 0 {
        counted.push(format!("{improved} improved"));
    }
    if changed > 0 {
        counted.push(format!("{changed} with the same verdict and another ranking or context block"));
    }
    let mut out = format!(
        "### Compared with the baseline {}{}\n\nMemory file {}, suite {}. {}.\n\n",
        code(&c.baseline.path),
        c.baseline.revision.as_ref().map_or(String::new(), |r| format!(" at {}", code(r))),
        if c.memory_changed { "changed" } else { "unchanged" },
        if c.suite_changed { "changed" } else { "unchanged" },
        if c.scenarios.is_empty() {
            "No scenario changed its verdict, ranking or context block".to_string()
        } else {
            format!("{} changed: {}", count(c.scenarios.len(), "scenario"), counted.join(", "))
        }
    );
    if let Some(change) = &c.baseline_change {
        let by = change.accepted_by.as_deref().map_or(String::new(), |by| format!(", by {}", inline(by)));
        out.push_str(&if change.first_pin {
            format!(
                "> **This change pins the first baseline**: {} has none, so there are no goalposts to move; \
                 the run is compared with the baseline it pins.\n\n",
                code(&change.revision)
            )
        } else {
            format!(
                "> **This change re-pins the baseline** of {}: {} change{}.{}\n\n",
                code(&change.revision),
                count(change.scenarios.len(), "scenario"),
                if change.scenarios.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", inline(&change.scenarios.join(", ")))
                },
                if change.accepted { format!(" Accepted with `--accept-baseline-change`{by}.") } else { String::new() }
            )
        });
    }
    doc.item(Kind::Heading, &out);
    if let Some(st) = c.statistics.as_ref().filter(|st| st.changed()) {
        doc.item(Kind::Statistics, &statistics_section(st));
    }
    if !c.added.is_empty() {
        doc.item(Kind::List, &format!("New scenarios: {}\n\n", inline(&c.added.join(", "))));
    }
    if !c.removed.is_empty() {
        doc.item(Kind::List, &format!("Baseline scenarios not in this run: {}\n\n", inline(&c.removed.join(", "))));
    }
    // Regressions first, then improvements, then the rest; by id within each.
    let mut order: Vec<&ScenarioChange> = c.scenarios.iter().collect();
    order.sort_by_key(|s| (!s.regressed, s.baseline_verdict == s.current_verdict));
    for s in order {
        doc.item(Kind::Changed, &changed_scenario(report, s, links));
    }
}

/// Whether the changes are larger than the noise of the suite (shown when
/// a retrieval figure or a verdict moved).
fn statistics_section(st: &ComparisonStatistics) -> String {
    let mut out = format!(
        "#### Is the change larger than the noise?\n\n{} in both runs, paired (seed {}).\n\n\
         | figure | wins | losses | ties | mean change | 95% CI | p | reading |\n\
         |---|--:|--:|--:|--:|---|--:|---|\n",
        count(st.paired, "scenario"),
        st.seed
    );
    for f in &st.figures {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {}{} |\n",
            code(&f.name),
            f.wins,
            f.losses,
            f.ties,
            statistics::mean_change(f),
            statistics::interval(f),
            statistics::p_value(f.p_value, f.exact),
            if f.too_small { "⚠️ " } else { "" },
            statistics::reading(f)
        ));
    }
    out.push('\n');
    out.push_str(&statistics::detectable(st));
    for line in [statistics::verdicts(st), statistics::pass_rates(st)].into_iter().flatten() {
        out.push(' ');
        out.push_str(&line);
    }
    out.push_str("\n\n");
    if let Some(w) = statistics::warning(st) {
        let mut w = w;
        w[..1].make_ascii_uppercase();
        out.push_str(&format!("⚠️ {w}\n\n"));
    }
    out
}

/// One changed scenario, folded: the `<summary>` (plain HTML: Markdown is
/// not processed there) says how its verdict moved and where it is written.
pub(super) fn changed_scenario(report: &Report, s: &ScenarioChange, links: &Links) -> String {
    let verdict = if s.baseline_verdict == s.current_verdict {
        format!("{} (unchanged)", s.current_verdict)
    } else if s.regressed {
        format!("{} → <b>{}</b> (regressed)", s.baseline_verdict, s.current_verdict)
    } else {
        format!("{} → <b>{}</b> (improved)", s.baseline_verdict, s.current_verdict)
    };
    let mark = if s.baseline_verdict == s.current_verdict {
        ""
    } else if s.regressed {
        "❌ "
    } else {
        "✅ "
    };
    let current = report.scenario(&s.id);
    let place = current.map_or_else(|| html(&printable(&s.source)), |r| place_html(&r.source, links));
    let mut out =
        format!("<details><summary>{mark}<code>{}</code>: {verdict} · {place}</summary>\n\n", html(&printable(&s.id)));
    for d in &s.entered {
        out.push_str(&format!(
            "- entered: {} at rank {} (score {})\n",
            code(&d.id),
            d.current_rank.unwrap_or(0),
            d.current_score.map_or("—".into(), score)
        ));
    }
    for d in &s.left {
        let expected = current.is_some_and(|r| r.expected.contains(&d.id));
        out.push_str(&format!(
            "- left: {} (was rank {}, score {}){}\n",
            code(&d.id),
            d.baseline_rank.unwrap_or(0),
            d.baseline_score.map_or("—".into(), score),
            if expected { ", an expected decision" } else { "" }
        ));
    }
    for d in &s.moved {
        let (from, to) = (d.baseline_rank.unwrap_or(0), d.current_rank.unwrap_or(0));
        let rank = if from == to { format!("rank {to}") } else { format!("rank {from} → {to}") };
        let scores = (d.baseline_score.map(score), d.current_score.map(score));
        let scored = match scores {
            (Some(a), Some(b)) if a != b => format!("score {a} → {b}"),
            (_, Some(b)) => format!("score {b}"),
            (Some(a), None) => format!("score {a}"),
            (None, None) => String::new(),
        };
        let sep = if scored.is_empty() { "" } else { ", " };
        out.push_str(&format!("- moved: {} {rank}{sep}{scored}\n", code(&d.id)));
    }
    if !s.edited_decisions.is_empty() {
        out.push_str(&format!("- edited in this change: {}\n", inline(&s.edited_decisions.join(", "))));
    }
    if let Some(diff) = &s.context_diff {
        out.push_str(&format!("\n{}", diff_block(diff)));
    }
    out.push_str("\n</details>\n\n");
    out
}

pub(super) fn scenario(s: &ScenarioReport, links: &Links) -> String {
    let mut out = format!("#### {} {}\n\n", s.verdict, code(&s.id));
    out.push_str(&format!("{}\n\n", inline(&s.explanation)));
    out.push_str(&format!("- source: {}\n", place(&s.source, links)));
    out.push_str(&format!("- task: {}\n", inline(&s.task)));
    if let Some(f) = &s.edited_file {
        out.push_str(&format!("- edited file: {}\n", code(f)));
    }
    out.push_str(&format!("- expected: {}\n", ids(&s.expected)));
    let retrieved: Vec<String> = s.retrieved.iter().map(|r| format!("{} ({})", code(&r.id), score(r.score))).collect();
    out.push_str(&format!(
        "- retrieved: {}\n",
        if retrieved.is_empty() { "nothing".to_string() } else { retrieved.join(", ") }
    ));
    if !s.missing.is_empty() {
        out.push_str(&format!("- missing: {}\n", ids(&s.missing)));
    }
    for m in &s.why_not {
        out.push_str(&format!("- {}\n", super::misses::why_not(m)));
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
        items.iter().map(|i| code(i)).collect::<Vec<_>>().join(", ")
    }
}
