/*!
The `explain` command's output: a readable table (one row per record, most
relevant first) or JSON (`mneme-gate.explain/v1`). The explanation itself
is computed by [`crate::retrieval`]; this module only lays it out.
*/

use std::fmt::Write as _;

use comfy_table::{presets, Cell, CellAlignment, ContentArrangement, Table};
use serde::Serialize;

use crate::describe::printable;
use crate::profile::Milli;
use crate::retrieval::{ExplainedRecord, Explanation, ScopeCheck};

/// The JSON document (`mneme-gate.explain/v1`), with a final newline.
pub fn json(explanation: &Explanation) -> String {
    #[derive(Serialize)]
    struct Doc<'a> {
        schema: &'static str,
        #[serde(flatten)]
        explanation: &'a Explanation,
    }
    super::json::pretty(&Doc { schema: "mneme-gate.explain/v1", explanation })
}

/// The readable report: a header, then one row per record, most relevant
/// first (retrieved by rank, then by score and pool order, then the records
/// kept out of the pool).
pub fn text(e: &Explanation) -> String {
    let p = &e.profile;
    let w = &p.weights;
    let mut out = String::new();
    let _ = writeln!(out, "task:    {}", printable(e.task.trim()));
    let _ =
        writeln!(out, "file:    {}", e.file.as_deref().map_or("(none: scope globs are not checked)".into(), printable));
    let tokens = if e.query_tokens.is_empty() { "(none)".to_string() } else { list(&e.query_tokens, " ") };
    let _ = writeln!(out, "tokens:  {tokens}");
    let _ = writeln!(out, "profile: {}", p.describe());
    let _ = writeln!(
        out,
        "         weights title {} tags {} constraint {} anti_patterns {} content {}; tag_boost {}; min_score {}; k {}; min_token_len {}; stem {}",
        w.title, w.tags, w.constraint, w.anti_patterns, w.content, p.tag_boost, p.min_score, p.k, p.min_token_len, p.stem
    );
    let retrieved = if e.retrieved.is_empty() {
        format!("nothing ({})", printable(e.note.as_deref().unwrap_or("")))
    } else {
        list(&e.retrieved, ", ")
    };
    let _ = writeln!(out, "retrieved: {retrieved}\n");

    let key = |r: &ExplainedRecord| {
        (
            r.pool_order.is_none(),
            r.rank.unwrap_or(usize::MAX),
            std::cmp::Reverse(r.score.unwrap_or(Milli(i64::MIN))),
            r.pool_order,
        )
    };
    let mut order: Vec<usize> = (0..e.records.len()).collect();
    order.sort_by(|&a, &b| key(&e.records[a]).cmp(&key(&e.records[b])).then(a.cmp(&b)));
    let mut table = Table::new();
    table.load_preset(presets::ASCII_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Disabled);
    table.set_header(vec!["rank", "id", "pool", "score", "scope", "matches", "outcome"]);
    for r in order.into_iter().map(|i| &e.records[i]) {
        table.add_row(vec![
            Cell::new(r.rank.map(|x| x.to_string()).unwrap_or_default()).set_alignment(CellAlignment::Right),
            Cell::new(printable(&r.id)),
            Cell::new(r.pool_order.map(|x| x.to_string()).unwrap_or_else(|| "-".into()))
                .set_alignment(CellAlignment::Right),
            Cell::new(r.score.map(|s| s.to_string()).unwrap_or_default()).set_alignment(CellAlignment::Right),
            Cell::new(scope(&r.scope)),
            Cell::new(matches(r)),
            Cell::new(outcome(r)),
        ]);
    }
    for line in table.to_string().lines() {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Strings from the inputs, each made printable, joined by `separator`.
fn list(items: &[String], separator: &str) -> String {
    items.iter().map(|i| printable(i)).collect::<Vec<_>>().join(separator)
}

fn scope(check: &ScopeCheck) -> String {
    match check {
        ScopeCheck::Unscoped => "-".to_string(),
        ScopeCheck::NoPath => "not checked".to_string(),
        ScopeCheck::Matched { glob } => format!("matched {}", printable(glob)),
        ScopeCheck::OutOfScope => "out of scope".to_string(),
        ScopeCheck::NotInPool => String::new(),
    }
}

/// Each field's matched tokens and contribution, then the tag hits.
fn matches(r: &ExplainedRecord) -> String {
    let mut lines: Vec<String> = r
        .fields
        .iter()
        .map(|f| format!("{} {}×{} = {}: {}", f.field.name(), f.count, f.weight, f.contribution, list(&f.tokens, " ")))
        .collect();
    if !r.tag_hits.is_empty() {
        lines.push(format!("tag hits {} = {}: {}", r.tag_hits.len(), r.tag_boost, list(&r.tag_hits, ", ")));
    }
    if lines.is_empty() {
        "-".to_string()
    } else {
        lines.join("\n")
    }
}

fn outcome(r: &ExplainedRecord) -> String {
    match (&r.rank, &r.reason, &r.detail) {
        (Some(_), _, Some(detail)) => format!("retrieved\n{}", printable(detail)),
        (Some(_), _, None) => "retrieved".to_string(),
        (None, Some(reason), Some(detail)) => format!("{}\n{}", printable(reason), printable(detail)),
        (None, Some(reason), None) => printable(reason).into_owned(),
        (None, None, _) => String::new(),
    }
}
