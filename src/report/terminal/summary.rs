//! The suite summary of the terminal report and the gate's rules, each rule
//! with its outcome and its first details.

use comfy_table::{Cell, CellAlignment};

use super::changes::{comparison_into, memory_diff_into, Sides};
use super::{figure, table, Out, Style, GREEN, RED, YELLOW};
use crate::describe::printable;
use crate::gate::{GateOutcome, RuleMode};
use crate::report::figures;
use crate::report::Report;

pub(super) fn summary(report: &Report, out: &mut Out) {
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
            m.pass_rate.map_or("—".into(), |_| figures::ratio(m.pass, m.pass + m.fail, Some(1.0))),
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

/// Details shown per rule (the scenario list above has them all).
const RULE_DETAILS: usize = 5;
