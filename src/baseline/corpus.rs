//! The decision corpus between two revisions: decisions added, removed and
//! changed field by field, and which scenario changes they may explain.

use std::collections::{BTreeMap, BTreeSet};

use crate::memory::{Decision, Excluded};
use crate::report::comparison::{Comparison, DecisionEdit, DecisionRef, FieldEdit, MemoryDiff};
use crate::report::Report;

/// Compares the retrieval pools of two versions of the memory file, field
/// by field, by decision id.
pub fn memory_diff(
    revision: &str,
    old_pool: &[Decision],
    new_pool: &[Decision],
    new_excluded: &[Excluded],
) -> MemoryDiff {
    let old: BTreeMap<&str, &Decision> = old_pool.iter().map(|d| (d.id.as_str(), d)).collect();
    let new: BTreeMap<&str, &Decision> = new_pool.iter().map(|d| (d.id.as_str(), d)).collect();
    let added = new
        .iter()
        .filter(|(id, _)| !old.contains_key(*id))
        .map(|(id, d)| DecisionRef { id: id.to_string(), title: d.title.clone(), note: None })
        .collect();
    let removed = old
        .iter()
        .filter(|(id, _)| !new.contains_key(*id))
        .map(|(id, d)| DecisionRef {
            id: id.to_string(),
            title: d.title.clone(),
            note: new_excluded
                .iter()
                .find(|e| e.id == *id)
                .map(|e| format!("still in the file, kept out of the pool: {}", e.reason)),
        })
        .collect();
    let mut changed = Vec::new();
    for (id, now) in &new {
        let Some(then) = old.get(id) else { continue };
        let list = |v: &[String]| format!("[{}]", v.join(", "));
        let fields: [(&str, String, String); 8] = [
            ("title", then.title.clone(), now.title.clone()),
            ("tags", list(&then.tags), list(&now.tags)),
            ("constraint", list(&then.constraint), list(&now.constraint)),
            ("anti_patterns", list(&then.anti_patterns), list(&now.anti_patterns)),
            ("content", then.content.clone(), now.content.clone()),
            ("scope", list(&then.paths), list(&now.paths)),
            ("status", then.status().unwrap_or_default().to_string(), now.status().unwrap_or_default().to_string()),
            ("kind", then.kind.to_string(), now.kind.to_string()),
        ];
        let fields: Vec<FieldEdit> = fields
            .into_iter()
            .filter(|(_, a, b)| a != b)
            .map(|(f, a, b)| FieldEdit { field: f.to_string(), before: a, after: b })
            .collect();
        if !fields.is_empty() {
            changed.push(DecisionEdit { id: id.to_string(), title: now.title.clone(), fields });
        }
    }
    MemoryDiff { revision: revision.to_string(), added, removed, changed }
}

/// Marks, in each scenario change, the decisions the memory diff touched.
pub fn attribute(comparison: &mut Comparison, diff: &MemoryDiff, baseline: &Report, current: &Report) {
    let touched = diff.ids();
    for change in &mut comparison.scenarios {
        let mut ids: BTreeSet<&str> = BTreeSet::new();
        for report in [baseline, current] {
            if let Some(s) = report.scenario(&change.id) {
                ids.extend(s.retrieved.iter().map(|r| r.id.as_str()));
                ids.extend(s.expected.iter().map(String::as_str));
            }
        }
        change.edited_decisions = ids.into_iter().filter(|id| touched.contains(id)).map(str::to_string).collect();
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::memory::Memory;
    use crate::profile::Family;

    fn memory(text: &str) -> Memory {
        Memory::parse(Path::new("m.json"), text.to_string(), Family::Default)
    }

    #[test]
    fn decisions_are_compared_by_id_and_field_by_field() {
        let old = memory(
            r#"[{"id": "A", "type": "rule", "title": "same"},
                {"id": "B", "type": "rule", "title": "before", "tags": ["x"]},
                {"id": "C", "type": "rule", "title": "retired later"},
                {"id": "E", "type": "rule", "title": "deleted"}]"#,
        );
        let new = memory(
            r#"[{"id": "A", "type": "rule", "title": "same"},
                {"id": "B", "type": "rule", "title": "after", "tags": ["x", "y"]},
                {"id": "C", "type": "rule", "title": "retired later", "status": "superseded"},
                {"id": "D", "type": "rule", "title": "new"}]"#,
        );
        let diff = memory_diff("main", &old.pool, &new.pool, &new.excluded);
        assert_eq!(diff.added.iter().map(|d| d.id.as_str()).collect::<Vec<_>>(), ["D"]);
        let removed: Vec<_> = diff.removed.iter().map(|d| (d.id.as_str(), d.note.is_some())).collect();
        assert_eq!(removed, [("C", true), ("E", false)], "C is still in the file, E is gone");
        assert!(diff.removed[0].note.as_deref().unwrap().starts_with("still in the file, kept out of the pool: "));
        assert_eq!(diff.changed.len(), 1);
        let fields: Vec<_> =
            diff.changed[0].fields.iter().map(|f| (f.field.as_str(), f.before.as_str(), f.after.as_str())).collect();
        assert_eq!(fields, [("title", "before", "after"), ("tags", "[x]", "[x, y]")]);
        assert_eq!(diff.ids().into_iter().collect::<Vec<_>>(), ["B", "C", "D", "E"]);
        assert!(memory_diff("main", &old.pool, &old.pool, &[]).is_empty());
    }
}
