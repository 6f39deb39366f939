/*!
The `validate` command's findings: one line per diagnostic and per record
kept out of the pool, then a summary line; or JSON (`mneme-gate.validate/v1`).
Finding the problems is [`crate::memory`]'s work; this module only words them.
*/

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use crate::describe::printable;
use crate::memory::{is_inactive, Diagnostic, Excluded, Memory, Severity};

/// What `validate` found in one memory file.
pub struct Findings<'a> {
    pub path: &'a Path,
    pub profile: &'static str,
    pub memory: &'a Memory,
    /// The configured suite's scenarios waiting for review (`review:
    /// pending`) and all of them; `None` when none waits (or no suite was
    /// read).
    pub review: Option<(usize, usize)>,
}

impl Findings<'_> {
    pub fn errors(&self) -> usize {
        self.memory.diagnostics.iter().filter(|d| d.severity == Severity::Error).count()
    }

    pub fn warnings(&self) -> usize {
        self.memory.diagnostics.len() - self.errors()
    }
}

#[derive(Serialize)]
struct ValidateJson<'a> {
    schema: &'static str,
    memory: String,
    profile: &'static str,
    records: usize,
    pool: usize,
    errors: usize,
    warnings: usize,
    diagnostics: &'a [Diagnostic],
    excluded: &'a [Excluded],
    /// Profile `mneme`: pool records whose status is inactive (Mneme ignores
    /// status, so they are retrieved).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    inactive_in_pool: Vec<InactiveInPool<'a>>,
    /// Profile `mneme`: the pool is decisions[], verified against the file's
    /// persisted `decision_index`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    decision_index: bool,
    /// The configured suite: its scenarios and how many wait for review;
    /// absent when none waits.
    #[serde(skip_serializing_if = "Option::is_none")]
    suite: Option<SuiteReview>,
}

#[derive(Serialize)]
struct SuiteReview {
    scenarios: usize,
    review_pending: usize,
}

#[derive(Serialize)]
struct InactiveInPool<'a> {
    id: &'a str,
    /// The file, for a memory read from a list of sources.
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    line: usize,
    column: usize,
    status: &'a str,
}

/// Pool records that carry an inactive status: only profile `mneme` keeps
/// them in the pool.
fn inactive_in_pool(memory: &Memory) -> Vec<InactiveInPool<'_>> {
    memory
        .pool
        .iter()
        .filter_map(|d| {
            let status = d.status().filter(|s| is_inactive(s))?;
            let (file, line, column) = memory.place(d);
            let file = memory.from_sources().then_some(file);
            Some(InactiveInPool { id: &d.id, file, line, column, status })
        })
        .collect()
}

/// The JSON document, with a final newline.
pub fn json(f: &Findings<'_>) -> String {
    super::json::pretty(&ValidateJson {
        schema: "mneme-gate.validate/v1",
        memory: f.path.display().to_string(),
        profile: f.profile,
        records: f.memory.records,
        pool: f.memory.pool.len(),
        errors: f.errors(),
        warnings: f.warnings(),
        diagnostics: &f.memory.diagnostics,
        excluded: &f.memory.excluded,
        inactive_in_pool: inactive_in_pool(f.memory),
        decision_index: f.memory.decision_index,
        suite: f.review.map(|(review_pending, scenarios)| SuiteReview { scenarios, review_pending }),
    })
}

/// The readable findings, each `path:line:column: ...`, and a summary line.
/// Each finding is one line: a control character in a quoted id, glob or
/// message is shown escaped ([`printable`]).
pub fn text(f: &Findings<'_>) -> String {
    let path = f.path.display().to_string();
    let path = printable(&path);
    let memory = f.memory;
    let mut t = String::new();
    for d in &memory.diagnostics {
        let _ = writeln!(t, "{}", printable(&d.render(f.path)));
    }
    for ex in &memory.excluded {
        let _ = writeln!(
            t,
            "{}: note: \"{}\" ({}) is kept out of the pool: {}",
            printable(&ex.place(&path)),
            printable(&ex.id),
            printable(&ex.kind.to_string()),
            printable(&ex.reason.to_string())
        );
    }
    // Every record read is in the pool, kept out, or unusable for its
    // errors; the counts add up.
    let unusable = memory.records.saturating_sub(memory.pool.len() + memory.excluded.len());
    for r in inactive_in_pool(memory) {
        let _ = writeln!(
            t,
            "{}:{}:{}: note: \"{}\" is in the pool although its status `{}` is inactive: profile mneme ignores status, as Mneme 0.10.0 does",
            r.file.as_deref().map_or(path.clone(), printable),
            r.line,
            r.column,
            printable(r.id),
            printable(r.status)
        );
    }
    if memory.decision_index {
        let _ = writeln!(
            t,
            "{path}: note: the pool is decisions[], verified against the file's decision_index (Mneme 0.10.0 reads decisions from it and migrates no item)"
        );
    }
    let _ = writeln!(
        t,
        "{path}: {} record(s), {} in the retrieval pool (profile {}), {} kept out{}; {} error(s), {} warning(s)",
        memory.records,
        memory.pool.len(),
        f.profile,
        memory.excluded.len(),
        if unusable > 0 { format!(", {unusable} unusable (errors)") } else { String::new() },
        f.errors(),
        f.warnings()
    );
    if let Some((pending, total)) = f.review {
        let _ = writeln!(
            t,
            "suite: {pending} of {total} scenario(s) wait for review (`review: pending`): the gate does not count them until a person reviews each one and deletes the marker"
        );
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::Family;

    fn findings_text(json: &str) -> (Memory, String) {
        let path = Path::new("m.json");
        let memory = Memory::parse(path, json.to_string(), Family::Default);
        let text = text(&Findings { path, profile: "default", memory: &memory, review: None });
        (memory, text)
    }

    #[test]
    fn every_record_read_is_counted_and_the_counts_add_up() {
        let (memory, text) = findings_text(
            "{\"decisions\": [\n {\"id\": \"A\", \"decision\": \"one\"},\n {\"id\": \"B\", \"decision\": \"two\" \"x\": 1},\n              {\"id\": \"C\", \"decision\": \"three\", \"status\": \"retired\"},\n {\"id\": \"D\", \"decision\": \"four\",}\n],\n\
             \"items\": [{\"id\": \"E\", \"type\": \"rule\", \"title\": \"t\"}, 7]}",
        );
        assert_eq!(memory.records, 6, "{text}");
        assert!(
            text.ends_with(
                "m.json: 6 record(s), 2 in the retrieval pool (profile default), 1 kept out, 3 unusable (errors); \
                 3 error(s), 0 warning(s)\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn an_id_shared_with_a_record_that_has_errors_is_a_duplicate() {
        let (_, text) = findings_text(
            "{\"decisions\": [\n {\"id\": \"A\", \"decision\": 5},\n {\"id\": \"A\", \"decision\": \"second\"},\n              {\"id\": \"B\", \"decision\": \"ok\"},\n {\"id\": \"B\", \"decision\": []}\n]}",
        );
        assert!(
            text.contains(
                "m.json:3:2: warning: duplicate id \"A\": the record at line 2 (which has errors) has it too; give each \
                 record a unique id (record \"A\")"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "m.json:5:2: warning: duplicate id \"B\": the record at line 4 has it too; give each record a unique id"
            ),
            "{text}"
        );
        assert!(text.contains(", 2 unusable (errors); 2 error(s), 2 warning(s)"), "{text}");
    }
}
