/*!
The `explain` command's output: a readable table (one row per record, most
relevant first) or JSON (`mneme-gate.explain/v1`). The explanation itself
is computed by [`crate::retrieval`]; this module only lays it out.

With a width (a terminal, or `COLUMNS`) and a table wider than it, the
layout is compact: four columns, with the pool order, the scope check, the
matches and the outcome of a record stacked in the last one, arranged by
comfy-table to the width; the header lines wrap. Without a width (a file, a
pipe) the full table is written whatever its width.
*/

use std::fmt::Write as _;

use comfy_table::{presets, Cell, CellAlignment, ContentArrangement, Table};
use serde::Serialize;

use super::layout;
use crate::describe::printable;
use crate::profile::Milli;
use crate::retrieval::{ExplainedRecord, Explanation, ScopeCheck};

/// The name and version of the explain document's schema.
#[derive(Debug, Clone, Copy, Serialize, schemars::JsonSchema)]
pub enum ExplainSchema {
    #[serde(rename = "mneme-gate.explain/v1")]
    V1,
}

/// The explain document: its schema's name, then the explanation's fields.
/// Written with a borrowed explanation; its JSON Schema is that of
/// `ExplainDocument<Explanation>` (the MCP server's `memory_explain`
/// declares it as its output schema).
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ExplainDocument<E> {
    pub schema: ExplainSchema,
    #[serde(flatten)]
    pub explanation: E,
}

/// The JSON document (`mneme-gate.explain/v1`), with a final newline.
pub fn json(explanation: &Explanation) -> String {
    super::json::pretty(&ExplainDocument { schema: ExplainSchema::V1, explanation })
}

/// The readable report: a header, then one row per record, most relevant
/// first (retrieved by rank, then by score and pool order, then the records
/// kept out of the pool), laid out to `width` when there is one.
pub fn text(e: &Explanation, width: Option<usize>) -> String {
    let p = &e.profile;
    let w = &p.weights;
    let mut out = String::new();
    let mut line = |text: String, hang: usize| {
        for piece in layout::wrap(&text, width, hang) {
            let _ = writeln!(out, "{piece}");
        }
    };
    line(format!("task:    {}", printable(e.task.trim())), 9);
    line(format!("file:    {}", e.file.as_deref().map_or("(none: scope globs are not checked)".into(), printable)), 9);
    let tokens = if e.query_tokens.is_empty() { "(none)".to_string() } else { list(&e.query_tokens, " ") };
    line(format!("tokens:  {tokens}"), 9);
    line(format!("profile: {}", p.describe()), 9);
    line(
        format!(
            "         weights title {} tags {} constraint {} anti_patterns {} content {}; tag_boost {}; min_score {}; k {}; min_token_len {}; stem {}",
            w.title, w.tags, w.constraint, w.anti_patterns, w.content, p.tag_boost, p.min_score, p.k, p.min_token_len, p.stem
        ),
        0,
    );
    if let Some(b) = &p.bm25f {
        let sw = &b.sections;
        line(
            format!(
                "         sections summary {} decision {} context {} options {} consequences {}; bm25f k1 {} b {}; path_weight {} path_max_df {}; skip_chores {}",
                sw.summary, sw.decision, sw.context, sw.options, sw.consequences, b.k1, b.b, b.path_weight, b.path_max_df, b.skip_chores
            ),
            0,
        );
        let used = if e.path_tokens.is_empty() { "(none)".to_string() } else { list(&e.path_tokens, " ") };
        line(format!("path tokens scored: {used}"), 9);
        if !e.task_verbs.is_empty() {
            line(format!("task verbs, not scored: {}", list(&e.task_verbs, " ")), 9);
        }
        if !e.task_labels.is_empty() {
            line(format!("label and credit, not scored: {}", list(&e.task_labels, " ")), 9);
        }
    }
    let retrieved = if e.retrieved.is_empty() {
        format!("nothing ({})", printable(e.note.as_deref().unwrap_or("")))
    } else {
        list(&e.retrieved, ", ")
    };
    line(format!("retrieved: {retrieved}"), 11);
    out.push('\n');

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
    let records: Vec<&ExplainedRecord> = order.into_iter().map(|i| &e.records[i]).collect();
    let full = full_table(&records);
    let table = match width {
        Some(w) if full.lines().any(|l| layout::width(l) > w) => compact_table(&records, w),
        _ => full,
    };
    for line in table.lines() {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// One column per part of the explanation (and, for a memory read from
/// sources, where each record is).
fn full_table(records: &[&ExplainedRecord]) -> String {
    let mut table = Table::new();
    table.load_preset(presets::ASCII_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Disabled);
    let sourced = records.iter().any(|r| r.source.is_some());
    let mut header = vec!["rank", "id", "pool", "score", "scope", "matches", "outcome"];
    if sourced {
        header.insert(2, "source");
    }
    table.set_header(header);
    for r in records {
        let mut row = vec![
            Cell::new(r.rank.map(|x| x.to_string()).unwrap_or_default()).set_alignment(CellAlignment::Right),
            Cell::new(printable(&r.id)),
            Cell::new(r.pool_order.map(|x| x.to_string()).unwrap_or_else(|| "-".into()))
                .set_alignment(CellAlignment::Right),
            Cell::new(r.score.map(|s| s.to_string()).unwrap_or_default()).set_alignment(CellAlignment::Right),
            Cell::new(scope(&r.scope)),
            Cell::new(matches(r)),
            Cell::new(outcome(r)),
        ];
        if sourced {
            row.insert(2, Cell::new(r.source.as_deref().map(printable).unwrap_or_default()));
        }
        table.add_row(row);
    }
    table.to_string()
}

/// Four columns for a narrow terminal: rank, id and score, then the pool
/// order, the scope check, the matches and the outcome stacked in one.
fn compact_table(records: &[&ExplainedRecord], width: usize) -> String {
    let mut table = Table::new();
    table
        .load_preset(presets::ASCII_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(u16::try_from(width).unwrap_or(u16::MAX));
    table.set_header(vec!["rank", "id", "score", "pool, scope, matches, outcome"]);
    for r in records {
        let place = match (r.pool_order, &r.scope) {
            (None, _) => "not in the pool".to_string(),
            (Some(n), ScopeCheck::Unscoped) => format!("pool {n}, unscoped"),
            (Some(n), ScopeCheck::NoPath) => format!("pool {n}, scope not checked"),
            (Some(n), check) => format!("pool {n}, {}", scope(check)),
        };
        let mut why = vec![place];
        if let Some(source) = &r.source {
            why.insert(0, printable(source).into_owned());
        }
        if !r.fields.is_empty() || !r.terms.is_empty() || !r.tag_hits.is_empty() {
            why.push(matches(r));
        }
        why.push(outcome(r));
        why.retain(|l| !l.is_empty());
        table.add_row(vec![
            Cell::new(r.rank.map(|x| x.to_string()).unwrap_or_default()).set_alignment(CellAlignment::Right),
            Cell::new(printable(&r.id)),
            Cell::new(r.score.map(|s| s.to_string()).unwrap_or_default()).set_alignment(CellAlignment::Right),
            Cell::new(why.join("\n")),
        ]);
    }
    table.to_string()
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
    for t in &r.terms {
        let fields: Vec<String> = t
            .fields
            .iter()
            .map(|f| format!("{} {}/{} (len {} of {})", f.field.name(), f.weight, f.norm, f.len, f.total))
            .collect();
        let path = if t.from_path { " (path, × path_weight)" } else { "" };
        let outvoted = match &t.outvoted_by {
            Some(best) => format!(", not counted: its path word counts once, by {}", printable(best)),
            None => String::new(),
        };
        lines.push(format!(
            "{}{path}: idf {} (df {} of {}) × sat {} (x {} = {}) = {}{outvoted}",
            printable(&t.token),
            t.idf,
            t.df,
            t.n,
            t.saturated,
            t.x,
            fields.join(" + "),
            t.contribution
        ));
    }
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
