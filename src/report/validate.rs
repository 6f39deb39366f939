/*!
The `validate` command's findings: one line per diagnostic and per record
kept out of the pool, then a summary line; or JSON (`mneme-gate.validate/v1`).
Finding the problems is [`crate::memory`]'s work; this module only words them.
*/

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use crate::describe::printable;
use crate::memory::{Diagnostic, Excluded, Memory, Severity};

/// What `validate` found in one memory file.
pub struct Findings<'a> {
    pub path: &'a Path,
    pub profile: &'static str,
    pub memory: &'a Memory,
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
            "{path}:{}:{}: note: \"{}\" ({}) is kept out of the pool: {}",
            ex.line,
            ex.column,
            printable(&ex.id),
            printable(&ex.kind.to_string()),
            printable(&ex.reason.to_string())
        );
    }
    let _ = writeln!(
        t,
        "{path}: {} record(s), {} in the retrieval pool (profile {}), {} kept out; {} error(s), {} warning(s)",
        memory.records,
        memory.pool.len(),
        f.profile,
        memory.excluded.len(),
        f.errors(),
        f.warnings()
    );
    t
}
