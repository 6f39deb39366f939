//! The compatibility snapshot (Mneme's `verify_compatibility_snapshot`):
//! `decisions[]` must hold exactly the projection, row by row.

use std::path::Path;

use super::paths::{parent_of, resolve};
use super::values::{is_object, member, require_list};
use super::{fail, Checked, IndexError, Projected, RuntimeRule};
use crate::memory::located_json::{Node, Value};

/// The first field in which row `index` of `decisions[]` differs from the
/// projected decision, or `None` when they are equal as Python compares
/// Mneme's runtime decisions.
fn row_difference(row: &Node, p: &Projected, memory_path: &Path) -> Checked<Option<&'static str>> {
    if !is_object(row) {
        return fail(row, "decisions[] must hold decision records (objects)".into());
    }
    let text = |key: &str, default: &str, want: &str| match member(row, key) {
        None => default == want,
        Some(n) => n.as_str() == Some(want),
    };
    let list = |key: &str, want: &[String]| match member(row, key).map(|n| &n.value) {
        None => want.is_empty(),
        Some(Value::Array(items)) => {
            items.len() == want.len() && items.iter().zip(want).all(|(i, w)| i.as_str() == Some(w))
        }
        Some(_) => false,
    };
    let Some(id) = member(row, "id") else { return fail(row, "a decision record has no `id`".into()) };
    let Some(_) = member(row, "decision") else { return fail(row, "a decision record has no `decision`".into()) };
    let checks: [(&'static str, bool); 10] = [
        ("id", id.as_str() == Some(p.id.as_str())),
        ("decision", text("decision", "\u{0}", &p.decision)),
        ("rationale", text("rationale", "", &p.rationale)),
        ("scope", list("scope", &p.scope)),
        ("constraints", list("constraints", &p.constraints)),
        ("anti_patterns", list("anti_patterns", &p.anti_patterns)),
        ("created_at", text("created_at", "", &p.created_at)),
        ("updated_at", text("updated_at", "", &p.updated_at)),
        ("rules", row_rules(row).as_deref() == Some(p.rules.as_slice())),
        ("test_evidence", row_test_evidence(row)? == p.test_evidence),
    ];
    if let Some((field, _)) = checks.iter().find(|(_, same)| !same) {
        return Ok(Some(field));
    }
    if row_source_path(row, &p.id, memory_path) != p.source_path {
        return Ok(Some("source"));
    }
    if !text("status", "active", "active") {
        return Ok(Some("status"));
    }
    Ok(None)
}

/// The typed rules of a row, or `None` when they are not all well-formed
/// (the loader reports those).
fn row_rules(row: &Node) -> Option<Vec<RuntimeRule>> {
    let Some(node) = member(row, "rules") else { return Some(Vec::new()) };
    let Value::Array(items) = &node.value else { return None };
    items
        .iter()
        .map(|r| {
            let kind = member(r, "type")?.as_str()?.to_string();
            let value = member(r, "value")?.as_str()?.to_string();
            let strings = |n: &Node| match &n.value {
                Value::Array(i) => i.iter().map(|s| s.as_str().map(str::to_string)).collect::<Option<Vec<_>>>(),
                _ => None,
            };
            let include = match member(r, "include_paths") {
                None => None,
                Some(n) => Some(strings(n)?),
            };
            let exclude = match member(r, "exclude_paths") {
                None => Vec::new(),
                Some(n) => strings(n)?,
            };
            Some(RuntimeRule { kind, value, include, exclude })
        })
        .collect()
}

/// `[e for e in (record.get("test_evidence") or []) if isinstance(e, dict)]`,
/// as `(key, string value)` pairs; an entry holding a value that is not a
/// string can never equal a projected one and is kept as a non-match.
fn row_test_evidence(row: &Node) -> Checked<Vec<Vec<(String, String)>>> {
    let Some(node) = member(row, "test_evidence") else { return Ok(Vec::new()) };
    match &node.value {
        Value::Array(items) => Ok(items
            .iter()
            .filter_map(|e| match &e.value {
                Value::Object(members) => {
                    let mut keys: Vec<&str> = members.iter().map(|m| m.key.as_str()).collect();
                    keys.sort_unstable();
                    keys.dedup();
                    let mut entry: Vec<(String, String)> = keys
                        .into_iter()
                        .map(|k| {
                            (k.to_string(), e.get(k).and_then(Node::as_str).map_or("\u{0}".into(), str::to_string))
                        })
                        .collect();
                    // Projected entries are `selector` then `sha`.
                    entry.sort_by_key(|(k, _)| (k != "selector", k.clone()));
                    Some(entry)
                }
                _ => None,
            })
            .collect()),
        Value::Null | Value::String(_) | Value::Object(_) | Value::Bool(false) => Ok(Vec::new()),
        Value::Number(n) if n.trim_start_matches('-').chars().all(|c| c == '0' || c == '.') => Ok(Vec::new()),
        _ => fail(node, "decision_index: `test_evidence` of a decision record must be a list".into()),
    }
}

/// `_resolved_adr_source_path`: an `adr` source whose file is named after the
/// decision, resolved against the memory file's folder.
pub(super) fn row_source_path(row: &Node, id: &str, memory_path: &Path) -> String {
    let Some(source) = member(row, "source").filter(|s| is_object(s)) else { return String::new() };
    if member(source, "type").and_then(Node::as_str) != Some("adr") {
        return String::new();
    }
    let Some(raw) = member(source, "path").and_then(Node::as_str).filter(|p| !p.is_empty()) else {
        return String::new();
    };
    let name = python_path_name(raw);
    let suffix = match name.rfind('.') {
        Some(i) if i > 0 && i < name.len() - 1 => &name[i..],
        _ => "",
    };
    let named = name == format!("{id}.md") || name.starts_with(&format!("{id}-"));
    if !suffix.eq_ignore_ascii_case(".md") || !named {
        return String::new();
    }
    resolve(&parent_of(memory_path).join(raw)).to_string_lossy().into_owned()
}

/// `PurePosixPath(p).name`: the last component, `.` components dropped.
pub(super) fn python_path_name(p: &str) -> &str {
    p.split('/').rfind(|c| !c.is_empty() && *c != ".").filter(|_| p != "/").unwrap_or("")
}

pub(super) fn verify_snapshot(
    section: &Node,
    decisions: Option<&Node>,
    projected: &[Projected],
    memory_path: &Path,
) -> Checked<()> {
    let rows: &[Node] = match decisions {
        None => &[],
        Some(n) => require_list(section, Some(n), "decisions")?,
    };
    let diverges = |node: &Node, what: String| {
        fail(
            node,
            format!(
                "decisions[] diverges from the decision_index: {what}; decisions[] must be the index's active \
                 decisions exactly (rebuild it with Mneme, or remove the decision_index)"
            ),
        )
    };
    for (i, (row, p)) in rows.iter().zip(projected).enumerate() {
        let named = |mut e: IndexError| {
            e.record = member(row, "id").and_then(Node::as_str).map(str::to_string);
            e
        };
        if let Some(field) = row_difference(row, p, memory_path).map_err(named)? {
            let e = diverges(row, format!("decisions[{i}] differs from active decision {:?} in `{field}`", p.id));
            return e.map_err(named);
        }
    }
    if rows.len() != projected.len() {
        let at = decisions.unwrap_or(section);
        return diverges(
            at,
            format!("decisions[] holds {} record(s), the index {} active decision(s)", rows.len(), projected.len()),
        );
    }
    Ok(())
}
