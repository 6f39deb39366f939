/*!
`mneme-gate tune`'s output: the current figures, the candidates on the
whole suite, the cross-validation, and the recommendation with the
`retrieval:` block to paste, at 80 columns (or the terminal's width, when
narrower), or JSON (`mneme-gate.tune/v1`). The search is
[`crate::tune`]'s; this module only words it.
*/

use std::fmt::Write as _;

use serde::Serialize;

use super::layout;
use crate::tune::{Change, Fold, HeldOut, Means, Tuning};

const COLUMNS: usize = 80;

/// The JSON document (`mneme-gate.tune/v1`), with a final newline.
pub fn json(t: &Tuning) -> String {
    #[derive(Serialize)]
    struct Candidate<'a> {
        change: Option<Change>,
        #[serde(flatten)]
        means: &'a Means,
    }
    #[derive(Serialize)]
    struct FoldDoc<'a> {
        #[serde(flatten)]
        fold: &'a Fold,
        change: Option<Change>,
    }
    #[derive(Serialize)]
    struct Recommendation<'a> {
        change: Change,
        yaml: String,
        whole_suite: &'a Means,
    }
    #[derive(Serialize)]
    struct Doc<'a> {
        schema: &'static str,
        profile: &'a str,
        k: usize,
        folds: usize,
        seed: u64,
        scenarios: usize,
        governed: usize,
        controls: usize,
        current: &'a Means,
        candidates: Vec<Candidate<'a>>,
        best: Option<Change>,
        per_fold: Vec<FoldDoc<'a>>,
        held_out: &'a HeldOut,
        recommendation: Option<Recommendation<'a>>,
    }
    let change = |c: usize| t.candidates[c].change;
    let doc = Doc {
        schema: "mneme-gate.tune/v1",
        profile: &t.profile,
        k: t.k,
        folds: t.folds,
        seed: t.seed,
        scenarios: t.scenarios,
        governed: t.governed,
        controls: t.controls,
        current: &t.candidates[0].means,
        candidates: t.candidates.iter().map(|c| Candidate { change: c.change, means: &c.means }).collect(),
        best: change(t.best),
        per_fold: t.per_fold.iter().map(|f| FoldDoc { fold: f, change: change(f.selected) }).collect(),
        held_out: &t.held_out,
        recommendation: t.recommended.and_then(|r| {
            let c = change(r)?;
            Some(Recommendation { change: c, yaml: c.yaml(), whole_suite: &t.candidates[r].means })
        }),
    };
    super::json::pretty(&doc)
}

/// A signed change with three decimals (`+0.050`, `-0.125`, `0.000`).
fn signed(x: f64) -> String {
    let s = format!("{x:+.3}");
    match s.as_str() {
        "+0.000" | "-0.000" => "0.000".to_string(),
        _ => s,
    }
}

fn label(change: Option<Change>) -> String {
    change.map_or_else(|| "(current)".to_string(), |c| c.label())
}

/// The report for people.
pub fn text(t: &Tuning, width: Option<usize>) -> String {
    let columns = Some(width.map_or(COLUMNS, |c| c.min(COLUMNS)));
    let mut out = String::new();
    let say = |out: &mut String, text: String, hang: usize| {
        for piece in layout::wrap(&text, columns, hang) {
            let _ = writeln!(out, "{}", piece.trim_end());
        }
    };
    let k = t.k;
    let now = &t.candidates[0].means;
    say(
        &mut out,
        format!(
            "Tuning profile {} on {} scenarios ({} expect decisions, {} expect none), {} folds, seed {}.",
            t.profile, t.scenarios, t.governed, t.controls, t.folds, t.seed
        ),
        0,
    );
    // With k 1, recall@k is recall@1: said once.
    let at_1 = |m: &Means, change: Option<String>| match (k, change) {
        (1, _) => String::new(),
        (_, None) => format!(" recall@1 {:.3},", m.recall_at_1),
        (_, Some(c)) => format!(" recall@1 {:.3} ({c}),", m.recall_at_1),
    };
    say(
        &mut out,
        format!(
            "Current: recall@{k} {:.3},{} MRR {:.3}, {} control injection(s).",
            now.recall_at_k,
            at_1(now, None),
            now.mrr,
            now.control_injections
        ),
        0,
    );
    let _ = writeln!(out);
    say(&mut out, "Candidates on the whole suite (one setting changed; * the best):".to_string(), 0);
    let _ = writeln!(
        out,
        "  {:<29} {:>8} {:>7} {:>8} {:>6} {:>8}",
        "setting",
        format!("recall@{k}"),
        "change",
        "recall@1",
        "MRR",
        "controls"
    );
    for (c, cand) in t.candidates.iter().enumerate() {
        let m = &cand.means;
        let mark = if c == t.best { '*' } else { ' ' };
        let _ = writeln!(
            out,
            "{mark} {:<29} {:>8.3} {:>7} {:>8.3} {:>6.3} {:>8}",
            label(cand.change),
            m.recall_at_k,
            signed(m.recall_at_k - now.recall_at_k),
            m.recall_at_1,
            m.mrr,
            m.control_injections
        );
    }
    let _ = writeln!(out);
    say(
        &mut out,
        format!(
            "Cross-validation: per fold, the best candidate on the other folds and its recall@{k} change on the held-out scenarios:"
        ),
        0,
    );
    for (f, fold) in t.per_fold.iter().enumerate() {
        let _ = writeln!(
            out,
            "  fold {:<2} {:>4} scenarios  {:<29} {:>7}",
            f + 1,
            fold.scenarios,
            label(t.candidates[fold.selected].change),
            fold.gain.map_or("—".into(), signed)
        );
    }
    let h = &t.held_out;
    let interval = match h.interval {
        Some((low, high)) => format!("95% interval {} to {}", signed(low), signed(high)),
        None => "no interval".to_string(),
    };
    let p = if h.p_value < 0.001 { "p<0.001".to_string() } else { format!("p={:.3}", h.p_value) };
    say(
        &mut out,
        format!(
            "Held-out gain in recall@{k}: {} per scenario ({interval}, {p}; {} better, {} worse of {}).",
            h.gain.map_or("—".into(), signed),
            h.wins,
            h.losses,
            h.scenarios
        ),
        2,
    );
    let _ = writeln!(out);
    match t.recommended.and_then(|r| Some((r, t.candidates[r].change?))) {
        Some((r, change)) => {
            let m = &t.candidates[r].means;
            say(
                &mut out,
                format!(
                    "Recommended: {} from {} to {}. Under `retrieval:` of mneme-gate.yaml (keeping its other keys):",
                    change.key.key(),
                    change.from,
                    change.to
                ),
                2,
            );
            let _ = writeln!(out);
            for line in change.yaml().lines() {
                let _ = writeln!(out, "    {line}");
            }
            let _ = writeln!(out);
            say(
                &mut out,
                format!(
                    "On the whole suite: recall@{k} {:.3} ({}),{} MRR {:.3} ({}), control injections {} (was {}).",
                    m.recall_at_k,
                    signed(m.recall_at_k - now.recall_at_k),
                    at_1(m, Some(signed(m.recall_at_1 - now.recall_at_1))),
                    m.mrr,
                    signed(m.mrr - now.mrr),
                    m.control_injections,
                    now.control_injections
                ),
                2,
            );
        }
        None if t.best == 0 => say(
            &mut out,
            "No change recommended: no candidate does better than the current profile on the whole suite.".to_string(),
            2,
        ),
        None if (t.candidates[t.best].means.recall_at_k - now.recall_at_k).abs() <= 1e-12 => say(
            &mut out,
            format!(
                "No change recommended: {} is the best on the whole suite, but by recall@1, MRR or control injections only; its recall@{k} is the current one's, and only a held-out gain in recall@{k} is recommended.",
                label(t.candidates[t.best].change)
            ),
            2,
        ),
        None => say(
            &mut out,
            format!(
                "No change recommended: {} is the best on the whole suite, but the held-out gain is within the suite's noise (its 95% interval does not stay above 0).",
                label(t.candidates[t.best].change)
            ),
            2,
        ),
    }
    out
}
